"""The session's web app, driven over HTTP against a live uvicorn server."""

import json
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

import httpx
import pandas as pd
import pytest

from linkwise._validation import InvalidParameterError
from linkwise.session import load_data, serve
from linkwise.session.front import _web
from linkwise.session.front._web import SessionOpening
from tests.e2e.helpers import BAD_REQUESTS, PNG, LiveServer, Scripted, Server, gated_opening, truth_answer


def test_two_clients_see_one_question_and_an_answer_is_taken_once(live, iris_data):
    data, y = iris_data
    server, session = live(data)
    a, b = server.client(), server.client()
    seen_a, seen_b = a.get("/api/state").json(), b.get("/api/state").json()
    assert seen_a["position"] == seen_b["position"] and seen_a["question"] == seen_b["question"]
    pair = seen_a["question"]["pair"]
    first = a.post("/api/answer", json={"position": seen_a["position"], "answer": truth_answer(y, pair)})
    assert first.status_code == 200
    late = b.post("/api/answer", json={"position": seen_b["position"], "answer": "different"})
    assert late.status_code == 409
    assert "already been answered" in late.json()["error"]
    assert late.json()["state"]["position"] == first.json()["state"]["position"]  # b now sees a's next question
    assert len(session.store.answers()) == 1
    # polling: an unchanged state is not sent again
    revision = b.get("/api/state").json()["revision"]
    assert b.get("/api/state", params={"revision": revision}).json() == {"unchanged": True}


def test_answer_undo_and_finish_over_http(live, iris_data, tmp_path):
    data, y = iris_data
    server, session = live(data)
    client = server.client()
    state = client.get("/api/state").json()
    assert state["method"] == "COBRAS" and state["data"] == "iris.csv" and state["n_rows"] == 147
    assert len(state["labels"]) == 147 and len(client.get("/api/points").json()["x"]) == 147
    for _ in range(5):
        pair = state["question"]["pair"]
        state = client.post("/api/answer", json={"position": state["position"],
                                                 "answer": truth_answer(y, pair)}).json()["state"]
    assert state["n_answered"] == 5 and state["n_clusters"] == len(set(state["labels"]))
    item = state["question"]["items"][0]
    assert item["id"].startswith("flower-") and len(item["point"]) == 2 and item["image"] is None
    state = client.post("/api/undo", json={"position": state["position"]}).json()["state"]
    assert state["n_answered"] == 4
    finished = client.post("/api/finish", json={}).json()
    assert finished["path"] == str(tmp_path / "labels.csv") and finished["n_rows"] == 147
    written = pd.read_csv(tmp_path / "labels.csv")
    assert written["cluster"].nunique() == finished["n_clusters"]
    downloaded = client.get("/labels.csv")
    assert downloaded.headers["content-type"].startswith("text/csv")
    assert downloaded.text == written.to_csv(index=False)
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text


@pytest.mark.parametrize("route, body, headers, status, message", BAD_REQUESTS)
def test_bad_requests_are_refused_with_a_reason(live, iris_data, tmp_path, route, body, headers, status, message):
    server, session = live(iris_data[0])
    response = server.client().post(route, content=body, headers=headers)
    assert response.status_code == status and message in response.json()["error"]
    assert session.store.answers() == [] and not (tmp_path / "labels.csv").exists()
    assert server.client().get("/api/state").status_code == 200


