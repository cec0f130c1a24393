"""The session file: one SQLite database (WAL) per human session.

It holds what resuming exactly needs: the data's fingerprint and feature options, the method with its parameters
(and seed), and every answer with its time, committed before the next question is shown (a crash loses nothing).
Undone and corrected answers are not erased but kept in a ``retracted`` table with the reason.

A session file is marked as linkwise's by its SQLite ``application_id``. An existing file is inspected read-only
first, and any other file (empty, not SQLite, another program's database) is refused untouched: a mistyped
``--session`` never costs the user a file.
"""

import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from linkwise._validation import InvalidParameterError
from linkwise.graph import pair_key

__all__ = ["ANSWER_WORDS", "Answer", "Refused", "SessionStore", "SessionFileError", "FORMAT", "KINDS"]

FORMAT = 2  # bumped when the schema changes; a format-1 file is migrated when opened for writing
APPLICATION_ID = 0x4C4B5753  # "LKWS" in the SQLite header: this file was made by linkwise
KINDS = ("question", "imported", "pure", "complete", "move")
ANSWER_WORDS = {True: "same", False: "different", None: "don't know"}  # how an answer is shown and written

# kind: what stated it (an answer to a question, an imported constraint, feedback on a cluster, a moved item);
# 'pure'/'complete' rows name their cluster's rows in members (i = j = its first row); rows of one action share it
_COLUMNS = """i INTEGER NOT NULL, j INTEGER NOT NULL, answer INTEGER CHECK (answer IN (0, 1)), answered_at TEXT NOT NULL,
    annotator TEXT, kind TEXT NOT NULL DEFAULT 'question' CHECK (kind IN ('question', 'imported', 'pure', 'complete',
    'move')), members TEXT, action INTEGER"""
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (seq INTEGER PRIMARY KEY AUTOINCREMENT, {_COLUMNS}, CHECK (0 <= i AND i <= j));
CREATE TABLE IF NOT EXISTS retracted (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, {_COLUMNS},
    retracted_at TEXT NOT NULL, reason TEXT NOT NULL);
