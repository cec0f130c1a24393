"""Start-up and export of a person's session: how long ``linkwise cluster`` takes to print its address and to show
its first question, and ``linkwise export`` of a 300-row session with 100 answers, each beside a floor.

A product table (300 rows: an id such as ``SKU-12345``, a description in sentences whose words are shared across
kinds, a price and a weight; built deterministically here) is served by the real command in a fresh process,
``linkwise cluster products.csv --no-browser --session S.db --param random_state=0`` (the default method, Auto,
and the columns detected), a new session each run. Wall times, each over several runs (median, min, max):

- *floor*: a fresh Python importing scikit-learn's clusterers and pandas (``python -c "import sklearn.cluster,
  pandas"``), what a session needs before any question; ``import sklearn, pandas`` is shown beside it;
- *address*: from starting ``linkwise cluster`` to the line with the page's address;
- *first question*: from the same start to the first ``GET /api/state`` (httpx, with the page's access cookie)
  that holds a question;
- *export*: ``linkwise export S.db -o labels.csv --answers answers.csv --constraints constraints.csv`` of a session
  given 100 answers (from the products' kinds, through the page's API).

Each figure is also given as its ratio to the floor: the median over the runs of the figure divided by the floor
measured in the same run (just before it), which follows the machine's load as it changes. Targets (issue 37): the address within 2.5x
the floor; the export under 2 s. Every process imports from bytecode cached as an installed package's is (one
warm-up run each, in a private cache folder), whatever PYTHONDONTWRITEBYTECODE says. ``--before DIR`` measures
another checkout of linkwise (e.g. ``git worktree add /tmp/lw-before HEAD``) in the same runs, taking turns with
this one, and checks that both export the same bytes.

    python benchmarks/bench_startup.py [--quick] [--runs N] [--before DIR]

Writes ``results/startup.md``; ``check()`` gives the quick figures to ``make bench-check``.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import pandas as pd

from _results import results_path  # (benchmarks/ is on the path when this script runs)

REPO = Path(__file__).resolve().parents[1]
PYCACHE = Path(tempfile.gettempdir()) / "linkwise-bench-pycache"  # kept between runs: bytecode, as installed
FLOORS = {"sklearn.cluster, pandas": "import sklearn.cluster, pandas", "sklearn, pandas": "import sklearn, pandas"}
FLOOR = "sklearn.cluster, pandas"  # the floor every figure is divided by
FIGURES = {"address": "cluster start-up to address (300 rows)",
           "question": "cluster start-up to first question (300 rows)",
           "export": "export of a 300-row session, 100 answers"}
N_ROWS, N_ANSWERS = 300, 100
# kind -> (things, places, uses): descriptions share their grammar and many words across kinds
KINDS = {
    "garden": (["hose", "rake", "planter", "lawn mower", "watering can", "seed tray"],
               ["garden", "lawn", "patio", "greenhouse"], ["waters the plants", "keeps the lawn short"]),
    "kitchen": (["frying pan", "chef's knife", "mixing bowl", "kettle", "cutting board"],
                ["kitchen", "dining table", "pantry", "patio"], ["cooks eggs", "boils water for tea"]),
    "office": (["stapler", "desk lamp", "notebook", "ballpoint pen", "paper tray"],
               ["office", "desk", "study", "kitchen"], ["keeps papers in order", "writes notes"]),
    "toys": (["building blocks", "teddy bear", "puzzle", "toy train", "kite"],
             ["playroom", "park", "garden", "study"], ["keeps children busy", "teaches counting"]),
}
ADJECTIVES = ["durable", "light", "classic", "compact", "sturdy", "elegant", "practical", "premium"]
MATERIALS = ["steel", "oak wood", "recycled plastic", "bamboo", "cast iron", "cotton", "aluminium"]


def products_csv(folder, n=N_ROWS, seed=0):
    """Write ``products.csv`` (sku, description, price, weight) to ``folder``; returns ``(path, kind of each row)``."""
    rng = np.random.default_rng(seed)
    names = list(KINDS)
    kind = rng.integers(len(names), size=n)
    skus = rng.choice(np.arange(10000, 99999), size=n, replace=False)
    rows = []
    for k, c in enumerate(kind):
        things, places, uses = KINDS[names[c]]
        adjective = rng.choice(ADJECTIVES)
        rows.append({"sku": f"SKU-{skus[k]}",
                     "description": f"A {adjective} {rng.choice(things)} of {rng.choice(MATERIALS)} for the "
                                    f"{rng.choice(places)}. It {rng.choice(uses)}.",
                     "price": round(float(rng.lognormal(3 + 0.3 * c, 0.5)), 2),
                     "weight": round(float(rng.gamma(2.0, 0.4 + 0.2 * c)), 3)})
    path = Path(folder) / "products.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path, kind


def environment(checkout):
    """The environment of a process running ``checkout``'s linkwise, its bytecode cached as installed."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def linkwise(*args):
    return [sys.executable, "-c", "from linkwise.cli import main; main()", *map(str, args)]


