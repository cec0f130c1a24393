"""COBS: generation speed, active question speed, and the paper's Table 4 / Fig. 2 / Fig. 5.

1. Generation of the candidate clusterings with ``lw.cobs.generate``: serial,
   2 local joblib workers (loky) and a local Dask cluster of 2 worker
   processes (``joblib.parallel_backend("dask")``), against the naive way:
   one scikit-learn estimator fitted per grid point (``make_estimator``),
   timed on an evenly spread subset of each family's grid points and scaled
   to the family's size. Every run is single-threaded inside (OMP_NUM_THREADS=1).
2. Active COBS: milliseconds to take an answer and choose the next question
   (one ``ActiveSession.tell``) with 931 candidates and a 200-pair sample; the
   paper reports < 0.02 s.
3. Van Craenendonck & Blockeel (2017), Table 4 / Fig. 2: the paper's grid,
   5-fold cross-validation, 50 random constraints among the training rows,
   ARI on the validation fold; best candidate ARI (all rows) and selected
   ARI per dataset, with the algorithms chosen in the folds.
4. Fig. 5 (wine): Active COBS (m = 2, s = 200) against COBS with random
   constraints at small budgets.
5. Generation time of the paper's grid on its two largest sets, engytime and
   cure-t2-4k, raw (as Table 4) and scaled to [0, 1] (issue 37; full mode
   only): CPU seconds of one serial generation, its best candidate's ARI, and
   how many candidates differ from those of a reference run: ``--reference
   DIR`` stores the candidates there on the first run (run it with the old
   code first, e.g. ``PYTHONPATH=<checkout of the old code>``) and compares
   with them afterwards. It prints its table and leaves cobs.md alone.

    python benchmarks/bench_cobs.py [--quick] [--cache DIR] [--parts ...] [--table4 NAME ...] [--redo]
    python benchmarks/bench_cobs.py --parts gentime --reference DIR [--cache DIR]

Every result (a generation row, a Table 4 dataset, ...) is stored in the
cache directory as soon as it is done and cobs.md is rewritten from all
stored results: an interrupted run resumes where it stopped, and parts can run
as separate processes.
"""

import argparse
import json
import os
import tempfile
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import joblib  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.cobs import (  # noqa: E402
    CACHE_VERSION,  # noqa: E402
    generate,
    make_estimator,
)

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

# Table 4 of the paper: best generated ARI, COBS ARI with 50 constraints, algorithms chosen in 5 folds
PAPER = {
    "2d-4c-no4": (1.0, 0.99, "K:1/D:0/S:4"),
    "cure-t2-4k": (0.94, 0.86, "K:0/D:0/S:5"),
    "engytime": (0.82, 0.81, "K:1/D:0/S:4"),
    "jain": (1.0, 0.95, "K:0/D:4/S:1"),
    "flame": (0.93, 0.88, "K:0/D:2/S:3"),
    "wine": (0.93, 0.90, "K:0/D:0/S:5"),
    "dermatology": (0.94, 0.86, "K:2/D:0/S:3"),
    "iris": (0.88, 0.78, "K:0/D:0/S:5"),
    "ionosphere": (0.56, 0.48, "K:0/D:5/S:0"),
    "breast-cancer-wisconsin": (0.84, 0.69, "K:0/D:1/S:4"),
    "ecoli": (0.75, 0.71, "K:1/D:0/S:4"),
    "optdigits389": (0.97, 0.95, "K:0/D:0/S:5"),
    "segmentation": (0.61, 0.57, "K:0/D:0/S:5"),
    "hepatitis": (0.32, 0.08, "K:0/D:5/S:0"),
    "glass": (0.33, 0.23, "K:1/D:0/S:4"),
    "parkinsons": (0.34, 0.08, "K:0/D:3/S:2"),
    "column_2C": (0.27, 0.05, "K:0/D:3/S:2"),
}
ARTIFICIAL = {"2d-4c-no4", "cure-t2-4k", "engytime", "jain", "flame"}  # the paper does not rescale these
QUICK_TABLE4 = ["iris", "wine", "jain", "flame"]
PARTS = ["generation", "questions", "table4", "fig5", "gentime"]
# the sets of the generation time (issue 37): name, scaling (None: raw)
GENTIME = [("engytime", None), ("engytime", "minmax"), ("cure-t2-4k", None), ("cure-t2-4k", "minmax")]


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def load(name):
    return lw.datasets.load(name, scale=None if name in ARTIFICIAL else "minmax")


