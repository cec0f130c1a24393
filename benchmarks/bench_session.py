"""Human sessions: time from an answer to the next question shown, with COBRAS on shipped data.

A shipped dataset is written as a person's CSV and served by the real command
(``linkwise cluster DATA.csv --no-browser``, a subprocess). A simulated person
answers from the classes, and three times are measured per question:

- *method step*: in-process ``ActiveSession.tell`` + ``ask`` + ``labels_`` with
  the same answers: what COBRAS itself needs;
- *commit*: storing one answer alone (SQLite rollback journal,
  synchronous=FULL), and the *HTTP floor*: the cheapest request to the same
  server (the baselines);
- *HTTP*: ``POST /api/answer`` to its response, which carries the next
  question: method step + SQLite commit + JSON;
- *browser*: in headless Chromium (when ``/usr/bin/chromium`` exists), from the
  click on "Same"/"Different" to the animation frame that paints the next
  question, timed inside the page (``performance.now``).

Target: under 100 ms from a click to the next question.

A second table prices the session file's durability: a commit that lands in
the ``.db`` itself (rollback journal, what :class:`SessionStore` does, so a
copy of the ``.db`` alone holds every answer) against the WAL commit linkwise
used before (answers in the ``-wal`` side file until a checkpoint) and WAL
with a checkpoint after each commit, the same transaction timed in turns.

    python benchmarks/bench_session.py [--quick]
"""

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.session import SessionStore, load_data  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SEED = 0


def write_csv(name, folder):
    X, y = lw.datasets.load(name)
    frame = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    frame.insert(0, "item", [f"item-{k}" for k in range(len(y))])
    path = Path(folder) / f"{name}.csv"
    frame.to_csv(path, index=False)
    return path, y


def start_server(csv, folder):
    command = [sys.executable, "-c", "from linkwise.cli import main; main()", "cluster", str(csv),
               "--id-column", "item", "--session", str(Path(folder) / "s.db"), "--param", f"random_state={SEED}",
               "--no-browser"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "OMP_NUM_THREADS": "1"})
    for line in process.stdout:
        found = re.search(r"http://127\.0\.0\.1:\d+/\S*", line)  # with its ?token=...
        if found:
            return process, found.group(0)
    raise RuntimeError("the server did not start")


def stop_server(process):
    process.terminate()
    process.wait(30)
    process.stdout.close()


def method_steps(csv, y, n):
    """Milliseconds per in-process step (tell + ask + labels_) with COBRAS."""
    X = load_data(csv, id_column="item").X
    session = lw.ActiveSession(lw.COBRAS(random_state=SEED), X)
    times = []
    for _ in range(n):
        pair = session.ask()
        if pair is None:
            break
        start = time.perf_counter()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        session.ask()
        _ = session.labels_
        times.append(time.perf_counter() - start)
    return np.array(times) * 1000


def commit_times(folder, n):
    """Milliseconds to store and commit one answer (SQLite rollback journal, synchronous=FULL), alone."""
    with SessionStore(Path(folder) / "commit.db") as store:
        times = []
        for k in range(n):
            start = time.perf_counter()
            store.record(k, k + 1, True)
            times.append(time.perf_counter() - start)
    return np.array(times) * 1000


# the transaction of SessionStore.record, by journal: the answer in the .db at once (now), in the -wal (before),
# in the -wal then checkpointed into the .db
_JOURNALS = {"rollback journal": ("DELETE", False), "WAL": ("WAL", False), "WAL + checkpoint": ("WAL", True)}


