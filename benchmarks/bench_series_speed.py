"""Time series speed: DTW libraries, the distance matrix, and the time between questions of COBRAS-DTW / -kShape.

Data: 1,000 series of length 500 (five shapes, each series shifted by up to 9%
of its length, Gaussian noise), generated with a fixed seed.

1. The DTW matrix (Sakoe-Chiba band 10%) by aeon, tslearn and dtaidistance
   (its C version), one thread each, and the SBD matrix of ``metric="kshape"``.
2. COBRAS with ``metric="euclidean"``, ``"dtw"`` and ``"kshape"``, answers
   from the classes, 100 questions through ``ActiveSession``: the method's
   time from an answer to the next question (``tell`` + ``ask``), and the
   first question apart (it includes reading the cached matrix). The matrix
   is computed once up front (``series_distances`` into a cache folder, the
   way a session computes it with a progress bar) and timed apart.

Target: under 100 ms between questions. Ratios are to Euclidean COBRAS in the same run.

    python benchmarks/bench_series_speed.py [--quick]
"""

import argparse
import os
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.series import series_distances  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

WINDOW = 0.1
QUESTIONS = 100
AEON = "aeon (linkwise's)"


def shifted_shapes(n, length, seed=0):
    """``n`` series of five shapes (four periods each), shifted by up to 9% of the length, and their classes."""
    rng = np.random.RandomState(seed)
    t = np.linspace(0, 1, length)
    shapes = [lambda u: np.sin(8 * np.pi * u), lambda u: 3 * np.exp(-40 * ((4 * u) % 1 - 0.5) ** 2) - 1,
              lambda u: 2 * ((4 * u) % 1) - 1, lambda u: np.sign(np.sin(8 * np.pi * u)),
              lambda u: np.sin(8 * np.pi * u) + np.sin(24 * np.pi * u)]
    y = rng.randint(len(shapes), size=n)
    X = np.array([shapes[c](t + rng.uniform(-0.09, 0.09)) + 0.2 * rng.randn(length) for c in y])
    return X, y


def dtw_libraries(X, rows=100, rounds=5):
    """Seconds for the full DTW matrix by each library, timed in turns and scaled; the largest difference to aeon.

    Each library computes ``rows`` rows against all series, ``rounds`` blocks
    in turn (so a change in the machine's load hits all alike), scaled to
    the ``n (n - 1) / 2`` pairs of the matrix.
    """
    from aeon.distances import dtw_pairwise_distance
    from dtaidistance import dtw
    from tslearn.metrics import cdist_dtw

    n, radius = len(X), int(WINDOW * X.shape[1])

    def dtai(R):
        both = np.vstack([X[R], X])
        return dtw.distance_matrix_fast(both, window=radius + 1, block=((0, R.size), (R.size, len(both))),
                                        compact=False)[: R.size, R.size :]

    libraries = {
        AEON: lambda R: np.sqrt(dtw_pairwise_distance(X[R, None], X[:, None], window=WINDOW)),
        "tslearn": lambda R: cdist_dtw(X[R, :, None], X[:, :, None], global_constraint="sakoe_chiba",
                                       sakoe_chiba_radius=radius),
        "dtaidistance (C)": dtai,
    }
    for run in libraries.values():
        run(np.arange(2))  # numba compiles once per process
    times, diff = dict.fromkeys(libraries, 0.0), dict.fromkeys(libraries, 0.0)
    for block in np.array_split(np.random.RandomState(0).choice(n, rows, replace=False), rounds):
        ref = None
        for name, run in libraries.items():
            start = time.perf_counter()
            D = run(block)
            times[name] += time.perf_counter() - start
            ref = D if ref is None else ref
            diff[name] = max(diff[name], np.abs(D - ref).max())
    scale = n * (n - 1) / 2 / (rows * n)
    for name in libraries:
        print(f"{name}: {times[name] * scale:.1f} s, max |D - aeon| = {diff[name]:.2g}", flush=True)
    return {name: t * scale for name, t in times.items()}, diff


def question_times(X, y, metric, cache):
    """Seconds of the first question, of each later step (answer -> next question), and the ARI."""
    start = time.perf_counter()
    session = lw.ActiveSession(lw.COBRAS(metric=metric, window=WINDOW, cache=cache, random_state=0), X)
    pair, steps = session.ask(), []
    first = time.perf_counter() - start
    while pair is not None and session.n_queries < QUESTIONS:
        start = time.perf_counter()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        pair = session.ask()
        steps.append(time.perf_counter() - start)
    return first, np.array(steps), lw.metrics.ari(y, session.labels_)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200 series of length 200")
    args = parser.parse_args()
    n, length = (200, 200) if args.quick else (1000, 500)
    X, y = shifted_shapes(n, length)
    libs, diff = dtw_libraries(X, rows=40 if args.quick else 100)
    rows, matrix = [], {"euclidean": 0.0}
    with tempfile.TemporaryDirectory() as cache:
        for metric in ("dtw", "kshape"):
            start = time.perf_counter()
            series_distances(X, metric, window=WINDOW, cache=cache)
            matrix[metric] = time.perf_counter() - start
        for metric in ("euclidean", "dtw", "kshape"):
            first, steps, ari = question_times(X, y, metric, cache)
            rows.append((metric, matrix[metric], first, steps, ari))
            print(metric, f"first {first:.2f} s, median {np.median(steps) * 1e3:.1f} ms, ARI {ari:.2f}", flush=True)
    base = rows[0][3]
    lines = [
        "# Time series: DTW libraries and time between questions",
        "",
        f"{n} series of length {length}, five shifted shapes (`benchmarks/bench_series_speed.py`"
        f"{' --quick' if args.quick else ''}); DTW band {WINDOW:.0%} of the length; OMP_NUM_THREADS=1, one "
        f"thread per library, on a 2-core machine shared with other jobs (load {os.getloadavg()[0]:.1f}).",
        "",
        "## The DTW matrix by library",
        "",
        "Each library computed the same row blocks, in turns, against all series; seconds scaled to the "
        "whole matrix (one triangle). linkwise uses aeon (the `timeseries` extra), which also gives k-Shape.",
        "",
        "| library | seconds (whole matrix) | vs aeon | max difference to aeon |",
        "|---|---|---|---|",
        *(f"| {name} | {s:.1f} | {s / libs[AEON]:.2f} | {diff[name]:.1g} |" for name, s in libs.items()),
        "",
        f"## COBRAS, {QUESTIONS} questions (answers from the classes)",
        "",
        "Matrix: `series_distances` once, up front (cached; the fit reads it). First question: from the "
        "start of the session (reading the matrix, the first split). Step: from an answer to the next question.",
        "",
        "| metric | matrix s | first question s | step ms median / p90 / max | mean ms | "
        "mean vs Euclidean | p90 < 100 ms | ARI |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for metric, mat, first, steps, ari in rows:
        q = np.percentile(steps, [50, 90, 100]) * 1e3
        lines.append(f"| {metric} | {mat:.1f} | {first:.2f} | {q[0]:.1f} / {q[1]:.1f} / {q[2]:.0f} | "
                     f"{steps.mean() * 1e3:.1f} | {steps.mean() / base.mean():.1f} | "
                     f"{'yes' if q[1] < 100 else 'no'} | {ari:.2f} |")
    lines += ["", "Steps over 100 ms are splits: with k-Shape, aeon's k-Shape fits (on at most 64 members, resampled "
              "to at most 128 points); with DTW, spectral clustering on the stored matrix."]
    out = results_path("timeseries_speed.md", args.quick)
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
