"""``make bench-check``: the speed figures a change can move, measured now and compared with the committed ones.

Every benchmark that takes part defines ``check()``, which measures its quick figures and returns them as a list of
``{"figure": name, "value": seconds, "floor": seconds}``: ``floor`` is a baseline measured in the same run (one
nearest-of-10-centres assignment of the same rows, the import of scikit-learn and pandas, ...), so the ratio
``value / floor`` does not move with the machine's speed. Each module runs in a fresh process (one OpenMP
thread), ``--repeats`` times (3): a figure's ratio is the median over those runs, as one run's CPU time still moves by
a third on a machine shared with other jobs. Each ratio is compared with the one committed in
``benchmarks/results/check.json``: the check fails when a ratio is more than 1.5 times the committed one (a slowdown
is a defect like a wrong answer).

    python benchmarks/check.py              # measure and compare (exit 1 on a slowdown)
    python benchmarks/check.py --update     # measure and commit the figures as the new reference (--only: theirs)
    python benchmarks/check.py --slow 2     # pretend every value took twice as long (shows that the check fails)

Run it before every stop (the README says so); it is a benchmark, not a timing assert of the test suite.
"""

import argparse
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
REFERENCE = HERE / "results" / "check.json"
# the benchmarks whose check() figures make up the check, in the order they run
MODULES = ["bench_session_speed", "bench_handover", "bench_undo", "bench_startup"]
TOLERANCE = 1.5


def measure(module):
    """The figures of ``module``'s check(), measured in a fresh process."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--run", module], env=env, capture_output=True, text=True,
                         cwd=HERE)
    if out.returncode:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"bench-check: {module}.check() failed (exit {out.returncode})")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help=f"write the figures to {REFERENCE.name}")
    parser.add_argument("--slow", type=float, default=1.0,
                        help="multiply every measured value by this (to see the check fail)")
    parser.add_argument("--only", help="comma-separated modules of MODULES")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per module (the median ratio)")
    parser.add_argument("--run", help=argparse.SUPPRESS)  # internal: one module's check() as JSON on stdout
    args = parser.parse_args()
    if args.run:
        sys.path.insert(0, str(HERE))
        print(json.dumps(importlib.import_module(args.run).check()))
        return
    reference = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {}
    modules = args.only.split(",") if args.only else MODULES
    figures, failed = {}, []
    print("| figure | value s | floor s | ratio (median of the runs) | committed ratio | now / committed |\n"
          "|---|---|---|---|---|---|")
    for module in modules:
        runs = [measure(module) for _ in range(args.repeats)]
        for k, fig in enumerate(runs[0]):
            values = [run[k]["value"] * args.slow for run in runs]
            ratios = [value / run[k]["floor"] for value, run in zip(values, runs)]
            middle = int(np.argsort(ratios)[len(ratios) // 2])  # the run of the median ratio
            value, floor, ratio = values[middle], runs[middle][k]["floor"], ratios[middle]
            figures[fig["figure"]] = {"value": round(value, 6), "floor": round(floor, 6), "ratio": round(ratio, 4)}
            committed = reference.get(fig["figure"], {}).get("ratio")
            worse = None if committed is None else ratio / committed
            if worse is not None and worse > TOLERANCE:
                failed.append(fig["figure"])
            print(f"| {fig['figure']} | {value:.4f} | {floor:.4f} | {ratio:.2f} | "
                  f"{'-' if committed is None else f'{committed:.2f}'} | "
                  f"{'new' if worse is None else f'{worse:.2f}' + (' SLOWER' if worse > TOLERANCE else '')} |",
                  flush=True)
    if args.update:
        kept = {**reference, **figures} if args.only else figures  # --only: the other modules' figures stay
        REFERENCE.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
        print(f"wrote {REFERENCE}")
    elif failed:
        raise SystemExit(f"bench-check: {len(failed)} figure(s) more than {TOLERANCE}x worse than committed: "
                         + ", ".join(failed))


if __name__ == "__main__":
    main()
