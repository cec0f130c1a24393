import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from linkwise.session import SessionFileError, SessionStore, SessionWriteError
from linkwise.session.core._store import APPLICATION_ID

# the schema of session files of format 1 (linkwise before annotators and cluster feedback), as it was written
FORMAT1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE answers (seq INTEGER PRIMARY KEY AUTOINCREMENT, i INTEGER NOT NULL, j INTEGER NOT NULL,
    answer INTEGER CHECK (answer IN (0, 1)), answered_at TEXT NOT NULL, CHECK (0 <= i AND i < j));
CREATE TABLE retracted (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, i INTEGER NOT NULL,
    j INTEGER NOT NULL, answer INTEGER, answered_at TEXT NOT NULL, retracted_at TEXT NOT NULL, reason TEXT NOT NULL);
"""


def format1_file(path, answers, retracted=(), marked=True):
    """A session file of format 1: ``answers`` (seq, i, j, answer) live, ``retracted`` (seq, i, j, answer, reason)."""
    db = sqlite3.connect(path)
    if marked:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.executescript(FORMAT1_SCHEMA)
    db.execute("INSERT INTO meta VALUES ('format', '1'), ('method', '\"cobras\"')")
    db.executemany("INSERT INTO answers VALUES (?, ?, ?, ?, 'then')", answers)
    db.executemany("INSERT INTO retracted (seq, i, j, answer, answered_at, retracted_at, reason) "
                   "VALUES (?, ?, ?, ?, 'then', 'later', ?)", retracted)
    db.commit()
    db.close()


def test_answers_are_committed_before_add_returns(tmp_path):
    path = tmp_path / "s.db"
    store = SessionStore(path)
    store.write_meta({"method": "cobras", "params": {"max_queries": 5}})
    row = store.record(7, 2, False)
    # a second connection (another process after a crash) sees the row at once, and so does a copy of the .db alone
    shutil.copyfile(path, tmp_path / "copy.db")
    for name in (path, tmp_path / "copy.db"):
        other = sqlite3.connect(name)
        assert other.execute("SELECT i, j, answer FROM answers").fetchall() == [(2, 7, 0)]
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        other.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.db", "s.db"]  # no side file holds an answer
    assert (row.i, row.j, row.answer) == (2, 7, False)
    assert row.answered_at.endswith("+00:00")
    store.close()


def test_meta_and_answers_survive_reopening(tmp_path):
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        assert store.is_new
        store.write_meta({"method": "cobras", "params": {"random_state": 3}, "data_options": {"features": ["a"]}})
        store.record(0, 1, True)
        store.record(1, 2, None)
    with SessionStore(path, create=False) as store:
        assert not store.is_new
        assert store.meta["params"] == {"random_state": 3}
        assert store.meta["data_options"] == {"features": ["a"]}
        assert [(a.seq, a.i, a.j, a.answer) for a in store.answers()] == [(1, 0, 1, True), (2, 1, 2, None)]


def test_undo_and_correct_keep_the_original(tmp_path):
    with SessionStore(tmp_path / "s.db") as store:
        first = store.record(0, 1, True)
        second = store.record(2, 3, False)
        store.retract(second.seq)
        store.correct(first.seq)
        assert [(a.seq, a.answer) for a in store.answers()] == [(first.seq, False)]
        gone = store.retracted()
        assert [(r["seq"], r["answer"], r["reason"]) for r in gone] == [(2, False, "undone"), (1, True, "corrected")]
        dont_know = store.record(4, 5, None)
        with pytest.raises(ValueError, match="don't know"):
            store.correct(dont_know.seq)
        assert store.answers()[-1].answer is None  # the failed correction changed nothing
        with pytest.raises(KeyError):
            store.retract(99)


def test_refuses_files_that_are_not_sessions(tmp_path):
    with pytest.raises(SessionFileError, match="No session file"):
        SessionStore(tmp_path / "missing.db", create=False)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(SessionFileError, match="not a linkwise session file"):
        SessionStore(junk)
    future = tmp_path / "future.db"
    db = sqlite3.connect(future)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # made by a later linkwise
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('format', '99')")
    db.commit()
    db.close()
    with pytest.raises(SessionFileError, match="format 99"):
        SessionStore(future)


def test_a_session_is_held_by_one_process_at_a_time(tmp_path):
    path = tmp_path / "s.db"
    first = SessionStore(path, exclusive=True)
    first.record(0, 1, True)
    with pytest.raises(SessionFileError, match=rf"s\.db is open in another linkwise session \(process {os.getpid()}\)"):
        SessionStore(path, exclusive=True)
    with SessionStore(path, create=False) as reader:  # reading (export) is never blocked
        assert [a.answer for a in reader.answers()] == [True]
    first.record(1, 2, False)  # the refused opening changed nothing for the holder
    first.close()
    with SessionStore(path, exclusive=True) as again:
        assert [(a.i, a.j, a.answer) for a in again.answers()] == [(0, 1, True), (1, 2, False)]


def test_check_available_refuses_what_an_exclusive_opening_would_and_writes_nothing(tmp_path):
    def digest(path):
        return hashlib.sha256(path.read_bytes()).hexdigest()

    path = tmp_path / "s.db"
    SessionStore.check_available(path)  # a new session file: nothing is made yet
    assert list(tmp_path.iterdir()) == []
    holder = SessionStore(path, exclusive=True)
    holder.record(0, 1, True)
    with pytest.raises(SessionFileError, match=r"s\.db is open in another linkwise session"):
        SessionStore.check_available(path)
    holder.record(1, 2, False)  # the holder keeps the file
    holder.close()
    held = digest(path)
    SessionStore.check_available(path)  # free again: checked without writing, and the lock it took is dropped
    assert digest(path) == held and [p.name for p in tmp_path.iterdir()] == ["s.db"]
    with SessionStore(path, exclusive=True) as again:
        assert [(a.i, a.j) for a in again.answers()] == [(0, 1), (1, 2)]
    os.chmod(path, 0o444)
    with pytest.raises(SessionFileError, match="is read-only"):
        SessionStore.check_available(path)
    (tmp_path / "notes.txt").write_text("not a session")
    with pytest.raises(SessionFileError, match="not a linkwise session file"):
        SessionStore.check_available(tmp_path / "notes.txt")
    (tmp_path / "new.db-journal").write_bytes(b"x")
    with pytest.raises(SessionFileError, match="lies there without its session file"):
        SessionStore.check_available(tmp_path / "new.db")
    assert not (tmp_path / "new.db").exists()


@pytest.mark.slow
@pytest.mark.parametrize("held_as", ["s.db", "link.db", "hard.db"])
def test_a_killed_holder_leaves_the_session_free(tmp_path, held_as):
    path, link, hard = tmp_path / "s.db", tmp_path / "link.db", tmp_path / "hard.db"
    with SessionStore(path) as store:
        store.write_meta({"method": "cobras"})
    link.symlink_to(path)  # other names of the same session: one lock for all
    os.link(path, hard)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / held_as)], stdout=subprocess.PIPE, text=True,
        cwd=Path(__file__).parents[2]
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        for name in (path, link, hard, tmp_path / "." / "s.db"):
            with pytest.raises(SessionFileError, match=rf"process {holder.pid}"):
                SessionStore(name, exclusive=True)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with SessionStore(path, exclusive=True) as store:
        assert [(a.i, a.j, a.answer) for a in store.answers()] == [(3, 4, True)]


HOLD = """
import sys, time
from linkwise.session import SessionStore
store = SessionStore(sys.argv[1], exclusive=True)
store.record(3, 4, True)
print("ready", flush=True)
time.sleep(60)
"""


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def foreign_database(path, journal="DELETE"):
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA journal_mode={journal}")
    db.execute("CREATE TABLE notes (body TEXT)")
    db.execute("INSERT INTO notes VALUES ('keep me')")
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("journal", ["DELETE", "WAL"])
@pytest.mark.parametrize("how", [{}, {"exclusive": True}, {"create": False}, {"read_only": True}])
def test_files_linkwise_did_not_make_are_refused_untouched(tmp_path, journal, how):
    precious = foreign_database(tmp_path / "precious.sqlite", journal)
    empty = tmp_path / "empty.db"
    empty.touch()
    text = tmp_path / "notes.db"
    text.write_text("my notes")
    before = {p: digest(p) for p in (precious, empty, text)}
    for path, message in ((precious, "did not make"), (empty, "empty file"), (text, "not an SQLite database")):
        with pytest.raises(SessionFileError, match=message):
            SessionStore(path, **how)
    assert {p: digest(p) for p in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db", "notes.db", "precious.sqlite"]
    db = sqlite3.connect(precious)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == journal.lower()  # never switched to WAL
    assert db.execute("SELECT body FROM notes").fetchall() == [("keep me",)]
    db.close()


def test_session_files_made_before_the_mark_still_open(tmp_path):
    path = tmp_path / "old.db"
    format1_file(path, [(1, 0, 1, 1)], marked=False)
    with SessionStore(path, exclusive=True) as store:
        assert store.meta["method"] == "cobras" and [a.answer for a in store.answers()] == [True]


def test_format1_files_are_read_as_they_are_and_migrated_when_opened_for_writing(tmp_path):
    path = tmp_path / "old.db"
    # answer 3 was undone: the counter stood at 3, and a new statement must not take seq 3 again
    format1_file(path, [(1, 0, 1, 1), (2, 2, 5, 0)], [(3, 4, 6, 1, "undone")])
    db = sqlite3.connect(path)
    db.execute("DELETE FROM sqlite_sequence")
    db.execute("INSERT INTO sqlite_sequence VALUES ('answers', 3)")
    db.commit()
    db.close()
    before = digest(path)
    with SessionStore(path, read_only=True) as store:  # export of an old file: read, never migrated
        assert [(a.seq, a.i, a.j, a.answer, a.annotator, a.kind) for a in store.answers()] == [
            (1, 0, 1, True, None, "question"), (2, 2, 5, False, None, "question")]
        assert [(r["seq"], r["kind"], r["reason"]) for r in store.retracted()] == [(3, "question", "undone")]
    assert digest(path) == before
    with SessionStore(path, exclusive=True) as store:
        assert store.meta["format"] == 2
        assert [(a.seq, a.i, a.j, a.answer) for a in store.answers()] == [(1, 0, 1, True), (2, 2, 5, False)]
        new = store.record(7, 8, True, annotator="ann")
        mark = store.record_mark([9, 3, 4], complete=True)  # i = j: allowed now that the old CHECK is gone
        assert (new.seq, new.annotator, mark.seq, mark.kind, mark.members) == (4, "ann", 5, "complete", (3, 4, 9))
    with SessionStore(path) as store:  # reopened: format 2 now, nothing migrated twice
        assert store.meta["format"] == 2 and [a.seq for a in store.answers()] == [1, 2, 4, 5]


def test_an_action_is_stored_and_undone_as_one(tmp_path):
    with SessionStore(tmp_path / "s.db") as store:
        first = store.record(0, 1, True)
        moved = store.record_many([(5, 2, True), (2, 7, False)], kind="move", annotator="bo")
        assert [(a.i, a.j, a.kind, a.action, a.annotator) for a in moved] == [
            (2, 5, "move", moved[0].seq, "bo"), (2, 7, "move", moved[0].seq, "bo")]
        store.retract(moved[1].seq)  # either row names the action
        assert store.answers() == [first]
        assert [(r["i"], r["j"], r["kind"], r["reason"]) for r in store.retracted()] == [
            (2, 5, "move", "undone"), (2, 7, "move", "undone")]
        with pytest.raises(ValueError, match="kind"):
            store.record_many([(0, 3, True)], kind="pure")


def test_read_only_opening_never_writes(tmp_path):
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        store.write_meta({"method": "cobras"})
        store.record(0, 1, True)
    before = digest(path)
    with SessionStore(path, read_only=True) as store:
        assert store.meta["method"] == "cobras" and not store.created
        assert [(a.i, a.j, a.answer) for a in store.answers()] == [(0, 1, True)]
        with pytest.raises(SessionWriteError, match="Not saved: .*readonly"):
            store.record(1, 2, False)
    assert digest(path) == before and sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]
    with pytest.raises(SessionFileError, match="No session file"):
        SessionStore(tmp_path / "missing.db", read_only=True)
    assert not (tmp_path / "missing.db").exists()


def test_damaged_files_are_refused_with_the_reason(tmp_path):
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        store.write_meta({"method": "cobras"})
        store.record(0, 1, True)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '{oops' WHERE key = 'method'")
    db.commit()
    db.close()
    with pytest.raises(SessionFileError, match="s.db is damaged: its meta entry 'method' is not JSON"):
        SessionStore(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '\"cobras\"' WHERE key = 'method'")
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'answers'").fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.commit()
    db.close()
    with open(path, "r+b") as f:  # a damaged page: the answers table
        f.seek((root - 1) * size)
        f.write(b"\xa5" * size)
    with SessionStore(path, read_only=True) as store:
        with pytest.raises(SessionFileError, match="s.db cannot be used: database disk image is malformed"):
            store.answers()


def test_discard_removes_only_a_file_this_opening_made(tmp_path):
    path = tmp_path / "s.db"
    store = SessionStore(path, exclusive=True)
    assert store.created
    store.write_meta({"method": "cobras"})
    store.discard()
    assert list(tmp_path.iterdir()) == []
    with SessionStore(path) as store:
        store.write_meta({"method": "cobras"})
    again = SessionStore(path, exclusive=True)
    assert not again.created
    again.discard()
    with SessionStore(path, read_only=True) as store:
        assert path.is_file() and store.meta["method"] == "cobras"


# a process that stops without closing, as in a crash: "wal" leaves answers in the -wal file (as linkwise did before
# its sessions kept every answer in the .db), "commit" dies mid-commit, its journal hot
CRASH = """
import os, sqlite3, sys
path, how = sys.argv[1], sys.argv[2]
db = sqlite3.connect(path, isolation_level=None)
if how == "wal":
    db.execute("PRAGMA journal_mode=WAL")
    db.executemany("INSERT INTO answers (i, j, answer, answered_at) VALUES (?, ?, 1, 'then')", [(5, 6), (7, 8)])