# -- 1. generation speed ---------------------------------------------------------------
def family(p):
    return p["algorithm"] if p["algorithm"] != "spectral" else f"spectral-{p['affinity']}"


def naive_seconds(X, params, per_family):
    """Seconds to fit every grid point with its own scikit-learn estimator, from a spread subset."""
    groups = {}
    for p in params:
        groups.setdefault(family(p), []).append(p)
    total = 0.0
    for members in groups.values():
        # sigma < 0.1 left out: scikit-learn's ARPACK can run for minutes on these (timed by hand
        # on segmentation: > 10 min for sigma = 0.01), which would only inflate the baseline
        timed = [p for p in members if p.get("sigma", 1.0) >= 0.1]
        timed = [timed[i] for i in np.linspace(0, len(timed) - 1, min(per_family, len(timed))).astype(int)]
        start = time.process_time()
        with threadpool_limits(1), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for p in timed:
                make_estimator(p).fit(X)
        total += (time.process_time() - start) / len(timed) * len(members)
    return total


def timed_generate(X, grid, **kwargs):
    """Wall seconds, CPU seconds of this process, and the candidates."""
    wall, cpu = time.perf_counter(), time.process_time()
    cands = generate(X, grid=grid, random_state=0, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, cands


def generation_cases(quick):
    """(name, loader of X, grid) of the generation timings of the mode."""
    knn_only = {"spectral": {"sigma": []}}
    cases = [("wine", lambda: load("wine")[0], None)]
    if quick:
        cases.append(("make_blobs 1,000", lambda: make_blobs(1000, centers=5, random_state=0)[0], knn_only))
    else:
        cases.append(("segmentation", lambda: load("segmentation")[0], None))
        cases.append(("make_blobs 10,000", lambda: make_blobs(10_000, centers=5, random_state=0)[0], knn_only))
    return cases


def differing(serial, other):
    """'' if ``other`` has the serial candidates, else which of them differ (and how much, in ARI)."""
    rows = np.flatnonzero((serial.labels != other.labels).any(axis=1))
    if not rows.size:
        return ""
    aris = [lw.metrics.ari(serial.labels[i], other.labels[i]) for i in rows]
    which = sorted({f"{family(serial.params[i])} {serial.params[i].get('sigma', '')}".strip() for i in rows})
    return f" [{rows.size} differ: {', '.join(which)}; ARI to serial >= {min(aris):.2f}]"


def generation(name, X, grid, quick):
    """One row of the generation table: serial, 2 loky workers, the Dask cluster of ``client``, naive."""
    serial, serial_cpu, cands = timed_generate(X, grid)
    print(f"  {name}: serial {serial:.1f} s (CPU {serial_cpu:.1f} s)", flush=True)
    loky, _, par = timed_generate(X, grid, n_jobs=2)
    loky_differ = differing(cands, par)
    with joblib.parallel_backend("dask", wait_for_workers_timeout=120):  # workers may restart on a loaded machine
        dask, _, par = timed_generate(X, grid)
    dask_differ = differing(cands, par)
    naive = naive_seconds(X, cands.params, per_family=4 if quick else 8)
    print(f"  {name}: 2 jobs {loky:.1f} s, dask {dask:.1f} s, naive CPU ~{naive:.0f} s", flush=True)
    return [
        name,
        f"{X.shape[0]} x {X.shape[1]}",
        len(cands),
        f"{serial:.1f}",
        f"{loky:.1f} ({serial / loky:.2f}x){loky_differ}",
        f"{dask:.1f} ({serial / dask:.2f}x){dask_differ}",
        f"{serial_cpu:.1f}",
        f"{naive:.0f} ({naive / serial_cpu:.1f}x)",
    ]


def generation_time(name, scale, reference):
    """CPU seconds of one serial generation, its best candidate's ARI, and the candidates that differ from the
    reference's (stored in ``reference`` first when it has none of this set)."""
    X, y = lw.datasets.load(name, scale=scale)
    start = time.process_time()
    labels = generate(X, random_state=0).labels
    cpu = time.process_time() - start
    path = Path(reference) / f"cobs_{name}_{scale or 'raw'}.npy"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, labels)
    differ = int((np.load(path) != labels).any(axis=1).sum())
    best = max(lw.metrics.ari(y, row) for row in labels)
    print(f"  {name} ({scale or 'raw'}): {cpu:.1f} CPU s, best ARI {best:.3f}, {differ} candidates differ", flush=True)
    return [name, scale or "raw", f"{X.shape[0]} x {X.shape[1]}", f"{cpu:.1f}", f"{best:.3f}", differ]


