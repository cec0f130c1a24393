"""When to stop (issue 17): how often "stable" is shown while the clustering still improves.

On the 27 shipped tables (features scaled to [0, 1], every row queryable) a
simulated person (``LabelOracle`` with the true classes, no wrong answers)
answers up to 150 questions of Auto (the default) and of COBRAS, with a few
seeds. After every answer the bench records the ARI of the whole clustering
to the classes, how much the answer moved the clustering (one minus the ARI
to the clustering before it, on ``StabilityMonitor``'s sample of at most
2,000 rows) and the session's own ``stability_.stable``. From the moves
every rule below says whether it would show "stable" after answer t: a run
of answers that changed nothing (three meanings of a change), at most one
change among the last 20, or the drift rule of ``StabilityMonitor`` (the
moves of the last w answers add up to at most d). "stable" at t is *false*
when the ARI after t + 50 answers (or at the end of a session that ran out
of questions) exceeds the ARI after t by more than 0.05; only answers with
that look-ahead count.

The drift rule's w and d are chosen on the odd-indexed datasets (sorted
names): the most often shown among those with a false rate of at most 10 %.
The tables give the same figures on the even-indexed ones, which played no
part in the choice. Then the cost of one update at n = 10,000 beside one
COBRAS answer (``ActiveSession.tell``, which makes that update) on the same
data, measured in the same run.

    python benchmarks/bench_stability.py [--quick] [--seeds 5] [--questions 150] [--datasets a,b] [--raw FILE] [--load]

``--raw`` keeps the per-answer records (CSV) so that ``--load`` re-analyses them without re-running.
"""

import argparse
import os
import subprocess
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.bench import candidate_cache  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

LOOKAHEAD, RISE, MAX_FALSE = 50, 0.05, 0.10
# what counts as a change: an answer that moved the clustering (1 - ARI to the one before) by more than
TOLERANCES = {"any move": 0.0, "ARI < 0.99": 0.01, "ARI < 0.95": 0.05}
RUNS = (10, 20, 30)
DRIFTS = ((30, 0.01), (30, 0.02), (30, 0.05), (50, 0.01), (50, 0.02), (50, 0.05), (50, 0.1))


def methods(seed, budget):
    return {"Auto": lw.Auto(max_queries=budget, random_state=seed, cache=candidate_cache()),
            "COBRAS": lw.COBRAS(max_queries=budget, random_state=seed)}


def run(name, method, est, y, X, seed):
    """Per-answer records of one session: the ARI to the classes, how much the answer moved the clustering, and
    the session's own estimate (the defaults)."""
    session = lw.ActiveSession(est, X)
    mover = lw.StabilityMonitor(window=1)  # its drift over one answer: that answer's move
    mover.update(session.labels_, answered=False)
    out = []
    while (pair := session.ask()) is not None:
        answer = bool(y[pair[0]] == y[pair[1]])
        session.tell(pair, answer)
        labels = session.labels_
        out.append({"dataset": name, "method": method, "seed": seed, "t": session.n_queries, "answer": answer,
                    "k": len(np.unique(labels)), "ari": lw.metrics.ari(y, labels),
                    "move": mover.update(labels).drift, "shipped": session.stability_.stable})
    return out


def collect(names, seeds, budget):
    records = []
    for name in names:
        X, y = lw.datasets.load(name, scale="minmax")
        start = time.perf_counter()
        for seed in range(seeds):
            for method, est in methods(seed, budget).items():
                records += run(name, method, est, y, X, seed)
        print(f"{name}: {time.perf_counter() - start:.0f} s", flush=True)
    return pd.DataFrame(records)


def drift_rule(window, max_drift):
    return f"drift over the last {window} answers <= {max_drift}"


def shown(frame, budget):
    """Per rule, the boolean "stable shown" column of every record; and the look-ahead columns."""
    frame = frame.sort_values(["dataset", "method", "seed", "t"]).reset_index(drop=True)
    key = [frame.dataset, frame.method, frame.seed]
    runs = frame.groupby(key, sort=False)
    last_t, last_ari = runs.t.transform("max"), runs.ari.transform("last")
    ahead = runs.ari.shift(-LOOKAHEAD)
    # past the end of a session the clustering stays as it ended; past the budget nothing is known
    frame["ahead"] = ahead.where(ahead.notna(), last_ari.where(last_t < budget))
    frame["false"] = frame.ahead - frame.ari > RISE
    rules = {}
    for name, tol in TOLERANCES.items():
        changed = frame.move > tol
        block = changed.groupby(key).cumsum()
        n_stable = frame.groupby(key + [block]).cumcount() + (block == 0)  # StabilityMonitor's n_stable
        for n in RUNS:
            rules[f"{name} changes: {n} unchanged in a row"] = n_stable >= n
        recent = changed.astype(int).groupby(key).transform(lambda s: s.rolling(20).sum())
        rules[f"{name} changes: <= 1 of the last 20"] = recent <= 1  # NaN (fewer than 20 answers) is False
    for window, max_drift in DRIFTS:
        drift = frame.move.groupby(key).transform(lambda s, w=window: s.rolling(w).sum())
        rules[drift_rule(window, max_drift)] = drift <= max_drift + 1e-12
    return frame, rules


