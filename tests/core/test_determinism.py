"""Same data, same answers, same random_state: the same questions, in any process.

Every public active estimator runs in several fresh Python processes that
differ in PYTHONHASHSEED and in the number of BLAS / OpenMP threads (two of
them with the same settings: a race or an unseeded draw differs even then),
and the whole query logs are compared. The data (MASS-Pima: integer-valued
features, many equidistant rows, a 2-nearest-neighbour graph of many
components) is full of near-ties: a method that hangs on the order a search,
a thread split, a BLAS kernel or a fresh random draw gives them asks other
questions in another process (issues 26 and 39).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import linkwise as lw

ROOT = Path(__file__).resolve().parents[2]

# name -> constructor call, evaluated in the worker with ``lw`` imported
ESTIMATORS = {
    "Auto": "lw.Auto(max_queries=15, random_state=1)",
    "COBRA": "lw.COBRA(n_super_instances=12, random_state=1)",
    "COBRAS": "lw.COBRAS(max_queries=15, random_state=1)",
    "NoiseRobustCOBRAS": "lw.NoiseRobustCOBRAS(max_queries=15, random_state=1)",
    # kNN graphs of 2 and 3 neighbours and K up to 10: the candidates whose eigensolve needs ARPACK's restart
    # vectors (issue 39), at a twentieth of the default grid's cost
    "ActiveCOBS": (
        "lw.ActiveCOBS(grid={'kmeans': {'n_clusters': [2, 3, 4], 'n_seeds': 3}, "
        "'dbscan': {'eps': 8, 'min_samples': [2, 5, 9]}, "
        "'spectral': {'n_clusters': list(range(2, 11)), 'n_neighbors': [2, 3, 6, 10], 'sigma': [0.5]}}, "
        "max_queries=20, random_state=1)"
    ),
    "BayesianActiveClustering": "lw.BayesianActiveClustering(2, n_particles=20, max_queries=8, random_state=1)",
}
ESTIMATORS.update(
    {
        f"ActiveClustering-{s}": f"lw.ActiveClustering(lw.PCKMeans(n_clusters=2), lw.active.{s}(), max_queries=15, "
        "random_state=1)"
        for s in lw.active.__all__
        if s not in ("ActiveClustering", "kernel_width")
    }
)
# (PYTHONHASHSEED, threads) of each process
PROCESSES = [(1, 1), (3, 2), (3, 2)]

WORKER = """
import hashlib, json, sys
import linkwise as lw

X, y = lw.datasets.load("MASS-Pima", scale="minmax")
out = {}
for name, make in json.loads(sys.argv[1]).items():
    est = eval(make).fit(X, lw.LabelOracle(y))
    model = est.candidates_.labels if hasattr(est, "candidates_") else est.labels_  # COBS: every candidate
    out[name] = {"log": [[int(i), int(j), a] for i, j, a in est.query_log_],
                 "labels": est.labels_.tolist(), "model": hashlib.sha256(model.tobytes()).hexdigest()}
print(json.dumps(out))
"""


def _run(hash_seed, threads):
    # idle OpenMP threads sleep instead of spinning: on a busy machine spinning cost ActiveClustering-Committee 19 CPU
    # seconds instead of 0.4 (the threads' share of the work, and so the results, are the same)
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed), "OMP_WAIT_POLICY": "PASSIVE"}
    env.update({var: str(threads) for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    done = subprocess.run([sys.executable, "-c", WORKER, json.dumps(ESTIMATORS)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_public_active_estimator_is_covered():
    public = {name for name in lw.__all__ if isinstance(getattr(lw, name), type)
              and issubclass(getattr(lw, name), lw.ActiveEstimator) and name != "ActiveEstimator"}
    covered = {make.split("(")[0].removeprefix("lw.") for make in ESTIMATORS.values()}
    assert public <= covered, f"not run in several processes: {sorted(public - covered)}"


@pytest.mark.slow
def test_same_questions_and_clustering_in_every_process():
    # one test, not one per estimator: the processes run once (a module's fixture runs once per xdist worker that
    # gets one of its tests, and these processes are most of the module's cost); every estimator that differs is named
    logs = [_run(hash_seed, threads) for hash_seed, threads in PROCESSES]
    failures = [failure for name in sorted(ESTIMATORS) if (failure := _differs(logs, name))]
    assert not failures, "\n".join(failures)


def _differs(logs, name):
    """What differs between the processes' runs of ``name`` (None: nothing)."""
    first = logs[0][name]
    if len(first["log"]) <= 5:
        return f"{name} asked only {len(first['log'])} questions: too few to compare"
    for (hash_seed, threads), run in zip(PROCESSES[1:], logs[1:]):
        other = run[name]
        where = f"{name}, PYTHONHASHSEED={hash_seed} and {threads} threads against {PROCESSES[0]}"
        if first["log"] != other["log"]:
            differ = next((q for q, (a, b) in enumerate(zip(first["log"], other["log"])) if a != b),
                          min(len(first["log"]), len(other["log"])))
            return (f"{where}: question {differ} differs: {first['log'][differ:differ + 2]} against "
                    f"{other['log'][differ:differ + 2]}")
        if first["labels"] != other["labels"]:
            return f"{where}: same questions, another clustering"
        if first["model"] != other["model"]:
            return f"{where}: another model (ActiveCOBS: other candidate clusterings)"
    return None


def test_a_difference_in_any_process_is_named():
    same = {"log": [[0, k, True] for k in range(1, 8)], "labels": [0, 1], "model": "m"}
    assert _differs([{"A": same}] * 3, "A") is None
    for field, changed, said in (("log", [[0, 1, True]] * 7, "question 1 differs"),
                                 ("labels", [1, 0], "another clustering"), ("model", "n", "another model")):
        logs = [{"A": same}, {"A": same}, {"A": {**same, field: changed}}]
        assert said in _differs(logs, "A") and "PYTHONHASHSEED=3 and 2 threads" in _differs(logs, "A")
    assert "too few" in _differs([{"A": {**same, "log": same["log"][:5]}}] * 3, "A")
