"""Run every benchmark (``make bench``): each ``bench_*.py`` here, in its quick mode by default.

    python benchmarks/run.py            # all, --quick
    python benchmarks/run.py --full     # all, full size (hours on 2 cores)
    python benchmarks/run.py cobra bayes  # only the named ones, quick

Each script writes its tables to ``benchmarks/results/<topic>.md``.
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
    parser.add_argument("--full", action="store_true", help="full-size runs instead of --quick")
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
