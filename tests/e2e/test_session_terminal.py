"""`linkwise cluster --ui terminal` driven by key presses through a real pseudo-terminal, or by piped input."""

import fcntl
import json
import os
import pty
import re
import select
import shlex
import sqlite3
import struct
import subprocess
import sys
import termios
import time

import pandas as pd
import pytest

import linkwise as lw
from linkwise.session import load_data
from tests.e2e.helpers import REPO, direct_fit

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
        self.raw = b""  # every byte the child wrote
        self.seen = ""  # everything printed so far, without terminal styles
        self.unread = 0  # where expect() looks from

    def _pump(self, timeout):
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the child closed the terminal
                return False
            self.raw += chunk
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
        found = self.expect(r"Question (\d+): do A and B.*?name\s*\S\s*flower-(\d+)\s*\S\s*flower-(\d+).*?\[q\] quit")
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


def test_keys_answer_undo_and_quit_then_resume(tmp_path, iris_file):
    data_path, y = iris_file
    session_file, labels_path = tmp_path / "s.db", tmp_path / "labels.csv"
    args = [data_path, "--id-column", "name", "--session", session_file, "--out", labels_path]
    term = Terminal(*args)
    try:
        term.expect(r"iris\.csv \(147 items\) · Auto")  # the default method
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
    written = pd.read_csv(labels_path)
    assert written["cluster"].nunique() == int(saved.group(1))
    direct = direct_fit(session_file, load_data(data_path, id_column="name").X, y, 6)
    assert lw.metrics.ari(direct.labels_, written["cluster"]) == 1.0

    term = Terminal(*args)  # resumes at question 7
    try:
        term.expect("6 of 100 answered")  # the default budget of a new session
        assert term.question()[0] == 7
        term.press("q")
        term.expect("Saved 147 labels")
    finally:
        term.close()


def test_a_contradiction_is_settled_with_a_digit(tmp_path, iris_file):
    data_path, _ = iris_file
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


def _cli(*args):
    return [sys.executable, "-c", "from linkwise.cli import main; main()", "cluster", *map(str, args), "--ui", "terminal"]


def _answers(session_file):
    return sqlite3.connect(session_file).execute("SELECT i, j, answer FROM answers ORDER BY seq").fetchall()


def test_arrow_and_function_keys_answer_nothing_and_ctrl_d_quits(tmp_path, iris_file):
    data_path, _ = iris_file
    term = Terminal(data_path, "--id-column", "name", "--session", tmp_path / "s.db")
    try:
        term.question()
        # left, F4 (SS3), F5, Ctrl+right, Alt+up, Alt+d, then a two-byte character
        term.press("\x1b[D\x1bOS\x1b[15~\x1b[1;5C\x1b\x1b[A\x1bdé")
        term.expect("Key 'é' does nothing here")
        term.press("\x04")  # Ctrl+D
        term.expect("Saved 147 labels", timeout=30)
    finally:
        term.close()
    assert term.process.returncode == 0
    assert _answers(tmp_path / "s.db") == []
    assert term.seen.count("does nothing here") == 1  # one message for the one key, none for the sequences


def test_cells_are_shown_as_text_never_as_markup_or_terminal_commands(tmp_path):
    hostile = {"[/bold]": "\x1b[2J\x1b[31mred", "[link=http://evil.example]click[/link]":
               "\x1b]8;;http://evil.example\x07here\x1b]8;;\x07 :smile:"}
    frame = pd.DataFrame({"name": [*hostile, "c", "d"], "note": [*hostile.values(), "", ""], "x": [0, 1, 2, 3]})
    frame.to_csv(tmp_path / "d.csv", index=False)
    term = Terminal(tmp_path / "d.csv", "--id-column", "name", "--session", tmp_path / "s.db",
                    "--method", "tests.e2e.helpers:Scripted", "--param", "script=[[0, 1]]")
    try:
        term.expect(r"\[s\] same")
        term.press("q")
        term.expect("Saved 4 labels")
    finally:
        term.close()
    assert term.process.returncode == 0
    for shown in ("[/bold]", "[link=http://evil.example]click[/link]", "�[2J�[31mred", "here�]8;;� :smile:"):
        assert shown in term.seen
    assert b"\x1b[2J" not in term.raw and b"\x1b]8" not in term.raw and b"\x1b[31m" not in term.raw


def test_answers_are_read_one_per_line_from_piped_input(tmp_path, iris_file):
    data_path, _ = iris_file
    args = _cli(data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method",
                "tests.e2e.helpers:Scripted", "--param", "script=[[0, 1], [2, 3], [4, 5]]", "--out", tmp_path / "l.csv")
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    # no controlling terminal: the prompt must not reach for /dev/tty
    run = subprocess.run(args, input="s\n\nD\nx\n", capture_output=True, text=True, cwd=REPO, env=env,
                         start_new_session=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Key 'x' does nothing here" in run.stdout and "Saved 147 labels in 146 clusters" in run.stdout
    assert "Not clustered on species: text, not numbers ('setosa' at line 2)" in run.stdout
    assert _answers(tmp_path / "s.db") == [(0, 1, 1), (2, 3, 0)]
    again = subprocess.run(args, input="u\nq\n", capture_output=True, text=True, cwd=REPO, env=env,
                           start_new_session=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "Not clustered on species: text, not numbers ('setosa' at line 2)" in again.stdout  # the same on resume
    assert _answers(tmp_path / "s.db") == [(0, 1, 1)]
    assert pd.read_csv(tmp_path / "l.csv")["cluster"].nunique() == 146


@pytest.mark.parametrize("redirect, why", [("<&-", "is closed"), ("0>/dev/null", "cannot be read")])
def test_no_terminal_and_no_readable_input_is_one_line(tmp_path, redirect, why, iris_file):
    data_path, _ = iris_file
    command = " ".join(map(shlex.quote, _cli(data_path, "--session", tmp_path / "s.db")))
    run = subprocess.run(["sh", "-c", f"exec {command} {redirect}"], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"},
                         start_new_session=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr.startswith("Error: --ui terminal needs a terminal, or answers on standard input")
    assert why in run.stderr and run.stderr.count("\n") == 1
    assert _answers(tmp_path / "s.db") == []


def test_a_check_says_so_a_spent_budget_says_so_and_b_raises_it(tmp_path, iris_file):
    data_path, _ = iris_file
    script = json.dumps([[0, 1], [1, 2], [0, 2, "recheck"], [3, 4], [4, 5], [5, 6]])
    term = Terminal(data_path, "--id-column", "name", "--session", tmp_path / "s.db",
                    "--method", "tests.e2e.helpers:Scripted", "--param", f"script={script}",
                    "--param", "max_queries=3")
    try:
        term.expect("0 of 3 answered")
        for expected in ((1, 0, 1), (2, 1, 2)):
            assert term.question() == expected
            term.press("s")
        term.expect(r"2 of 3 answered.*A check: your earlier answers imply same group\.")
        assert term.question() == (3, 0, 2)  # the check line comes right before its question
        term.press("s")
        found = term.expect(r"(\d+) of (\d+) answered.*Budget spent: (\d+) of (\d+) questions answered")
        assert found.group(1, 2) == found.group(3, 4) == ("3", "3")  # the header and the end message agree
        term.press("b")
        term.expect(r"New budget \(more than 3 questions\)")
        term.press("5\n")
        term.expect("3 of 5 answered")
        assert term.question() == (4, 3, 4)
        term.press("q")
        term.expect("Saved 147 labels")
    finally:
        term.close()
    assert term.process.returncode == 0
    assert sqlite3.connect(tmp_path / "s.db").execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 3
