"""Active query strategies: learning curves, imputed-constraint quality, question-selection speed.

1. Learning curves in the setup of Švehla (CTU 2018), Fig. 5.3: PCKMeans (the
   constraint weight of the thesis's Table 5.2 per dataset) with Random,
   Explore & Consolidate, MinMax, NPU (50 trees) and, beyond the thesis,
   Committee; stratified 5-fold cross-validation, questions only about the
   training rows, ARI on the test fold, features standardised. One run per
   fold reads the clustering at every budget through ``ActiveSession`` (every
   strategy asks the same first b questions whatever its budget).
2. Imputed constraints as in Greene & Cunningham (ECML 2007), Table 1: an
   ensemble of k-means runs on 80% subsamples, kappa_ml = 0.98, kappa_cl = 0;
   pairwise precision / recall of the imputed must-links and cannot-links
   against the classes, and the mean NMI of the base clusterings.
3. Speed: milliseconds to take an answer and pick the next question (one
   ``ActiveSession.tell``) for MinMax and Committee at n = 20,000 after
   set-up, as a ratio to Random's in the same run; NPU seconds per question
   (50 trees, PCKMeans) at n = 2,000 and 20,000, with and without batches.
4. NPU's CPU per run of 100 questions with PCKMeans and MPCKMeans on iris, glass,
   segmentation and spambase: the published method (a new forest after every point)
   against ``renew=0.2`` (most of the forest kept while the clustering does not change).
5. Against Švehla's library (active-semi-supervised-clustering 0.0.1) on the anchors'
   protocol of issue 15 (scikit-learn's iris, wine, breast cancer, digits 3-8-9;
   standardised; ARI on all rows; true K; 5 seeds; 10/20/50/100 questions): PCKMeans +
   MinMax and MPCKMeans + NPU, ablating what the clusterer is given (answered pairs or
   their closure) and MinMax's kernel width, beside the library's figures from the issue
   (it does not install offline).

    python benchmarks/bench_active_strategies.py [--quick | --anchors]

``--anchors`` runs section 5 alone and replaces it in the report, keeping the rest.
"""

import argparse
import os
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn import datasets as skdata  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.feature_extraction.text import TfidfTransformer  # noqa: E402
from sklearn.preprocessing import MinMaxScaler, StandardScaler  # noqa: E402

import linkwise as lw  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"

# thesis Table 5.1 data sets (Breast Cancer = wdbc, 569 x 30) with PCKMeans's w of Table 5.2
THESIS = {"wdbc": 10.0, "digits389": 10.0, "glass": 0.1, "ionosphere": 1.0, "iris": 1.0, "wine": 1.0}
STRATEGIES = {
    "Random": lambda: lw.active.Random(),
    "E&C": lambda: lw.active.ExploreConsolidate(),
    "MinMax": lambda: lw.active.MinMax(),
    "NPU": lambda: lw.active.NPU(n_trees=50),
    "Committee": lambda: lw.active.Committee(),
}


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


# -- 1. learning curves -----------------------------------------------------------
def curve(name, w, strategy, budgets, folds, seed):
    """Mean test-fold ARI at each budget, over the folds."""
    X, y = lw.datasets.load(name, scale="standard")
    k = len(np.unique(y))
    scores = np.zeros((len(folds), len(budgets)))
    for f, (train, test) in enumerate(folds):
        est = lw.ActiveClustering(
            lw.PCKMeans(n_clusters=k, w=w, w_bar=w), STRATEGIES[strategy](), max_queries=max(budgets), random_state=seed + f
        )
        session = lw.ActiveSession(est, X, queryable=train)
        oracle = lw.bench.FoldOracle(y, train)
        for b, budget in enumerate(budgets):
            while session.n_queries < budget and (pair := session.ask()) is not None:
                session.tell(pair, oracle.query(*pair))
            scores[f, b] = lw.metrics.ari(y[test], session.labels_[test])
    return scores.mean(axis=0)


