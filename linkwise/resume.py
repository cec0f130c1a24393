"""Resume points: a session's state, copied where its method rests, from which a session goes on at once.

A person who undoes an answer, changes one in the review or opens a session again would otherwise wait for every
stored answer to be replayed, the method's upfront work included. Where a method rests (it yields
:class:`~linkwise.loop.Rest`: all of its state is in its attributes and the run's context), a session made with
``resume_points=True`` pickles its state now and then; :meth:`~linkwise.ActiveSession.resume` unpickles it, starts
the method's generator again from the rest, and the session goes on as the original did. The stored answers stay the
one source of truth: a resume point only spares replaying the answers before it, and the session layer uses one
only when the statements it was made from are the ones stored (:meth:`ResumePoint.dumps` for another process).

Large read-only arrays (the data, the model's inputs, the candidates, labels already in the history) are shared
with the session the point was taken from instead of copied: only what a method changes is copied.
"""

import hashlib
import io
import pickle
import time

import numpy as np

__all__ = ["ResumePoint"]

# Read-only arrays of at least this many bytes are shared with the session, not copied.
_SHARED_BYTES = 1 << 16


class _Pickler(pickle.Pickler):
    """Pickles a session's state, standing in for the data and large read-only arrays by a reference."""

    def __init__(self, file, shared):
        super().__init__(file, protocol=5)
        self.shared = shared
        self._index = {id(obj): k for k, obj in enumerate(shared)}

    def persistent_id(self, obj):
        if not isinstance(obj, np.ndarray):
            return None
        if id(obj) not in self._index:
            if obj.flags.writeable or obj.nbytes < _SHARED_BYTES:
                return None
            self._index[id(obj)] = len(self.shared)
            self.shared.append(obj)
        return self._index[id(obj)]


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, shared):
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid):
        return self.shared[pid]


def fingerprint(X):
    """A short SHA-256 of the validated data a session runs on (a resume point refuses other data)."""
    return hashlib.sha256(np.ascontiguousarray(X).view(np.uint8)).hexdigest()[:32]


class ResumePoint:
    """A session's state where its method rested, and what the session did after the rest in the same call.

    Made by :class:`~linkwise.ActiveSession` (``resume_point()``) with
    :meth:`take`, used by :meth:`~linkwise.ActiveSession.resume`; the
    statements it covers are counted by ``n_queries``, ``n_informed`` and
    ``n_marks``.

    Parameters
    ----------
    blob : bytes
        The pickled state.
    shared : list
        The objects the pickle refers to instead of copying them (the data first).
    data : str
        The data's fingerprint.
    counts : tuple of int
        ``(n_queries, n_informed, n_marks)``.
    seconds : float
        CPU seconds taking it cost.

    Attributes
    ----------
    n_queries, n_informed, n_marks : int
        Questions answered, relations stated and clusters marked when it was taken.
    seconds : float
        CPU seconds taking it cost (the session spaces its points by this).
    taken_at : float
        The process's CPU time (``time.process_time``) when it was taken.
    dataset : Dataset or None
        The session's loaded DataFrame (``data_``), shared, not copied; None in a point read by :meth:`loads`.
    """

    def __init__(self, blob, shared, data, counts, seconds):
        self._blob, self._shared, self._data, self.dataset = blob, shared, data, None
        self.n_queries, self.n_informed, self.n_marks = counts
        self.seconds = seconds
        self.tail = None  # (history entries appended after the rest, the monitor at the end of the call)
        self.calls = None  # the session's calls up to the one that made it
        self.taken_at = 0.0

    @classmethod
    def take(cls, state, X, data, counts):
        """Pickle a session's state, sharing the data and large read-only arrays.

        Parameters
        ----------
        state : dict
            The session's attributes.
        X : ndarray
            The session's validated data (shared, not copied).
        data : str
            Its fingerprint: a short SHA-256 of ``X``.
        counts : tuple of int
            ``(n_queries, n_informed, n_marks)`` of the session.

        Returns
        -------
        ResumePoint
            The point, ``seconds`` and ``taken_at`` set.
        """
        start = time.process_time()
        buffer, shared = io.BytesIO(), [X]
        _Pickler(buffer, shared).dump(state)
        point = cls(buffer.getvalue(), shared, data, counts, time.process_time() - start)
        point.taken_at = start + point.seconds
        return point

    @property
    def nbytes(self):
        """The bytes of the copied state (the shared arrays aside)."""
        return len(self._blob)

    def state(self):
        """A fresh copy of the session's attributes (the shared arrays shared again).

        Returns
        -------
        dict
            The attributes, as :meth:`take` was given them.
        """
        return _Unpickler(io.BytesIO(self._blob), self._shared).load()

    def dumps(self):
        """The point as bytes for another process, the data left out (:meth:`loads` is given it again).

        Returns
        -------
        bytes
            A pickle (protocol 5): load it only from a file this program wrote.
        """
        return pickle.dumps((self._blob, [None, *self._shared[1:]], self._data,
                             (self.n_queries, self.n_informed, self.n_marks), self.seconds, self.tail, self.calls),
                            protocol=5)

    @classmethod
    def loads(cls, data, X):
        """The point :meth:`dumps` wrote, for a session on ``X`` (the validated data the point was taken on).

        Parameters
        ----------
        data : bytes
            What :meth:`dumps` returned.
        X : ndarray
            The session's validated data; refused if it is not the point's.

        Returns
        -------
        ResumePoint or None
            None when ``X`` is other data than the point's.
        """
        blob, shared, fp, counts, seconds, tail, calls = pickle.loads(data)
        if fp != fingerprint(X):
            return None
        point = cls(blob, [X, *shared[1:]], fp, counts, seconds)
        point.tail, point.calls = tail, calls
        return point
