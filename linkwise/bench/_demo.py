"""The demo: a short run of the harness on shipped data with the main methods (what ``linkwise demo`` runs)."""

from pathlib import Path

from linkwise._validation import InvalidParameterError
from linkwise.bench._results import CONFIG, ERRORS, RESULTS
from linkwise.bench._runner import run

__all__ = ["DEMO_METHODS", "DEMO_DATASETS", "DEMO_BUDGETS", "run_demo"]

# the default (Auto), then one or two of every family
DEMO_METHODS = ("auto", "kmeans", "copkmeans-random", "pckmeans-random", "mpckmeans-random", "pckmeans-minmax",
                "mpckmeans-minmax", "pckmeans-npu", "cobra-25", "cobras", "active-cobs", "bac-info")
DEMO_DATASETS = ("wine",)
DEMO_BUDGETS = (0, 25, 50, 100)
_OUTPUTS = (RESULTS, CONFIG, ERRORS, "summary.csv", "ranks.csv", "tests.csv", "wins.csv", "report.md", "index.html")
# marks a directory the demo wrote, so that a later demo replaces only its own report
_MARKER = ".linkwise-demo"


def run_demo(out="linkwise-demo", *, datasets=DEMO_DATASETS, methods=DEMO_METHODS, budgets=DEMO_BUDGETS, folds=5,
             repeats=1, n_jobs=-1, progress=False):
    """Run the demo benchmark: by default the main methods on ``wine``, 0-100 questions, 5 folds.

    Each method's clustering is scored (ARI) on held-out folds after 0, 25, 50
    and 100 questions answered from the true labels; COBRA asks as many
    questions as it needs and the others are also run at that number. About a
    minute on two cores (the Bayesian method and NPU take most of it).

    Parameters
    ----------
    out : str or Path, default="linkwise-demo"
        Where the report goes; files of an earlier demo there are replaced.
        A directory holding another benchmark's results or report is refused.
    datasets : sequence of str, default=("wine",)
        As for :func:`linkwise.bench.run`.
    methods : sequence of str, default=DEMO_METHODS
        The main methods, as registry names.
    budgets : sequence of int, default=(0, 25, 50, 100)
        As for :func:`linkwise.bench.run`.
    folds : int, default=5
        As for :func:`linkwise.bench.run`.
    repeats : int, default=1
        As for :func:`linkwise.bench.run`.
    n_jobs : int, default=-1
        As for :func:`linkwise.bench.run`; by default every core.
    progress : bool, default=False
        As for :func:`linkwise.bench.run`.

    Returns
    -------
    Report
        As :func:`linkwise.bench.run` returns it.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out:
    ...     rep = run_demo(out, methods=["kmeans"], budgets=[0], folds=2, n_jobs=1)
    >>> rep.html.name
    'index.html'
    """
    out = Path(out)
    if (out / _MARKER).is_file():  # remove the files a previous demo wrote (and nothing else): always afresh
        for path in [out / name for name in _OUTPUTS] + list(out.glob("curves/*.png")):
            path.unlink(missing_ok=True)
    elif any((out / name).exists() for name in (*_OUTPUTS, "curves")):
        raise InvalidParameterError(f"{out} holds files that linkwise demo did not write (a benchmark run or a "
                                    "report); the demo never replaces them. Choose another out (--out).")
    out.mkdir(parents=True, exist_ok=True)
    (out / _MARKER).write_text("Written by linkwise demo: the next demo with this out replaces its report.\n")
    return run(list(datasets), list(methods), budgets, folds=folds, repeats=repeats, out=out, n_jobs=n_jobs,
               progress=progress)