def learning_curves(datasets, budgets, n_folds, repeats):
    results, seconds = {}, {}
    for name in datasets:
        y = lw.datasets.load(name)[1]
        for strategy in STRATEGIES:
            start = time.process_time()
            runs = [
                curve(name, THESIS[name], strategy, budgets, lw.bench.fold_split(y, n_folds, r, seed=0), seed=100 * r)
                for r in range(repeats)
            ]
            results[name, strategy] = np.mean(runs, axis=0)
            seconds[name, strategy] = time.process_time() - start
            print(f"  {name:12s} {strategy:10s} {np.round(results[name, strategy], 3)}  ({seconds[name, strategy]:.0f} s)", flush=True)
    return results, seconds


def curves_report(results, seconds, datasets, budgets):
    parts = []
    for name in datasets:
        rows = [[s] + [f"{v:.3f}" for v in results[name, s]] + [f"{seconds[name, s]:.0f}"] for s in STRATEGIES]
        parts.append(f"**{name}** (PCKMeans w = {THESIS[name]:g})\n\n" + table(["strategy"] + [str(b) for b in budgets] + ["s"], rows))
    asked = [b > 0 for b in budgets]
    summary = []
    for s in STRATEGIES:
        means = [results[name, s][asked].mean() for name in datasets]
        gains = [(results[name, s] - results[name, "Random"])[asked].mean() for name in datasets]
        wins = sum((results[name, s] > results[name, "Random"] + 1e-12)[asked].sum() for name in datasets)
        totals = [f"{np.mean(means):.3f}", f"{np.mean(gains):+.3f}", f"{wins}/{sum(asked) * len(datasets)}"]
        summary.append([s] + [f"{m:.3f}" for m in means] + totals)
    header = ["strategy"] + list(datasets) + ["mean", "gain vs Random", "budgets above Random"]
    parts.insert(0, "Mean ARI over the budgets > 0, per dataset:\n\n" + table(header, summary))
    return "\n\n".join(parts)


# -- 2. imputed constraints ---------------------------------------------------------
def load_for_imputation(name):
    if name == "bbcsport":
        if not (SHARED / "bbcsport.csv.gz").exists():
            return None
        X, y = lw.datasets.load("bbcsport", data_dir=SHARED)
        # Greene & Cunningham: log tf-idf, cosine; k-means on unit rows ranks by cosine
        X = TfidfTransformer(sublinear_tf=True).fit_transform(X).toarray()
        return X, y
    return lw.datasets.load(name, scale="standard")


