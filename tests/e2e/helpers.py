"""Shared pieces of the human-session tests: data files, a scripted method, servers, bad HTTP bodies."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import uvicorn

import linkwise as lw
from linkwise.loop import ActiveEstimator, Recheck
from linkwise.session import create_app

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SPECIES = np.array(["setosa", "versicolor", "virginica"])
# a 1x1 PNG
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
       b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x04\x00\x09\xfb\x03\xfd\xe3U\xf2\x9c\x00\x00\x00\x00IEND\xaeB`\x82")



def iris_csv(folder, extra=None):
    """Iris as a person's CSV: a name column, four measurements, the species as text (not a feature)."""
    X, y = lw.datasets.load("iris")
    frame = pd.DataFrame(X, columns=["sepal_length", "sepal_width", "petal_length", "petal_width"])
    frame.insert(0, "name", [f"flower-{k}" for k in range(len(y))])
    frame["species"] = SPECIES[y]
    for column, values in (extra or {}).items():
        frame[column] = values
    path = Path(folder) / "iris.csv"
    frame.to_csv(path, index=False)
    return path, y


class Scripted(ActiveEstimator):
    """Test-only method: asks the pairs of ``script`` in order; ``[i, j, "recheck"]`` re-asks a known pair.

    Clusters are the must-link components. ``tolerant`` chooses the constraint store's mode.
    """

    anytime = True

    def __init__(self, *, script=(), tolerant=True, max_queries=None, random_state=None):
        self.script = script
        self.tolerant = tolerant
        self.max_queries = max_queries
        self.random_state = random_state

    def tolerates_contradictions(self):
        return self.tolerant

    def questions(self, ctx):
        ctx.labels = ctx.constraints.component_labels()
        for step in self.script:
            yield Recheck(step[0], step[1]) if len(step) == 3 else (step[0], step[1])
            ctx.labels = ctx.constraints.component_labels()


def token_client(origin, url):
    """An HTTP client that has opened the tokened ``url`` once, so that it holds the session's cookie."""
    client = httpx.Client(base_url=origin, timeout=30)
    first = client.get(url)
    assert first.status_code == 303 and first.headers["location"] == "/", first
    return client


class LiveServer:
    """:func:`create_app` (with its ``options``) served by uvicorn in a thread of this process (tests hold the
    session itself)."""

    def __init__(self, session, labels_path, **options):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        app = create_app(session, labels_path, **options)
        self.origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.url = f"{self.origin}/?token={app.state.token}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        self.clients = []

    def client(self, token=True):
        """An HTTP client with the session's cookie (``token=False``: a stranger without it)."""
        client = token_client(self.origin, self.url) if token else httpx.Client(base_url=self.origin, timeout=30)
        self.clients.append(client)
        return client

    def stop(self):
        for client in self.clients:
            client.close()
        self.server.should_exit = True
        self.thread.join(30)


def gated_opening(data, session_file, gate):
    """A :class:`~linkwise.session.front._web.SessionOpening` of a new COBRAS session that opens only once ``gate`` (a
    threading.Event) is set: a method whose first question takes as long as the test wants."""
    from linkwise.session import HumanSession
    from linkwise.session.front._web import SessionOpening

    def open_session():
        assert gate.wait(60), "the test never let the session open"
        return HumanSession(session_file, data, lw.COBRAS(random_state=0))

    return SessionOpening(open_session, data)


class Server:
    """``linkwise cluster ... --ui web`` in a subprocess; ``url`` (with the token) once it listens. ``browser``: the
    browser is opened (the one ``env``'s BROWSER names); ``output``: what it printed (all of it once stopped)."""

    def __init__(self, *args, cwd=None, browser=False, env=None):
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", **(env or {})}
        command = [sys.executable, "-c", "from linkwise.cli import main; main()", "cluster", *map(str, args),
                   *([] if browser else ["--no-browser"])]
        self.process = subprocess.Popen(command, cwd=cwd or REPO, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.output = []
        deadline = time.monotonic() + 120
        for line in self.process.stdout:
            self.output.append(line)
            found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=[\w-]+", line)
            if found:
                self.url, self.origin = found.group(0), found.group(1)
                break
            if time.monotonic() > deadline:
                break
        else:
            raise RuntimeError("the server stopped before listening:\n" + "".join(self.output))
        self.client = token_client(self.origin, self.url)

    def state(self):
        return self.client.get("/api/state").json()

    def post(self, route, **payload):
        return self.client.post(route, json=payload)

    def kill(self):
        """SIGKILL: no shutdown code runs, as in a crash."""
        self.client.close()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)
        self.process.stdout.close()

    def stop(self):
        self.client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.output.append(self.process.stdout.read())
        self.process.stdout.close()


