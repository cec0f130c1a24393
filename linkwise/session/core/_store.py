"""The session file: one SQLite database per human session.

It holds what resuming exactly needs: the data's fingerprint and feature options, the method with its parameters
(and seed), and every answer with its time, committed before the next question is shown (a crash loses nothing).
Undone and corrected answers are not erased but kept in a ``retracted`` table with the reason.

People copy, move and back up the ``.db`` file alone, so it uses SQLite's rollback journal: a commit writes the
``.db`` itself (WAL would keep answers in a ``-wal`` side file until a checkpoint). The file, not its name, is held
by the running session (an OS lock on the file: every name of it, hard links included, is refused to a second
session), and each write first checks that the file is still at its path; a file deleted, moved or replaced
meanwhile is saved to a recovery file beside it, and the session goes on there. A write that fails (disk full)
stores nothing and says so; the answers before it stay.

A session file is marked as linkwise's by its SQLite ``application_id``. An existing file is inspected read-only
first, and any other file (empty, not SQLite, another program's database) is refused untouched: a mistyped
``--session`` never costs the user a file.
"""

import itertools
import json
import os
import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from linkwise._validation import InvalidParameterError
from linkwise.graph import pair_key

__all__ = ["ANSWER_WORDS", "Answer", "Refused", "SessionStore", "SessionFileError", "SessionWriteError", "FORMAT",
           "KINDS"]

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


class SessionWriteError(OSError):
    """A change could not be written to the session file (disk full, file or folder gone).

    None of it was stored, every answer stored before is kept, and the same
    action may be tried again.
    """


class Refused(RuntimeError):
    """An action that no longer fits the session's state (a stale question, an open contradiction).

    Parameters
    ----------
    message : str
        What was refused, and why.
    rows : iterable of int, optional
        The items the message names (row numbers), for a client to show;
        kept as the ``rows`` attribute (a list of int).
    """

    def __init__(self, message, rows=()):
        super().__init__(message)
        self.rows = [int(r) for r in rows]


