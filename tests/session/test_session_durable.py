"""Session files people copy, move and link, and the server around them: real files, real servers on localhost."""

import hashlib
import http.client
import json
import os
import resource
import shutil
import socket
import sqlite3
import stat
import sys
import time
from pathlib import Path

import httpx
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, SessionFileError, SessionStore, load_data
from tests.e2e.helpers import PNG, LiveServer, Scripted, Server, token_client, truth_answer


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def answer(client, y, n):
    """Answer ``n`` questions over HTTP from the labels ``y``; the pairs, as stored (i < j)."""
    asked = []
    for _ in range(n):
        state = client.get("/api/state").json()
        pair = state["question"]["pair"]
        reply = client.post("/api/answer", json={"position": state["position"], "answer": truth_answer(y, pair)})
        assert reply.status_code == 200, reply.text
        asked.append(tuple(sorted(pair)))
    return asked


def stored_pairs(path):
    with SessionStore(path, read_only=True) as store:
        return [(a.i, a.j) for a in store.answers()]


@pytest.mark.slow
def test_a_copy_of_the_db_alone_holds_every_acknowledged_answer(tmp_path, iris_file):
    data_path, y = iris_file
    session_file = tmp_path / "iris.linkwise.db"
    server = Server(data_path, "--id-column", "name", "--session", session_file)
    copies = tmp_path / "backups"
    copies.mkdir()
    try:
        asked = []
        for k in range(1, 7):  # a backup taken after each acknowledged answer, the server running
            asked += answer(server.client, y, 1)
            shutil.copyfile(session_file, copies / f"{k}.db")
            assert stored_pairs(copies / f"{k}.db") == asked
    finally:
        server.stop()
    assert sorted(p.name for p in copies.iterdir()) == [f"{k}.db" for k in range(1, 7)]  # the .db alone was copied
    data = load_data(data_path, id_column="name")
    for k in (3, 6):  # a copy resumes as a session where it was taken
        moved = tmp_path / f"moved-{k}.db"
        shutil.copyfile(copies / f"{k}.db", moved)
        session = HumanSession(moved, data)
        try:
            assert session.state().n_answered == k
            assert sqlite3.connect(moved).execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            session.close()


@pytest.mark.slow
def test_every_name_of_a_running_session_is_refused(tmp_path, iris_file):
    data_path, y = iris_file
    session_file = tmp_path / "s.db"
    server = Server(data_path, "--id-column", "name", "--session", session_file)
    (tmp_path / "sub").mkdir()
    names = {"hard link": tmp_path / "h.db", "symlink": tmp_path / "l.db", "second path": tmp_path / "sub/../s.db"}
    os.link(session_file, names["hard link"])
    names["symlink"].symlink_to(session_file)
    try:
        asked = answer(server.client, y, 2)
        before = sorted(p.name for p in tmp_path.iterdir())
        data = load_data(data_path, id_column="name")
        for how, name in names.items():
            with pytest.raises(SessionFileError, match=rf"open in another linkwise session \(process "
                                                       rf"{server.process.pid}\)"):
                HumanSession(name, data)
            refused = CliRunner().invoke(main, ["cluster", str(data_path), "--session", str(name), "--no-browser"])
            assert refused.exit_code == 1 and "open in another linkwise session" in refused.output, how
            assert refused.output.strip().count("\n") == 0, refused.output  # one line
        assert sorted(p.name for p in tmp_path.iterdir()) == before  # no journal, no lock file beside any name
        asked += answer(server.client, y, 1)  # the running session never noticed
    finally:
        server.stop()
    assert stored_pairs(session_file) == asked
    # a clean exit leaves no journal and no lock beside it: only the labels file Ctrl+C writes
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "s.labels.csv"])
    with SessionStore(names["hard link"], exclusive=True) as store:  # free for one session again, by any name
        assert [(a.i, a.j) for a in store.answers()] == asked


def test_a_read_only_session_file_is_refused_at_start_with_one_line(tmp_path, iris_data):
    data, y = iris_data
    session_file = tmp_path / "s.db"
    session = HumanSession(session_file, data, lw.COBRAS(random_state=0))
    state = session.state()
    session.answer(state.position, True)
    session.close()
    os.chmod(session_file, 0o444)  # refused for root too, whom the mode does not stop
    before = digest(session_file)
    with pytest.raises(SessionFileError, match=r"s\.db is read-only.*chmod u\+w"):
        HumanSession(session_file, data)
    refused = CliRunner().invoke(main, ["cluster", str(data.path), "--session", str(session_file), "--no-browser"])
    assert refused.exit_code == 1 and "is read-only" in refused.output
    assert refused.output.strip().count("\n") == 0, refused.output
    assert digest(session_file) == before and sorted(p.name for p in tmp_path.iterdir()) == ["iris.csv", "s.db"]
    exported = CliRunner().invoke(main, ["export", str(session_file)])  # reading it still works
    assert exported.exit_code == 0 and exported.output.startswith("id,cluster")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="sets another process's file size limit (Linux)")
