"""Cluster feedback ("mark") on huge clusters: before and after ConstraintStore.add_group, in the same run.

A mark of ``m`` members on ``n`` rows states ``m - 1`` must-links and, when complete, ``n - m`` cannot-links.
Before: the pairs one by one, as ``ActiveSession.mark`` stated them up to commit 66ea443 (reproduced here as
:func:`old_mark`: every pair tried on a deep copy of a strict store, then each added with ``ConstraintStore.add``,
told to the method's knowledge and recorded). After: ``ConstraintStore.add_group`` and the current
``ActiveSession.mark``. Timed: the store alone; ``ActiveSession.mark`` for COBRAS (strict store) and
NoiseRobustCOBRAS (tolerant store, a NoisyAnswers belief: told each pair before, ``inform_group`` after); reopening a session file holding the
mark (``HumanSession`` replays it; before: with :func:`old_mark` in place of ``ActiveSession.mark``). The store
holds 2,000 earlier answers that agree with the mark.
"""

import argparse
import copy
import gc
import os
import tempfile
import time
from unittest import mock

import numpy as np
import pandas as pd

import linkwise as lw
from linkwise._validation import check_index_set
from linkwise.graph import check_pair
from linkwise.loop import Mark
from linkwise.session import HumanSession, load_data

from _results import results_path  # benchmarks/ is on the path when this script runs


def star(members, complete, n):
    """The pairs a mark states, in order."""
    first = int(members[0])
    pairs = [(first, int(r), True) for r in members[1:]]
    return pairs + [(first, int(o), False) for o in np.setdiff1d(np.arange(n), members)] if complete else pairs


def old_mark(self, rows, complete=False):
    """``ActiveSession.mark`` as it was before ``add_group`` (commit 66ea443): the baseline."""
    ctx = self._ctx
    rows = check_index_set(rows, ctx.n_samples, "rows", "ActiveSession.mark")
    pairs = star(rows, complete, ctx.n_samples)
    for i, j, answer in pairs:
        check_pair(i, j, ctx.n_samples, "ActiveSession.mark")
        assert isinstance(answer, (bool, np.bool_))
    if not ctx.constraints.tolerant and len(pairs) > 1:
        trial = copy.deepcopy(ctx.constraints)
        for i, j, answer in pairs:
            trial.add(i, j, bool(answer))
    start = len(ctx.informed)
    for i, j, answer in pairs:
        ctx.constraints.add(i, j, bool(answer))
        if ctx.knowledge is not ctx.constraints:
            ctx.knowledge.inform(i, j, bool(answer))
        ctx.informed.append((int(i), int(j), bool(answer)))
    ctx.marks.append(Mark(rows, bool(complete), start, len(ctx.informed)))
    self._stated([])  # the rest as before: a pending question the pairs settle is answered, stability updated


def one_by_one(store, members, complete):
    """The store's part of :func:`old_mark`."""
    pairs = star(members, complete, store.n)
    for target in (copy.deepcopy(store), store):
        for pair in pairs:
            target.add(*pair)


def best(setup, action, repeat):
    """Least seconds of ``action(setup())`` over ``repeat`` runs (setup untimed)."""
    times = []
    for _ in range(repeat):
        state = setup()
        gc.collect()  # each run starts with no garbage of the last one to collect
        start = time.perf_counter()
        action(state)
        times.append(time.perf_counter() - start)
    return min(times)


def case(n, m, seed=0):
    """Data, the mark's members and a store of earlier answers that agree with it."""
    rng = np.random.default_rng(seed)
    members = np.sort(rng.permutation(n)[:m])
    y = rng.integers(1, 4, n)
    y[members] = 0
    store = lw.ConstraintStore(n)
    for i, j in rng.integers(0, n, (2_000, 2)).tolist():
        if i != j:
            store.add(i, j, bool(y[i] == y[j]))
    return rng.normal(size=(n, 2)), members, store


def session_file(X, members, complete):
    """A session file holding the mark, and its data."""
    folder = tempfile.mkdtemp()
    csv = os.path.join(folder, "data.csv")
    pd.DataFrame(X, columns=["a", "b"]).to_csv(csv, index=False)
    data, path = load_data(csv), os.path.join(folder, "session.db")
    session = HumanSession(path, data, lw.COBRAS(max_queries=5, random_state=0))
    session.mark(session.position, members, complete=complete)
    session.close()
    return path, data


def measure(n, m, complete, repeat):
    X, members, store = case(n, m)
    steps = {"ConstraintStore": (store.copy, lambda s: one_by_one(s, members, complete),
                                 lambda s: s.add_group(members, complete))}
    for method in (lw.COBRAS, lw.NoiseRobustCOBRAS):
        def session(method=method):
            return lw.ActiveSession(method(max_queries=5, random_state=0), X, stability=False)
        steps[f"ActiveSession.mark, {method.__name__}"] = (session, lambda s: old_mark(s, members, complete),
                                                            lambda s: s.mark(members, complete))
    path, data = session_file(X, members, complete)

    def reopen(_):
        HumanSession(path, data).close()

    def reopen_before(_):
        with mock.patch.object(lw.ActiveSession, "mark", old_mark):
            reopen(None)

    steps["reopen (HumanSession)"] = (lambda: None, reopen_before, reopen)
    rows = []
    for step, (setup, before, after) in steps.items():
        t_before, t_after = best(setup, before, repeat), best(setup, after, repeat)
        rows.append({"n": n, "members": m, "mark": "complete" if complete else "pure", "step": step,
                     "before s": t_before, "after s": t_after, "before / after": t_before / t_after})
    return rows


def table(rows):
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r.values()) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="20,000 rows only (< 30 s)")
    args = parser.parse_args()
    sizes = [(20_000, 5_200)] if args.quick else [(20_000, 5_200), (200_000, 52_000)]
    rows = [row for n, m in sizes for complete in (False, True)
            for row in measure(n, m, complete, repeat=3)]
    text = table(rows)
    print(text)
    out = results_path("mark_scale.md", args.quick)
    out.write_text(
        "# Marking a huge cluster\n\n"
        "Seconds (best of the runs) to state a mark of `members` rows on `n` rows, before (the pairs one by one, as "
        "`ActiveSession.mark` did up to commit 66ea443: a trial of every pair on a deep copy of a strict store, then "
        "each added with `ConstraintStore.add`, told to the knowledge and recorded) and after "
        "(`ConstraintStore.add_group`), in the same run. `ConstraintStore`: the store alone; `ActiveSession.mark`: "
        "with the method's own work (COBRAS's feedback; NoiseRobustCOBRAS's NoisyAnswers belief, told each pair "
        "before, the whole mark after: `inform_group`); `reopen`: reopening a session file holding the mark (data, "
        "method, the mark's replay). `python benchmarks/bench_mark_scale.py` (`--quick`: 20,000 rows only), with `nice`, "
        f"`OMP_NUM_THREADS=1`, on a shared machine. Mode: {'quick' if args.quick else 'full'}.\n\n" + text + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
