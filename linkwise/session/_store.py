"""The session file: one SQLite database (WAL) per human session.

It holds what is needed to resume exactly: the data's fingerprint and feature
options, the method and its parameters (with the seed), and every answer with
its time. Each answer is committed before the next question is shown, so a
crash loses nothing. Undone and corrected answers are not erased: the original
is kept in a ``retracted`` table with the reason.
"""

import json
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from linkwise._validation import InvalidParameterError

__all__ = ["Answer", "SessionStore", "SessionFileError", "FORMAT"]

FORMAT = 1  # bumped when the schema changes

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    i INTEGER NOT NULL,
    j INTEGER NOT NULL,
    answer INTEGER CHECK (answer IN (0, 1)),
    answered_at TEXT NOT NULL,
    CHECK (0 <= i AND i < j)
);
CREATE TABLE IF NOT EXISTS retracted (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    seq INTEGER NOT NULL,
    i INTEGER NOT NULL,
    j INTEGER NOT NULL,
    answer INTEGER,
    answered_at TEXT NOT NULL,
    retracted_at TEXT NOT NULL,
    reason TEXT NOT NULL
);
"""


class SessionFileError(InvalidParameterError):
    """A session file cannot be used: missing, not a session, or made for other data or another method."""


class Answer(NamedTuple):
    """One stored answer. ``answer`` is True (same), False (different) or None (don't know)."""

    seq: int
    i: int
    j: int
    answer: bool | None
    answered_at: str


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _to_db(answer):
    return None if answer is None else int(bool(answer))


def _from_db(value):
    return None if value is None else bool(value)


class SessionStore:
    """Answers and settings of one human session, in a SQLite file.

    Parameters
    ----------
    path : str or Path
        The session file.
    create : bool, default=True
        Create the file when it does not exist (False: a missing file is an error).
    exclusive : bool, default=False
        Hold the session for this object alone until :meth:`close`: a second
        exclusive opening, in this or another process, raises
        :class:`SessionFileError` instead of interleaving two people's
        questions in one file. The lock is an OS lock on ``<path>.lock``, so a
        crashed process never leaves the session locked.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.db")
    >>> store = SessionStore(path)
    >>> store.is_new
    True
    >>> store.write_meta({"method": "cobras"})
    >>> store.add(3, 1, True).answer
    True
    >>> [(a.i, a.j, a.answer) for a in store.answers()]
    [(1, 3, True)]
    >>> store.close()
    """

    def __init__(self, path, *, create=True, exclusive=False):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise SessionFileError(f"No session file at {self.path}.")
        self._lock = _hold_lock(self.path) if exclusive else None
        try:
            # one connection shared by the web server's threads; the session controller serialises access
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # an answer survives a crash once add() returns
            self._db.executescript(_SCHEMA)
            rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        except sqlite3.DatabaseError as exc:
            self._release()
            raise SessionFileError(f"{self.path} is not a linkwise session file ({exc}).") from None
        self.meta = {k: json.loads(v) for k, v in rows}
        if self.meta and self.meta.get("format") != FORMAT:
            self.close()
            raise SessionFileError(
                f"{self.path} is a session file of format {self.meta.get('format')!r}; "
                f"this linkwise reads format {FORMAT}."
            )

    @property
    def is_new(self):
        """True until :meth:`write_meta` has described the session."""
        return not self.meta

    def write_meta(self, meta):
        """Describe a new session (data fingerprint, options, method, parameters)."""
        meta = {"format": FORMAT, "created_at": _now(), **meta}
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(k, json.dumps(v)) for k, v in meta.items()],
            )
        self.meta = meta

    def add(self, i, j, answer):
        """Store and commit one answer; returns it as an :class:`Answer`."""
        i, j = (int(i), int(j)) if i < j else (int(j), int(i))
        at = _now()
        with self._db:
            self._db.execute("BEGIN")
            cur = self._db.execute(
                "INSERT INTO answers (i, j, answer, answered_at) VALUES (?, ?, ?, ?)", (i, j, _to_db(answer), at)
            )
        return Answer(cur.lastrowid, i, j, None if answer is None else bool(answer), at)

    def answers(self):
        """Every live answer, oldest first."""
        rows = self._db.execute("SELECT seq, i, j, answer, answered_at FROM answers ORDER BY seq").fetchall()
        return [Answer(s, i, j, _from_db(a), t) for s, i, j, a, t in rows]

    def _retract(self, seq, reason):
        row = self._db.execute("SELECT seq, i, j, answer, answered_at FROM answers WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise KeyError(f"no stored answer #{seq}")
        self._db.execute(
            "INSERT INTO retracted (seq, i, j, answer, answered_at, retracted_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*row, _now(), reason),
        )
        return row

    def undo(self, seq):
        """Remove answer ``seq`` (kept in the ``retracted`` table)."""
        with self._db:
            self._db.execute("BEGIN")
            self._retract(seq, "undone")
            self._db.execute("DELETE FROM answers WHERE seq = ?", (seq,))

    def correct(self, seq):
        """Flip answer ``seq`` (same <-> different): the person said it was wrong.

        The original is kept in the ``retracted`` table.
        """
        with self._db:
            self._db.execute("BEGIN")
            row = self._retract(seq, "corrected")
            if row[3] is None:
                raise ValueError(f"answer #{seq} is 'don't know'; only a same/different answer can be corrected")
            self._db.execute("UPDATE answers SET answer = ?, answered_at = ? WHERE seq = ?", (1 - row[3], _now(), seq))

    def retracted(self):
        """Undone and corrected answers as dicts (original answer, when and why it was retracted)."""
        rows = self._db.execute(
            "SELECT seq, i, j, answer, answered_at, retracted_at, reason FROM retracted ORDER BY id"
        ).fetchall()
        keys = ("seq", "i", "j", "answer", "answered_at", "retracted_at", "reason")
        return [dict(zip(keys, (*r[:3], _from_db(r[3]), *r[4:]))) for r in rows]

    def close(self):
        """Close the database connection (and give up the session, if held exclusively)."""
        self._db.close()
        self._release()

    def _release(self):
        if self._lock is not None:
            self._lock.close()  # closing the descriptor drops the OS lock
            self._lock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _hold_lock(path):
    """Open ``<path>.lock`` and lock it without waiting; the open file keeps the lock."""
    lock_path = path.with_name(path.name + ".lock")
    f = open(lock_path, "a+")
    try:
        _try_lock(f)
    except OSError:
        try:
            f.seek(0)
            holder = f.read().strip() or "unknown"
        except OSError:  # Windows: the holder's locked byte cannot be read
            holder = "unknown"
        f.close()
        raise SessionFileError(
            f"{path} is open in another linkwise session (process {holder}); answer the questions there, "
            "or stop that session first (its answers are saved)."
        ) from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    return f


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(f):
        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _try_lock(f):
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
