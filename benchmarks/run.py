"""Run every benchmark (``make bench``): each ``bench_*.py`` here, in its quick mode by default.

    python benchmarks/run.py            # all, --quick
    python benchmarks/run.py --full     # all, full size (hours on 2 cores)
    python benchmarks/run.py cobra bayes  # only the named ones, quick

Where each mode writes (``benchmarks/_results.py``, the one place that knows):

- quick (the default, ``make bench``): ``benchmarks/results/quick/<topic>.md`` and its raw files
  (ignored by git), so a quick run never replaces a committed full-size figure;
- ``--full``: ``benchmarks/results/<topic>.md`` and its raw files, the committed figures the README cites.

Each script prints the path it wrote; ``bench_auto.py`` only prints its tables.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("only", nargs="*", help="topics to run (bench_<topic>.py); default: all")
    parser.add_argument("--full", action="store_true",
                        help="full-size runs (into benchmarks/results/) instead of --quick (into benchmarks/results/quick/)")
    args = parser.parse_args()
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.only:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in args.only]
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    failed = []
    for script in scripts:
        cmd = [sys.executable, str(script)] + ([] if args.full else ["--quick"])
        print(f"== {script.name} {'(full)' if args.full else '(quick)'}", flush=True)
        start = time.perf_counter()
        code = subprocess.call(cmd, env=env)
        print(f"== {script.name}: exit {code} after {time.perf_counter() - start:.0f} s", flush=True)
        if code:
            failed.append(script.name)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