def test_a_body_without_length_is_refused_once_it_passes_the_cap(live, iris_data):
    """A chunked body is counted as it arrives: the reply comes before the body ends (it never does here)."""
    server, session = live(iris_data[0])
    (name, value), = server.client().cookies.items()
    host, port = server.origin.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as raw:
        raw.sendall(f"POST /api/answer HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {name}={value}\r\n"
                    "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        for _ in range(5):  # 320 KB of an unfinished body
            raw.sendall(b"10000\r\n" + b" " * 65536 + b"\r\n")
        reply = b""
        while not reply.endswith(b"}"):  # the headers, then the JSON error
            part = raw.recv(65536)
            assert part, reply
            reply += part
    assert reply.startswith(b"HTTP/1.1 413") and b"larger than 256 KB" in reply
    assert session.store.answers() == []


def test_other_sites_cannot_answer_or_read(live, iris_data):
    server, session = live(iris_data[0])
    client = server.client()
    position = client.get("/api/state").json()["position"]
    forged = client.post("/api/answer", json={"position": position, "answer": "same"},
                         headers={"origin": "http://evil.example"})
    assert forged.status_code == 403 and session.store.answers() == []
    rebound = client.get("/api/state", headers={"host": "evil.example"})  # DNS rebinding
    assert rebound.status_code == 400
    page = client.get("/")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_only_the_sessions_own_images_are_served(live, tmp_path):
    root = tmp_path / "data"
    (root / "img").mkdir(parents=True)
    (root / "img" / "ok.png").write_bytes(PNG)
    secret = b"TOP-SECRET-CONTENT"
    (tmp_path / "secret.png").write_bytes(secret)
    (root / "img" / "link.png").symlink_to(tmp_path / "secret.png")
    paths = ["img/ok.png", "../secret.png", str(tmp_path / "secret.png"), "img/../../secret.png", "img/link.png"]
    pd.DataFrame({"x": [0.0, 1, 2, 3, 4], "picture": paths}).to_csv(root / "d.csv", index=False)
    server, _ = live(load_data(root / "d.csv", image_column="picture"))
    client = server.client()
    ok = client.get("/item/0/image")
    assert ok.status_code == 200 and ok.headers["content-type"] == "image/png" and ok.content == PNG
    urls = [f"/item/{row}/image" for row in (1, 2, 3, 4, 5, 99)] + [
        "/item/-1/image", "/item/..%2F..%2Fsecret.png/image", "/item/0/..%2F..%2F..%2Fsecret.png",
        "/static/../secret.png", "/static/%2e%2e/%2e%2e/%2e%2e/secret.png", "/static/..%2F..%2F_store.py",
        "/../secret.png",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 404, url
        assert secret not in response.content
    refused = client.get("/api/state").json()
    items = refused["question"]["items"]
    assert all(it["image"] is None or it["image"] == "/item/0/image" for it in items)


def test_every_route_needs_the_runs_token(live, iris_data, tmp_path):
    server, session = live(iris_data[0])
    stranger = server.client(token=False)
    token = server.url.split("token=")[1]
    requests = [("GET", "/"), ("GET", "/api/state"), ("GET", "/api/points"), ("GET", "/labels.csv"),
                ("GET", "/item/0/image"), ("GET", "/static/app.js"), ("GET", "/?token=wrong"),
                ("GET", "/?token=" + token[:-1]), ("GET", "/?token=%C3%A9"), ("POST", "/api/answer"),
                ("POST", "/api/finish"), ("POST", f"/api/finish?token={token}")]
    for method, url in requests:
        response = stranger.request(method, url, json={} if method == "POST" else None)
        assert response.status_code == 403 and "access token" in response.text, url
        assert "flower" not in response.text and "script" not in response.text
    assert session.store.answers() == [] and not (tmp_path / "labels.csv").exists()
    # someone else's cookie name (another session's port) or value does not pass either
    assert stranger.get("/api/state", headers={"cookie": f"linkwise-1={token}"}).status_code == 403
    port = server.origin.rsplit(":", 1)[1]
    assert stranger.get("/api/state", headers={"cookie": f"linkwise-{port}=x{token}"}).status_code == 403

    # the printed address: sets an HttpOnly, SameSite=Strict cookie and redirects to the clean URL
    first = stranger.get(f"/api/state?revision=7&token={token}")
    assert first.status_code == 303 and first.headers["location"] == "/api/state?revision=7"
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"linkwise-{port}={token};") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert stranger.get("/api/state").json()["n_rows"] == 147


@pytest.mark.slow
def test_the_printed_address_carries_a_new_token_each_run(tmp_path, iris_file):
    data_path, _ = iris_file
    tokens = []
    for _ in range(2):
        server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db")
        try:
            tokens.append(server.url.split("token=")[1])
            assert httpx.get(server.origin + "/api/state").status_code == 403
            assert server.state()["n_rows"] == 147
        finally:
            server.stop()
    assert len(set(tokens)) == 2 and len(tokens[0]) >= 32


def test_a_labels_file_of_any_name_downloads(live, iris_data):
    server, _ = live(iris_data[0], labels_name='数据 "x".labels.csv')
    response = server.client().get("/labels.csv")
    assert response.status_code == 200
    disposition = response.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="__ _x_.labels.csv";')
    assert "filename*=UTF-8''" + quote('数据 "x".labels.csv', safe="") in disposition


def test_a_port_in_use_is_a_one_line_error(live, iris_data, tmp_path):
    _, session = live(iris_data[0])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(InvalidParameterError, match=rf"port {port}: Address already in use.*--port 0") as info:
            serve(session, tmp_path / "labels.csv", port=port, open_browser=False)
    assert "\n" not in str(info.value)


def test_a_labels_file_that_cannot_be_written_is_a_message(live, iris_data, tmp_path):
    server, _ = live(iris_data[0], labels_name="gone/labels.csv")
    finished = server.client().post("/api/finish", json={})
    assert finished.status_code == 500 and "Could not write the labels" in finished.json()["error"]
    assert not (tmp_path / "gone").exists()


def test_dropped_columns_are_in_the_state(live, iris_data):
    data, _ = iris_data
    data.dropped_columns = {"species": "non-numeric value 'setosa' at line 2"}
    server, _ = live(data)
    assert server.client().get("/api/state").json()["dropped_columns"] == data.dropped_columns


@pytest.fixture
def broken_gallery(tmp_path):
    """Rows whose images cannot be shown, each for another reason; row 0 is fine."""
    root = tmp_path / "data"
    (root / "img" / "folder.png").mkdir(parents=True)
    (root / "img" / "ok.png").write_bytes(PNG)
    (root / "img" / "text.png").write_text("not an image at all")
    (root / "img" / "locked.png").write_bytes(PNG)
    os.chmod(root / "img" / "locked.png", 0)
    (root / "img" / "loop.png").symlink_to(root / "img" / "loop.png")
    (tmp_path / "outside.png").write_bytes(PNG)
    (root / "img" / "out.png").symlink_to(tmp_path / "outside.png")
    reasons = {"img/ok.png": None, "img/" + "a" * 296 + ".png": "cannot be read: File name too long",
               "img/missing.png": "not found", "img/folder.png": "it is a folder",
               "img/text.png": "content is not a PNG", "img/locked.png": "cannot be read: Permission denied",
               "img/loop.png": "cannot be read: Too many levels of symbolic links",
               "img/out.png": "leads outside"}
    if os.geteuid() == 0:  # root reads any file
        reasons["img/locked.png"] = None
    pd.DataFrame({"x": range(len(reasons)), "picture": list(reasons)}).to_csv(root / "d.csv", index=False)
    return root / "d.csv", list(reasons.values())


def test_unreadable_images_are_refused_as_text_never_a_500(live, broken_gallery):
    path, reasons = broken_gallery
    script = [[1, 0], [2, 3], [4, 5], [6, 7]]
    server, session = live(load_data(path, image_column="picture"), Scripted(script=script))
    client = server.client()
    for row, reason in enumerate(reasons):
        response = client.get(f"/item/{row}/image")
        if reason is None:
            assert response.status_code == 200 and response.content == PNG
            assert response.headers["cross-origin-resource-policy"] == "same-origin"
        else:
            assert response.status_code == 404 and reason in response.text, row
            assert len(response.text) < 300  # the long name is shortened
    state = client.get("/api/state").json()
    for _ in script:  # every refused image is shown as its reason; answering goes on
        for item in state["question"]["items"]:
            assert (item["image"] is None) == (reasons[item["row"]] is not None)
            assert item["image_error"] is None or reasons[item["row"]] in item["image_error"]
        reply = client.post("/api/answer", json={"position": state["position"], "answer": "different"})
        assert reply.status_code == 200
        state = reply.json()["state"]
    assert state["done"] and len(session.store.answers()) == 4


@pytest.mark.slow
def test_a_session_with_an_unreadable_image_resumes(broken_gallery, tmp_path):
    path, _ = broken_gallery
    args = [path, "--image-column", "picture", "--session", tmp_path / "s.db", "--method", "tests.e2e.helpers:Scripted",
            "--param", "script=" + json.dumps([[1, 0], [1, 2]])]
    for n_answered in range(2):
        server = Server(*args)
        try:
            state = server.state()
            assert state["n_answered"] == n_answered and "too long" in state["question"]["items"][0]["image_error"]
            assert server.post("/api/answer", position=state["position"], answer="same").status_code == 200
        finally:
            server.kill()


# -- the page served while the session opens (linkwise cluster prints the address first) -------------------------
def test_the_page_is_served_before_the_session_opens_and_its_routes_wait_for_it(iris_data, tmp_path, monkeypatch):
    monkeypatch.setattr(_web, "_PREPARING_WAIT", 0.1)  # /api/state says "preparing" soon, not after 20 s
    data, y = iris_data
    gate = threading.Event()
    opening = gated_opening(data, tmp_path / "s.db", gate)
    server = LiveServer(opening, tmp_path / "labels.csv")
    try:
        opening.start()
        with pytest.raises(RuntimeError, match="already been started"):  # one session, opened once
            opening.start()
        client, other = server.client(), server.client()
        assert client.get("/").status_code == 200 and len(client.get("/api/points").json()["x"]) == 147
        assert client.get("/api/state").json() == {"preparing": True}
        assert not (tmp_path / "s.db").exists()  # no session yet: the page only showed the data
        with ThreadPoolExecutor(1) as pool:
            clusters = pool.submit(other.get, "/api/clusters")  # needs the session: waits for it
            time.sleep(0.3)
            assert not clusters.done()  # a local reply comes sooner: this one waits for the session
            gate.set()
            assert clusters.result(60).status_code == 200 and clusters.result().json()["strips"]
        opening.wait()
        state = client.get("/api/state").json()
        assert state["n_rows"] == 147 and state["method"] == "COBRAS" and state["about"]["text"]
        reply = client.post("/api/answer", json={"position": state["position"],
                                                 "answer": truth_answer(y, state["question"]["pair"])})
        assert reply.status_code == 200 and reply.json()["state"]["n_answered"] == 1
    finally:
        gate.set()
        server.stop()
        opening.wait().close()


def test_a_session_that_cannot_open_says_why_on_every_route_that_needs_it(iris_data, tmp_path):
    def refuse():
        raise InvalidParameterError("The session s.db was made for other data.")

    opening = SessionOpening(refuse, iris_data[0])
    server = LiveServer(opening, tmp_path / "labels.csv")
    try:
        opening.start()
        client = server.client()
        assert client.get("/").status_code == 200  # the page, to show it
        for reply in (client.get("/api/state"), client.get("/api/clusters"),
                      client.post("/api/answer", json={"position": "0.1-2", "answer": "same"})):
            assert reply.status_code == 503
            assert reply.json() == {"error": "The session could not start: The session s.db was made for other data."}
    finally:
        server.stop()
    with pytest.raises(InvalidParameterError, match="made for other data"):
        opening.wait()


def test_serve_prints_the_address_then_stops_and_raises_when_the_session_cannot_open(iris_data, tmp_path):
    def refuse():
        raise InvalidParameterError("The session s.db was made for other data.")

    printed = []
    with pytest.raises(InvalidParameterError, match="made for other data"):
        serve(SessionOpening(refuse, iris_data[0]), tmp_path / "labels.csv", open_browser=False, echo=printed.append)
    assert len(printed) == 1 and printed[0].startswith("linkwise session at http://127.0.0.1:")
    assert not (tmp_path / "labels.csv").exists()