"""
_FIELDS = "seq, i, j, answer, answered_at, annotator, kind, members, action"
_FORMAT1_FIELDS = "seq, i, j, answer, answered_at, NULL, 'question', NULL, NULL"  # read-only look at a format-1 file


def _migrate_format1(db):
    """Format 1 -> 2 (in the caller's transaction): the new columns, and the answers table rebuilt since its old
    CHECK forbids the i = j of a cluster's row; its AUTOINCREMENT counter kept, so a retracted seq is never reused."""
    (last,) = db.execute("SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'answers'").fetchone()
    db.execute(f"CREATE TABLE answers2 (seq INTEGER PRIMARY KEY AUTOINCREMENT, {_COLUMNS}, CHECK (0 <= i AND i <= j))")
    db.execute(f"INSERT INTO answers2 ({_FIELDS}) SELECT {_FORMAT1_FIELDS} FROM answers")
    db.execute("DROP TABLE answers")
    db.execute("ALTER TABLE answers2 RENAME TO answers")
    db.execute("DELETE FROM sqlite_sequence WHERE name IN ('answers', 'answers2')")
    db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('answers', ?)", (last,))
    for column in ("annotator TEXT", "kind TEXT NOT NULL DEFAULT 'question'", "members TEXT", "action INTEGER"):
        db.execute(f"ALTER TABLE retracted ADD COLUMN {column}")
    db.execute("UPDATE meta SET value = '2' WHERE key = 'format'")


class SessionFileError(InvalidParameterError):
    """A session file cannot be used: missing, not a session, or made for other data or another method."""


class Refused(RuntimeError):
    """An action that no longer fits the session's state (a stale question, an open contradiction)."""


class Answer(NamedTuple):
    """One stored statement. ``answer`` is True (same), False (different) or None (don't know, or a cluster's
    feedback); ``annotator`` None is the session's one person; ``kind`` one of :data:`KINDS`; ``members`` the
    rows of a 'pure'/'complete' cluster (else None); ``action`` the ``seq`` of the first row stored with it."""

    seq: int
    i: int
    j: int
    answer: bool | None
    answered_at: str
    annotator: str | None = None
    kind: str = "question"
    members: tuple | None = None
    action: int | None = None


def _answer(row):
    seq, i, j, answer, at, annotator, kind, members, action = row
    return Answer(seq, i, j, _from_db(answer), at, annotator, kind,
                  None if members is None else tuple(json.loads(members)), action)


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _from_db(value):
    return None if value is None else bool(value)


class SessionStore:
    """Answers and settings of one human session, in a SQLite file.

    Parameters
    ----------
    path : str or Path
        The session file. An existing file must be a linkwise session file:
        any other file is refused with :class:`SessionFileError` before
        anything is written to it.
    create : bool, default=True
        Create the file when it does not exist (False: a missing file is an error).
    exclusive : bool, default=False
        Hold the session for this object alone until :meth:`close`: a second
        exclusive opening, in this or another process and under any name of
        the file (a symlink), raises :class:`SessionFileError` instead of
        interleaving two people's questions in one file. The lock is an OS
        lock on ``<resolved path>.lock``, so a crashed process never leaves
        the session locked.
    read_only : bool, default=False
        Open an existing session file for reading only (SQLite ``mode=ro``):
        the file is never written, and a running session is not disturbed.

    Attributes
    ----------
    meta : dict
        The session's description (empty until :meth:`write_meta`).
    created : bool
        True when this opening created the file (only then may a failed
        start remove it).

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

    def __init__(self, path, *, create=True, exclusive=False, read_only=False):
        self.path = Path(path)
        # every name of the file (symlinks, relative paths) maps to one database and one lock
        self._target = target = Path(os.path.realpath(self.path))
        if target.exists():
            with self._errors():  # before even a lock file is made beside a file that may not be linkwise's
                _inspect(self.path, target)
        elif read_only or not create:
            raise SessionFileError(f"No session file at {self.path}.")
        self._db = None
        self._lock = _hold_lock(self.path, target) if exclusive else None
        try:
            with self._errors():
                # again, now that no other session can change it
                self.created = not target.exists()
                self.meta = {} if self.created else _inspect(self.path, target)
                if read_only:
                    self._db = _connect_read_only(target)
                    return
                # one connection shared by the web server's threads; the session controller serialises access
                self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
                if self.created:
                    self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")  # an answer survives a crash once add() returns
                if self.meta.get("format") == 1:
                    with self._db:
                        self._db.execute("BEGIN IMMEDIATE")
                        _migrate_format1(self._db)
                    self.meta["format"] = FORMAT
                self._db.executescript(_SCHEMA)
        except BaseException:
            self.close()
            raise

    @contextmanager
    def _errors(self):
        """Report a damaged or unreadable file as a :class:`SessionFileError` naming it."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise SessionFileError(f"The session file {self.path} cannot be used: {exc}.") from None

    def _read(self, sql, args=()):
        with self._errors():
            return self._db.execute(sql, args).fetchall()

    @property
    def is_new(self):
        """True until :meth:`write_meta` has described the session."""
        return not self.meta

    def write_meta(self, meta):
        """Describe a new session (data fingerprint, options, method, parameters)."""
        meta = {"format": FORMAT, "created_at": _now(), **meta}
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 [(k, json.dumps(v)) for k, v in meta.items()])
        self.meta = meta

    def add(self, i, j, answer, *, annotator=None, kind="question"):
        """Store and commit one answer; returns it as an :class:`Answer`."""
        return self.add_many([(i, j, answer)], annotator=annotator, kind=kind)[0]

    def add_many(self, rows, *, annotator=None, kind):
        """Store and commit pair statements ``(i, j, answer)`` as one action (undone together); returns them."""
        if kind not in ("question", "imported", "move"):
            raise ValueError(f"'kind' must be 'question', 'imported' or 'move' for pairs, got {kind!r}")
        at = _now()
        return self._insert([(*pair_key(i, j), None if a is None else bool(a), at, annotator, kind, None)
                             for i, j, a in rows])

    def add_mark(self, members, complete, *, annotator=None):
        """Store and commit feedback on a cluster: its rows ``members`` are pure (and ``complete``)."""
        members = sorted({int(m) for m in members})
        return self._insert([(members[0], members[0], None, _now(), annotator, "complete" if complete else "pure",
                              json.dumps(members))])[0]

    def _insert(self, rows):
        with self._db:
            self._db.execute("BEGIN")
            stored, action = [], None
            for row in rows:
                seq = self._db.execute("INSERT INTO answers (i, j, answer, answered_at, annotator, kind, members, "
                                       "action) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*row, action)).lastrowid
                if action is None:
                    action = seq
                    self._db.execute("UPDATE answers SET action = ? WHERE seq = ?", (seq, seq))
                stored.append(_answer((seq, *row, action)))
        return stored

    @property
    def _fields(self):
        return _FIELDS if self.meta.get("format", FORMAT) == FORMAT else _FORMAT1_FIELDS

    def answers(self):
        """Every live statement, oldest first."""
        return [_answer(r) for r in self._read(f"SELECT {self._fields} FROM answers ORDER BY seq")]

    def _retract(self, seqs, reason):
        """Begin the transaction (in ``with self._db``) that keeps answers ``seqs`` in ``retracted``; their rows."""
        self._db.execute("BEGIN")
        marks = ", ".join("?" * len(seqs))
        rows = self._read(f"SELECT {_FIELDS} FROM answers WHERE seq IN ({marks}) ORDER BY seq", seqs)
        if not rows:
            raise KeyError(f"no stored answer #{seqs[0]}")
        self._db.executemany(f"INSERT INTO retracted ({_FIELDS}, retracted_at, reason) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [(*row, _now(), reason) for row in rows])
        return rows

    def undo(self, seq):
        """Remove answer ``seq`` and the rest of its action (kept in the ``retracted`` table)."""
        with self._db:
            seqs = [s for (s,) in self._read("SELECT seq FROM answers WHERE coalesce(action, seq) = (SELECT "
                                             "coalesce(action, seq) FROM answers WHERE seq = ?)", (seq,))] or [seq]
            self._retract(seqs, "undone")
            self._db.executemany("DELETE FROM answers WHERE seq = ?", [(s,) for s in seqs])

    def correct(self, seq):
        """Flip answer ``seq`` (same <-> different), said to be wrong; the original stays in ``retracted``."""
        with self._db:
            (row,) = self._retract([seq], "corrected")
            if row[3] is None:
                raise ValueError(f"answer #{seq} is 'don't know' or a cluster's feedback; only a same/different answer "
                                 "can be corrected")
            self._db.execute("UPDATE answers SET answer = ?, answered_at = ? WHERE seq = ?", (1 - row[3], _now(), seq))

    def retracted(self):
        """Undone and corrected statements as dicts (as stored, and when and why they were retracted)."""
        rows = self._read(f"SELECT {self._fields}, retracted_at, reason FROM retracted ORDER BY id")
        return [{**_answer(r[:9])._asdict(), "retracted_at": r[9], "reason": r[10]} for r in rows]

    def close(self):
        """Close the database connection (and give up the session, if held exclusively)."""
        if self._db is not None:
            self._db.close()
        if self._lock is not None:
            self._lock.close()  # closing the descriptor drops the OS lock
            self._lock = None

    def discard(self):
        """Close, and delete the file if this opening created it (a start that failed leaves nothing behind)."""
        self.close()
        if self.created:
            for suffix in ("", "-wal", "-shm", ".lock"):
                self._target.with_name(self._target.name + suffix).unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _connect_read_only(target, trusted=True):
    """A connection that cannot write ``target`` nor leave -wal/-shm files beside it."""
    # reading WAL makes them unless immutable: right with no -wal file, and for a file not linkwise's (a look only)
    live = target.with_name(target.name + "-wal").exists()
    return sqlite3.connect(f"{target.as_uri()}?mode=ro" + ("" if trusted and live else "&immutable=1"), uri=True)


def _inspect(path, target):
    """The meta of an existing file, read without writing to it; refuses every file linkwise did not make."""
    with open(target, "rb") as f:
        header = f.read(100)
    if not header:
        raise SessionFileError(f"{path} is an empty file (0 bytes), not a linkwise session file; it was left as it is. "
                               "Delete it to start a new session there, or name another session file.")
    if not header.startswith(b"SQLite format 3\x00"):
        raise SessionFileError(f"{path} is not a linkwise session file (not an SQLite database); it was left as it is.")
    marked = header[68:72] == APPLICATION_ID.to_bytes(4, "big")
    db = _connect_read_only(target, trusted=marked)
    try:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        rows = db.execute("SELECT key, value FROM meta").fetchall() if "meta" in tables else []
    finally:
        db.close()
    # files of linkwise before the application_id mark are known by their tables and format
    if not (marked or ({"meta", "answers", "retracted"} <= tables and any(k == "format" for k, _ in rows))):
        raise SessionFileError(f"{path} is an SQLite database that linkwise did not make (no linkwise session in it); "
                               "it was left as it is. Name another session file.")
    meta = {}
    for key, value in rows:
        try:
            meta[key] = json.loads(value)
        except ValueError:
            raise SessionFileError(f"The session file {path} is damaged: its meta entry {key!r} is not JSON "
                                   f"({value[:40]!r}).") from None
    if meta and meta.get("format") not in (1, FORMAT):
        raise SessionFileError(f"{path} is a session file of format {meta.get('format')!r}; "
                               f"this linkwise reads formats 1 to {FORMAT}.")
    return meta


def _hold_lock(path, target):
    """Lock ``<target>.lock`` without waiting (the resolved ``target``: one lock for every name of the file)."""
    f = open(target.with_name(target.name + ".lock"), "a+")  # the open file keeps the lock
    try:
        _try_lock(f)
    except OSError:
        try:
            f.seek(0)
            holder = f.read().strip() or "unknown"
        except OSError:  # Windows: the holder's locked byte cannot be read
            holder = "unknown"
        f.close()
        raise SessionFileError(f"{path} is open in another linkwise session (process {holder}); answer the questions "
                               "there, or stop that session first (its answers are saved).") from None
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
