"""Every built-in module gives a meaningful state(), on small versions of its own scenes."""
import numpy as np

import kinema
from conftest import QUIET, SOURCE


def _scene(module, name):
    return SOURCE / "modules" / module / "scenes" / f"{name}.yaml"


def _check_rows(st, n, *names):
    for name in names:
        assert st[name].shape == (n, 3), name
        assert np.all(np.isfinite(st[name])), name


def test_der_strands(tmp_path):
    over = dict(QUIET, **{"der.strands.vertices": 8, "der.simulate.frames": 2})
    with kinema.Simulation(_scene("der", "horizontal"), over, output=tmp_path / "d") as sim:
        st = sim.state()
        _check_rows(st, 8, "positions", "velocities")
        assert st["strand_vertices"].tolist() == [8] and np.all(st["strand"] == 0)
        sim.run()
        st = sim.state()
        assert st["simulating"][0] == 1.0 and np.all(np.isfinite(st["velocities"]))


def test_bdem_particles(tmp_path):
    over = dict(QUIET, **{"bdem.steps": 3})
    with kinema.Simulation(_scene("bdem", "single_bond"), over, output=tmp_path / "b") as sim:
        sim.step(3)
        st = sim.state()
        _check_rows(st, 2, "positions", "velocities")
        assert st["orientations"].shape == (2, 4) and st["particle_id"].tolist() == [0, 1]
        assert np.all(st["masses"] > 0) and st["bonds_alive"][0] == 1.0


def test_avi_vertices(tmp_path):
    over = dict(QUIET, **{"avi.scene.balls_2d.count": 20, "avi.end_time": 0.04, "run.checkpoint_every": 0})
    with kinema.Simulation(_scene("avi", "balls_2d"), over, output=tmp_path / "a") as sim:
        before = sim.state()["positions"]
        sim.run()
        st = sim.state()
        assert st["positions"].shape == before.shape and before.shape[1] == 3 and len(before) >= 20
        assert not np.array_equal(st["positions"], before)  # the balls moved
        assert np.all(st["masses"] > 0) and st["object"].dtype == np.int64
