"""Reading a run's output file frames.h5 (layout: docs/output.md) into numpy."""
import os

from . import _kinema


def read_frames(path):
    """The frames of a run as a list of dicts, one per frame, in order.

    ``path`` is a frames.h5 file or a run's output directory. Each dict holds ``index``, ``time``,
    ``mesh`` (uniform_grid, points or polylines), ``collection`` and every dataset of the frame by
    name (``positions`` and the module's fields) as numpy arrays: float64, or int64 for integer
    fields; cell grids are nested dicts under ``cells``.
    """
    return _kinema._read_frames(_frames_file(path))


def read_diagnostics(path):
    """The diagnostics table stored in frames.h5 (the rows of diagnostics.csv up to the last
    checkpoint or the end of the run) as a dict of numpy columns."""
    return _kinema._read_diagnostics(_frames_file(path))


def _frames_file(path):
    path = os.fspath(path)
    return os.path.join(path, "frames.h5") if os.path.isdir(path) else path
