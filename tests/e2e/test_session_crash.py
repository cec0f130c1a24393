"""Kill the `linkwise cluster` server with SIGKILL between answers: nothing is lost, nothing re-asked."""

import sqlite3
from pathlib import Path

from linkwise.session import load_data
from tests.e2e.helpers import Server, direct_fit, truth_answer


def listening_address(port):
    """Local address of the listening TCP socket on ``port``, read from the kernel's table."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if int(hex_port, 16) == port and state == "0A":  # 0A = LISTEN
            return ".".join(str(int(address[k:k + 2], 16)) for k in (6, 4, 2, 0))
    return None


def answer(server, y, n):
    asked = []
    for _ in range(n):
        state = server.state()
        pair = tuple(state["question"]["pair"])
        reply = server.post("/api/answer", position=state["position"], answer=truth_answer(y, pair))
        assert reply.status_code == 200
        asked.append(pair)
    return asked


def test_sigkill_between_answers_loses_nothing_and_reasks_nothing(tmp_path, iris_file):
    data_path, y = iris_file
    session_file = tmp_path / "iris.linkwise.db"
    args = [data_path, "--id-column", "name", "--session", session_file]

    server = Server(*args)
    try:
        assert server.origin.startswith("http://127.0.0.1:")
        if Path("/proc/net/tcp").exists():
            assert listening_address(int(server.origin.rsplit(":", 1)[1])) == "127.0.0.1"
        asked = answer(server, y, 4)
    finally:
        server.kill()

    server = Server(*args)  # the same command resumes
    try:
        state = server.state()
        assert state["n_answered"] == 4
        asked += answer(server, y, 3)
        pending = server.state()["question"]["pair"]
    finally:
        server.kill()

    server = Server(*args)
    try:
        state = server.state()
        assert state["n_answered"] == 7 and state["question"]["pair"] == pending
    finally:
        server.stop()

    rows = sqlite3.connect(session_file).execute("SELECT i, j FROM answers ORDER BY seq").fetchall()
    assert rows == [tuple(sorted(p)) for p in asked]
    assert len(set(rows)) == 7  # no pair asked twice
    direct = direct_fit(session_file, load_data(data_path, id_column="name").X, y, 7)
    assert [tuple(sorted(q[:2])) for q in direct.query_log_] == rows  # the questions of the method itself
