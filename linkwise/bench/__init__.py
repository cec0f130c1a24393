"""Benchmark harness: the papers' cross-validation protocol for every method, on one machine or a Dask cluster.

:func:`run` runs named methods (see :func:`registry`) on datasets at a list
of budgets (numbers of questions), one joblib task per (method, dataset,
repeat, fold) cell, and appends each finished cell to ``results.csv`` so an
interrupted run resumes where it stopped. :func:`report` rebuilds the tables,
statistics, learning curves and the HTML report from those raw results.

:func:`split_of` gives a dataset's half of the benchmark (tuning or held-out,
issue 27); ``run(["held-out"], ...)`` runs every shipped table of a half.

The command line is ``linkwise bench`` (``linkwise bench --list`` shows the
methods) and ``linkwise bench report DIR``.

Examples
--------
>>> import tempfile
>>> from linkwise import bench
>>> with tempfile.TemporaryDirectory() as out:
...     rep = bench.run(["iris"], ["kmeans", "cobras"], budgets=[0, 10], folds=2, out=out)
>>> rep.curves[["method", "budget", "queries"]].values.tolist()
[['kmeans', 0, 0.0], ['kmeans', 10, 0.0], ['cobras', 0, 0.0], ['cobras', 10, 10.0]]
"""

from linkwise.bench._demo import DEMO_METHODS, run_demo
from linkwise.bench._protocol import METRICS, FoldOracle, ProtocolViolation, cell_seed, fold_split
from linkwise.bench._registry import MethodSpec, candidate_cache, register, registry
from linkwise.bench._report import Report, report
from linkwise.bench._results import load_results
from linkwise.bench._runner import run
from linkwise.bench._split import SPLITS, split_of

__all__ = ["DEMO_METHODS", "METRICS", "FoldOracle", "MethodSpec", "ProtocolViolation", "Report", "candidate_cache",
           "SPLITS", "cell_seed", "fold_split", "load_results", "register", "registry", "report", "run", "run_demo",
           "split_of"]