def answer_from(session, y, n):
    """Answer ``n`` questions of a :class:`~linkwise.session.HumanSession` from the labels ``y``; the pairs asked."""
    asked = []
    for _ in range(n):
        state = session.state()
        i, j = state.question.pair
        asked.append((i, j))
        session.answer(state.position, bool(y[i] == y[j]))
    return asked


def truth_answer(y, pair):
    return "same" if y[pair[0]] == y[pair[1]] else "different"


def direct_fit(session_file, X, y, n_questions):
    """The session's own method (as its file stores it) fitted directly with ``n_questions`` true answers."""
    import json
    import sqlite3

    from linkwise.session.core._methods import build_estimator

    with sqlite3.connect(session_file) as db:
        meta = {key: json.loads(value) for key, value in db.execute("SELECT key, value FROM meta")}
    estimator = build_estimator(meta["method"], {**meta["params"], "max_queries": n_questions})
    return estimator.fit(X, lw.LabelOracle(y))


JSON = {"content-type": "application/json"}
DEEP = b'{"position": "x", "answer": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


# (route, body, headers, status, message): every POST field typed, bodies capped, always a 4xx with a reason
BAD_REQUESTS = [
    ("/api/answer", b'{"position": "0.1-2", "answer": "same"}', {"content-type": "text/plain"}, 400, "must send JSON"),
    ("/api/answer", b"{not json", JSON, 400, "not valid JSON"),
    ("/api/answer", b'{"position": "\xff\xfe"}', JSON, 400, "not valid JSON"),
    ("/api/answer", b"[1, 2]", JSON, 400, "must be a JSON object"),
    ("/api/answer", b'{"answer": "same"}', JSON, 400, "lacks the field 'position'"),
    ("/api/answer", b'{"position": "x", "answer": "maybe"}', JSON, 400, "must be one of same"),
    ("/api/answer", b'{"position": "x", "answer": []}', JSON, 400, "'answer' must be a string"),
    ("/api/answer", b'{"position": "x", "answer": {}}', JSON, 400, "'answer' must be a string"),
    ("/api/answer", b'{"position": ["x"], "answer": "same"}', JSON, 400, "'position' must be a string"),
    ("/api/answer", b'{"position": "x", "answer": "same", "extra": 1}', JSON, 400, "Unknown field 'extra'"),
    ("/api/answer", DEEP, JSON, 400, "not valid JSON"),
    ("/api/answer", b'{"position": "' + b"x" * 300_000 + b'", "answer": "same"}', JSON, 413, "larger than 256 KB"),
    ("/api/undo", b'{"position": 3}', JSON, 400, "'position' must be a string"),
    ("/api/undo", b"{}", JSON, 400, "lacks the field 'position'"),
    ("/api/resolve", b'{"conflict": "1", "wrong": 2}', JSON, 400, "'conflict' must be a whole number"),
    ("/api/resolve", b'{"conflict": 1, "wrong": true}', JSON, 400, "'wrong' must be a whole number"),
    ("/api/resolve", b'{"conflict": 1.5, "wrong": 2}', JSON, 400, "'conflict' must be a whole number"),
    ("/api/resolve", b'{"conflict": 1}', JSON, 400, "lacks the field 'wrong'"),
    ("/api/finish", b'{"path": "/etc/passwd"}', JSON, 400, "Unknown field 'path'"),
    ("/api/finish", b"null", JSON, 400, "must be a JSON object"),
]
