"""How well ``predict`` generalises: new items to the clusters found, against clustering them with the rest.

The benchmark's protocol (stratified 5-fold cross-validation, questions only
about training rows, ARI on the test rows), two ways per fold and method,
with the same seed and budget:

- *refit*: the method sees every row, asks only about the training rows,
  and its clustering is scored on the test rows (the benchmark's figure);
- *predict*: the method is fitted on the training rows alone (``X[train]``)
  and ``predict`` assigns the test rows (:mod:`linkwise.prediction`).

Datasets: tuning sets of ``benchmarks/split.toml``, features scaled to
[0, 1]; methods by their benchmark names, given 50 questions (COBRA asks
what it needs), K where a method needs it. Written to ``results/predict.md``
(``--quick``: ``results/quick/``, iris and wine, one repeat).

    python benchmarks/bench_predict.py [--quick] [--repeats N] [--n-jobs J]
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.bench import FoldOracle, cell_seed, fold_split, registry  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

DATASETS = ["iris", "wine", "ecoli", "flame"]
METHODS = ["auto", "cobras", "active-cobs", "cobra-25", "pckmeans-minmax"]
BUDGET = 50
N_FOLDS = 5


def run(name, method, repeat, fold):
    X, y = lw.datasets.load(name, scale="minmax")
    train, test = fold_split(y, N_FOLDS, repeat, seed=0)[fold]
    spec, seed, k = registry()[method], cell_seed(0, repeat, fold), len(np.unique(y))
    start = time.perf_counter()
    refit = spec.make(k, BUDGET, seed).fit(X, FoldOracle(y, train), queryable=train)
    alone = spec.make(k, BUDGET, seed).fit(X[train], lw.LabelOracle(y[train]))
    return {"dataset": name, "method": method, "repeat": repeat, "fold": fold,
            "refit": lw.metrics.ari(y[test], refit.labels_[test]),
            "predict": lw.metrics.ari(y[test], alone.predict(X[test])),
            "train": lw.metrics.ari(y[train], alone.labels_), "seconds": time.perf_counter() - start}


def table(rows, datasets):
    lines = ["| dataset | method | refit ARI | predict ARI | predict - refit | train ARI (fit alone) |",
             "|---|---|---|---|---|---|"]
    for name in datasets:
        for method in METHODS:
            cell = [r for r in rows if r["dataset"] == name and r["method"] == method]
            refit, pred, train = (np.mean([r[key] for r in cell]) for key in ("refit", "predict", "train"))
            lines.append(f"| {name} | {method} | {refit:.3f} | {pred:.3f} | {pred - refit:+.3f} | {train:.3f} |")
    lines += ["", "Mean over the datasets:", "", "| method | refit ARI | predict ARI | predict - refit |",
              "|---|---|---|---|"]
    for method in METHODS:
        cell = [r for r in rows if r["method"] == method]
        refit, pred = np.mean([r["refit"] for r in cell]), np.mean([r["predict"] for r in cell])
        lines.append(f"| {method} | {refit:.3f} | {pred:.3f} | {pred - refit:+.3f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="iris and wine, one repeat; writes to results/quick/")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the 5 folds (default 3)")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    datasets, repeats = (DATASETS[:2], 1) if args.quick else (DATASETS, args.repeats)
    cells = [(d, m, r, f) for d in datasets for m in METHODS for r in range(repeats) for f in range(N_FOLDS)]
    rows = Parallel(n_jobs=args.n_jobs)(delayed(run)(*cell) for cell in cells)
    path = results_path("predict.md", args.quick)
    path.write_text(
        "# predict: new items against clustering them with the rest\n\n"
        f"Written by `benchmarks/bench_predict.py{' --quick' if args.quick else ''}`. Stratified {N_FOLDS}-fold "
        f"cross-validation, {repeats} repeat(s), {BUDGET} questions about training rows (COBRA-25 asks what it "
        "needs), features scaled to [0, 1], ARI on the test rows, mean over folds and repeats. *refit*: the method "
        "sees every row and its clustering is scored on the test rows (the benchmark's protocol). *predict*: fitted "
        "on the training rows alone, it assigns the test rows with `predict` (COBRA, COBRAS: the nearest "
        "super-instance representative; Auto, active COBS: the nearest fitted row; PCKMeans with MinMax: the "
        "nearest fitted row of the active clustering). *train ARI*: the fit on the training rows alone, scored on "
        "them.\n\n" + table(rows, datasets) + "\n")
    print(path)


if __name__ == "__main__":
    main()
