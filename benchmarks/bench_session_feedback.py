"""Cluster feedback: person actions to reach ARI 0.9, with and without looking at the clusters.

A simulated person (:class:`linkwise.LabelOracle`, no noise) answers the
questions of an :class:`linkwise.ActiveSession`. With feedback, every
``EVERY`` questions they also look at the clusters shown and take up to
``UP_TO`` of the actions :meth:`~linkwise.LabelOracle.cluster_feedback`
lists (mark a cluster pure, or pure and complete; move an odd item out),
never repeating one. A person action is a question answered, a cluster
marked or an item moved (one each). Counted: actions until the clustering
of all rows reaches ARI >= 0.9 (checked after every action), up to
``BUDGET`` questions.

Ablation: the same feedback with the method ignoring it as such (the
super-instance methods before cluster feedback: marks and moves reach them
only as constraints in the store, pairs never asked).

Datasets: five shipped tables where COBRAS without feedback reaches 0.9 in
roughly 50 to 250 questions (seed 0), so the count is neither trivial
(dermatology, flame, jain: under 30) nor cut off by the budget (ecoli, glass,
segmentation: not within 300).

    python benchmarks/bench_session_feedback.py [--quick]
"""

import argparse
import contextlib
import os
import re
import subprocess
import time
from itertools import islice
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.cobra import Feedback  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

SECTION = "## Cluster feedback: person actions to ARI 0.9"
DATASETS = ["iris", "wine", "parkinsons", "breast-cancer-wisconsin", "digits389"]
METHODS = {"COBRAS": lambda seed: lw.COBRAS(random_state=seed), "Auto": lambda seed: lw.Auto(random_state=seed)}
TARGET, BUDGET, EVERY, UP_TO = 0.9, 500, 10, 3


def run(method, X, y, seed, feedback):
    """Person actions until ARI >= TARGET (None if not within BUDGET questions), and of them the feedback ones."""
    oracle = lw.LabelOracle(y)
    session = lw.ActiveSession(METHODS[method](seed), X)
    actions = given = looked = 0
    taken = set()
    while lw.metrics.ari(y, session.labels_) < TARGET:
        if feedback and session.n_queries >= looked + EVERY:
            looked = session.n_queries
            for action in islice(fresh(oracle.cluster_feedback(session.labels_), taken), UP_TO):
                action.apply(session)
                actions, given = actions + 1, given + 1
                if lw.metrics.ari(y, session.labels_) >= TARGET:
                    return actions, given
            continue
        if (pair := session.ask()) is None or session.n_queries >= BUDGET:
            return None, given
        session.tell(pair, oracle.query(*pair))
        actions += 1
    return actions, given


@contextlib.contextmanager
def constraints_only():
    """Super-instance methods that take feedback only through the constraint store (the ablation)."""
    saved = Feedback.update, Feedback.lift, Feedback.locked
    Feedback.update, Feedback.lift, Feedback.locked = lambda self: None, lambda self, _, c, cl: (c, cl), lambda *_: False
    try:
        yield
    finally:
        Feedback.update, Feedback.lift, Feedback.locked = saved


def fresh(actions, taken):
    """The actions not taken before (a mark of the same rows, a second move of an item), each recorded as taken."""
    for action in actions:
        key = ("move", int(action.rows[0])) if action.kind == "move" else (action.kind, action.rows.tobytes())
        if key not in taken:
            taken.add(key)
            yield action


def cell(counts):
    reached = [c for c in counts if c is not None]
    mean = f"{np.mean(reached):.1f}" if reached else "-"
    return f"{mean} ({len(reached)}/{len(counts)})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="two datasets, one seed")
    args = parser.parse_args()
    names, seeds = (DATASETS[:2], [0]) if args.quick else (DATASETS, [0, 1, 2])
    start, rows = time.time(), []
    for name in names:
        X, y = lw.datasets.load(name, scale="minmax")
        for method in METHODS:
            plain = [run(method, X, y, seed, False)[0] for seed in seeds]
            with_feedback = [run(method, X, y, seed, True) for seed in seeds]
            with constraints_only():
                ablation = [run(method, X, y, seed, True)[0] for seed in seeds]
            counts = [c for c, _ in with_feedback]
            given = [g for c, g in with_feedback if c is not None]
            pairs = [(a, b) for a, b in zip(plain, counts) if a is not None and b is not None]
            without = sum(a for a, _ in pairs)
            ratio = f"{sum(b for _, b in pairs) / without:.2f}" if without else "-"
            rows.append((name, len(y), method, cell(plain), cell(ablation), cell(counts),
                         f"{np.mean(given):.1f}" if given else "-", ratio))
            print(" | ".join(map(str, rows[-1])), flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    header = ("dataset", "n", "method", "questions only: actions (reached)",
              "feedback as constraints only: actions (reached)",
              "with feedback: actions (reached)", "of which feedback", "with / without (total ratio)")
    lines = [
        SECTION,
        "",
        f"`python benchmarks/bench_session_feedback.py{' --quick' if args.quick else ''}` at commit {commit} "
        f"({time.time() - start:.0f} s, one process, OMP_NUM_THREADS=1). A simulated person (LabelOracle, no noise) "
        f"answers the questions; with feedback, every {EVERY} questions they look at the clusters and take up to "
        f"{UP_TO} new actions of `LabelOracle.cluster_feedback` (largest cluster first: mark pure / pure and "
        "complete, or move up to 3 odd items out of a cluster). Person actions (a question answered, a cluster "
        f"marked, an item moved: one each) until ARI >= {TARGET} on all rows, mean over the seeds "
        f"{', '.join(map(str, seeds))} that reached it within {BUDGET} questions (how many did in brackets); "
        "the ratio is of the totals over the seeds reaching it both ways. *As constraints only*: the same simulated "
        "person, the method ignoring the feedback as such (no cut, no lock; pairs it implies are never asked), "
        "as the super-instance methods were before.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    out = results_path("session.md", args.quick)  # bench_session.py's report of the same mode
    text = out.read_text() if out.exists() else ""
    # this section replaces its previous version, up to the next section
    text = re.sub(rf"\n*{re.escape(SECTION)}.*?(?=\n## |\Z)", "", text, flags=re.S).rstrip("\n")
    out.write_text((text + "\n\n" if text else "") + "\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
