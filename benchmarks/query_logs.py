"""Fingerprints of every active method's questions and clusterings, to show that a change of code changes neither.

Each active method (and ActiveClustering with each query strategy) runs on 10 shipped datasets x 3 seeds with a
perfect oracle, and Auto and COBRAS also with 10 % wrong answers and as a person's session that reads ``labels_``
after every answer (the page does; reading may not change what is asked). For each run it records the SHA-256 of the
query log and of ``labels_history_`` (and the labels read), and writes them as JSON:

    python benchmarks/query_logs.py --out before.json          # on the old code
    python benchmarks/query_logs.py --compare before.json      # on the new code: lists every run that differs

``--quick`` runs 3 datasets x 1 seed. The file is a tool for refactoring and speed work, not a committed figure.
"""

import argparse
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import linkwise as lw  # noqa: E402

DATASETS = ["iris", "wine", "glass", "ecoli", "column_2C", "sonar", "parkinsons", "ionosphere", "dermatology",
            "hepatitis"]
SEEDS = (0, 1, 2)
BUDGET = 40


def _methods(k):
    """Name -> estimator factory for one dataset with ``k`` classes."""
    from linkwise import active

    def clustering(strategy):
        return lambda s: lw.ActiveClustering(lw.PCKMeans(n_clusters=k, random_state=s), strategy(),
                                             max_queries=BUDGET, random_state=s)

    return {
        "auto": lambda s: lw.Auto(max_queries=BUDGET, random_state=s),
        "auto-k": lambda s: lw.Auto(max_queries=BUDGET, n_clusters=k, random_state=s),
        "cobras": lambda s: lw.COBRAS(max_queries=BUDGET, random_state=s),
        "cobra": lambda s: lw.COBRA(n_super_instances=15, random_state=s),
        "robust-cobras": lambda s: lw.NoiseRobustCOBRAS(max_queries=BUDGET, random_state=s),
        "active-cobs": lambda s: lw.ActiveCOBS(max_queries=BUDGET, random_state=s),
        "bayes-info": lambda s: lw.BayesianActiveClustering(k, max_queries=BUDGET, random_state=s),
        "bayes-uncertain": lambda s: lw.BayesianActiveClustering(k, criterion="uncertain", max_queries=BUDGET,
                                                                 random_state=s),
        **{f"pckmeans-{name.lower()}": clustering(getattr(active, name))
           for name in ("Random", "ExploreConsolidate", "MinMax", "NPU", "Committee")},
    }


def _digest(value):
    return hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()[:16]


def _fit(name, method, dataset, seed, mode):
    """One run: (key, fingerprint, seconds)."""
    X, y = lw.datasets.load(dataset, scale="minmax")
    est = _methods(len(np.unique(y)))[method](seed)
    oracle = lw.LabelOracle(y, noise=0.1 if mode == "noise" else 0.0, random_state=seed)
    start = time.process_time()
    if mode == "session":  # labels read after every answer, as the page reads them
        session = lw.ActiveSession(est, X)
        read = [session.labels_]
        while (pair := session.ask()) is not None:
            session.tell(pair, oracle.query(*pair))
            read.append(session.labels_)
        est = session.finish()
        extra = _digest(np.stack(read))
    else:
        est.fit(X, oracle)
        extra = None
    log = np.array([(i, j, -1 if a is None else int(a)) for i, j, a in est.query_log_], dtype=np.int64)
    history = getattr(est, "labels_history_", None)
    fingerprint = {"log": _digest(log), "n": len(est.query_log_), "labels": _digest(np.asarray(est.labels_)),
                   "history": None if history is None else _digest(np.asarray(history))}
    if extra is not None:
        fingerprint["read"] = extra
    return f"{name}", fingerprint, time.process_time() - start


def runs(quick):
    datasets, seeds = (DATASETS[:3], SEEDS[:1]) if quick else (DATASETS, SEEDS)
    for dataset in datasets:
        for seed in seeds:
            for method in _methods(2):
                yield (f"{method}/{dataset}/{seed}", method, dataset, seed, "plain")
            for method in ("auto", "cobras"):
                yield (f"{method}/{dataset}/{seed}/noise", method, dataset, seed, "noise")
                yield (f"{method}/{dataset}/{seed}/session", method, dataset, seed, "session")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="write the fingerprints to this JSON file")
    parser.add_argument("--compare", help="compare with the fingerprints in this JSON file")
    parser.add_argument("--quick", action="store_true", help="3 datasets x 1 seed")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="comma-separated method names")
    args = parser.parse_args()
    todo = [run for run in runs(args.quick) if not args.only or run[1] in args.only.split(",")]
    found, seconds = {}, {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for key, fingerprint, spent in pool.map(_fit, *zip(*todo)):
            found[key], seconds[key] = fingerprint, spent
    by_method = {}
    for key, spent in seconds.items():
        by_method[key.split("/")[0]] = by_method.get(key.split("/")[0], 0.0) + spent
    print("CPU s by method:", {name: round(total, 1) for name, total in sorted(by_method.items())})
    if args.out:
        with open(args.out, "w") as f:
            json.dump(found, f, indent=1, sort_keys=True)
        print(f"wrote {len(found)} fingerprints to {args.out}")
    if args.compare:
        with open(args.compare) as f:
            before = json.load(f)
        differ = [key for key in found if key in before and before[key] != found[key]]
        missing = [key for key in found if key not in before]
        for key in differ:
            print(f"DIFFERS {key}: {before[key]} -> {found[key]}")
        print(f"{len(found) - len(differ) - len(missing)} identical, {len(differ)} differ, {len(missing)} not in "
              f"{args.compare}")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
