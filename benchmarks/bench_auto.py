"""Auto, the default: time between questions at n = 10,000, and the issue-15 table.

1. Speed: Auto (100 questions, a perfect oracle) on make_blobs with
   n = 10,000, d = 10, 10 centres, separate (cluster_std 1) and overlapping
   (cluster_std 4), the same blobs with two classes that cut every blob in
   half, and spambase (4,207 x 57): there the answers reject every
   clustering and Bayesian active clustering asks (its particle filter);
   and one fallback fit on 16, 64 and 768 features (projected to 64).
   Seconds before the first question (the candidate generation, on a
   1,000-row sample) and the gaps between
   questions (median, p95, p99, max; wall and this process's CPU time, as
   the machine is shared), each also as a ratio to one scikit-learn K-means
   fit (k = 10, one start) of the same data, measured in the same run.
2. Quality: the table of issue 15 from a ``linkwise bench`` run of ``auto``
   (and ``auto-k``) beside ``benchmarks/results/bench_full`` (whose methods
   are not re-run): mean test-fold ARI over the datasets at each budget for
   Auto, the best single method, COBRAS and K-means with the true K, and the
   datasets where Auto is more than 0.005 below K-means.
3. Wrong answers: from a run of ``auto`` and ``cobras-robust`` with
   ``--noise 0.1``, the mean ARI after 100 questions.

    python benchmarks/bench_auto.py [--quick] [--parts speed,table,noise] [--run DIR] [--noise-run DIR] [--n 10000]

It prints its tables (results/auto.md quotes them) and writes no file. ``--quick`` (``make bench``):
the speed part at n = 2,000; the table still reads the committed full run (there is no quick one).

The noise run is made with ``linkwise bench --methods auto,cobras-robust --noise 0.1 --budgets 0,100 --out DIR``.
"""

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402

import linkwise as lw  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)
from bench_cobra import timed_fit  # noqa: E402

FULL = results_path("bench_full", quick=False) / "results.csv"  # read only
BUDGETS = (10, 25, 50, 100)


def speed(X, y, title):
    start = time.perf_counter()
    KMeans(n_clusters=10, n_init=1, random_state=0).fit(X)
    t_kmeans = time.perf_counter() - start
    est = lw.Auto(max_queries=100, random_state=0)
    total, first, wall, cpu = timed_fit(est, X, y)
    print(f"## Speed ({title}, 100 questions; one K-means fit (k = 10): {t_kmeans * 1000:.0f} ms)\n")
    print(f"total {total:.1f} s; before the first question {first:.1f} s "
          f"({first / t_kmeans:.0f} K-means fits); COBRAS took over after {est.switched_at_} questions; "
          f"the logistic fallback {'was' if est._refitted else 'was not'} fitted; "
          f"Bayesian active clustering took over after {est.bayes_at_} questions; "
          f"ARI {lw.metrics.ari(y, est.labels_):.3f}\n")  # fmt: skip
    print("| gap between questions | wall ms | CPU ms | wall / K-means fit |")
    print("|---|---|---|---|")
    for name, q in (("median", 50), ("p95", 95), ("p99", 99), ("max", 100)):
        w, c = np.percentile(wall, q), np.percentile(cpu, q)
        print(f"| {name} | {w:.1f} | {c:.1f} | {w / 1000 / t_kmeans:.2f} |")
    print()


def fallback_fits(n):
    """Milliseconds of the fallback's inputs (upfront, projected above 64 features) and of one fit on 1,000 rows."""
    from linkwise.auto import FALLBACK_DIMS
    from linkwise.bayes import design_matrix, refit_labels

    rng = np.random.RandomState(0)
    print(f"## The fallback's fit (n = {n:,}, 1,000 model rows, 30 answers)\n")
    print("| features | K | inputs ms (once) | one fit ms | fit / K-means fit |\n|---|---|---|---|---|")
    for d in (16, 64, 768):
        X = rng.normal(size=(n, d))
        y = (X[:, 0] + X[:, 1] > 0).astype(int)
        start = time.perf_counter()
        KMeans(n_clusters=10, n_init=1, random_state=0).fit(X)
        t_kmeans = time.perf_counter() - start
        rows = np.sort(rng.choice(n, 1000, replace=False))
        start = time.perf_counter()
        design = design_matrix(X, FALLBACK_DIMS, rows)
        t_design = time.perf_counter() - start
        pairs = rng.choice(rows, size=(30, 2))
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        for k in (2, 10):
            start = time.perf_counter()
            refit_labels(design, rows, pairs, y[pairs[:, 0]] == y[pairs[:, 1]], rng.randint(k, size=1000), k)
            t_fit = time.perf_counter() - start
            print(f"| {d} | {k} | {t_design * 1000:.0f} | {t_fit * 1000:.0f} | {t_fit / t_kmeans:.1f} |")
    print()


