"""kinema.Simulation: scenes from files and dicts, overrides, stepping, state and output."""
import numpy as np
import pytest

import kinema
from conftest import QUIET, poisson_scene


def test_dict_scene_runs_and_reports_state(tmp_path):
    with kinema.Simulation(poisson_scene(), output=tmp_path / "p") as sim:
        assert (sim.module, sim.backend, sim.total_steps, sim.steps_done) == ("poisson", "eigen", 2, 0)
        assert sim.step() == 1 and sim.steps_done == 1
        st = sim.state()
        assert st["points_per_side"][0] == 3 and st["u"].shape == (27,)
        # the n = 4 grid: about 1 % discretisation error
        assert np.max(np.abs(st["u"] - st["u_exact"])) < 0.02 * np.max(np.abs(st["u_exact"]))
        assert sim.run()["steps_completed"] == 2
        assert sim.state()["u"].shape == (7 ** 3,)
        d = sim.diagnostics()
        assert list(d)[:2] == ["step", "time"] and "wall_seconds" in d and list(d["step"]) == [1.0, 2.0]
        # second order: the error shrinks about 4x from n = 4 to n = 8
        assert 3.0 < d["error_l2"][0] / d["error_l2"][1] < 5.0
    assert 'state: "completed"' in (tmp_path / "p" / "status.yaml").read_text()


def test_dict_scene_default_output_is_out_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with kinema.Simulation(poisson_scene(levels=1), name="tiny") as sim:
        sim.run()
        assert sim.output == "out/tiny"
    assert (tmp_path / "out" / "tiny" / "frames.h5").exists()


def test_file_scene_with_overrides_steps_and_state(cradle, tmp_path):
    over = dict(QUIET, **{"impact.sim.steps": 10, "output.frame_every": 5})
    sim = kinema.Simulation(cradle, overrides=over, backend="eigen", output=tmp_path / "c")
    assert sim.total_steps == 10
    st = sim.state()
    assert st["positions"].shape == (5, 3) and st["velocities"].shape == (5, 3)
    assert st["body_id"].dtype == np.int64 and list(st["body_id"]) == [0, 1, 2, 3, 4]
    assert st["velocities"][0, 0] == pytest.approx(1.0) and np.all(st["velocities"][1:] == 0)
    assert sim.step(3) == 3 and sim.time == pytest.approx(0.03)
    # Newton's cradle: the first impact hands the whole velocity to the last ball
    v = sim.state()["velocities"]
    assert v[4, 0] == pytest.approx(1.0, abs=1e-12) and np.allclose(v[:4], 0.0, atol=1e-12)
    assert sim.step(100) == 7 and sim.done
    res = sim.run()
    assert res["steps_completed"] == 10 and not res["interrupted"]
    frames = sim.frames()
    assert [f["index"] for f in frames] == [0, 1] and frames[1]["time"] == pytest.approx(0.1)
    assert frames[1]["velocity"].shape == (5, 3) and frames[1]["body_id"].dtype == np.int64
    sim.close()
    assert sim.steps_done == 10 and kinema.read_diagnostics(tmp_path / "c")["step"][-1] == 10.0


def test_close_with_steps_left_marks_stopped(cradle, tmp_path):
    sim = kinema.Simulation(cradle, overrides=dict(QUIET, **{"impact.sim.steps": 10}), output=tmp_path / "s")
    sim.step(2)
    sim.close()
    status = (tmp_path / "s" / "status.yaml").read_text()
    assert 'state: "stopped"' in status and 'steps_completed: "2"' in status
    with pytest.raises(kinema.Error, match="closed"):
        sim.step()


def test_sets_like_the_cli(cradle, tmp_path):
    sim = kinema.Simulation(cradle, sets=["impact.sim.steps=4", "run.log_level=warn"], output=tmp_path / "x")
    assert sim.total_steps == 4
    sim.run()
    sim.close()


def test_stepping_and_run_give_the_same_trajectory(cradle, tmp_path):
    over = dict(QUIET, **{"impact.sim.steps": 12, "impact.resolver.operator": "gr"})
    a = kinema.Simulation(cradle, over, output=tmp_path / "a")
    a.run()
    b = kinema.Simulation(cradle, over, output=tmp_path / "b")
    while not b.done:
        b.step()
    b.run()
    for key in ("positions", "velocities"):
        assert np.array_equal(a.state()[key], b.state()[key])
    da, db = a.diagnostics(), b.diagnostics()
    for col in da:
        if "seconds" not in col:
            assert np.array_equal(da[col], db[col]), col
    a.close()
    b.close()
