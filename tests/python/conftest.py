"""Shared fixtures of the Python tests: the CLI to compare with and the source tree's scenes.

ctest sets KINEMA_BIN and KINEMA_SOURCE_DIR (tests/python/CMakeLists.txt); run by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q tests/python
"""
import os
import pathlib

import pytest

SOURCE = pathlib.Path(os.environ.get("KINEMA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BIN = pathlib.Path(os.environ.get("KINEMA_BIN", SOURCE / "build" / "bin" / "kinema"))

# Runs quiet: the tests read results, not log lines.
QUIET = {"run.log_level": "warn"}


@pytest.fixture
def cradle():
    return SOURCE / "modules" / "impact" / "scenes" / "cradle.yaml"


@pytest.fixture
def kinema_bin():
    assert BIN.exists(), f"the kinema CLI is not built: {BIN}"
    return BIN


def poisson_scene(**poisson):
    """A small Poisson scene as a dict (two levels on 4 and 8 cells: milliseconds)."""
    p = {"n": 4, "levels": 2, "solution": "exponential", "solver": {"type": "cg", "preconditioner": "jacobi",
                                                                      "rtol": 1e-10}}
    p.update(poisson)
    return {"module": "poisson", "backend": "eigen", "poisson": p, "run": {"log_level": "warn"}}