def generation_times(store, reference):
    """Part 5: the generation time of every set of GENTIME, printed as a markdown table."""
    print("5. generation time", flush=True)
    rows = [store.run(f"gentime-{name}-{scale or 'raw'}", lambda name=name, scale=scale:
                      generation_time(name, scale, reference)) for name, scale in GENTIME]
    print(table(["data", "scaling", "n x d", "serial CPU s", "best ARI", "candidates differing"], rows))


# -- 2. active question speed -------------------------------------------------------------
def question_speed(cache, n_questions=100):
    X, y = load("wine")
    session = lw.ActiveSession(lw.ActiveCOBS(random_state=0, cache=cache), X)
    assert len(session.estimator_.candidates_) == 931
    times = []
    while len(times) < n_questions and (pair := session.ask()) is not None:
        start = time.perf_counter()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        times.append(time.perf_counter() - start)
    return 1000 * np.median(times), 1000 * np.max(times)


# -- 3. Table 4 -------------------------------------------------------------------------
def random_constraints(y, rows, n, rng):
    ml, cl = [], []
    for _ in range(n):
        i, j = rng.choice(rows, 2, replace=False)
        (ml if y[i] == y[j] else cl).append((i, j))
    return ml, cl


def table4(name, cache, n_jobs):
    """One row of Table 4: best candidate ARI, COBS's validation ARI, algorithms chosen, and its gap to the paper."""
    X, y = load(name)
    start = time.perf_counter()
    cands = generate(X, random_state=0, cache=cache, n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    best = max(lw.metrics.ari(y, labels) for labels in cands.labels)
    rng = np.random.RandomState(0)
    aris, used = [], {"kmeans": 0, "dbscan": 0, "spectral": 0}
    folds = StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
    for train, test in folds:
        ml, cl = random_constraints(y, train, 50, rng)
        cobs = lw.COBS(random_state=0, cache=cache).fit(X, ml=ml, cl=cl)
        aris.append(lw.metrics.ari(y[test], cobs.labels_[test]))
        used[cobs.best_["algorithm"]] += 1
    paper_best, paper_cobs, paper_used = PAPER[name]
    chosen = f"K:{used['kmeans']}/D:{used['dbscan']}/S:{used['spectral']}"
    print(f"  {name}: best {best:.2f} (paper {paper_best}), COBS {np.mean(aris):.2f} (paper {paper_cobs})",
          flush=True)
    row = [name, X.shape[0], f"{best:.2f}", paper_best, f"{np.mean(aris):.2f}", paper_cobs, chosen, paper_used,
           f"{seconds:.0f}"]
    return {"row": row, "gap": float(np.mean(aris) - paper_cobs)}


# -- 4. active against random constraints on wine (Fig. 5) ----------------------------------------
def fig5(cache, budgets, repeats):
    X, y = load("wine")
    active = {b: [] for b in budgets}
    passive = {b: [] for b in budgets}
    for seed in range(repeats):
        folds = StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y)
        for fold, (train, test) in enumerate(folds):
            est = lw.ActiveCOBS(max_queries=max(budgets), random_state=0, cache=cache)
            session = lw.ActiveSession(est, X, queryable=train)
            rng = np.random.RandomState(1000 * seed + fold)
            pairs = [rng.choice(train, 2, replace=False) for _ in range(max(budgets))]
            for b in range(1, max(budgets) + 1):
                pair = session.ask()
                if pair is None:
                    break
                session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
                if b in budgets:
                    active[b].append(lw.metrics.ari(y[test], session.labels_[test]))
                    given_ml = [(i, j) for i, j in pairs[:b] if y[i] == y[j]]
                    given_cl = [(i, j) for i, j in pairs[:b] if y[i] != y[j]]
                    cobs = lw.COBS(random_state=0, cache=cache).fit(X, ml=given_ml, cl=given_cl)
                    passive[b].append(lw.metrics.ari(y[test], cobs.labels_[test]))
    return [[b, f"{np.mean(passive[b]):.2f}", f"{np.mean(active[b]):.2f}"] for b in budgets]


