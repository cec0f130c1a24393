"""COBRAS-TS on the shipped UCR/UEA series (issue 16): the protocol of ``linkwise bench``.

COBRAS with Euclidean distance, with DTW (``cobras-dtw``: spectral splits on a
DTW affinity, window 10 % of the length) and with k-Shape (``cobras-kshape``),
active COBS and Auto (linkwise's default), on the 8 series aeon's wheel ships
(``lw.datasets.SERIES``), each series z-normalised (``scale="standard"``, the
UCR archive's convention): stratified 5-fold cross-validation, questions only
about training rows, ARI on the test fold. Methods that do not take series get
them flattened (channels side by side). The run goes to ``--out`` (default:
the committed ``results/timeseries``, with ``--quick`` ``results/quick/timeseries``;
resumable: an interrupted run continues where it stopped); the tables to
``results/timeseries.md`` (with ``--quick``, ``results/quick/timeseries.md``).

    python benchmarks/bench_timeseries.py [--quick] [--methods ...] [--out DIR] [--n-jobs J]

``--quick``: 3 folds, the three smallest sets, budgets 25 and 50.

With ``--cobras-ts PYTHON`` the authors' COBRAS-TS (PyPI ``cobras-ts`` 0.1.3:
COBRAS_DTW on their affinity exp(-0.5 DTW) with dtaidistance, window 10 %, and
COBRAS_kShape), installed in a separate environment whose interpreter is
given, runs on the same folds and answers (univariate sets only: their k-Shape
takes one channel), as ``authors-dtw`` and ``authors-kshape``.
"""

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.bench import cell_seed, fold_split, run  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

METHODS = ("cobras", "cobras-dtw", "cobras-kshape", "active-cobs", "auto")
COLUMNS = (*METHODS, "authors-dtw", "authors-kshape")
QUICK_SETS = ("GunPoint", "BasicMotions", "PickupGestureWiimoteZ")


# Runs in the interpreter of a separate environment holding cobras-ts; it must not import linkwise.
_COBRAS_TS = r"""
import json, random, sys
import numpy as np
from dtaidistance import dtw
from sklearn.metrics import adjusted_rand_score
import kshape.core as kc
np.int = int  # cobras-ts 0.1.3 still uses the alias NumPy 1.24 removed

# cobras-ts 0.1.3 calls kshape 0.x (univariate; _sbd returns (distance, shifted y)); PyPI has only kshape 1.0
class Pool:  # kshape 1.0 opens a process pool per iteration: run in-process instead
    def __init__(self, n): pass
    def map(self, f, args): return list(map(f, args))
    def close(self): pass
kc.multiprocessing = type("mp", (), {"Pool": Pool})
def sbd(x, y):
    x, y = x.reshape(len(x), -1), y.reshape(len(y), -1)
    ncc = kc._ncc_c_3dim([x, y])
    return 1 - ncc.max(), kc.roll_zeropad(y, int(ncc.argmax()) + 1 - max(len(x), len(y)))[:, 0]
kshape_1, sbd_1 = kc.kshape, kc._sbd
kc._sbd, kc.kshape = sbd, lambda x, k: [(c[:, 0], s) for c, s in kshape_1(np.asarray(x)[:, :, None], k)]
from cobras_ts.cobras_dtw import COBRAS_DTW
from cobras_ts.cobras_kshape import COBRAS_kShape
kc._sbd = sbd_1  # kshape 1.0 itself calls its own

data = np.load(sys.argv[1])
X, y, budgets = data["X"], data["y"], json.loads(sys.argv[3])
d = dtw.distance_matrix_fast(X, window=int(0.1 * X.shape[1]))  # as the authors' README
d[d == np.inf] = 0
d = d + d.T - np.diag(np.diag(d))

class Querier:
    def query_points(self, i, j):
        return bool(y[i] == y[j])
    def continue_cluster_process(self):
        return True
    def update_clustering(self, clustering):
        pass

out = []
for fold, seed, train, test in json.loads(sys.argv[2]):
    for name, cls, data in (("authors-dtw", COBRAS_DTW, np.exp(-0.5 * d)), ("authors-kshape", COBRAS_kShape, X)):
        np.random.seed(seed)
        random.seed(seed)
        history = cls(data, Querier(), max(budgets), train_indices=train).cluster()[1]
        for b in budgets:
            labels = np.asarray(history[min(b, len(history)) - 1])
            out.append({"method": name, "fold": fold, "budget": b, "ari": adjusted_rand_score(y[test], labels[test])})
print(json.dumps(out))
"""


