"""The package itself: what it registers, and that it loads without LD_LIBRARY_PATH."""
import os
import subprocess
import sys

import kinema


def test_registry_and_version():
    assert set(kinema.modules()) >= {"avi", "bdem", "der", "impact", "poisson"}
    assert set(kinema.backends()) >= {"eigen", "petsc", "trilinos"}
    assert kinema.__version__.count(".") == 2


def test_imports_in_a_fresh_process_without_ld_library_path():
    # the extension finds build/lib (or the installed lib) through its RPATH
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    r = subprocess.run([sys.executable, "-c", "import kinema; print(kinema.mpi_size(), len(kinema.modules()) >= 5)"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.split() == ["1", "True"], (r.stdout, r.stderr)
