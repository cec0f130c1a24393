"""Same data, same answers, same random_state: the same questions, in any process.

Every public active estimator runs in two fresh Python processes that differ
in PYTHONHASHSEED and in the number of BLAS / OpenMP threads, and the whole
query logs are compared. The data (digits 3/8/9, integer pixel values) has
many equidistant rows, whose order rounded distances do not settle: a method
that hangs on the order a search, a thread split or a BLAS kernel gives
them asks other questions in the other process.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import linkwise as lw

ROOT = Path(__file__).resolve().parents[1]

# name -> constructor call, evaluated in the worker with ``lw`` imported
ESTIMATORS = {
    "Auto": "lw.Auto(max_queries=15, random_state=1)",
    "COBRA": "lw.COBRA(n_super_instances=12, random_state=1)",
    "COBRAS": "lw.COBRAS(max_queries=15, random_state=1)",
    "NoiseRobustCOBRAS": "lw.NoiseRobustCOBRAS(max_queries=15, random_state=1)",
    "ActiveCOBS-small-grid": (
        "lw.ActiveCOBS(grid={'kmeans': {'n_clusters': [2, 3, 4], 'n_seeds': 3}, "
        "'dbscan': {'eps': 8, 'min_samples': [2, 5, 9]}, "
        "'spectral': {'n_clusters': [2, 3, 4, 6], 'n_neighbors': [3, 6, 10], 'sigma': [0.5]}}, "
        "max_queries=20, random_state=1)"
    ),
    "ActiveCOBS-default-grid": "lw.ActiveCOBS(max_queries=20, random_state=1)",
    "BayesianActiveClustering": "lw.BayesianActiveClustering(3, n_particles=20, max_queries=8, random_state=1)",
}
ESTIMATORS.update(
    {
        f"ActiveClustering-{s}": f"lw.ActiveClustering(lw.PCKMeans(n_clusters=3), lw.active.{s}(), max_queries=15, "
        "random_state=1)"
        for s in lw.active.__all__
        if s not in ("ActiveClustering", "kernel_width")
    }
)

WORKER = """
import hashlib, json, sys, time
import linkwise as lw

X, y = lw.datasets.load("digits389", scale="minmax")
out = {}
for name, make in json.loads(sys.argv[1]).items():
    t = time.process_time()
    est = eval(make).fit(X, lw.LabelOracle(y))
    model = est.candidates_.labels if hasattr(est, "candidates_") else est.labels_  # COBS: every candidate
    out[name] = {"log": [[int(i), int(j), a] for i, j, a in est.query_log_],
                 "labels": est.labels_.tolist(), "model": hashlib.sha256(model.tobytes()).hexdigest(),
                 "cpu": time.process_time() - t}
print(json.dumps(out))
"""


def _run(hash_seed, threads):
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    env.update({var: str(threads) for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    done = subprocess.run([sys.executable, "-c", WORKER, json.dumps(ESTIMATORS)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def logs():
    return _run(1, 1), _run(977, 2)


def test_every_public_active_estimator_is_covered():
    public = {name for name in lw.__all__ if isinstance(getattr(lw, name), type)
              and issubclass(getattr(lw, name), lw.ActiveEstimator) and name != "ActiveEstimator"}
    covered = {make.split("(")[0].removeprefix("lw.") for make in ESTIMATORS.values()}
    assert public <= covered, f"not run twice: {sorted(public - covered)}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_same_questions_and_clustering_in_another_process(logs, name):
    first, second = logs[0][name], logs[1][name]
    assert len(first["log"]) > 5, f"{name} asked only {len(first['log'])} questions: too few to compare"
    differ = next((q for q, (a, b) in enumerate(zip(first["log"], second["log"])) if a != b), None)
    assert first["log"] == second["log"], (
        f"{name}: question {differ} differs between processes: {first['log'][differ:differ + 2]} against "
        f"{second['log'][differ:differ + 2]}")
    assert first["labels"] == second["labels"], f"{name}: same questions, another clustering"
    assert first["model"] == second["model"], f"{name}: another model (ActiveCOBS: other candidate clusterings)"
