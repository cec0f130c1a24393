"""Stopping a web session in a real `linkwise cluster` process: Finish stops the server, Ctrl+C too, and both print
what is saved, where, and the command that resumes it (which is run to check it)."""

import shlex
import signal

import pandas as pd
import pytest
from click.testing import CliRunner

from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from tests.e2e.helpers import Server, truth_answer

pytestmark = pytest.mark.browser  # a server process


def answer(server, y, n):
    for _ in range(n):
        state = server.state()
        reply = server.post("/api/answer", position=state["position"], answer=truth_answer(y, state["question"]["pair"]))
        assert reply.status_code == 200, reply.text


def resumes(output, tmp_path, n):
    """The printed resume command, run in the terminal UI: it opens the same session with its ``n`` answers."""
    line = next(line for line in output.splitlines() if line.startswith("To resume: "))
    command = shlex.split(line.removeprefix("To resume: "))
    assert command[:2] == ["linkwise", "cluster"]
    again = CliRunner().invoke(main, [*command[1:], "--ui", "terminal"], input="q\n")
    assert again.exit_code == 0, again.output
    assert f"({n} question{'' if n == 1 else 's'} answered so far)" in again.output


@pytest.mark.parametrize("stop", ["finish", "ctrl+c"])
def test_stopping_prints_what_is_saved_and_how_to_resume(tmp_path, iris_file, stop):
    data_path, y = iris_file
    labels_path = tmp_path / "labels.csv"
    server = Server(data_path, "--session", tmp_path / "s.db", "--out", labels_path)
    try:
        answer(server, y, 3)
        if stop == "finish":
            reply = server.post("/api/finish")
            assert reply.status_code == 200 and reply.json()["stops"] is True
            assert server.process.wait(30) == 0  # the server stopped by itself
    finally:
        server.stop()  # Ctrl+C (SIGINT), unless it has stopped
    assert server.process.returncode == 0
    output = "".join(server.output)
    written = pd.read_csv(labels_path)
    assert f"Saved {len(written)} labels in {written['cluster'].nunique()} clusters to {labels_path}." in output
    assert f"Saved in {tmp_path / 's.db'}: 3 questions answered." in output
    assert "Traceback" not in output and "Aborted" not in output
    resumes(output, tmp_path, 3)


@pytest.mark.parametrize("busy", [False, True], ids=["waiting for a key", "storing an answer"])
def test_ctrl_c_in_the_terminal_prints_the_summary(tmp_path, iris_file, busy):
    """Ctrl+C quits like q whenever it comes: while a key is awaited, or while the answer just typed is stored
    and the next question computed (that work finishes first, so the labels written match the stored answers)."""
    from tests.e2e.test_session_terminal import Terminal

    data_path, _ = iris_file
    term = Terminal(data_path, "--session", tmp_path / "s.db", "--out", tmp_path / "labels.csv")
    try:
        term.question()
        term.press("s")
        if not busy:
            term.question()
        term.process.send_signal(signal.SIGINT)  # Ctrl+C (the child's session has no controlling terminal)
        term.expect(r"Saved 147 labels in \d+ clusters to .*labels\.csv\.")
        said = term.expect(r"Saved in .*s\.db: (\d+) questions? answered\.\s+To resume: linkwise cluster .*iris\.csv "
                           r"--session .*s\.db")
    finally:
        term.close()
    session = HumanSession(tmp_path / "s.db", load_data(data_path, id_column="name"))
    stored = session.state().n_answered
    session.close()
    # Ctrl+C right after "s" may come before the key is read: then nothing is stored, and the summary says so
    assert int(said.group(1)) == stored and stored in ((0, 1) if busy else (1,))
    assert term.process.returncode == 0 and "Aborted" not in term.seen and "Traceback" not in term.seen


def test_labels_that_cannot_be_written_at_the_end_are_said_and_the_summary_follows(tmp_path, iris_file):
    data_path, y = iris_file
    folder = tmp_path / "out"
    folder.mkdir()
    server = Server(data_path, "--session", tmp_path / "s.db", "--out", folder / "labels.csv")
    try:
        answer(server, y, 1)
        folder.rmdir()  # the labels' folder is gone when the session ends
    finally:
        server.stop()
    output = "".join(server.output)
    assert server.process.returncode == 0
    assert f"Could not write the labels to {folder / 'labels.csv'}: Cannot save file into a non-existent directory" \
        in output
    assert ": 1 question answered." in output and "To resume: " in output
