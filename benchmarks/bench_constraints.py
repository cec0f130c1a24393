"""ConstraintStore speed: add() and relation() per operation, as the store grows.

Baseline in the same run: the same number of Python dict insertions/look-ups
(the cheapest possible store that knows only the explicit answers, no closure).
Ratios near a small constant at every n show add/relation stay near O(1).
"""

import argparse
import time

import numpy as np

import linkwise as lw

from _results import results_path  # benchmarks/ is on the path when this script runs


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(n, m, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n)
    pairs = rng.integers(0, n, (m, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]].tolist()
    answers = [bool(y[i] == y[j]) for i, j in pairs]
    probes = rng.integers(0, n, (m, 2))
    probes = probes[probes[:, 0] != probes[:, 1]].tolist()
    store, table = lw.ConstraintStore(n), {}

    def fill_store():
        for (i, j), a in zip(pairs, answers):
            store.add(i, j, a)

    def fill_dict():
        for (i, j), a in zip(pairs, answers):
            table[(i, j) if i < j else (j, i)] = a

    t_add, t_dict_add = timed(fill_store), timed(fill_dict)
    t_rel = timed(lambda: [store.relation(i, j) for i, j in probes])
    t_dict_rel = timed(lambda: [table.get((i, j) if i < j else (j, i)) for i, j in probes])
    known = sum(store.relation(i, j) is not None for i, j in probes)
    return {
        "n": n,
        "constraints": len(pairs),
        "add µs/op": 1e6 * t_add / len(pairs),
        "add ratio": t_add / t_dict_add,
        "relation µs/op": 1e6 * t_rel / len(probes),
        "relation ratio": t_rel / t_dict_rel,
        "probes known": known / len(probes),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [(1_000, 2_000), (100_000, 50_000)] if args.quick else [(1_000, 2_000), (100_000, 100_000), (1_000_000, 500_000)]
    rows = [run(n, m) for n, m in sizes]
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r.values()) + " |")
    text = "\n".join(lines)
    print(text)
    out = results_path("constraints.md", args.quick)
    out.write_text(
        "# ConstraintStore speed\n\n"
        "Per-operation cost of `add` and `relation` (union-find with cannot-links between roots),\n"
        "and its ratio to a plain dict of explicit answers (no closure) in the same run.\n"
        f"Mode: {'quick' if args.quick else 'full'}.\n\n" + text + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
