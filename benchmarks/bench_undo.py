"""Undo, change, withdraw and reopen a session file: they start from resume points, not from the first question.

A session file of make_blobs rows (10 features, 10 centres, cluster_std 3) answered by a simulated person through
:class:`~linkwise.session.HumanSession` (Auto on 5,000 rows, 150 answers; COBRAS on 100,000 rows, 1,000 answers),
the answer in the middle wrong, then, each timed on its own (CPU time of this thread, one OpenMP thread, and wall
time): undo of the last answer, change of the last answer, withdraw of the (changed) last one, correcting the wrong
answer in the middle (every later row is replayed: the method takes in the answers after it again), and opening the
file again in
a new HumanSession (its newest resume point was written when it was closed) beside a full replay of it (an empty
cache folder: what every one of these cost before). The floor is one nearest-of-10-centres assignment of as many
rows (``_floor.py``), measured in the same run. Target (issue 37): < 200 ms each.

    python benchmarks/bench_undo.py [--quick]

Writes its section of ``results/session.md``; ``check()`` gives the quick figures to ``make bench-check``.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd  # noqa: E402
from _floor import floor  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.session import HumanSession, load_data  # noqa: E402

from _results import results_path, write_section  # noqa: E402  (benchmarks/ is on the path when this script runs)

SECTION = "## Undo, change, withdraw, reopen: from resume points"
CASES = {"full": [("Auto", 5_000, 150), ("COBRAS", 100_000, 1_000)], "quick": [("Auto", 5_000, 60),
                                                                             ("COBRAS", 20_000, 200)]}


def _timed(call):
    cpu, wall = time.thread_time(), time.perf_counter()
    result = call()
    return result, time.thread_time() - cpu, time.perf_counter() - wall


def answered_session(folder, method, n, n_answers):
    """A session file of ``n`` rows with ``n_answers`` answers given from the classes, the one in the middle wrong
    (corrected when later answers contradict it, as the page asks); its data."""
    X, y = make_blobs(n_samples=n, n_features=10, centers=10, cluster_std=3.0, random_state=0)
    csv = Path(folder) / "rows.csv"
    pd.DataFrame(X, columns=[f"f{k}" for k in range(10)]).assign(item=[f"i{k}" for k in range(n)]).to_csv(csv,
                                                                                                       index=False)
    data = load_data(csv, id_column="item")
    estimator = getattr(lw, method)(max_queries=n_answers + 50, random_state=0)
    session = HumanSession(Path(folder) / "s.db", data, estimator)
    for k in range(n_answers):
        state = session.state()
        if state.question is None:  # later answers contradict the wrong one: the person says which was wrong
            middle = [row for row in session.store.answers() if row.kind == "question"][n_answers // 2]
            state = session.resolve(state.conflict.id, middle.seq)
        i, j = state.question.pair
        session.answer(state.position, bool(y[i] == y[j]) != (k == n_answers // 2))
    return session, data


def measure(method, n, n_answers):
    """CPU and wall seconds of each operation, and the floor."""
    with tempfile.TemporaryDirectory() as folder:
        os.environ["LINKWISE_CACHE"] = str(Path(folder) / "cache")
        session, data = answered_session(folder, method, n, n_answers)
        figures = {"floor": (floor(n), None)}
        _, *figures["undo"] = _timed(lambda: session.undo(session.position))
        questions = [row for row in session.store.answers() if row.kind == "question"]
        last, wrong = questions[-1], questions[n_answers // 2]
        _, *figures["change the last answer"] = _timed(lambda: session.change(last.seq, not last.answer))
        newest = [row for row in session.store.answers() if row.kind == "question"][-1]
        _, *figures["withdraw the last answer"] = _timed(lambda: session.withdraw(newest.seq))
        _, *figures["change the answer in the middle"] = _timed(lambda: session.change(wrong.seq, not wrong.answer))
        session.close()
        reopened, *figures["reopen"] = _timed(lambda: HumanSession(Path(folder) / "s.db", data))
        reopened.close()
        os.environ["LINKWISE_CACHE"] = str(Path(folder) / "empty")
        replayed, *figures["reopen, full replay (before)"] = _timed(lambda: HumanSession(Path(folder) / "s.db", data))
        replayed.close()
    return figures


def check():
    """Quick figures for ``make bench-check``: undo and reopen of Auto (5,000 rows) and COBRAS (20,000 rows)."""
    out = []
    for method, n, n_answers in CASES["quick"]:
        figures = measure(method, n, n_answers)
        for name in ("undo", "reopen"):
            out.append({"figure": f"{method} {n:,} rows, {n_answers} answers: {name}", "value": figures[name][0],
                        "floor": figures["floor"][0]})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="Auto on 5,000 rows x 60 answers, COBRAS 20,000 x 200")
    args = parser.parse_args()
    mode = "quick" if args.quick else "full"
    lines = [SECTION, "",
             f"`python benchmarks/bench_undo.py{' --quick' if args.quick else ''}`: a session file answered by a "
             "simulated person through `HumanSession` (make_blobs, 10 features, 10 centres, cluster_std 3), then "
             "each operation timed on its own: CPU ms of this thread / wall ms (OMP_NUM_THREADS=1); in brackets the "
             "CPU time as a multiple of the floor, one nearest-of-10-centres assignment of as many rows, measured in "
             "the same run. *Reopen* opens the file in a new HumanSession (the newest resume point was written at "
             "close); *full replay* does so with an empty cache folder, what every operation cost before resume "
             "points. Target (issue 37): < 200 ms each.", ""]
    for method, n, n_answers in CASES[mode]:
        figures = measure(method, n, n_answers)
        base = figures["floor"][0]
        lines += [f"**{method}, {n:,} rows, {n_answers} answers** (floor {base * 1000:.1f} ms)", "",
                  "| operation | CPU ms | wall ms | CPU / floor |", "|---|---|---|---|"]
        for name, (cpu, wall) in figures.items():
            if name != "floor":
                lines.append(f"| {name} | {cpu * 1000:.0f} | {wall * 1000:.0f} | {cpu / base:.0f} |")
        lines.append("")
        print("\n".join(lines[-len(figures) - 4:]), flush=True)
    out = results_path("session.md", args.quick)
    write_section(out, SECTION, lines)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
