"""`linkwise cluster --ui terminal` driven by key presses through a real pseudo-terminal."""

import fcntl
import json
import os
import pty
import re
import select
import sqlite3
import struct
import subprocess
import sys
import termios
import time

import pandas as pd

import linkwise as lw
from linkwise.session import load_data
from tests.e2e.helpers import REPO, iris_csv

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A child process whose stdin, stdout and stderr are a pseudo-terminal of 160 columns."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "TERM": "xterm",
               "COLUMNS": "160", "NO_COLOR": "1"}
        command = [sys.executable, "-c", "from linkwise.cli import main; main()", "cluster", *map(str, args),
                   "--ui", "terminal"]
        self.process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, cwd=REPO, env=env,
                                        start_new_session=True)
        os.close(slave)
        self.seen = ""  # everything printed so far
        self.unread = 0  # where expect() looks from

    def _pump(self, timeout):
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the child closed the terminal
                return False
            self.seen += ANSI.sub("", chunk.decode(errors="replace")).replace("\r", "")
        return True

    def expect(self, pattern, timeout=120):
        """Wait for ``pattern`` in new output; returns the match."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern, re.S)
        while True:
            found = regex.search(self.seen, self.unread)
            if found:
                self.unread = found.end()
                return found
            if time.monotonic() > deadline or not self._pump(0.2) and self.process.poll() is not None:
                raise AssertionError(f"never saw {pattern!r}; the terminal shows:\n{self.seen[-3000:]}")

    def press(self, key):
        os.write(self.master, key.encode())

    def question(self):
        """Wait for the next question; returns its number and the two rows shown."""
        found = self.expect(r"Question (\d+): do A and B.*?id\s*\S\s*flower-(\d+)\s*\S\s*flower-(\d+).*?\[q\] quit")
        return int(found.group(1)), int(found.group(2)), int(found.group(3))

    def close(self):
        """Wait for the child to end, reading what it prints meanwhile (a full terminal would block it)."""
        deadline = time.monotonic() + 60
        try:
            while self.process.poll() is None and time.monotonic() < deadline:
                self._pump(0.2)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(10)
        finally:
            os.close(self.master)


def test_keys_answer_undo_and_quit_then_resume(tmp_path):
    data_path, y = iris_csv(tmp_path)
    session_file, labels_path = tmp_path / "s.db", tmp_path / "labels.csv"
    args = [data_path, "--id-column", "name", "--session", session_file, "--out", labels_path]
    term = Terminal(*args)
    try:
        term.expect(r"iris\.csv \(147 items\) · COBRAS")
        for expected in range(1, 6):
            number, a, b = term.question()
            assert number == expected
            assert re.search(r"species\s*\S\s*\w+\s*\S\s*\w+", term.seen)  # every column is in the table
            term.press("s" if y[a] == y[b] else "d")
        number, a, b = term.question()
        term.press("?")  # don't know ...
        term.question()
        term.press("u")  # ... undone: the same question comes back
        assert term.question() == (6, a, b)
        term.press("x")
        term.expect("Key 'x' does nothing here")
        term.press("s" if y[a] == y[b] else "d")
        term.question()
        term.press("q")
        saved = term.expect(r"Saved 147 labels in (\d+) clusters to")
    finally:
        term.close()
    assert term.process.returncode == 0

    db = sqlite3.connect(session_file)
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 6
    assert db.execute("SELECT answer, reason FROM retracted").fetchall() == [(None, "undone")]
    params = json.loads(db.execute("SELECT value FROM meta WHERE key = 'params'").fetchone()[0])
    written = pd.read_csv(labels_path)
    assert written["cluster"].nunique() == int(saved.group(1))
    direct = lw.COBRAS(random_state=params["random_state"], max_queries=6)
    direct.fit(load_data(data_path, id_column="name").X, lw.LabelOracle(y))
    assert lw.metrics.ari(direct.labels_, written["cluster"]) == 1.0

    term = Terminal(*args)  # resumes at question 7
    try:
        term.expect("6 answered")
        assert term.question()[0] == 7
        term.press("q")
        term.expect("Saved 147 labels")
    finally:
        term.close()


def test_a_contradiction_is_settled_with_a_digit(tmp_path):
    data_path, _ = iris_csv(tmp_path)
    script = json.dumps([[0, 1], [0, 1, "recheck"], [2, 3]])
    term = Terminal(data_path, "--id-column", "name", "--session", tmp_path / "s.db",
                    "--method", "tests.e2e.helpers:Scripted", "--param", f"script={script}")
    try:
        term.question()
        term.press("s")
        term.question()
        term.press("d")
        found = term.expect(r"Your answers disagree.*imply 'same'.*puts them in the same group.*\[1\] flower-0 and flower-1: same.*"
                            r"\[2\] flower-0 and flower-1: different \(just now\)")
        assert found
        term.press("2")  # the latest answer was the wrong one
        assert term.question()[1:] == (2, 3)
        term.press("q")
        term.expect("Saved 147 labels")
    finally:
        term.close()
    answers = sqlite3.connect(tmp_path / "s.db").execute("SELECT answer FROM answers ORDER BY seq").fetchall()
    assert answers == [(1,), (1,)]