class Store:
    """Results kept item by item as JSON files, so that an interrupted run loses nothing: a rerun
    skips what is stored (unless ``redo``), and the report is rewritten from the store after each item.
    The directory is named by the mode and the generation code's cache version, so results of an
    older generation are never reused."""

    def __init__(self, cache, quick, redo):
        self.dir = Path(cache) / f"results-{'quick' if quick else 'full'}-{CACHE_VERSION}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.redo = redo

    def path(self, key):
        return self.dir / f"{key.replace(' ', '_').replace(',', '')}.json"

    def get(self, key):
        path = self.path(key)
        return json.loads(path.read_text()) if path.exists() else None

    def run(self, key, compute):
        """The stored result of ``key``, computed and stored first if missing (or if redo)."""
        if self.redo or self.get(key) is None:
            value = compute()
            tmp = self.path(key).with_suffix(".tmp")
            tmp.write_text(json.dumps({"value": value, "load": os.getloadavg()[0], "at": time.strftime("%H:%M")}))
            tmp.replace(self.path(key))
        return self.get(key)["value"]


def report(store, quick, names, budgets, repeats, command):
    """The markdown report of everything in the store (missing items are listed as not run)."""
    entries = [store.get(p.stem) for p in sorted(store.dir.glob("*.json"))]
    loads = [e["load"] for e in entries if e]
    load_text = f"{max(loads):.1f}" if loads else "n/a"
    gen_rows, missing = [], []
    for name, _, _ in generation_cases(quick):
        entry = store.get(f"generation-{name}")
        (gen_rows.append(entry["value"]) if entry else missing.append(f"generation of {name}"))
    questions = store.get("questions")
    if questions:
        median_ms, max_ms = questions["value"]
        question_text = f"""Median {median_ms:.2f} ms (max {max_ms:.2f} ms) per answer over 100 answers on
wine: weight update, new selection and next question (one
`ActiveSession.tell`). The paper reports < 20 ms for the same sizes."""
    else:
        question_text, missing = "Not run yet.", missing + ["question speed"]
    t4 = [store.get(f"table4-{name}") for name in names]
    missing += [f"Table 4 {name}" for name, entry in zip(names, t4) if entry is None]
    t4 = [entry["value"] for entry in t4 if entry]
    gaps = [entry["gap"] for entry in t4]
    gap_text = (f"Mean difference COBS - paper over these datasets: {np.mean(gaps):+.3f}\n"
                f"(mean absolute {np.mean(np.abs(gaps)):.3f}).") if gaps else ""
    fig5 = store.get("fig5")
    f5_rows = fig5["value"] if fig5 else []
    missing += [] if fig5 else ["Fig. 5"]
    status = "complete" if not missing else "partial; not run (yet): " + ", ".join(missing)
    return f"""# COBS benchmark ({"--quick" if quick else "full"})

`{command}`; 2 cores shared with other jobs (highest load average when a result was stored:
{load_text}), OMP_NUM_THREADS=1. Status: {status}.

## 1. Generating the candidate clusterings

Wall seconds for `lw.cobs.generate` (random_state=0); in brackets the speed-up
over serial. Wall times depend on what else ran on the 2 shared cores (see the
load average above), so the comparison with the naive way uses CPU seconds of
single-threaded runs in this process, which do not: the naive column is one
scikit-learn estimator fitted per grid point (`make_estimator(params).fit(X)`),
timed on an evenly spread subset of each family's grid points ({4 if quick else 8}
per family; Gaussian kernels with sigma < 0.1 left out: scikit-learn's ARPACK
takes minutes on them, so this baseline is an under-estimate) and scaled to
the family's size; in brackets its ratio to our serial CPU seconds. Parallel
and Dask candidates are compared with the serial ones: in square brackets,
those that differ (none if nothing is said). make_blobs grids drop the
Gaussian-kernel spectral affinities (`grid={{"spectral": {{"sigma": []}}}}`):
a dense 10,000 x 10,000 affinity per sigma (0.8 GB) and its eigenproblem
are out of reach of this shared machine.

{table(["data", "n x d", "candidates", "serial s", "2 loky workers s", "Dask 2 workers s", "serial CPU s",
        "naive CPU s"], gen_rows)}

Shared work: one kNN search for the whole grid; one spectral embedding per
affinity reused for every K (9 K per embedding); DBSCAN as cuts of one
single-linkage tree of the mutual reachability distance per minPts (20 eps per
tree). Gaussian affinities of more than 2,500 rows are solved with ARPACK
(shift-invert) instead of LAPACK's dense solver, unless the kernel is too wide
for ARPACK to converge (issue 37). The 2-worker speed-up is
bounded by the 2 cores being shared with other jobs while this ran.

## 2. Choosing the next question (Active COBS, 931 candidates x 200 pairs)

{question_text}

## 3. Table 4 / Fig. 2: best candidate and selected clustering, 50 constraints

5-fold stratified CV, 50 random pairs among the training rows per fold,
ARI on the validation fold (mean of 5), the paper's 931-clustering grid;
best = highest ARI of any candidate on all rows. UCI data scaled to [0, 1],
the artificial sets raw, as in the paper. Generation seconds (wall) with
n_jobs=2 (0 when read from the candidate cache of an earlier run).

{table(["dataset", "n", "best", "paper best", "COBS", "paper COBS", "chosen", "paper chosen", "gen s"],
       [entry["row"] for entry in t4])}

{gap_text}

## 4. Fig. 5: Active COBS against random constraints (wine)

Mean validation-fold ARI after b questions (m = 2, s = 200; questions only
among training rows; {repeats} x 5 folds). The paper (Fig. 5 text)
reports about 0.67 for random and 0.80 for active selection at 5 constraints.

{table(["b", "COBS, random pairs", "Active COBS"], f5_rows) if f5_rows else "Not run yet."}
"""


