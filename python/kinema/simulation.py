"""kinema.Simulation: a scene run step by step from Python, writing what ``kinema run`` writes."""
import json
import os
import weakref

from . import _kinema
from .frames import read_diagnostics, read_frames

_live = weakref.WeakSet()


def _close_all():
    for sim in list(_live):
        try:
            sim.close()
        except Exception:  # at exit: one failed close must not keep the others open
            pass


def _json_default(value):
    # numpy scalars and arrays (np.int64 is not an int, arrays are not lists)
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot put a {type(value).__name__} into a scene")


def _assignment(key, value):
    # A string is passed as the CLI's --set passes it (read as YAML: a path or a name stays a
    # string); anything else is written as JSON, which is YAML.
    text = value if isinstance(value, str) else json.dumps(value, default=_json_default)
    return f"{key}={text}"


class Simulation:
    """A run of a scene: ``Simulation("scene.yaml")`` or ``Simulation({"module": "poisson", ...})``.

    scene:     a scene file (str or path) or a dict with the same content.
    overrides: dict of key -> value, as ``--set key=value`` (applied in order, after ``sets``).
    sets:      list of "key=value" strings, exactly as the CLI's --set.
    backend:   as --backend; output: as --output (the output directory); restart: as --restart
               (a checkpoint file or "latest"); overwrite: as --overwrite.
    name:      for a dict scene, the name used in messages and for the default output directory
               out/<name> (a file scene uses its file name, as the CLI).

    The output directory is created here (after the scene validated: a bad scene raises
    InputError and writes nothing). Every method is collective under MPI.
    """

    def __init__(self, scene, overrides=None, *, sets=None, backend=None, output=None, restart=None,
                 overwrite=False, name="scene"):
        assignments = list(sets or [])
        assignments += [_assignment(k, v) for k, v in (overrides or {}).items()]
        if isinstance(scene, dict):
            text = json.dumps(scene, indent=1, default=_json_default)
            has_dir = "output.directory" in (overrides or {}) or \
                isinstance(scene.get("output"), dict) and "directory" in scene["output"] or \
                any(s.startswith("output.directory=") for s in sets or [])
            if output is None and not has_dir:
                output = os.path.join("out", name)
            self._sim = _kinema._Simulation(None, text, name, assignments, backend,
                                            None if output is None else os.fspath(output), restart, overwrite)
        else:
            self._sim = _kinema._Simulation(os.fspath(scene), None, "", assignments, backend,
                                            None if output is None else os.fspath(output), restart, overwrite)
        _live.add(self)

    def step(self, n=1):
        """Runs up to ``n`` steps (fewer at the end); returns how many ran. Frames and checkpoints
        are written at their cadence, as by the CLI."""
        return self._sim.step(int(n))

    def run(self):
        """Runs to the end and finishes the run (status.yaml completed, diagnostics stored in
        frames.h5); returns a dict: output, steps_completed, last_checkpoint, interrupted, signal,
        restart_command. A SIGINT/SIGTERM/SIGUSR1 stops it after the current step with a
        checkpoint (interrupted = True), as it stops ``kinema run``."""
        self._sim.run()
        return self._sim.finish()

    def close(self):
        """Ends the run (a run with steps left is marked ``stopped`` in status.yaml) and closes its
        files. The output stays readable: frames(), diagnostics() of the file, time, steps_done."""
        self._sim.close()
        _live.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def state(self):
        """The module's current state on this rank as a dict of numpy arrays (positions,
        velocities, ... depending on the module; docs/python.md lists them)."""
        return self._sim.state()

    def diagnostics(self):
        """The diagnostics rows so far as a dict of numpy columns (step, time, the module's
        columns, wall_seconds): what diagnostics.csv holds."""
        try:
            return self._sim.diagnostics()
        except _kinema.Error:
            if not self._sim.finished:
                raise
            return read_diagnostics(self._sim.frames_path())

    def frames(self):
        """The frames written so far (kinema.read_frames of this run's frames.h5)."""
        return read_frames(self._sim.frames_path())

    @property
    def time(self):
        """Simulated time after the last step (static problems: the step index)."""
        return self._sim.time

    @property
    def steps_done(self):
        return self._sim.steps_done

    @property
    def total_steps(self):
        return self._sim.total_steps

    @property
    def done(self):
        """True when no step is left."""
        return self._sim.done

    @property
    def output(self):
        """The output directory."""
        return self._sim.output

    @property
    def module(self):
        return self._sim.module

    @property
    def backend(self):
        return self._sim.backend

    @property
    def config(self):
        """The resolved configuration (every parameter with its value) as YAML text."""
        return self._sim.resolved_config

    def summary(self):
        return self._sim.summary()

    def __repr__(self):
        try:
            return (f"<kinema.Simulation {self.module} on {self.backend}: step {self.steps_done} of "
                    f"{self.total_steps}, t = {self.time:g}, output {self.output}>")
        except _kinema.Error:
            return f"<kinema.Simulation (closed), output {self.output}>"