def test_a_failed_write_says_not_saved_and_the_answer_can_be_given_again(tmp_path, iris_file):
    data_path, y = iris_file
    session_file = tmp_path / "s.db"
    server = Server(data_path, "--id-column", "name", "--session", session_file)
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    try:
        asked = answer(server.client, y, 3)
        state = server.state()
        # the server may write no byte more (as on a full disk): a limit that binds root as well
        resource.prlimit(server.process.pid, resource.RLIMIT_FSIZE, (0, hard))
        payload = {"position": state["position"], "answer": truth_answer(y, state["question"]["pair"])}
        for _ in range(2):
            failed = server.client.post("/api/answer", json=payload)
            assert failed.status_code == 503, failed.text
            assert failed.json()["error"].startswith("Not saved: the session file") and "disk may be full" in failed.json()["error"]
            assert failed.json()["state"]["position"] == state["position"]  # the same question, to answer again
            assert failed.json()["state"]["n_answered"] == 3
        undo = server.client.post("/api/undo", json={"position": state["position"]})
        assert undo.status_code == 503 and server.state()["n_answered"] == 3
        assert stored_pairs(session_file) == asked
        resource.prlimit(server.process.pid, resource.RLIMIT_FSIZE, (hard, hard))
        retried = server.client.post("/api/answer", json=payload)
        assert retried.status_code == 200 and retried.json()["state"]["n_answered"] == 4
        asked.append(tuple(sorted(state["question"]["pair"])))
        asked += answer(server.client, y, 1)
    finally:
        server.stop()
    assert stored_pairs(session_file) == asked
    assert "Traceback" not in "".join(server.output)


def scripted_session(folder, data):
    folder.mkdir(exist_ok=True)
    return HumanSession(folder / "s.db", data, Scripted(script=[[k, k + 1] for k in range(0, 40, 2)]))


@pytest.mark.parametrize("how", ["deleted", "moved", "replaced", "folder deleted"])
def test_a_session_file_gone_while_running_goes_on_in_a_recovery_file(tmp_path, iris_data, how):
    data, y = iris_data
    folder = tmp_path / "work"
    session = scripted_session(folder, data)
    server = LiveServer(session, tmp_path / "labels.csv")
    try:
        client = server.client()
        asked = answer(client, y, 3)
        if how == "deleted":
            (folder / "s.db").unlink()
        elif how == "moved":
            (folder / "s.db").rename(folder / "elsewhere.db")
        elif how == "replaced":
            shutil.copyfile(folder / "s.db", folder / "old.db")
            (folder / "old.db").replace(folder / "s.db")
        else:
            shutil.rmtree(folder)
            state = client.get("/api/state").json()
            failed = client.post("/api/answer", json={"position": state["position"], "answer": "same"})
            assert failed.status_code == 503 and "no recovery file could be written" in failed.json()["error"]
            assert failed.json()["state"]["position"] == state["position"] and not folder.exists()
            folder.mkdir()  # the person makes room: the same answer is taken now
        kept = {p.name: digest(p) for p in folder.iterdir()}
        asked += answer(client, y, 1)
        notice = client.get("/api/state").json()["notice"]
        assert notice.startswith(f"The session file {folder / 's.db'} was deleted, moved or replaced")
        assert f"saved in {folder / 's.recovered.db'}" in notice
        asked += answer(client, y, 2)
        assert {p.name: digest(p) for p in folder.iterdir() if p.name in kept} == kept  # others' files untouched
        with pytest.raises(SessionFileError, match="open in another"):  # the session holds its recovery file
            SessionStore(folder / "s.recovered.db", exclusive=True)
    finally:
        server.stop()
        session.close()
    assert stored_pairs(folder / "s.recovered.db") == asked
    assert sorted(p.name for p in folder.iterdir()) == sorted({*kept, "s.recovered.db"})
    again = scripted_session(folder, data) if how != "replaced" else None  # a new session at the old name
    resumed = HumanSession(folder / "s.recovered.db", data, trusted_method="tests.e2e.helpers:Scripted")
    assert resumed.state().n_answered == 6 and resumed.store.notice is None
    resumed.close()
    if again is not None:
        again.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX's")
