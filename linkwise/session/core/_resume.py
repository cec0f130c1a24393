"""The resume points of a session file: where a replay can start instead of at the first recorded row.

A :class:`~linkwise.session.core._replay.Replay` keeps, after rows where its method rested, the state it reached (the
ActiveSession's :class:`~linkwise.ResumePoint` and its own), with the rows it covers. An undo, a changed or
withdrawn answer and a reopened file replay from the latest point whose rows are the first ones recorded now: the
stored rows stay the one source of truth, a point only spares replaying the rows it covers.

The newest point is also written to the user's cache folder when the session is closed (``$LINKWISE_CACHE``, else
``$XDG_CACHE_HOME/linkwise``, else ``~/.cache/linkwise``), named by the session's identity (when it was created,
its data and method), so a session opened again in another process starts there. The file is a pickle this
program wrote: it is used only if the code, the data and the recorded rows it covers are the same, and never
travels with the session file (a session file someone sends holds no code to run).
"""

import functools
import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path

import numpy as np

from linkwise.loop import ActiveSession, session_data
from linkwise.resume import ResumePoint
from linkwise.session.core._methods import encode_params, method_spec
from linkwise.session.data._cache import cache_folder

__all__ = ["ResumeCache"]

# Points kept in memory at most, and the bytes of their states: the newest always, older ones thinned out.
_MAX_POINTS = 24
_MAX_BYTES = 256 << 20
# Files of closed sessions kept in the cache folder, the most recently written (older ones are deleted).
_MAX_FILES = 32


@functools.cache
def _code_version():
    """A digest of linkwise's source: a point pickled by other code is never used."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parents[2].rglob("*.py")):  # linkwise/
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


class ResumeCache:
    """The resume points of one session file (a :class:`Replay`'s): kept, thinned, found, written and read."""

    def __init__(self, store, data):
        self._store, self._data = store, data
        self._points = []  # (method, rows covered, ResumePoint, the replay's own state pickled), oldest first
        self._current = None  # the newest point on the way to the state now (what write() writes)

    def keep(self, estimator, rows, point, state):
        """Keep ``point`` of a session of ``estimator`` with the replay's ``state`` (bytes), reached after applying
        ``rows``."""
        if self._current is not None and self._current[2] is point:
            return
        self._current = (_method(estimator), tuple(rows), point, state)
        self._points.append(self._current)
        while len(self._points) > _MAX_POINTS or (
                len(self._points) > 1 and sum(p.nbytes + len(s) for _, _, p, s in self._points) > _MAX_BYTES):
            self._thin()

    def _thin(self):
        """Drop the older point closest to the one before it (the newest and the current stay), so the rest stay
        spread out."""
        gaps = [len(self._points[k][1]) - (len(self._points[k - 1][1]) if k else 0)
                if self._points[k] is not self._current else np.inf for k in range(len(self._points) - 1)]
        del self._points[gaps.index(min(gaps))]

    def resume(self, estimator, rows):
        """The ActiveSession and replay state of the latest point of a session of ``estimator`` (its budget aside:
        the loop owns it) whose rows begin ``rows`` (None: none does).

        Parameters
        ----------
        estimator : ActiveEstimator
            The session's method now.
        rows : list of Answer
            The rows the replay will apply, in order.

        Returns
        -------
        tuple of (ActiveSession, dict) or None
            The session resumed at the point, and the replay's attributes there.
        """
        if not self._points:
            self._read(estimator)
        method = _method(estimator)
        self._current = None
        for entry in reversed(self._points):
            made_by, covered, point, state = entry
            if made_by == method and tuple(rows[: len(covered)]) == covered:
                self._current = entry
                return ActiveSession.resume(point, max_queries=estimator.max_queries), pickle.loads(state)
        return None

    # -- another process -----------------------------------------------------------
    def _path(self):
        meta = self._store.meta
        identity = json.dumps([meta.get("created_at"), self._data.fingerprint, meta.get("method"),
                               meta.get("params")], sort_keys=True, default=str)
        return cache_folder() / "resume" / f"{hashlib.sha256(identity.encode()).hexdigest()[:32]}.pickle"

    def write(self):
        """Write the newest point to the cache folder (what a session opened again in another process starts
        from); a folder that cannot be written leaves the session as it is: the point is only a shortcut."""
        if self._current is None or not self._store.meta:
            return
        method, rows, point, state = self._current
        path = self._path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False, suffix=".part") as f:
                part = Path(f.name)
                try:
                    pickle.dump((_code_version(), method, rows, point.dumps(), state), f, protocol=5)
                except BaseException:
                    part.unlink(missing_ok=True)
                    raise
            os.replace(part, path)
            for old in sorted(path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime)[:-_MAX_FILES]:
                old.unlink(missing_ok=True)
        except OSError:
            return

    def _read(self, estimator):
        """Take the point written by an earlier process, if it is this code's, on this data."""
        try:
            with open(self._path(), "rb") as f:
                version, method, rows, point, state = pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, ImportError):
            return
        if version != _code_version():
            return
        point = ResumePoint.loads(point, session_data(estimator, self._data.X))
        if point is not None:
            self._points.append((method, rows, point, state))


def _method(estimator):
    """What a point's session must share with the one resuming it: the method and its parameters, its budget
    aside."""
    return json.dumps([method_spec(estimator), {k: v for k, v in encode_params(estimator).items()
                                                 if k != "max_queries"}], sort_keys=True)
