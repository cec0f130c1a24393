"""A person's session at scale: the wait for each question when the page reads the clustering after every answer.

``ActiveSession(method, X)`` on make_blobs (10 features, 10 centres) with a perfect oracle; after every answer the
next question and ``labels_`` are read, as the page does. Figures, CPU time of this thread (one OpenMP thread): the
first question (the session's construction, ``ask()`` and ``labels_``) and the gap from an answer to the next
question with its clustering (median, p99, max), each beside the floor measured in the same run (one
nearest-of-10-centres assignment of the same number of rows, ``_floor.py``). Targets (issue 37): at 100,000 rows
p99 <= 3x and max <= 6x the floor, first question <= 200x; at 1,000,000 rows p99 <= 0.5x, max <= 1x, first
question <= 60x.

    python benchmarks/bench_session_speed.py [--quick] [--n 100000,1000000] [--methods auto,cobras]

Writes its section of ``results/session.md`` (the other sections are kept); ``check()`` gives the quick figures to
``make bench-check``.
"""

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _floor import floor, question_times  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402

import linkwise as lw  # noqa: E402

from _results import results_path, write_section  # noqa: E402  (benchmarks/ is on the path when this script runs)

# the classes looked up here, not in the timed calls: linkwise imports a method's module when first named (half a
# second for Auto's), which is start-up (bench_startup.py), not the wait for a question
METHODS = {name: lambda q, cls=cls: cls(max_queries=q, random_state=0)
           for name, cls in (("auto", lw.Auto), ("cobras", lw.COBRAS))}
SECTION = "## At scale: the wait for each question, the clustering read after every answer"


def measure(method, n, n_questions):
    base = floor(n)
    X, y = make_blobs(n_samples=n, n_features=10, centers=10, random_state=0)
    first, gaps, session = question_times(METHODS[method](n_questions), X, y)
    ari = lw.metrics.ari(y, session.labels_)
    return {"method": method, "n": n, "questions": gaps.size, "floor": base, "first": first,
            "median": float(np.median(gaps)), "p99": float(np.percentile(gaps, 99)), "max": float(gaps.max()),
            "ari": ari}


def check():
    """Quick figures for ``make bench-check``: Auto and COBRAS at 100,000 rows, 60 answers."""
    figures = []
    for method in METHODS:
        m = measure(method, 100_000, 60)
        for name in ("first", "median", "p99", "max"):  # the median: a cost added to every answer shows there
            figures.append({"figure": f"session {method} 100,000 rows: {name}", "value": m[name], "floor": m["floor"]})
    return figures


def _row(m):
    ms = {k: m[k] * 1000 for k in ("floor", "first", "median", "p99", "max")}
    return (f"| {m['method']} | {m['n']:,} | {m['questions']} | {ms['floor']:.1f} | {m['first']:.2f} "
            f"({m['first'] / m['floor']:.0f}x) | {ms['median']:.1f} ({m['median'] / m['floor']:.2f}x) | "
            f"{ms['p99']:.1f} ({m['p99'] / m['floor']:.2f}x) | {ms['max']:.1f} ({m['max'] / m['floor']:.2f}x) | "
            f"{m['ari']:.3f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100,000 rows only, 60 answers")
    parser.add_argument("--n", default="100000,1000000")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args()
    sizes = [100_000] if args.quick else [int(v) for v in args.n.split(",")]
    n_questions = 60 if args.quick else args.questions
    lines = [SECTION, "",
             f"`python benchmarks/bench_session_speed.py{' --quick' if args.quick else ''}`: `ActiveSession(method, X)` "
             "on make_blobs (10 features, 10 centres), a perfect oracle, the next question and `labels_` read after "
             "every answer (as the page does). CPU seconds of this thread, OMP_NUM_THREADS=1; in brackets the ratio to "
             "the floor, one nearest-of-10-centres assignment of the same rows (`pairwise_distances_argmin`, median "
             "of 5), measured in the same run. Targets (issue 37): at 100,000 rows p99 <= 3x, max <= 6x, first "
             "question <= 200x the floor; at 1,000,000 rows p99 <= 0.5x, max <= 1x, first <= 60x.", "",
             "| method | n | answers | floor ms | first question s | gap median ms | gap p99 ms | gap max ms | ARI |",
             "|---|---|---|---|---|---|---|---|---|"]
    for n in sizes:
        for method in args.methods.split(","):
            lines.append(_row(measure(method, n, n_questions)))
            print(lines[-1], flush=True)
    out = results_path("session.md", args.quick)
    write_section(out, SECTION, lines)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
