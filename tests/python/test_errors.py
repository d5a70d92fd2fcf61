"""Kinema's errors as Python exceptions, with the CLI's messages."""
import subprocess

import pytest

import kinema
from conftest import QUIET, poisson_scene


def test_exception_classes():
    assert issubclass(kinema.Error, RuntimeError)
    assert issubclass(kinema.InputError, ValueError) and issubclass(kinema.InputError, kinema.Error)


def test_unknown_key_is_an_input_error_with_the_cli_message(cradle, kinema_bin, tmp_path):
    with pytest.raises(kinema.InputError) as e:
        kinema.Simulation(cradle, overrides={"impact.sim.stepz": 3}, output=tmp_path / "x")
    assert "impact.sim.stepz" in str(e.value) and "steps" in str(e.value)  # names the close key
    assert not (tmp_path / "x").exists()  # nothing written for bad input
    cli = subprocess.run([str(kinema_bin), "run", str(cradle), "--set", "impact.sim.stepz=3", "--output",
                          str(tmp_path / "y")], capture_output=True, text=True)
    assert cli.returncode == 2 and str(e.value) in cli.stderr


def test_dict_scene_errors_name_the_scene(tmp_path):
    with pytest.raises(kinema.InputError, match="module: missing required key"):
        kinema.Simulation({"backend": "eigen"}, output=tmp_path / "m")
    with pytest.raises(ValueError, match="poisson.levels"):
        kinema.Simulation(poisson_scene(levels=-1), output=tmp_path / "n")


def test_failure_while_running_is_an_error_with_restart_hint(cradle, tmp_path):
    sim = kinema.Simulation(cradle, overrides=dict(QUIET, **{"impact.sim.steps": 5, "run.fail_at_step": 3}),
                            output=tmp_path / "f")
    with pytest.raises(kinema.Error) as e:
        sim.run()
    assert not isinstance(e.value, kinema.InputError)
    assert "rehearsed failure" in str(e.value) and "during step 3 of 5" in str(e.value)
    assert "failed" in (tmp_path / "f" / "status.yaml").read_text()
    sim.close()


def test_solver_input_errors():
    with pytest.raises(kinema.InputError, match="square"):
        kinema.mprgp([[1.0, 2.0]], [1.0])
    with pytest.raises(kinema.InputError, match="unknown|algorithm"):
        kinema.solve_lp([1.0], algorithm="barrier")