def table(run):
    ran = pd.read_csv(Path(run) / "results.csv")
    full = pd.read_csv(FULL)
    frame = pd.concat([full[~full.method.isin(ran.method.unique())], ran])  # a re-run's cells replace the old ones
    frame = frame[frame.budget.notna()]
    mean = frame.groupby(["method", "dataset", "budget"]).ari.mean().unstack("method")
    ours = [m for m in ("auto", "auto-k") if m in mean]
    mean = mean.dropna(subset=ours)  # the datasets the run has reached
    n_sets = mean.index.get_level_values("dataset").nunique()
    print(f"## Mean test-fold ARI over {n_sets} datasets\n")
    print("| questions | " + " | ".join(ours) + " | best single method (which) | COBRAS | per-dataset best of the others "
          "| K-means (true K) | " + " | ".join(f"{m} more than 0.005 below K-means" for m in ours) + " |")  # fmt: skip
    print("|---" * (5 + 2 * len(ours)) + "|")
    for b in BUDGETS:
        t = mean.xs(b, level="budget")
        others = t.drop(columns=ours)
        best = others.mean().idxmax()
        below = [t.index[t[m] < t["kmeans"] - 0.005].tolist() for m in ours]
        print(f"| {b} | " + " | ".join(f"{t[m].mean():.3f}" for m in ours)
              + f" | {others[best].mean():.3f} ({best}) | {t['cobras'].mean():.3f} | {others.max(axis=1).mean():.3f} "
              f"| {t['kmeans'].mean():.3f} | " + " | ".join(f"{len(d)}: {', '.join(d)}" for d in below) + " |")  # fmt: skip
    print()


def noise(run):
    """Mean test-fold ARI after 100 questions with wrong answers (a run with --noise of auto and cobras-robust)."""
    frame = pd.read_csv(Path(run) / "results.csv")
    at = frame[frame.budget == 100].groupby(["dataset", "method"]).ari.mean().unstack()
    wins = (at["auto"] > at["cobras-robust"] + 0.005).sum(), (at["auto"] < at["cobras-robust"] - 0.005).sum()
    print(f"## Wrong answers ({run}): mean ARI after 100 questions over {len(at)} datasets\n")
    print("| auto | cobras-robust | auto better / worse by > 0.005 |\n|---|---|---|")
    print(f"| {at['auto'].mean():.3f} | {at['cobras-robust'].mean():.3f} | {wins[0]} / {wins[1]} |\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="speed,table")
    parser.add_argument("--run", default=str(FULL.parent),
                        help="a `linkwise bench` run of auto / auto-k (default: the committed bench_full, which has them)")
    parser.add_argument("--noise-run", help="a run with --noise 0.1 of auto and cobras-robust (for --parts noise)")
    parser.add_argument("--n", type=int, default=None, help="rows of the speed part (default 10,000; quick 2,000)")
    parser.add_argument("--quick", action="store_true", help="the speed part at n = 2,000 (make bench)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if "speed" in parts:
        n = args.n or (2_000 if args.quick else 10_000)
        for std in (1.0, 4.0):  # separate blobs; overlapping ones, where selection runs longer
            X, y = make_blobs(n_samples=n, n_features=10, centers=10, cluster_std=std, random_state=0)
            speed(X, y, f"n = {n:,}, d = 10, 10 centres, cluster_std = {std}")
        # classes no clustering finds (the sign of a feature of pure noise, cutting every blob in half): the answers
        # reject every clustering and Bayesian active clustering asks, its particle filter over all n rows
        X, _ = make_blobs(n_samples=n, n_features=10, centers=10, cluster_std=1.0, random_state=0)
        X[:, 0] = np.random.RandomState(0).normal(size=n)
        speed(X, (X[:, 0] > 0).astype(int), f"n = {n:,}, d = 10, 10 centres, classes the sign of a noise feature")
        if not args.quick:
            speed(*lw.datasets.load("spambase", scale="minmax"), "spambase, n = 4,207, d = 57")
        fallback_fits(n)
    if "table" in parts:
        table(args.run)
    if "noise" in parts:
        noise(args.noise_run)
