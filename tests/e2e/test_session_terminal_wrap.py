"""`linkwise cluster --ui terminal` in tmux at 80 and 140 columns: a long description is wrapped whole under its own
column name, the cluster list wraps too, and what does not fit the screen is paged in full with f."""

import os
import re
import shlex
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from tests.e2e.helpers import REPO

pytestmark = pytest.mark.skipif(not any(os.access(os.path.join(d, "tmux"), os.X_OK)
                                        for d in os.environ.get("PATH", "").split(os.pathsep)),
                                reason="tmux is not installed")

WORDS = ("lantern battery rechargeable dimmable knife blade steel folding garden rake lamp desk warm light handle "
         "pocket camping bright").split()


def products(folder, length, n=12, seed=0):
    """A shop's table whose descriptions are ``length`` characters long, each ending in a word of its own."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        text = "New LED lantern, USB rechargeable battery and dimmable LED"
        while len(text) < length - 12:
            text += " " + rng.choice(WORDS)
        rows.append({"sku": f"SKU-{1000 + k}", "description": f"{text[:length - 12].rstrip()} end{k:04d}word",
                     "price": round(float(rng.uniform(5, 50)), 2)})
    frame = pd.DataFrame(rows)
    frame.to_csv(folder / "products.csv", index=False)
    return folder / "products.csv", frame


class Tmux:
    """``linkwise cluster ... --ui terminal`` in a detached tmux session of its own server (its own socket)."""

    def __init__(self, columns, lines, *args):
        self.socket = f"linkwise-test-{os.getpid()}-{time.monotonic_ns()}"
        command = " ".join(map(shlex.quote, [sys.executable, "-c", "from linkwise.cli import main; main()", "cluster",
                                             *map(str, args), "--ui", "terminal"]))
        env = f"-u COLUMNS -u LINES PYTHONPATH={shlex.quote(str(REPO))} OMP_NUM_THREADS=1 NO_COLOR=1"
        # the command starts once the window has its size (a detached session may get it late) and the shell
        # stays after it ends, so that its last screen can still be read
        self._tmux("-f", os.devnull, "new-session", "-d", "-x", str(columns), "-y", str(lines), "-c", str(REPO),
                   f"until [ \"$(stty size)\" = '{lines} {columns}' ]; do sleep 0.1; done; env {env} {command}; "
                   "echo EXITED $?; sleep 600")
        self._tmux("set-option", "-g", "history-limit", "10000")

    def _tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True,
                              timeout=30).stdout

    def history(self):
        """Every line printed so far (the scrollback and the screen, without the blank lines below)."""
        return self._tmux("capture-pane", "-p", "-S", "-").rstrip("\n").splitlines()

    def wait_for(self, pattern, times=1, timeout=60):
        """Wait until ``pattern`` has been printed ``times`` times."""
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, "\n".join(self.history()))) < times:
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {pattern!r}; the terminal shows:\n" + "\n".join(self.history()))
            time.sleep(0.2)

    def press(self, keys):
        self._tmux("send-keys", "-l", keys)

    def stop(self):
        self._tmux("kill-server")


def cells(lines, label):
    """The A and B text of a table row named ``label``, from its screen lines (wrapped lines joined by a space)."""
    a, b, inside = [], [], False
    for line in lines:
        if not line.startswith("│"):
            continue
        parts = [p.strip() for p in line.split("│")[1:-1]]
        if parts[0]:
            inside = parts[0] == label
        if inside:
            a.append(parts[1])
            b.append(parts[2])
    return " ".join(a), " ".join(b)


def last_question(lines):
    start = max(k for k, line in enumerate(lines) if line.startswith("Question "))
    return lines[start:]


@pytest.mark.parametrize("columns", [80, 140])
def test_a_300_character_description_is_wrapped_whole_under_its_column_name(tmp_path, columns):
    path, frame = products(tmp_path, 300)
    term = Tmux(columns, 50, path, "--session", tmp_path / "s.db", "--method", "tests.e2e.helpers:Scripted",
                "--param", "script=[[0, 1], [2, 3]]")
    try:
        term.wait_for(r"\[q\] quit")
        shown = last_question(term.history())
        table = [line for line in shown if line[:1] in "┏┃┡│└"]
        # every line of the table within the screen, its right border in the last column the table uses
        assert {len(line) for line in table} == {len(table[0])} and len(table[0]) <= columns
        assert cells(table, "sku") == ("SKU-1000", "SKU-1001")
        assert cells(table, "description") == tuple(" ".join(t.split()) for t in frame["description"][:2])
        assert cells(table, "text") == ("", "")  # the field has the file's own name
        assert "…" not in "\n".join(shown) and "[f] in full" not in "\n".join(shown)
        assert "[?] don't know" in "\n".join(shown)

        term.press("c")  # the cluster list wraps each item to the width of the screen, two lines at most
        term.wait_for("Type a cluster's number")
        lines = term.history()
        start = max(k for k, line in enumerate(lines) if line.startswith("Clusters"))
        entries = lines[start + 1:start + 1 + 2 * 9]
        for first, second in zip(entries[::2], entries[1::2]):
            assert first.startswith("  [") and " · 1 item · " in first  # no answer yet: every item alone
            assert second.endswith("…") and len(second) <= columns
            sku, text = re.search(r"· (SKU-\d+)  (.*)", f"{first} {second[:-1]}").groups()
            described = frame.set_index("sku").at[sku, "description"]
            assert described.startswith(text) and len(text) > columns
        term.press("x")
        term.wait_for(r"(?s)Type a cluster's number.*Question 1:")
        term.press("s")
        term.wait_for("Question 2:")
        term.press("q")
        term.wait_for("EXITED 0")
    finally:
        term.stop()
    assert sqlite3.connect(tmp_path / "s.db").execute("SELECT i, j, answer FROM answers").fetchall() == [(0, 1, 1)]


@pytest.mark.parametrize("columns, length", [(80, 1500), (140, 4000)])
def test_a_description_longer_than_the_screen_is_cut_and_f_pages_it_in_full(tmp_path, columns, length):
    path, frame = products(tmp_path, length)
    term = Tmux(columns, 24, path, "--session", tmp_path / "s.db", "--method", "tests.e2e.helpers:Scripted",
                "--param", "script=[[0, 1], [2, 3]]")
    try:
        term.wait_for(r"\[q\] quit")
        shown = last_question(term.history())
        table = [line for line in shown if line[:1] in "┏┃┡│└"]
        assert len(shown) <= 24 - 3  # the question fits the screen, with the counts above it and the cursor below
        a, b = cells(table, "description")
        assert a.endswith("…") and " ".join(frame["description"][0].split()).startswith(a[:-1].rstrip())
        assert "Cut to fit the screen (…): f shows A and B in full." in shown and "[f] in full" in shown[-1]
        term.press("f")
        pages = 1
        term.wait_for("Any key: ")
        while "back to the question." not in term.history()[-1]:
            term.press(" ")  # the next screen
            pages += 1
            term.wait_for("Any key: ", times=pages)
        lines = term.history()
        full, item, values = {}, None, None  # A and B: field -> its lines
        for line in lines[max(k for k, line in enumerate(lines) if line.startswith("Cut to fit")) + 1:]:
            if line in ("A", "B"):
                item = full.setdefault(line, {})
            elif line.startswith("    "):
                values.append(line.strip())
            elif line.startswith("  "):
                values = item.setdefault(line.strip(), [])
        whole = [" ".join(t.split()) for t in frame["description"][:2]]
        assert [" ".join(full[x]["description"]) for x in "AB"] == whole
        assert full["A"]["sku"] == ["SKU-1000"] and full["B"]["price"] == [str(frame["price"][1])]
        assert pages >= 2
        term.press("x")  # back: the same question, nothing answered
        term.wait_for(r"(?s)back to the question\..*Question 1:")
        term.press("q")
        term.wait_for("EXITED 0")
    finally:
        term.stop()
    assert sqlite3.connect(tmp_path / "s.db").execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0

