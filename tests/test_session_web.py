"""The session's web app, driven over HTTP against a live uvicorn server."""

import socket
import threading
import time

import httpx
import pandas as pd
import pytest
import uvicorn

import linkwise as lw
from linkwise.session import HumanSession, create_app, load_data
from tests.e2e.helpers import PNG, iris_csv, truth_answer


class LiveServer:
    def __init__(self, session, labels_path):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(create_app(session, labels_path), log_level="warning",
                                                    lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        self.clients = []

    def client(self):
        client = httpx.Client(base_url=self.url, timeout=30)
        self.clients.append(client)
        return client

    def stop(self):
        for client in self.clients:
            client.close()
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def live(tmp_path):
    servers = []

    def start(data, estimator=None):
        session = HumanSession(tmp_path / "s.db", data, estimator or lw.COBRAS(random_state=0))
        server = LiveServer(session, tmp_path / "labels.csv")
        servers.append((server, session))
        return server, session

    yield start
    for server, session in servers:
        server.stop()
        session.close()


@pytest.fixture
def iris(tmp_path):
    path, y = iris_csv(tmp_path)
    return load_data(path, id_column="name"), y


def test_two_clients_see_one_question_and_an_answer_is_taken_once(live, iris):
    data, y = iris
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


def test_answer_undo_and_finish_over_http(live, iris, tmp_path):
    data, y = iris
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


@pytest.mark.parametrize(
    "body, headers, status, message",
    [
        (b'{"position": "0.1-2", "answer": "same"}', {"content-type": "text/plain"}, 400, "must send JSON"),
        (b"{not json", {"content-type": "application/json"}, 400, "not valid JSON"),
        (b"[1, 2]", {"content-type": "application/json"}, 400, "must be a JSON object"),
        (b'{"answer": "same"}', {"content-type": "application/json"}, 400, "lacks the field 'position'"),
        (b'{"position": "x", "answer": "maybe"}', {"content-type": "application/json"}, 400, "must be one of same"),
    ],
)
def test_bad_requests_are_refused_with_a_reason(live, iris, body, headers, status, message):
    server, session = live(iris[0])
    response = server.client().post("/api/answer", content=body, headers=headers)
    assert response.status_code == status and message in response.json()["error"]
    assert session.store.answers() == []


def test_other_sites_cannot_answer_or_read(live, iris):
    server, session = live(iris[0])
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
