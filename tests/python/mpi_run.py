"""Two ranks on MPI_COMM_WORLD (ctest python_mpi_np2): mpi4py initialises MPI, kinema uses it.

Runs the Newton's cradle scene distributed, gathers each rank's rows of the state with mpi4py
and checks them against the one-ball-leaves answer, the diagnostics on both ranks, and the frames.
Usage: mpiexec -n 2 python3 tests/python/mpi_run.py OUTPUT_DIR
"""
import os
import sys

from mpi4py import MPI  # first: MPI is initialised by mpi4py, as in a user's mpi4py program

import numpy as np

import kinema

comm = MPI.COMM_WORLD
assert comm.Get_size() == 2 and kinema.mpi_size() == 2 and kinema.mpi_rank() == comm.Get_rank()
source = os.environ.get("KINEMA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
scene = os.path.join(source, "modules", "impact", "scenes", "cradle.yaml")
out = sys.argv[1]

sim = kinema.Simulation(scene, {"impact.sim.steps": 20, "output.frame_every": 10, "run.log_level": "warn"},
                        output=out, overwrite=True)
sim.step(5)
st = sim.state()
ids = np.concatenate(comm.allgather(st["body_id"]))
v = np.concatenate(comm.allgather(st["velocities"]))
assert sorted(ids.tolist()) == [0, 1, 2, 3, 4], ids
order = np.argsort(ids)
assert np.allclose(v[order][:, 0], [0, 0, 0, 0, 1], atol=1e-12), v
result = sim.run()
assert result["steps_completed"] == 20 and sim.steps_done == 20
d = sim.diagnostics()
assert d["step"].tolist() == list(range(1, 21))
sim.close()
frames = kinema.read_frames(out)
assert len(frames) == 2 and frames[-1]["positions"].shape == (5, 3)
# every rank sees the same diagnostics (the runner reduces them before adding a row)
assert comm.allgather(d["time"].tolist())[0] == comm.allgather(d["time"].tolist())[1]
# an input error is raised on every rank alike
try:
    kinema.Simulation(scene, {"impact.sim.stepz": 1}, output=out + "_bad")
    raise AssertionError("no InputError")
except kinema.InputError as e:
    assert "stepz" in str(e)
# A distributed backend: PETSc vectors over both ranks; each rank's state() holds its z-planes.
# PETSc is finalised by kinema before mpi4py's MPI_Finalize (mpi.cpp).
with kinema.Simulation({"module": "poisson", "poisson": {"n": 4, "levels": 1}, "run": {"log_level": "warn"}},
                       backend="petsc", output=out + "_petsc", overwrite=True) as p:
    p.run()
    u = p.state()["u"]
    assert comm.allreduce(len(u)) == 27 and 0 < len(u) < 27
    assert abs(p.diagnostics()["error_l2"][0] - 0.32534) < 1e-4  # n = 4: as on one rank and on eigen
comm.Barrier()
if comm.Get_rank() == 0:
    print("python_mpi_np2: ok on", comm.Get_size(), "ranks")