def floor_once(statement, env):
    """Seconds for a fresh Python to run ``statement`` (an import)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], env=env, check=True)
    return time.perf_counter() - start


def start_server(csv, session_file, env):
    """``linkwise cluster`` started: ``(process, address, seconds to the address line, perf_counter at the start)``."""
    start = time.perf_counter()
    process = subprocess.Popen(linkwise("cluster", csv, "--no-browser", "--session", session_file, "--param",
                                        "random_state=0"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)
    printed = []
    for line in process.stdout:
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line)
        if found:
            return process, found.group(0), time.perf_counter() - start, start
        printed.append(line)
    raise RuntimeError(f"linkwise cluster stopped before printing its address (exit {process.wait()}):\n"
                       + "".join(printed))


def stop_server(process):
    process.send_signal(signal.SIGINT)  # Ctrl+C: the labels are written, the session file closed
    try:
        process.wait(60)
    finally:
        process.stdout.close()


def first_state(address):
    """An HTTP client holding the page's cookie, and the first state of the session that holds a question."""
    client = httpx.Client(base_url=address.split("/?")[0], timeout=120)
    client.get(address)  # sets the access cookie
    while (state := client.get("/api/state").json()).get("question") is None:  # {"preparing": true} meanwhile
        if "error" in state:
            raise RuntimeError(state["error"])
    return client, state


def start_once(csv, folder, env):
    """Seconds from starting ``linkwise cluster`` on a new session to its address, and to its first question."""
    session_file = Path(folder) / "start.db"
    for stale in (session_file, session_file.with_name("start.labels.csv")):
        stale.unlink(missing_ok=True)
    process, address, to_address, start = start_server(csv, session_file, env)
    try:
        client, _ = first_state(address)
        to_question = time.perf_counter() - start
        client.close()
    finally:
        stop_server(process)
    return to_address, to_question


def answered_session(csv, kind, folder, env):
    """A session file given ``N_ANSWERS`` answers through the page's API (same group: the same kind)."""
    session_file = Path(folder) / "answered.db"
    process, address, _, _ = start_server(csv, session_file, env)
    try:
        client, state = first_state(address)
        for _ in range(N_ANSWERS):
            i, j = state["question"]["pair"]
            state = client.post("/api/answer", json={"position": state["position"],
                                                     "answer": "same" if kind[i] == kind[j] else "different"}
                                ).json()["state"]
        client.close()
    finally:
        stop_server(process)
    return session_file


def export_once(session_file, folder, env):
    """Seconds of ``linkwise export`` writing labels, answers and constraints; the files' bytes."""
    out = {name: Path(folder) / f"{name}.csv" for name in ("labels", "answers", "constraints")}
    start = time.perf_counter()
    done = subprocess.run(linkwise("export", session_file, "-o", out["labels"], "--answers", out["answers"],
                                   "--constraints", out["constraints"]), env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"linkwise export failed (exit {done.returncode}):\n{done.stderr}")
    return seconds, {name: path.read_bytes() for name, path in out.items()}


def measure(checkouts, runs):
    """Every figure of every checkout (``{name: path}``), ``runs`` times in turns with the floors.

    Returns ``(times, exported)``: ``times[(checkout or "floor", figure)]`` lists the seconds of each run, and
    ``exported[checkout]`` the bytes of the files its last export wrote.
    """
    times, exported = {}, {}
    with tempfile.TemporaryDirectory(prefix="linkwise-startup-") as folder:
        csv, kind = products_csv(folder)
        envs = {name: environment(path) for name, path in checkouts.items()}
        session_file = answered_session(csv, kind, folder, envs[next(iter(envs))])
        for env in envs.values():  # warm-up: each checkout's bytecode cached (not counted)
            start_once(csv, folder, env)
            export_once(session_file, folder, env)
        for run in range(runs):
            for name, statement in FLOORS.items():
                times.setdefault(("floor", name), []).append(floor_once(statement, envs[next(iter(envs))]))
            for checkout, env in list(envs.items())[::1 if run % 2 == 0 else -1]:  # in turns: neither always first
                address, question = start_once(csv, folder, env)
                seconds, exported[checkout] = export_once(session_file, folder, env)
                for figure, value in (("address", address), ("question", question), ("export", seconds)):
                    times.setdefault((checkout, figure), []).append(value)
            print(f"run {run + 1}/{runs}: " + ", ".join(f"{k[0]} {k[1]} {v[-1]:.2f} s" for k, v in times.items()),
                  flush=True)
    return times, exported