def summary(frame, rules, datasets):
    """One row per rule: false rate, shown share, first shown, false stop at the first shown, over ``datasets``."""
    keep = frame.dataset.isin(datasets)
    known = keep & frame.ahead.notna()
    key = [frame.dataset, frame.method, frame.seed]
    rows = []
    for rule, on in rules.items():
        on_known = on & known
        first = frame.t.where(on & keep).groupby(key).min()
        n_runs = keep.groupby(key).any().sum()
        first_idx = frame[on & keep].groupby(["dataset", "method", "seed"]).t.idxmin()
        at_first = frame.loc[first_idx]
        at_first = at_first[at_first.ahead.notna()]
        rows.append({"rule": rule, "false": frame.false[on_known].mean(), "shown": on_known.sum() / known.sum(),
                     "runs shown": first.notna().sum() / n_runs, "first (median t)": first.median(),
                     "false at first": at_first.false.mean(), "n": int(on_known.sum())})
    return pd.DataFrame(rows).set_index("rule")


def update_cost(n=10_000, questions=60):
    X, y = make_blobs(n_samples=n, n_features=10, centers=10, cluster_std=2, random_state=0)
    session = lw.ActiveSession(lw.COBRAS(max_queries=questions, random_state=0), X)
    monitor, tell, update = lw.StabilityMonitor(), [], []
    while (pair := session.ask()) is not None:
        start = time.perf_counter()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        tell.append(time.perf_counter() - start)
        labels = session.labels_
        start = time.perf_counter()
        monitor.update(labels)
        update.append(time.perf_counter() - start)
    return np.array(update) * 1000, np.array(tell) * 1000