def generations(store, quick, only, write):
    """Part 1: the generation table, each row (the cases named in ``only`` if given) stored as soon as it is done."""
    print("1. generation", flush=True)
    from distributed import Client, LocalCluster

    joblib.Parallel(n_jobs=2)(joblib.delayed(abs)(i) for i in range(4))  # start the loky workers untimed
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            for name, make_X, grid in generation_cases(quick):
                if only and not any(name.startswith(g) for g in only):
                    continue
                store.run(f"generation-{name}", lambda name=name, make_X=make_X, grid=grid: generation(name, make_X(), grid, quick))
                write()
            client.shutdown()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small run (about 2 minutes)")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "linkwise-bench-cobs"),
                        help="candidate cache and partial results directory (kept between runs)")
    parser.add_argument("--table4", nargs="+", metavar="NAME", help="Table 4 datasets (default: by mode)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=PARTS, help="parts to run (default: all)")
    parser.add_argument("--generation", nargs="+", metavar="NAME", help="only these generation cases (e.g. wine)")
    parser.add_argument("--redo", action="store_true", help="recompute results already stored by an earlier run")
    parser.add_argument("--reference", default=os.path.join(tempfile.gettempdir(), "linkwise-bench-cobs-reference"),
                        help="candidates the generation-time part compares with (stored there if missing)")
    args = parser.parse_args()
    quick, cache = args.quick, args.cache
    store = Store(cache, quick, args.redo)
    out = results_path("cobs.md", quick)
    names = args.table4 or (QUICK_TABLE4 if quick else [n for n in PAPER if n in lw.datasets.names()])
    budgets = [5, 10, 20] if quick else [5, 10, 20, 50]
    repeats = 1 if quick else 3
    command = " ".join(["python benchmarks/bench_cobs.py"] + (["--quick"] if quick else [])
                       + (["--table4", *args.table4] if args.table4 else []))

    def write():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")  # parts may run as parallel processes
        tmp.write_text(report(store, quick, names, budgets, repeats, command))
        tmp.replace(out)

    if "generation" in args.parts:
        generations(store, quick, args.generation, write)
    if "questions" in args.parts:
        print("2. question speed", flush=True)
        store.run("questions", lambda: question_speed(cache))
        write()
    if "table4" in args.parts:
        print("3. Table 4", flush=True)
        for name in names:
            store.run(f"table4-{name}", lambda name=name: table4(name, cache, n_jobs=2))
            write()
    if "fig5" in args.parts:
        print("4. Fig. 5", flush=True)
        store.run("fig5", lambda: fig5(cache, budgets, repeats))
    if "gentime" in args.parts and not quick:
        generation_times(store, args.reference)
    if set(args.parts) != {"gentime"}:  # that part prints its table; the report of the others stays as it is
        write()
        print(out.read_text())
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