def run_cobras_ts(python, name, folds, budgets):
    """The authors' COBRAS_DTW and COBRAS_kShape on ``name``'s folds, as rows like those of results.csv."""
    X, y = lw.datasets.load(name, scale="standard")
    cells = [(f, cell_seed(0, 0, f), train.tolist(), test.tolist())
             for f, (train, test) in enumerate(fold_split(y, folds, 0, 0))]
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(Path(tmp) / "data.npz", X=X, y=y)
        done = subprocess.run([python, "-c", _COBRAS_TS, str(Path(tmp) / "data.npz"), json.dumps(cells),
                               json.dumps(list(budgets))], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"cobras-ts failed on {name}:\n{done.stderr[-2000:]}")
    return [dict(r, dataset=name, repeat=0) for r in json.loads(done.stdout)]


def table(frame, budgets):
    """Mean test-fold ARI per dataset and method at each budget; means over all sets and over the complete rows."""
    mean = frame[frame.budget.isin(budgets)].groupby(["budget", "dataset", "method"]).ari.mean().unstack("method")
    methods = [m for m in COLUMNS if m in mean]
    cell = lambda v, best=None: "–" if np.isnan(v) else f"**{v:.3f}**" if v == best else f"{v:.3f}"  # noqa: E731
    lines = []
    for b in budgets:
        t = mean.xs(b, level="budget")[methods]
        lines += [f"### After {b} questions\n", "| dataset | " + " | ".join(methods) + " |",
                  "|---" * (len(methods) + 1) + "|"]
        lines += [f"| {name} | " + " | ".join(cell(v, row.max()) for v in row) + " |" for name, row in t.iterrows()]
        full = t.dropna()  # the sets every method has run on
        lines += [f"| **mean, {len(t)} sets** | " + " | ".join(cell(t[m].mean(skipna=False)) for m in methods) + " |",
                  f"| **mean, the {len(full)} sets with every column** | "
                  + " | ".join(cell(full[m].mean()) for m in methods) + " |", ""]
    at = mean.xs(50, level="budget") if 50 in budgets else None
    three = ["cobras", "cobras-dtw", "cobras-kshape"]
    if at is not None and set(three) <= set(at) and not at[three].isna().any().any():
        ours, ahead = at[["cobras-dtw", "cobras-kshape"]].mean().max(), at[["cobras-dtw", "cobras-kshape"]].max(axis=1)
        lines += [f"Issue target (after 50 questions, COBRAS-DTW or -kShape ahead of Euclidean COBRAS on average): "
                  f"{'met' if ours > at['cobras'].mean() else 'missed'}, {ours:.3f} against {at['cobras'].mean():.3f}; "
                  f"per set, DTW or k-Shape ahead on {int((ahead > at['cobras']).sum())} of {len(at)}.", ""]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--datasets", help="comma-separated subset of the series (default: all 8)")
    parser.add_argument("--out", help="the run (default: the committed one; with --quick, the quick one)")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--cobras-ts", metavar="PYTHON", help="interpreter of an environment with cobras-ts")
    args = parser.parse_args()
    args.out = args.out or str(results_path("timeseries", args.quick))
    datasets = args.datasets.split(",") if args.datasets else QUICK_SETS if args.quick else tuple(lw.datasets.SERIES)
    budgets = (25, 50) if args.quick else (10, 25, 50, 100)
    rep = run(list(datasets), args.methods.split(","), budgets=budgets, folds=3 if args.quick else 5, seed=0,
              scale="standard", out=args.out, resume=Path(args.out, "results.csv").exists(), n_jobs=args.n_jobs,
              progress=True)
    frame = pd.read_csv(Path(args.out) / "results.csv")
    authors = Path(args.out) / "authors.csv"  # kept beside the run: a later call without --cobras-ts reuses it
    if args.cobras_ts:
        univariate = [n for n in datasets if lw.datasets.info(n)["channels"] == 1]
        pd.DataFrame([r for n in univariate for r in run_cobras_ts(args.cobras_ts, n, rep.config["folds"], budgets)]
                     ).to_csv(authors, index=False)
    if authors.exists():
        frame = pd.concat([frame, pd.read_csv(authors)])
    sizes = ", ".join(f"{n} ({lw.datasets.info(n)['n']})" for n in datasets)
    text = [f"# Time series (issue 16){' — QUICK MODE' if args.quick else ''}\n",
            f"Generated by `benchmarks/bench_timeseries.py{' --quick' if args.quick else ''}`: "
            f"{rep.config['folds']}-fold protocol of `linkwise bench`, seed 0, series z-normalised, on {sizes}. "
            f"Mean test-fold ARI.\n", *table(frame, budgets)]
    report = results_path("timeseries.md", args.quick)
    # the hand-written reading stays
    kept = report.read_text().partition("\n## Reading")[2] if report.exists() else ""
    report.write_text("\n".join(text) + (f"\n## Reading{kept}" if kept else ""))
    print("\n".join(text))
    print(f"wrote {report} (run: {args.out})")


if __name__ == "__main__":
    main()