def fmt(table, first="rule"):
    out = [f"| {first} | false \"stable\" | shown (share of answers) | runs where shown | first shown (median answer) "
           "| false at the first shown | answers counted |", "|---|---|---|---|---|---|---|"]
    for rule, r in table.iterrows():
        out.append(f"| {rule} | {r['false']:.3f} | {r['shown']:.3f} | {r['runs shown']:.2f} | "
                   f"{r['first (median t)']:.0f} | {r['false at first']:.3f} | {r['n']:.0f} |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--datasets", default=None)
    parser.add_argument("--raw", help="per-answer records (default /tmp/linkwise-stability-raw[-quick].csv.gz)")
    parser.add_argument("--load", action="store_true", help="re-analyse --raw instead of running")
    parser.add_argument("--out", help="the report (default: stability.md in the results folder of the mode)")
    parser.add_argument("--quick", action="store_true", help="8 datasets, 1 seed, 120 questions (make bench)")
    args = parser.parse_args()
    args.raw = args.raw or f"/tmp/linkwise-stability-raw{'-quick' if args.quick else ''}.csv.gz"
    out = Path(args.out) if args.out else results_path("stability.md", args.quick)
    names = lw.datasets.names(collection="literature")
    if args.quick:
        names, args.seeds, args.questions = names[:8], 1, 120
    if args.datasets:
        names = [n for n in names if n in args.datasets.split(",")]
    start = time.perf_counter()
    frame = pd.read_csv(args.raw) if args.load else collect(names, args.seeds, args.questions)
    if not args.load:
        frame.to_csv(args.raw, index=False)
    minutes = (time.perf_counter() - start) / 60
    frame, rules = shown(frame, args.questions)
    tune, held = names[1::2], names[0::2]
    tuned = summary(frame, rules, tune)
    drifts = tuned[tuned.index.str.startswith("drift")]
    ok = drifts[drifts["false"] <= MAX_FALSE]
    best = (ok if len(ok) else drifts).sort_values(["shown", "false"], ascending=[False, True]).index[0]
    default = lw.StabilityMonitor()
    agree = (frame.shipped == rules[drift_rule(default.window, default.max_drift)]).mean()
    held_table = summary(frame, rules, held)
    per_set = {m: summary(frame[frame.method == m], {best: rules[best][frame.method == m]}, names) for m in
               ("Auto", "COBRAS")}
    per_dataset = pd.DataFrame({d: summary(frame, {best: rules[best]}, [d]).iloc[0] for d in names}).T
    update_ms, tell_ms = update_cost()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    text = f"""# When to stop: the stability estimate (issue 17)

`{' '.join(['python benchmarks/bench_stability.py'] + (['--quick'] if args.quick else [f'--seeds {args.seeds}', f'--questions {args.questions}']))}`
(commit {commit}, `nice`, OMP_NUM_THREADS=1, one process; {minutes:.0f} min for the runs).

{__doc__.split(chr(10), 2)[2].split('    python')[0].strip().replace('``', '`')}

Datasets ({len(names)}): tuning (odd-indexed) {', '.join(tune)}; held out (even-indexed) {', '.join(held)}.
Methods Auto and COBRAS, seeds 0-{args.seeds - 1}, up to {args.questions} questions. "false" counts the answers at
which the rule showed "stable" and the ARI still rose by more than {RISE} within the next {LOOKAHEAD} answers;
"shown" is the share of all answers (with that look-ahead) at which it showed "stable"; "first shown": the median
answer at which a run first showed it (runs that did); "false at the first shown": the share of runs whose first
"stable" was false (a person who stops at the first signal).

## Chosen on the tuning datasets: **{best}** (false rate <= {MAX_FALSE}, then the most often shown)

| datasets | false "stable" | shown | runs where shown | first shown (median answer) | false at the first shown |
|---|---|---|---|---|---|
| tuning ({len(tune)}) | {tuned.loc[best, 'false']:.3f} | {tuned.loc[best, 'shown']:.3f} | {tuned.loc[best, 'runs shown']:.2f} | {tuned.loc[best, 'first (median t)']:.0f} | {tuned.loc[best, 'false at first']:.3f} |
| **held out ({len(held)})** | **{held_table.loc[best, 'false']:.3f}** | {held_table.loc[best, 'shown']:.3f} | {held_table.loc[best, 'runs shown']:.2f} | {held_table.loc[best, 'first (median t)']:.0f} | {held_table.loc[best, 'false at first']:.3f} |
| all, Auto only | {per_set['Auto'].iloc[0]['false']:.3f} | {per_set['Auto'].iloc[0]['shown']:.3f} | {per_set['Auto'].iloc[0]['runs shown']:.2f} | {per_set['Auto'].iloc[0]['first (median t)']:.0f} | {per_set['Auto'].iloc[0]['false at first']:.3f} |
| all, COBRAS only | {per_set['COBRAS'].iloc[0]['false']:.3f} | {per_set['COBRAS'].iloc[0]['shown']:.3f} | {per_set['COBRAS'].iloc[0]['runs shown']:.2f} | {per_set['COBRAS'].iloc[0]['first (median t)']:.0f} | {per_set['COBRAS'].iloc[0]['false at first']:.3f} |

## Every rule, held-out datasets

{fmt(held_table)}

## Every rule, tuning datasets

{fmt(tuned)}

## The chosen rule per dataset (both methods, all seeds)

{fmt(per_dataset, "dataset")}

Misses: the chosen rule was false at more than a quarter of the answers where it showed "stable" on
{', '.join(f"{d} ({r['false']:.2f})" for d, r in per_dataset[per_dataset['false'] > 0.25].iterrows()) or 'none'};
it never showed "stable" with a 50-answer look-ahead on {', '.join(per_dataset.index[per_dataset['n'] == 0])}
(the clustering still moved, or the look-ahead was past answer {args.questions}). By construction it never shows
"stable" before answer {lw.StabilityMonitor().window}.

## Cost of an update at n = 10,000 (make_blobs, d = 10, COBRAS, 60 questions)

| | median ms | max ms |
|---|---|---|
| `StabilityMonitor.update` (2,000-row sample) | {np.median(update_ms):.2f} | {update_ms.max():.2f} |
| `ActiveSession.tell` (which includes one update) | {np.median(tell_ms):.2f} | {tell_ms.max():.2f} |
| ratio | {np.median(update_ms) / np.median(tell_ms):.2f} | {update_ms.max() / tell_ms.max():.2f} |

The session's own `stability_.stable` (the defaults: {drift_rule(default.window, default.max_drift)}) agrees with
that rule recomputed here from the moves at {agree:.1%} of the answers.
"""  # noqa: E501
    out.write_text(text)
    print(text)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