def durability_costs(folder, n):
    """Milliseconds per stored answer: each journal of :data:`_JOURNALS` on the transaction SessionStore.record
    commits (synchronous=FULL), and SessionStore.record itself; in turns, so that load on the machine hits all alike."""
    connections = {}
    for name, (mode, _) in _JOURNALS.items():
        path = Path(folder) / f"{mode}-{len(connections)}.db"
        with SessionStore(path) as store:
            store.write_meta({"method": "cobras"})
        db = sqlite3.connect(path, isolation_level=None)
        db.execute(f"PRAGMA journal_mode={mode}")
        db.execute("PRAGMA synchronous=FULL")
        connections[name] = db
    store = SessionStore(Path(folder) / "store.db", exclusive=True)
    times = {name: [] for name in (*_JOURNALS, "SessionStore.record")}
    for k in range(n):
        for name, db in connections.items():
            start = time.perf_counter()
            with db:
                db.execute("BEGIN")
                seq = db.execute("INSERT INTO answers (i, j, answer, answered_at, annotator, kind, members, action) "
                                 "VALUES (?, ?, 1, ?, NULL, 'question', NULL, NULL)", (k, k + 1, "now")).lastrowid
                db.execute("UPDATE answers SET action = ? WHERE seq = ?", (seq, seq))
            if _JOURNALS[name][1]:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            times[name].append(time.perf_counter() - start)
        start = time.perf_counter()
        store.record(k, k + 1, True)
        times["SessionStore.record"].append(time.perf_counter() - start)
    store.close()
    for db in connections.values():
        db.close()
    return {name: np.array(t) * 1000 for name, t in times.items()}


@contextmanager
def client_for(url):
    """An HTTP client of the server at ``url`` (its printed address): opening it once sets the access cookie."""
    with httpx.Client(base_url=url.split("?")[0], timeout=60, follow_redirects=True) as client:
        client.get(url).raise_for_status()
        yield client


def http_floor(url, n):
    """Milliseconds for the cheapest request to the same server (a poll that finds nothing new)."""
    times = []
    with client_for(url) as client:
        revision = client.get("/api/state").json()["revision"]
        for _ in range(n):
            start = time.perf_counter()
            client.get("/api/state", params={"revision": revision})
            times.append(time.perf_counter() - start)
    return np.array(times) * 1000


def http_steps(url, y, n):
    times = []
    with client_for(url) as client:
        state = client.get("/api/state").json()
        for _ in range(n):
            if state["question"] is None:
                break
            i, j = state["question"]["pair"]
            payload = {"position": state["position"], "answer": "same" if y[i] == y[j] else "different"}
            start = time.perf_counter()
            state = client.post("/api/answer", json=payload).json()["state"]
            times.append(time.perf_counter() - start)
    return np.array(times) * 1000


# In the page: click, then wait for the next question's render and the frame that paints it.
_CLICK_TO_SHOWN = """(selector) => new Promise((resolve) => {
  const start = performance.now();
  const observer = new MutationObserver(() => {
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - start));
  });
  observer.observe(document.body, {attributes: true, attributeFilter: ["data-position"]});
  document.querySelector(selector).click();
})"""


def browser_steps(url, y, n):
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(url)
        page.wait_for_selector("body[data-position]", state="attached")
        for _ in range(n):
            if page.locator("#ask").is_hidden():
                break
            a, b = (int(t.removeprefix("item-")) for t in page.locator("#pair .item-id").all_text_contents())
            times.append(page.evaluate(_CLICK_TO_SHOWN, "button.same" if y[a] == y[b] else "button.different"))
        browser.close()
    return np.array(times)