def check():
    """The quick figures of this checkout for ``make bench-check``: start-up to address, to first question, export.

    Returns
    -------
    list of dict
        ``{"figure": name, "value": seconds, "floor": seconds}``: medians over the quick runs, the floor being a
        fresh Python importing scikit-learn's clusterers and pandas.
    """
    times, _ = measure({"now": REPO}, runs=3)
    floor = float(np.median(times[("floor", FLOOR)]))
    return [{"figure": FIGURES[key], "value": float(np.median(times[("now", key)])), "floor": floor}
            for key in FIGURES]


def described(checkout):
    """A checkout's path and commit (git, read only), "+ changes" when its files differ from the commit."""
    def git(*args):
        return subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True)

    head = git("rev-parse", "--short", "HEAD")
    if head.returncode:
        return str(checkout)
    return f"{checkout} ({head.stdout.strip()}{' + changes' if git('diff', '--quiet', 'HEAD', '--').returncode else ''})"


def summary(seconds):
    return f"{np.median(seconds):.2f} ({np.min(seconds):.2f}-{np.max(seconds):.2f})"


def report(times, exported, checkouts, runs, quick):
    floor = float(np.median(times[("floor", FLOOR)]))
    lines = [
        "# Start-up: `linkwise cluster` to its address and first question, `linkwise export`",
        "",
        f"A {N_ROWS}-row product table (sku, description, price, weight; `benchmarks/bench_startup.py`), the default "
        "method (Auto, `--param random_state=0`) and columns detected; a new session each run. Wall seconds, median "
        f"(min-max) of {runs} runs, the checkouts and floors taking turns in each run; ratio to floor = the median "
        f"over the runs of the figure / the floor of the same run. Floor: a fresh Python running `import {FLOOR}`. "
        "Bytecode cached as installed; "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; {'quick' if quick else 'full'} "
        f"mode; {os.cpu_count()}-core machine shared with other jobs (load average at the end "
        f"{os.getloadavg()[0]:.1f}). Code: " + ", ".join(f"{name} = {described(path)}" for name, path in checkouts.items())
        + ".",
        "",
        "| figure | code | seconds | floor seconds | ratio to floor | target |",
        "|---|---|---|---|---|---|",
    ]
    def ratio(key):
        return np.median(np.divide(times[key], times[("floor", FLOOR)]))

    lines += [f"| floor: import {name} | - | {summary(times[('floor', name)])} | | {ratio(('floor', name)):.2f} | |"
              for name in FLOORS]
    targets = {"address": "<= 2.5", "question": "", "export": "< 2 s"}
    for key, figure in FIGURES.items():
        for checkout in checkouts:
            lines.append(f"| {figure} | {checkout} | {summary(times[(checkout, key)])} | {floor:.2f} | "
                         f"{ratio((checkout, key)):.2f} | {targets[key]} |")
    if len(checkouts) > 1:
        first = next(iter(checkouts))
        same = all(exported[c] == exported[first] for c in checkouts)
        lines += ["", f"The exports of {' and '.join(checkouts)} from the same session file are "
                      f"{'byte for byte the same' if same else 'NOT the same'} (labels, answers, constraints)."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 runs (what make bench-check measures)")
    parser.add_argument("--runs", type=int, help="runs of every figure (default 3 quick, 9 full)")
    parser.add_argument("--before", type=Path, help="another checkout of linkwise to measure in the same runs")
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 9)
    checkouts = {"before": args.before.resolve(), "now": REPO} if args.before else {"now": REPO}
    times, exported = measure(checkouts, runs)
    out = results_path("startup.md", args.quick)
    out.write_text(report(times, exported, checkouts, runs, args.quick))
    print(out.read_text())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