def test_a_named_pipe_swapped_into_the_image_folder_is_refused_never_waited_on(tmp_path):
    """Opening a FIFO blocks until a writer comes: the image route and the question's items blocked forever."""
    root = tmp_path / "data"
    (root / "img").mkdir(parents=True)
    for k in range(4):
        (root / "img" / f"{k}.png").write_bytes(PNG)
    pd.DataFrame({"x": range(4), "picture": [f"img/{k}.png" for k in range(4)]}).to_csv(root / "d.csv", index=False)
    session = HumanSession(tmp_path / "s.db", load_data(root / "d.csv", image_column="picture"),
                           Scripted(script=[[2, 3], [0, 1]]))
    server = LiveServer(session, tmp_path / "labels.csv")
    try:
        client = server.client()
        assert client.get("/item/2/image").content == PNG
        (root / "img" / "2.png").unlink()
        os.mkfifo(root / "img" / "2.png")
        refused = client.get("/item/2/image", timeout=10)
        assert refused.status_code == 404 and refused.text == (
            "Image 'img/2.png' cannot be read: it is not a regular file (a named pipe, a socket or a device).")
        state = client.get("/api/state", timeout=10).json()
        pipe, fine = state["question"]["items"]
        assert pipe["image"] is None and pipe["image_error"] == refused.text and fine["image"] == "/item/3/image"
        reply = client.post("/api/answer", json={"position": state["position"], "answer": "different"}, timeout=10)
        assert reply.status_code == 200 and client.get("/item/3/image").content == PNG
    finally:
        server.stop()
        session.close()
    assert stored_pairs(tmp_path / "s.db") == [(2, 3)]
    assert stat.S_ISFIFO(os.stat(root / "img" / "2.png").st_mode)  # left as it is


@pytest.mark.slow
def test_the_browser_is_opened_without_the_token_on_its_command_line(tmp_path, iris_file):
    data_path, _ = iris_file
    record, private = tmp_path / "argv.json", tmp_path / "tmp"
    private.mkdir()
    browser = tmp_path / "browser.py"
    browser.write_text(f"#!{sys.executable}\nimport json, sys\nopen({str(record)!r}, 'w').write(json.dumps(sys.argv))\n")
    browser.chmod(0o755)
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db", browser=True,
                    env={"BROWSER": str(browser), "TMPDIR": str(private)})
    try:
        token = server.url.split("token=")[1]
        deadline = time.monotonic() + 60
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        argv = json.loads(record.read_text())
        assert token not in " ".join(argv) and len(argv) == 2 and argv[1].startswith("file://")
        opened = Path(argv[1].removeprefix("file://"))
        assert opened.parent == private and stat.S_IMODE(opened.stat().st_mode) == 0o600
        assert server.url in opened.read_text()  # the file the browser opens leads to the tokened address
        assert token_client(server.origin, server.url).get("/api/state").status_code == 200
    finally:
        server.stop()
    assert list(private.iterdir()) == []  # removed when the server stops


@pytest.mark.parametrize("target", ["//evil.example.com/", "///evil.example.com/x", "/\\evil.example.com/",
                                    "/%2F%2Fevil.example.com/", "/%09/evil.example.com/", "/%5C%5Cevil.example.com/"])
def test_the_token_redirect_stays_on_the_server(live, iris_data, target):
    server, _ = live(iris_data[0])
    token = server.url.split("token=")[1]
    host, port = server.origin.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("GET", f"{target}?token={token}&a=1")  # sent as it is, not normalised
        reply = connection.getresponse()
        location = reply.getheader("location")
    finally:
        connection.close()
    assert reply.status == 303 and location.startswith("/") and location.endswith("?a=1")
    assert location[1] not in "/\\" and not any(c in location for c in "\\\t\n\r")
    assert httpx.URL(server.origin).join(location).host == "127.0.0.1"


@pytest.mark.slow
def test_a_client_that_drops_a_post_midway_leaves_no_traceback(tmp_path, iris_file):
    data_path, y = iris_file
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db")
    try:
        (name, value), = server.client.cookies.items()
        host, port = server.origin.removeprefix("http://").split(":")
        position = server.state()["position"]
        body = json.dumps({"position": position, "answer": "same"}).encode()
        for cut in (0, 5, len(body) - 1):
            with socket.create_connection((host, int(port)), timeout=30) as raw:
                raw.sendall(f"POST /api/answer HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {name}={value}\r\n"
                            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                            + body[:cut])
        state = server.state()
        assert state["n_answered"] == 0 and state["position"] == position
        assert answer(server.client, y, 1)
    finally:
        server.stop()
    output = "".join(server.output)
    assert "Traceback" not in output and "ClientDisconnect" not in output and "Exception" not in output, output
    assert len(stored_pairs(tmp_path / "s.db")) == 1