def summary(ms):
    return f"{np.median(ms):.1f} / {np.percentile(ms, 90):.1f} / {ms.max():.1f}" if ms.size else "n/a"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="two datasets, 20 questions, 50 commits")
    args = parser.parse_args()
    names = ["iris", "wine"] if args.quick else ["iris", "wine", "ecoli", "segmentation", "cure-t2-4k"]
    n = 20 if args.quick else 50
    browser = Path(CHROMIUM).exists()
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory() as folder:
            csv, y = write_csv(name, folder)
            base = method_steps(csv, y, n)
            commit = commit_times(folder, n)
            process, url = start_server(csv, folder)
            try:
                floor = http_floor(url, n)
                http = http_steps(url, y, n)
            finally:
                stop_server(process)
            (Path(folder) / "s.db").unlink()
            click = np.array([])
            if browser:
                process, url = start_server(csv, folder)
                try:
                    click = browser_steps(url, y, n)
                finally:
                    stop_server(process)
        worst = np.percentile(click if click.size else http, 90)
        rows.append((name, len(y), http.size, summary(base), f"{np.median(commit):.1f}", f"{np.median(floor):.1f}",
                     summary(http), summary(click), f"{np.median(http) / np.median(floor):.1f}",
                     "yes" if worst < 100 else "NO"))
        print(" | ".join(map(str, rows[-1])), flush=True)

    header = ("dataset", "n", "questions", "method step ms (median / p90 / max)", "commit ms", "HTTP floor ms",
              "HTTP answer -> next question ms", "browser click -> next question shown ms",
              "answer / floor (medians)", "p90 < 100 ms")
    lines = [
        "# Human sessions: answer-to-next-question latency",
        "",
        f"COBRAS (random_state={SEED}) through `linkwise cluster` (uvicorn on 127.0.0.1, one process), answers "
        "from the classes; times in ms as median / p90 / max. Baselines measured in the same run: method step = "
        "in-process `ActiveSession.tell + ask + labels_`; commit = storing one answer alone (SQLite rollback "
        "journal, synchronous=FULL); HTTP floor = the cheapest request to the same server (a poll with nothing new). "
        "HTTP answer = `POST /api/answer` round trip, whose response carries the next question (method step + "
        "commit + state JSON); browser = headless Chromium, from the click to the frame that paints the next "
        "question, timed in the page. "
        f"OMP_NUM_THREADS=1; {'quick' if args.quick else 'full'} mode; 2-core machine shared with other jobs.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    if not browser:
        lines += ["", f"Browser column: n/a, {CHROMIUM} is not installed."]
    lines += durability_section(200 if not args.quick else 50, args.quick)
    out = results_path("session.md", args.quick)
    # the sections other benchmarks add to this file are kept
    others = re.split(r"\n(?=## )", out.read_text())[1:] if out.exists() else []
    others = [part.rstrip("\n") for part in others if not part.startswith(DURABILITY)]
    out.write_text("\n".join(lines) + "\n" + "".join(f"\n{part}\n" for part in others))
    print(f"wrote {out}")


DURABILITY = "## Session file: the cost of keeping every answer in the .db"


def durability_section(n, quick):
    with tempfile.TemporaryDirectory() as folder:
        costs = durability_costs(folder, n)
    now, before = np.median(costs["SessionStore.record"]), np.median(costs["WAL"])
    header = ("commits", *(f"{name} ms" for name in costs), "SessionStore.record / WAL (medians)")
    row = (n, *(summary(ms) for ms in costs.values()), f"{now / before:.1f}")
    print(" | ".join(map(str, row)), flush=True)
    return [
        "",
        DURABILITY,
        "",
        "One answer stored and committed (`SessionStore.record`'s transaction, synchronous=FULL), times in ms as median / "
        "p90 / max, the variants in turns in one run: rollback journal = what SessionStore does (the commit lands in "
        "the `.db` itself, so a copy of the `.db` alone holds every acknowledged answer); WAL = how linkwise stored "
        "answers before (each one in the `-wal` side file until a checkpoint: a copy of the `.db` alone lacked them); "
        "WAL + checkpoint = WAL with `wal_checkpoint(TRUNCATE)` after each commit, the other way to the same "
        "guarantee; SessionStore.record = the real call (rollback journal, plus the check that the file is still at its "
        f"path). {'quick' if quick else 'full'} mode, in the temporary folder's file system; 2-core machine shared "
        "with other jobs.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        "| " + " | ".join(map(str, row)) + " |",
    ]


if __name__ == "__main__":
    main()