else:
    db.execute("PRAGMA cache_size=1")  # pages reach the file before the commit
    db.execute("BEGIN IMMEDIATE")
    db.executemany("INSERT INTO answers (i, j, answer, answered_at) VALUES (?, ?, 1, randomblob(300))",
                   [(k, k + 1) for k in range(3000)])
os._exit(0)
"""


def crashed_session(path, how):
    """A session file with answers (0, 1) and (2, 3), then a process that crashed on it (see CRASH)."""
    with SessionStore(path) as store:
        store.write_meta({"method": "cobras"})
        store.record(0, 1, True)
        store.record(2, 3, False)
    subprocess.run([sys.executable, "-c", CRASH, str(path), how], check=True)
    side = Path(f"{path}-{'wal' if how == 'wal' else 'journal'}")
    assert side.stat().st_size > 0
    return side


@pytest.mark.parametrize("how", ["wal", "commit"])
def test_a_journal_without_its_file_is_never_deleted(tmp_path, how, iris_data):
    from linkwise.session import HumanSession

    side = crashed_session(tmp_path / "s.db", how)
    (tmp_path / "s.db").rename(tmp_path / "moved.db")  # moved after the crash, without its journal
    kept = digest(side)
    for start in (lambda: SessionStore(tmp_path / "s.db", exclusive=True),
                  lambda: HumanSession(tmp_path / "s.db", iris_data[0])):
        with pytest.raises(SessionFileError, match=rf"s\.db-{side.name.split('-')[1]} lies there without its session "
                                                   "file .*s.db: it may hold answers"):
            start()
    shm = ["s.db-shm"] if how == "wal" else []  # WAL's index, not ours either: left as it is
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["iris.csv", "moved.db", side.name, *shm])
    assert digest(side) == kept
    side.rename(tmp_path / f"moved.db-{side.name.split('-')[1]}")  # put back beside its file, it is used
    with SessionStore(tmp_path / "moved.db", exclusive=True) as store:
        pairs = [(a.i, a.j) for a in store.answers()]
    assert pairs == ([(0, 1), (2, 3), (5, 6), (7, 8)] if how == "wal" else [(0, 1), (2, 3)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iris.csv", "moved.db", *shm]  # merged or rolled back


def test_a_file_of_an_older_linkwise_with_answers_in_its_wal_keeps_them_in_the_db(tmp_path):
    path = tmp_path / "s.db"
    crashed_session(path, "wal")
    with SessionStore(path, read_only=True) as store:  # read as it is: the -wal's answers seen, nothing merged
        assert len(store.answers()) == 4
    assert (tmp_path / "s.db-wal").exists()
    with SessionStore(path, exclusive=True) as store:
        store.record(9, 10, None)
        shutil.copyfile(path, tmp_path / "copy.db")
    assert not (tmp_path / "s.db-wal").exists()
    with SessionStore(tmp_path / "copy.db", read_only=True) as store:
        assert [(a.i, a.j) for a in store.answers()] == [(0, 1), (2, 3), (5, 6), (7, 8), (9, 10)]


def test_a_file_left_mid_commit_is_read_without_writing_it(tmp_path):
    path = tmp_path / "s.db"
    journal = crashed_session(path, "commit")
    before = {p: digest(p) for p in (path, journal)}
    for _ in range(2):  # read-only (export, or `linkwise cluster` looking first): the commit that never was is not seen
        with SessionStore(path, read_only=True) as store:
            assert [(a.i, a.j) for a in store.answers()] == [(0, 1), (2, 3)]
    assert {p: digest(p) for p in before} == before
    with SessionStore(path, exclusive=True) as store:  # opened for writing: rolled back in place
        assert [(a.i, a.j) for a in store.answers()] == [(0, 1), (2, 3)]
        store.record(4, 5, True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]
