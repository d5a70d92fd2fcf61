"""Checkpoints, restarts and signals of runs driven from Python, as for `kinema run`."""
import os
import signal
import subprocess
import sys
import time

import numpy as np

import kinema
from conftest import QUIET


def test_restart_latest_continues_a_closed_run_bitwise(cradle, tmp_path):
    over = dict(QUIET, **{"impact.sim.steps": 10, "run.checkpoint_every": 4, "impact.resolver.operator": "gr",
                          "impact.scene.speed": 2.0})
    with kinema.Simulation(cradle, over, output=tmp_path / "full") as full:
        full.run()
        ref = full.state()
    with kinema.Simulation(cradle, over, output=tmp_path / "part") as part:
        part.step(6)  # checkpoints after steps 4 (and none at 6: closed early)
    with kinema.Simulation(cradle, over, output=tmp_path / "part", restart="latest") as sim:
        assert sim.steps_done == 4
        sim.run()
        for key in ("positions", "velocities"):
            assert np.array_equal(sim.state()[key], ref[key]), key
    assert 'state: "completed"' in (tmp_path / "part" / "status.yaml").read_text()


_SCRIPT = """
import sys, kinema
sim = kinema.Simulation(sys.argv[1], {"impact.sim.steps": 10**8, "output.frame_every": 0,
                                      "run.log_level": "error"}, output=sys.argv[2])
print("ready", flush=True)
r = sim.run()
print(r["interrupted"], r["signal"], r["steps_completed"] > 0, bool(r["last_checkpoint"]), flush=True)
sim.close()
"""


def test_sigterm_stops_run_with_a_checkpoint(cradle, tmp_path):
    env = dict(os.environ)
    p = subprocess.Popen([sys.executable, "-c", _SCRIPT, str(cradle), str(tmp_path / "sig")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)  # inside run(): the stop handlers are installed
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out.split() == ["True", str(int(signal.SIGTERM)), "True", "True"], (out, err)
    status = (tmp_path / "sig" / "status.yaml").read_text()
    assert 'state: "interrupted"' in status and 'signal: "SIGTERM"' in status
    assert any((tmp_path / "sig" / "checkpoints").iterdir())


def test_petsc_run_and_clean_exit_when_kinema_owns_mpi(tmp_path):
    # kinema starts MPI (no mpi4py) and PETSc; at exit PETSc is finalised, then MPI: no message.
    script = ("import sys, kinema\n"
              "with kinema.Simulation({'module': 'poisson', 'poisson': {'n': 4, 'levels': 1},\n"
              "                        'run': {'log_level': 'warn'}}, backend='petsc', output=sys.argv[1]) as s:\n"
              "    s.run()\n"
              "    print(abs(s.diagnostics()['error_l2'][0] - 0.32534) < 1e-4)\n")  # as on eigen
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path / "p")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "True" and r.stderr == "", (r.stdout, r.stderr)
