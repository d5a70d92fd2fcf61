"""Simulation.run() writes what `kinema run` writes for the same scene: frames and diagnostics."""
import csv
import subprocess

import numpy as np

import kinema
from conftest import QUIET


def _csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def _compare(py_dir, cli_dir):
    cols, a = _csv(py_dir / "diagnostics.csv")
    cols_cli, b = _csv(cli_dir / "diagnostics.csv")
    assert cols == cols_cli
    # every column but the timings (wall_seconds, and the modules' seconds_* / *_seconds)
    keep = [i for i, c in enumerate(cols) if "seconds" not in c]
    assert np.array_equal(a[:, keep], b[:, keep])
    fa, fb = kinema.read_frames(py_dir), kinema.read_frames(cli_dir)
    assert len(fa) == len(fb) > 0
    for x, y in zip(fa, fb):
        assert x.keys() == y.keys()
        for k in x:
            if isinstance(x[k], np.ndarray):
                assert x[k].dtype == y[k].dtype and np.array_equal(x[k], y[k]), k
            elif not isinstance(x[k], dict):
                assert x[k] == y[k], k
    da, db = kinema.read_diagnostics(py_dir), kinema.read_diagnostics(cli_dir)
    assert da.keys() == db.keys() and np.array_equal(da["step"], db["step"])


def test_impact_run_matches_cli(cradle, kinema_bin, tmp_path):
    sets = {"impact.sim.steps": 15, "output.frame_every": 4, "impact.resolver.restitution": 0.5,
            "impact.scene.speed": 2}
    sim = kinema.Simulation(cradle, overrides=dict(QUIET, **sets), output=tmp_path / "py")
    sim.run()
    sim.close()
    cmd = [str(kinema_bin), "run", str(cradle), "--output", str(tmp_path / "cli")]
    for k, v in dict(QUIET, **sets).items():
        cmd += ["--set", f"{k}={v}"]
    subprocess.run(cmd, check=True, capture_output=True)
    _compare(tmp_path / "py", tmp_path / "cli")


def test_poisson_dict_matches_cli_file(kinema_bin, tmp_path):
    scene = tmp_path / "p.yaml"
    scene.write_text("module: poisson\nbackend: eigen\npoisson: {n: 4, levels: 2}\nrun: {log_level: warn}\n")
    with kinema.Simulation({"module": "poisson", "backend": "eigen", "poisson": {"n": 4, "levels": 2},
                            "run": {"log_level": "warn"}}, output=tmp_path / "py") as sim:
        sim.run()
    subprocess.run([str(kinema_bin), "run", str(scene), "--output", str(tmp_path / "cli")], check=True,
                   capture_output=True)
    _compare(tmp_path / "py", tmp_path / "cli")