class Answer(NamedTuple):
    """One stored statement of a session file.

    Parameters
    ----------
    seq : int
        Its number in the file (increasing with time).
    i, j : int
        The pair (``i <= j``); for feedback on a cluster, its first member twice.
    answer : bool or None
        True (same cluster), False (different clusters) or None (don't
        know, or feedback on a cluster).
    answered_at : str
        When it was stored (ISO 8601, UTC).
    annotator : str or None, default=None
        Who stated it; None is the session's one person.
    kind : str, default="question"
        One of ``"question"``, ``"imported"``, ``"pure"``, ``"complete"``, ``"move"``.
    members : tuple of int or None, default=None
        The rows of a ``"pure"`` or ``"complete"`` cluster, else None.
    action : int or None, default=None
        The ``seq`` of the first statement stored with it (undone together).
    """

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
        the file (a symlink, a hard link, another path), raises
        :class:`SessionFileError` instead of interleaving two people's
        questions in one file. The lock is an OS lock on the file itself
        (no lock file), so a crashed process never leaves the session locked.
        Each write then first checks that the file is still at its path:
        one deleted, moved or replaced is saved to a recovery file beside it
        (``<name>.recovered.db``), where the session goes on (see ``notice``).
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
    notice : str or None
        Set when the session moved to a recovery file: what happened, and
        where its answers are now (``path`` names that file).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.db")
    >>> store = SessionStore(path)
    >>> store.is_new
    True
    >>> store.write_meta({"method": "cobras"})
    >>> store.record(3, 1, True).answer
    True
    >>> [(a.i, a.j, a.answer) for a in store.answers()]
    [(1, 3, True)]
    >>> store.close()
    """

    def __init__(self, path, *, create=True, exclusive=False, read_only=False):
        self.path = Path(path)
        # every name of the file (symlinks, relative paths) maps to one database
        self._target = target = Path(os.path.realpath(self.path))
        self.notice = self._db = self._file = None
        if target.exists():
            with self._errors():  # before anything is opened for writing a file that may not be linkwise's
                _inspect(self.path, target)
            if not read_only:
                _check_writable(self.path, target)
        elif read_only or not create:
            raise SessionFileError(f"No session file at {self.path}.")
        else:
            _check_new(self.path, target)
        try:
            # the held file descriptor locks the file itself, and tells whether the path still leads to it
            self._file, made = _hold(self.path, target) if exclusive else (None, not target.exists())
            with self._errors():
                # again, now that no other session can change it
                self.created = made
                self.meta = {} if made else _inspect(self.path, target)
                if read_only:
                    self._db = _connect_read_only(target)
                    return
                self._db = _connect(target, new=made)
                if self.meta.get("format") == 1:
                    with self._db:
                        self._db.execute("BEGIN IMMEDIATE")
                        _migrate_format1(self._db)
                    self.meta["format"] = FORMAT
                self._db.executescript(_SCHEMA)
        except BaseException:
            self.close()
            raise

    def _errors(self):
        """Report a damaged or unreadable file as a :class:`SessionFileError` naming it."""
        return _file_errors(self.path)

    @staticmethod
    def check_available(path):
        """Refuse now what opening ``path`` for a session would refuse, without writing to it.

        ``linkwise cluster`` serves the page first and opens its session in the background: these refusals come
        before the page's address, in one line.

        Parameters
        ----------
        path : str or Path
            The session file (it need not exist yet).

        Raises
        ------
        SessionFileError
            The file is not a linkwise session file, it or its folder is read-only, another session holds it,
            or it does not exist and a journal lies where it would be made.
        """
        path = Path(path)
        target = Path(os.path.realpath(path))
        if not target.exists():
            _check_new(path, target)
            return
        with _file_errors(path):
            _inspect(path, target)
        _check_writable(path, target)
        file, made = _hold(path, target)
        file.close()
        if made:  # removed since it was inspected: _hold made an empty one, which is not the person's
            target.unlink(missing_ok=True)

    @contextmanager
    def _write(self):
        """One transaction, committed when the block ends into the file at the session's path; a failed one
        stores nothing and raises :class:`SessionWriteError`."""
        if self._file is not None and not _same_file(self._file, self._target):
            self._recover()
        try:
            with self._db:
                self._db.execute("BEGIN")
                yield
        except sqlite3.OperationalError as exc:  # disk full, I/O error, file made read-only, locked too long
            disk = exc.sqlite_errorname.startswith(("SQLITE_IOERR", "SQLITE_FULL"))
            raise SessionWriteError(f"Not saved: the session file {self.path} could not be written ({exc}"
                                    + (": the disk may be full" if disk else "")
                                    + "). The answers saved before are kept; fix this and try again.") from None

    def _recover(self):
        """The file was deleted, moved or replaced while held: write what this session holds (the open file's
        content) to a new recovery file beside it, and go on there."""
        gone, folder = self.path, self._target.parent
        stem, suffix = os.path.splitext(self._target.name)
        file = None
        try:
            for k in itertools.count(1):
                recovery = folder / f"{stem}.recovered{'' if k == 1 else f'-{k}'}{suffix or '.db'}"
                try:
                    file, _ = _hold(recovery, recovery, exist=False)
                    break
                except FileExistsError:
                    continue
            copy = sqlite3.connect(recovery)
            try:
                self._db.backup(copy)
            finally:
                copy.close()
            db = _connect(recovery, new=False)
        except (OSError, sqlite3.Error) as exc:
            if file is not None:
                file.close()
                recovery.unlink(missing_ok=True)
            raise SessionWriteError(f"Not saved: the session file {gone} was deleted, moved or replaced while this "
                                    f"session ran, and no recovery file could be written in {folder} ({exc}). The "
                                    "answers are held by this running session: keep it running, make that folder "
                                    "writable and try again.") from None
        self.close()
        self._db, self._file, self.path, self._target = db, file, recovery, recovery
        self.notice = (f"The session file {gone} was deleted, moved or replaced while this session ran. Its answers "
                       f"and every answer since are saved in {recovery}: continue later with --session {recovery}.")

    def _read(self, sql, args=()):
        with self._errors():
            return self._db.execute(sql, args).fetchall()

    @property
    def is_new(self):
        """True until :meth:`write_meta` has described the session."""
        return not self.meta

    def write_meta(self, meta):
        """Describe a new session (data fingerprint, options, method, parameters).

        Parameters
        ----------
        meta : dict
            JSON-serialisable values by key; the file format and the creation
            time are added.

        Raises
        ------
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        meta = {"format": FORMAT, "created_at": _now(), **meta}
        with self._write():
            self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 [(k, json.dumps(v)) for k, v in meta.items()])
        self.meta = meta

    def record(self, i, j, answer, *, annotator=None, kind="question"):
        """Record (store and commit) one answer.

        Parameters
        ----------
        i, j : int
            The pair's rows (either order).
        answer : bool or None
            True (same cluster), False (different clusters) or None (don't know).
        annotator : str, optional
            Who answered (None: the session's one person).
        kind : {"question", "imported", "move"}, default="question"
            Where the answer comes from.

        Returns
        -------
        Answer
            The answer as stored.

        Raises
        ------
        ValueError
            ``kind`` is not one of the pair kinds.
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        return self.record_many([(i, j, answer)], annotator=annotator, kind=kind)[0]

    def record_many(self, rows, *, annotator=None, kind):
        """Record (store and commit) several pair statements as one action, undone together.

        Parameters
        ----------
        rows : iterable of (int, int, bool or None)
            The statements ``(i, j, answer)``.
        annotator : str, optional
            Who answered (None: the session's one person).
        kind : {"question", "imported", "move"}
            Where the statements come from.

        Returns
        -------
        list of Answer
            The statements as stored, in order.

        Raises
        ------
        ValueError
            ``kind`` is not one of the pair kinds.
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        if kind not in ("question", "imported", "move"):
            raise ValueError(f"'kind' must be 'question', 'imported' or 'move' for pairs, got {kind!r}")
        at = _now()
        return self._insert([(*pair_key(i, j), None if a is None else bool(a), at, annotator, kind, None)
                             for i, j, a in rows])

    def record_mark(self, members, complete, *, annotator=None):
        """Record (store and commit) feedback on a cluster.

        Parameters
        ----------
        members : iterable of int
            The cluster's rows: they belong together (the cluster is pure).
        complete : bool
            True: and nothing else belongs with them.
        annotator : str, optional
            Who answered (None: the session's one person).

        Returns
        -------
        Answer
            The statement as stored (kind ``"pure"`` or ``"complete"``).

        Raises
        ------
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        members = sorted({int(m) for m in members})
        return self._insert([(members[0], members[0], None, _now(), annotator, "complete" if complete else "pure",
                              json.dumps(members))])[0]

    def _insert(self, rows):
        with self._write():
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
        """Return every live statement, oldest first.

        Returns
        -------
        list of Answer
            The statements not retracted, by ``seq``.
        """
        return [_answer(r) for r in self._read(f"SELECT {self._fields} FROM answers ORDER BY seq")]

    def _move_to_retracted(self, seqs, reason):
        """Keep answers ``seqs`` in ``retracted`` (in a transaction of :meth:`_write`); their rows."""
        marks = ", ".join("?" * len(seqs))
        rows = self._read(f"SELECT {_FIELDS} FROM answers WHERE seq IN ({marks}) ORDER BY seq", seqs)
        if not rows:
            raise KeyError(f"no stored answer #{seqs[0]}")
        self._db.executemany(f"INSERT INTO retracted ({_FIELDS}, retracted_at, reason) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [(*row, _now(), reason) for row in rows])
        return rows

    def retract(self, seq, reason="undone"):
        """Take a statement and the rest of its action out of effect.

        They are kept in the ``retracted`` table, with the reason.

        Parameters
        ----------
        seq : int
            The statement's number.
        reason : {"undone", "withdrawn"}, default="undone"
            Why it is retracted.

        Raises
        ------
        KeyError
            No live statement has number ``seq``.
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        with self._write():
            seqs = [s for (s,) in self._read("SELECT seq FROM answers WHERE coalesce(action, seq) = (SELECT "
                                             "coalesce(action, seq) FROM answers WHERE seq = ?)", (seq,))] or [seq]
            self._move_to_retracted(seqs, reason)
            self._db.executemany("DELETE FROM answers WHERE seq = ?", [(s,) for s in seqs])

    def correct(self, seq):
        """Flip an answer said to be wrong (same <-> different); the original stays in ``retracted``.

        Parameters
        ----------
        seq : int
            The answer's number.

        Raises
        ------
        KeyError
            No live statement has number ``seq``.
        ValueError
            The statement is "don't know" or feedback on a cluster; nothing changed.
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        with self._write():
            (row,) = self._move_to_retracted([seq], "corrected")
            if row[3] is None:
                raise ValueError(f"answer #{seq} is 'don't know' or a cluster's feedback; only a same/different answer "
                                 "can be corrected")
            self._db.execute("UPDATE answers SET answer = ?, answered_at = ? WHERE seq = ?", (1 - row[3], _now(), seq))

    def change(self, seq, answer):
        """Set a pair's answer to another value; the original stays in ``retracted`` (reason ``"changed"``).

        Parameters
        ----------
        seq : int
            The answer's number.
        answer : bool or None
            The new answer: True (same cluster), False (different clusters) or None (don't know).

        Raises
        ------
        KeyError
            No live statement has number ``seq``.
        ValueError
            The statement is feedback on a cluster or a move; nothing changed.
        SessionWriteError
            The file could not be written: nothing of the change is stored.
        """
        with self._write():
            (row,) = self._move_to_retracted([seq], "changed")
            if row[6] not in ("question", "imported"):
                raise ValueError(f"answer #{seq} is a cluster's feedback or a move; only a pair's answer can change")
            self._db.execute("UPDATE answers SET answer = ?, answered_at = ? WHERE seq = ?",
                             (None if answer is None else int(answer), _now(), seq))

    def retracted(self):
        """Return the retracted statements, oldest retraction first.

        Returns
        -------
        list of dict
            The fields of each :class:`Answer` as stored, with
            ``retracted_at`` and ``reason`` (when and why it was retracted).
        """
        rows = self._read(f"SELECT {self._fields}, retracted_at, reason FROM retracted ORDER BY id")
        return [{**_answer(r[:9])._asdict(), "retracted_at": r[9], "reason": r[10]} for r in rows]

    def close(self):
        """Close the database connection (and give up the session, if held exclusively)."""
        if self._db is not None:
            self._db.close()
        if self._file is not None:
            self._file.close()  # drops the OS lock
            self._file = None

    def discard(self):
        """Close, and delete the file if this opening created it (a start that failed leaves nothing behind).

        Only what this opening made goes: a new file is refused where a journal of another file lies
        (``_check_new``), so its journal, if any, is its own.
        """
        self.close()
        if self.created:
            for suffix in ("", "-journal"):
                self._target.with_name(self._target.name + suffix).unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _connect(target, new):
    """The writable connection to a session file (one, shared by the web server's threads: the session controller
    serialises access)."""
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    try:
        if new:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        # a commit lands in the .db itself; a file of an older linkwise (WAL) has its -wal merged in, then removed
        (mode,) = db.execute("PRAGMA journal_mode=DELETE").fetchone()
        if mode != "delete":
            raise sqlite3.OperationalError(f"its journal mode stays {mode!r}")
        db.execute("PRAGMA synchronous=FULL")  # an answer survives a crash, or a power cut, once add() returns
    except BaseException:
        db.close()
        raise
    return db


def _connect_read_only(target, trusted=True):
    """A connection that cannot write ``target`` nor leave -wal/-shm files beside it."""
    with open(target, "rb") as f:
        wal = f.read(20)[18:20] == b"\x02\x02"  # the header's read/write versions: 2 is WAL
    # a live file is read with SQLite's locks (a commit is never seen half-written); reading WAL makes -wal/-shm
    # files unless immutable: right with no -wal file, and for a file not linkwise's (a look only)
    live = not wal or target.with_name(target.name + "-wal").exists()
    db = sqlite3.connect(f"{target.as_uri()}?mode=ro" + ("" if trusted and live else "&immutable=1"), uri=True)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as exc:
        db.close()
        if exc.sqlite_errorname != "SQLITE_READONLY_ROLLBACK":
            raise
        return _rolled_back(target)
    return db


def _rolled_back(target):
    """The content of a file whose session stopped mid-commit (its journal is hot), rolled back in a private
    copy: reading never writes the file (its next opening for writing rolls it back in place)."""
    with tempfile.TemporaryDirectory(prefix="linkwise-") as folder:
        copy = Path(folder) / target.name
        for suffix in ("", "-journal"):
            shutil.copyfile(target.with_name(target.name + suffix), copy.with_name(copy.name + suffix))
        disk, memory = sqlite3.connect(copy), sqlite3.connect(":memory:")
        try:
            disk.backup(memory)  # reading the copy rolls it back
        finally:
            disk.close()
    return memory


@contextmanager
def _file_errors(path):
    """Report a damaged or unreadable file ``path`` as a :class:`SessionFileError` naming it."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise SessionFileError(f"The session file {path} cannot be used: {exc}.") from None


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


def _check_writable(path, target):
    """Refuse at start a session file that would refuse the first answer: one marked read-only (even to root,
    whom the mode does not stop), or in a folder where its journal cannot be made."""
    if not target.stat().st_mode & 0o222 or not os.access(target, os.W_OK):
        raise SessionFileError(f"{path} is read-only, and a session saves every answer in its file: make it writable "
                               f"(chmod u+w {path}), or read it with `linkwise export`.")
    _check_folder(path, target)


def _check_folder(path, target):
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise SessionFileError(f"The folder of {path} is read-only, and a session writes its journal beside its "
                               "file: make the folder writable, or name a session file in another folder.")


def _check_new(path, target):
    """Refuse to make a session file where a journal lies without its file: that of a file moved without it,
    which a new file would take for its own (SQLite deletes a journal beside an empty file)."""
    for suffix in ("-journal", "-wal"):
        side = target.with_name(target.name + suffix)
        if side.exists():
            raise SessionFileError(f"{side} lies there without its session file {path}: it may hold answers of a "
                                   "session file moved or copied without it. Put it back beside that file, or move "
                                   "it away yourself to start a new session here.")
    _check_folder(path, target)


def _hold(path, target, *, exist=None):
    """Open ``target`` (made when missing; ``exist=False``: only a new one, else FileExistsError) and lock the file
    itself without waiting, so that every name of it is refused to another session; returns (file, made)."""
    try:
        fd, made = os.open(target, os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o666), True
    except FileExistsError:
        if exist is False:
            raise
        fd, made = os.open(target, os.O_RDONLY), False
    file = os.fdopen(fd, "rb", buffering=0)
    try:
        _try_lock(file)
    except OSError:
        holder = _holder(file)
        file.close()
        raise SessionFileError(f"{path} is open in another linkwise session" + (f" (process {holder})" if holder else "")
                               + "; answer the questions there, or stop that session first (its answers are saved)."
                               ) from None
    return file, made


def _same_file(file, target):
    """Whether ``target`` still leads to the open ``file`` (not deleted, moved away or replaced by another)."""
    try:
        found = os.stat(target)
    except OSError:
        return False
    held = os.fstat(file.fileno())
    return (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino)


def _holder(file):
    """The process id holding the lock on ``file``, from Linux's /proc/locks (None elsewhere, or not found)."""
    inode = str(os.fstat(file.fileno()).st_ino)
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:  # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a waiting request has "->")
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5].rpartition(":")[2] == inode:
            return fields[4]
    return None


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(f):
        # a byte far past the file's end: SQLite's own locks (at 1 GB) and reads never meet it
        f.seek(2**40)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _try_lock(f):
        # flock, not fcntl's POSIX locks: those are the process's, dropped when SQLite closes any descriptor of the file
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
