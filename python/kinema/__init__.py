"""Kinema from Python: run and step scenes, read their output, call the solvers (docs/python.md).

The C++ side is the extension module ``kinema._kinema``; this package adds the Python-friendly
layer (dict scenes, overrides as a dict, context managers) and the clean shutdown MPI needs.
"""
import atexit as _atexit

from . import _kinema
from ._kinema import (Error, InputError, __version__, backends, impact_operators, load_plugins, modules,
                      mprgp, mpi_rank, mpi_size, resolve_impact, solve_lp)
from .frames import read_diagnostics, read_frames
from .simulation import Simulation, _close_all

__all__ = [
    "Error", "InputError", "Simulation", "__version__", "backends", "impact_operators", "load_plugins",
    "modules", "mprgp", "mpi_rank", "mpi_size", "read_diagnostics", "read_frames", "resolve_impact", "solve_lp",
]


def _shutdown():
    # Open simulations write their last status and close their files while MPI still runs; then
    # MPI is finalised if this package started it (mpi4py finalises what it started itself).
    _close_all()
    _kinema._finalize()


# Registered at import: atexit runs last-in first-out, so when mpi4py was imported first its
# MPI_Finalize comes after this.
_atexit.register(_shutdown)