def imputed(name, n_estimators):
    data = load_for_imputation(name)
    if data is None:
        return None
    X, y = data
    n, k = len(y), len(np.unique(y))
    start = time.perf_counter()
    A = lw.ensemble.coassociation(X, k, n_estimators=n_estimators, random_state=0)
    ml, cl = lw.ensemble.impute_constraints(A, kappa_ml=0.98, kappa_cl=0.0)
    seconds = time.perf_counter() - start
    cl_loose = lw.ensemble.impute_constraints(A, kappa_ml=0.98, kappa_cl=0.05)[1]
    counts = np.unique(y, return_counts=True)[1]
    n_same = int((counts * (counts - 1) // 2).sum())
    n_diff = n * (n - 1) // 2 - n_same

    def quality(pairs, same):
        ok = int(((y[pairs[:, 0]] == y[pairs[:, 1]]) == same).sum())
        total = n_same if same else n_diff
        return [len(pairs), f"{ok / len(pairs):.2f}" if len(pairs) else "-", f"{ok / total:.2f}"]

    codes = lw.ensemble.ensemble_labels(X, k, n_estimators=n_estimators, random_state=0)  # A's base clusterings
    base_nmi = np.mean([lw.metrics.nmi(y, codes[:, t]) for t in range(n_estimators)])
    return [name, n, f"{base_nmi:.2f}", *quality(ml, True), *quality(cl, False), *quality(cl_loose, False), f"{seconds:.1f}"]


# -- 3. speed -----------------------------------------------------------------------
def tell_times(strategy, X, y, n_questions, n_clusters):
    """Seconds of set-up (until the first question) and of each tell (answer + next question)."""
    est = lw.ActiveClustering(lw.PCKMeans(n_clusters=n_clusters), strategy, max_queries=n_questions, random_state=0)
    oracle = lw.LabelOracle(y)
    start = time.perf_counter()
    session = lw.ActiveSession(est, X)
    setup = time.perf_counter() - start
    times = []
    while (pair := session.ask()) is not None:
        answer = oracle.query(*pair)
        start = time.perf_counter()
        session.tell(pair, answer)
        times.append(time.perf_counter() - start)
    return setup, np.array(times)


def speed(n_questions, npu_questions):
    rows = []
    X, y = make_blobs(20_000, centers=10, n_features=10, cluster_std=2.0, random_state=0)
    base = None
    for name in ("Random", "MinMax", "Committee"):
        setup, t = tell_times(STRATEGIES[name](), X, y, n_questions, 10)
        base = np.median(t) if base is None else base  # the median: one stall of the machine skews a mean
        ms = [f"{1e3 * v:.2f}" for v in (t.mean(), np.median(t), np.percentile(t, 95), t.max())]
        rows.append([name, "20,000", f"{setup:.2f}", len(t), *ms, f"{np.median(t) / base:.0f}"])
        print(f"  {name:10s} set-up {setup:.2f} s, tell mean {1e3 * t.mean():.2f} ms, max {1e3 * t.max():.2f} ms", flush=True)
    npu_rows = []
    for n in (2_000, 20_000):
        Xn, yn = make_blobs(n, centers=10, n_features=10, cluster_std=2.0, random_state=0)
        for batch in (1, 10):
            count = npu_questions if batch == 1 else 20 * npu_questions
            setup, t = tell_times(lw.active.NPU(n_trees=50, batch_size=batch), Xn, yn, count, 10)
            base_setup, base_t = tell_times(lw.active.Random(), Xn, yn, count, 10)
            # the first re-clustering happens while setting up: count it in
            per_question = (setup + t.sum()) / len(t)
            ratio = per_question / ((base_setup + base_t.sum()) / len(base_t))
            npu_rows.append([f"{n:,}", batch, len(t), f"{setup:.2f}", f"{per_question:.3f}", f"{ratio:.0f}"])
            print(f"  NPU n={n} batch={batch}: set-up {setup:.2f} s, {per_question:.3f} s/question", flush=True)
    return rows, npu_rows


# -- 4. NPU per run ----------------------------------------------------------------------
def npu_runs(datasets):
    """CPU and ARI of one run, published NPU (renew=1.0) against NPU(renew=0.2), in the same process."""
    rows = []
    for name in datasets:
        X, y = lw.datasets.load(name, scale="standard")
        k = len(np.unique(y))
        for clusterer in (lw.PCKMeans, lw.MPCKMeans):
            cpu, ari = {}, {}
            for renew in (1.0, 0.2):
                est = lw.ActiveClustering(
                    clusterer(n_clusters=k), lw.active.NPU(renew=renew), max_queries=100, random_state=0
                )
                start = time.process_time()
                est.fit(X, lw.LabelOracle(y))
                cpu[renew], ari[renew] = time.process_time() - start, lw.metrics.ari(y, est.labels_)
            rows.append(
                [name, len(y), clusterer.__name__, f"{cpu[1.0]:.2f}", f"{cpu[0.2]:.2f}", f"{cpu[1.0] / cpu[0.2]:.1f}"]
                + [f"{ari[1.0]:.3f}", f"{ari[0.2]:.3f}"]
            )
            print(f"  NPU {name:12s} {clusterer.__name__:9s} {cpu[1.0]:.2f} s / {cpu[0.2]:.2f} s", flush=True)
    return rows


# -- 5. anchors' protocol against Švehla's library ------------------------------------------
ANCHOR_BUDGETS = [10, 20, 50, 100]
# active-semi-supervised-clustering 0.0.1 under the same protocol (issues 15 and 19)
THESIS_LIBRARY = {
    "PCKMeans + MinMax": {
        "wine": {100: 1.000},
        "breast_cancer": {10: 0.677, 50: 0.729, 100: 0.768},
        "digits389": {100: 0.721},
    },
    "MPCKMeans + NPU": {"wine": {50: 0.857, 100: 0.993}},
}


def anchor_data(name, scaler):
    """scikit-learn's bundled data set, scaled (digits: classes 3, 8, 9 only)."""
    if name == "digits389":
        digits = skdata.load_digits()
        keep = np.isin(digits.target, [3, 8, 9])
        X, y = digits.data[keep], digits.target[keep]
    else:
        X, y = getattr(skdata, f"load_{name}")(return_X_y=True)
    return scaler().fit_transform(X), y


def anchor_variants(quick):
    """(method, variant) -> (clusterer factory of k, strategy factory of X, constraints, scaler)."""
    minmax = lambda X: lw.active.MinMax()  # noqa: E731
    pck = lambda w: lambda k: lw.PCKMeans(n_clusters=k, w=w, w_bar=w)  # noqa: E731
    variants = {
        ("PCKMeans + MinMax", "answered pairs (before)"): (pck(1.0), minmax, "answered", StandardScaler),
        ("PCKMeans + MinMax", "answered pairs, w = 10"): (pck(10.0), minmax, "answered", StandardScaler),
        ("PCKMeans + MinMax", "answered pairs, features in [0, 1]"): (pck(1.0), minmax, "answered", MinMaxScaler),
        ("PCKMeans + MinMax", "closure (default)"): (pck(1.0), minmax, "auto", StandardScaler),
        ("PCKMeans + MinMax", "closure, w = 10"): (pck(10.0), minmax, "auto", StandardScaler),
        ("PCKMeans + MinMax", "closure, features in [0, 1]"): (pck(1.0), minmax, "auto", MinMaxScaler),
    }
    for factor in (0.25, 4.0):  # the kernel is monotone in distance: the width can only break ties
        variants["PCKMeans + MinMax", f"closure, MinMax sigma x{factor:g}"] = (
            pck(1.0),
            lambda X, f=factor: lw.active.MinMax(sigma=f * lw.active.kernel_width(X, 0)),
            "auto",
            StandardScaler,
        )
    npu = lambda X: lw.active.NPU(n_trees=10 if quick else 50)  # noqa: E731
    mpck = lambda k: lw.MPCKMeans(n_clusters=k)  # noqa: E731
    variants["MPCKMeans + NPU", "answered pairs (before)"] = (mpck, npu, "answered", StandardScaler)
    variants["MPCKMeans + NPU", "closure (default)"] = (mpck, npu, "auto", StandardScaler)
    return variants


def anchor_curve(name, variant, seeds):
    """ARI on all rows after each budget, per seed: one session read at every budget."""
    clusterer, strategy, constraints, scaler = variant
    X, y = anchor_data(name, scaler)
    k = len(np.unique(y))
    scores = np.zeros((len(seeds), len(ANCHOR_BUDGETS)))
    for s, seed in enumerate(seeds):
        est = lw.ActiveClustering(
            clusterer(k), strategy(X), max_queries=max(ANCHOR_BUDGETS), constraints=constraints, random_state=seed
        )
        session, oracle = lw.ActiveSession(est, X), lw.LabelOracle(y)
        for b, budget in enumerate(ANCHOR_BUDGETS):
            while session.n_queries < budget and (pair := session.ask()) is not None:
                session.tell(pair, oracle.query(*pair))
            scores[s, b] = lw.metrics.ari(y, session.labels_)
    return scores.mean(axis=0)


def anchors(quick):
    names = ["iris", "wine"] if quick else ["iris", "wine", "breast_cancer", "digits389"]
    seeds = range(2 if quick else 5)
    rows = []
    for (method, variant), spec in anchor_variants(quick).items():
        for name in names:
            start = time.process_time()
            curve_ = anchor_curve(name, spec, seeds)
            rows.append([method, name, variant] + [f"{v:.3f}" for v in curve_] + [f"{time.process_time() - start:.1f}"])
            print(f"  {method:18s} {name:14s} {variant:28s} {np.round(curve_, 3)}", flush=True)
    for method, published in THESIS_LIBRARY.items():
        for name, figures in published.items():
            if name in names:
                cells = [f"{figures[b]:.3f}" if b in figures else "" for b in ANCHOR_BUDGETS]
                rows.append([method, name, "**Švehla's library** (issue 15)"] + cells + [""])
    rows.sort(key=lambda r: (r[0], names.index(r[1])))  # stable: variants stay in order, the library last
    return table(["method", "dataset", "variant"] + [str(b) for b in ANCHOR_BUDGETS] + ["CPU s"], rows), len(seeds)


def anchors_section(quick):
    rows, n_seeds = anchors(quick)
    return f"""## 5. Against Švehla's library (anchors' protocol)

Produced by `benchmarks/bench_active_strategies.py --anchors{' --quick' if quick else ''}`. The protocol of issue 15:
scikit-learn's iris, wine, breast cancer and digits (classes 3, 8, 9), `StandardScaler`, ARI on
all rows, true K, {n_seeds} seeds (`random_state` of `ActiveClustering`), each run read after
10 / 20 / 50 / 100 questions (the questions do not depend on the budget). Clusterers with their
defaults (PCKMeans w = 1 as in the library; NPU with 50 trees). The library
(active-semi-supervised-clustering 0.0.1) does not install offline: its rows are the figures
measured in issue 15 under the same protocol (blank: not reported).

The library gives its clusterers every pair its neighbourhoods imply (it closes the
constraints inside `PCKMeans.fit` / `MPCKMeans.fit`); linkwise gave only the answered pairs.
PCKMeans's penalty `w` is in units of squared distance, and on standardised features two
points are ~2 x n_features apart: one unit per answered pair barely moves a point from its
nearest centre, so 100 answers left breast cancer where 10 did. The closure weighs each
point's membership by the size of its neighbourhood. Raising `w` to 10 with the answered
pairs recovers iris, wine and digits but not breast cancer; on features scaled to [0, 1]
(the `bench_full` protocol) `w = 1` is already large against the squared distances and the
closure changes little (which is why the `bench_full` rows of the k-means family move by
about .01). `closure (default)` is what `ActiveClustering(constraints="auto")` now gives
PCKMeans, MPCKMeans and MKMeans. MinMax's kernel width cannot explain a gap: the similarity
decreases with distance, so the questions are a farthest-first traversal whatever sigma is
(those rows equal the default's). MPCKMeans + NPU: NPU re-clusters after every point, so what
the clusterer is given changes the questions too; 5 seeds of a random forest are noisy.

{rows}
"""


def splice_anchors(text, section):
    """Replace section 5 of the report (or append it)."""
    head = text.split("\n## 5. ")[0].rstrip("\n")
    return f"{head}\n\n{section}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="iris and wine, budgets up to 30, fewer runs")
    parser.add_argument("--anchors", action="store_true", help="only section 5, replaced in the existing report")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    out = results_path("active_strategies.md", args.quick)
    if args.anchors:
        print("5. anchors' protocol", flush=True)
        section = anchors_section(args.quick)
        out.write_text(splice_anchors(out.read_text() if out.exists() else "# Active query strategies\n", section))
        print(f"written {out}")
        return
    if args.quick:
        datasets, budgets, repeats = ["iris", "wine"], [0, 10, 20, 30], 1
        imputation_sets, n_estimators = ["iris", "wine", "bbcsport"], 100
        n_questions, npu_questions = 100, 2
        npu_sets = ["iris", "glass"]
    else:
        datasets, budgets, repeats = list(THESIS), list(range(0, 101, 10)), 1
        imputation_sets, n_estimators = ["bbcsport"] + list(THESIS), 1000
        n_questions, npu_questions = 300, 3
        npu_sets = ["iris", "glass", "segmentation", "spambase"]

    print("1. learning curves (mean test ARI over 5 folds)", flush=True)
    results, seconds = learning_curves(datasets, budgets, 5, repeats)
    print("2. imputed constraints", flush=True)
    rows = [r for name in imputation_sets if (r := imputed(name, n_estimators)) is not None]
    imputed_table = table(
        ["dataset", "n", "base NMI", "ML selected", "ML PP", "ML PR", "CL selected", "CL PP", "CL PR"]
        + ["CL@0.05 selected", "CL@0.05 PP", "CL@0.05 PR", "s"],
        rows,
    )
    print(imputed_table, flush=True)
    print("3. speed", flush=True)
    speed_rows, npu_rows = speed(n_questions, npu_questions)
    speed_table = table(
        ["strategy", "n", "set-up s", "answers", "ms/answer mean", "median", "p95", "max", "median ratio to Random"], speed_rows
    )
    npu_table = table(["n", "batch_size", "questions", "set-up s", "s/question (with set-up)", "ratio to Random"], npu_rows)
    print("4. NPU per run", flush=True)
    run_table = table(
        ["dataset", "n", "clusterer", "CPU s renew=1", "CPU s renew=0.2", "ratio", "ARI renew=1", "ARI renew=0.2"],
        npu_runs(npu_sets),
    )
    print("5. anchors' protocol", flush=True)
    anchor_text = anchors_section(args.quick)

    mode = "quick" if args.quick else "full"
    text = f"""# Active query strategies

Mode: {mode}. Produced by `benchmarks/bench_active_strategies.py{' --quick' if args.quick else ''}` (OMP_NUM_THREADS=1,
one shared 2-core machine; times are indicative, ratios are measured in the same run).

## 1. Learning curves (Švehla 2018, Fig. 5.3 setup)

PCKMeans (given the closure of the answers, `ActiveClustering`'s default) with each strategy; stratified 5-fold cross-validation ({repeats} repeat(s)), questions
only about the training rows, ARI on the test fold, averaged over the folds; features
standardised; budgets {budgets}. Column `s`: CPU seconds for all folds of that strategy.

{curves_report(results, seconds, datasets, budgets)}

## 2. Imputed constraints (Greene & Cunningham 2007, Table 1 layout)

{n_estimators} k-means runs (random initialisation) on 80% subsamples, out-of-sample rows to the
nearest centroid; kappa_ml = 0.98, kappa_cl = 0. PP / PR: pairwise precision / recall of the
imputed pairs against the classes (must-links inferred by transitivity not counted). bbcsport:
log tf-idf, unit rows (cosine), as in the paper; the others standardised. `CL@0.05`: the
cannot-links with kappa_cl = 0.05 instead; with many runs, one odd run that puts a pair
together is enough to rule it out at kappa_cl = 0.

{imputed_table}

## 3. Speed of choosing the next question

One `ActiveSession.tell` = store the answer + run the strategy to its next question
(the clusterer is not refitted by MinMax, Committee or Random). make_blobs, 10 features,
10 centres. Set-up = building the session until the first question (Committee: its
100-run ensemble and imputed neighbourhoods; MinMax: sampled kernel width).

{speed_table}

NPU (50 trees, PCKMeans re-fitted before each re-clustering): seconds per question over
the whole run, set-up (the first clusterer fit and forest) included; a point may take
several questions, and only its first one waits for a re-clustering. `batch_size=10`
re-clusters once per 10 points. Ratio: to Random's whole-run time per question.

{npu_table}

## 4. NPU: CPU per run

One run of `ActiveClustering(clusterer(n_clusters=k), NPU(renew=...), max_queries=100,
random_state=0)` (standardised features, perfect oracle), CPU seconds in the same process.
`renew=1` (the default) is the published method: a new forest after every point, grown tree by
tree (the trees scikit-learn's `RandomForestClassifier` grows, without its per-tree checks; at
commit 7cdd437, which fitted a `RandomForestClassifier`, iris took 8.5 / 9.5 s with PCKMeans /
MPCKMeans). `renew=0.2` regrows the whole forest only when the clustering changed and a fifth
of it otherwise. ARI of the final clustering (one run: noisy; section 1 averages).

{run_table}

{anchor_text}"""
    out.write_text(text)
    print(f"written {out}")


if __name__ == "__main__":
    main()
