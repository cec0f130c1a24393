"""The demos: what linkwise does, in plain words (``linkwise demo``), and a short run of the harness on shipped data
with the main methods (``linkwise demo --benchmark``)."""

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.metrics.cluster import contingency_matrix

from linkwise._validation import InvalidParameterError, StrOptions, validate_args
from linkwise.auto import Auto
from linkwise.bench._results import CONFIG, ERRORS, RESULTS
from linkwise.bench._runner import run
from linkwise.datasets import load
from linkwise.loop import ActiveSession
from linkwise.metrics import ari
from linkwise.oracle import LabelOracle

__all__ = ["DEMO_METHODS", "DEMO_DATASETS", "DEMO_BUDGETS", "run_demo", "TOUR_BUDGETS", "Agreement", "Tour", "tour",
           "agreement"]

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
    questions as it needs and the others are also run at that number (what
    ``linkwise demo --benchmark`` runs).

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


# the plain-words demo: numbers of questions after which the clustering is scored, and the datasets it tells about
TOUR_BUDGETS = (0, 10, 25, 50, 100)
# name -> what its items are, and what their true groups are
TOUR_DATA = {
    "digits": ("handwritten digits, each scanned as 8×8 pixels (scikit-learn's digits)", "digits", "digit"),
    "iris": ("iris flowers, each measured 4 times (length and width of petal and sepal)", "flowers", "species"),
}


@dataclass(frozen=True)
class Agreement:
    """How a clustering agrees with the true groups, in the terms ``linkwise demo`` prints.

    Attributes
    ----------
    ari : float
        The adjusted Rand index: ``(pairs_right - pairs_by_chance) / (1 - pairs_by_chance)``.
    n_pairs : int
        Pairs of items.
    pairs_right : float
        Share of pairs that both groupings treat alike: together in both, or
        apart in both (the Rand index).
    pairs_by_chance : float
        The share a random grouping with the same group sizes gets right on
        average (what the adjustment takes away).
    items_right : int
        Items in the group of their kind, when each group found is matched to
        one true group, the matching that places most items (a group matched
        to none places none).
    n_groups : int
        Groups found.
    """

    ari: float
    n_pairs: int
    pairs_right: float
    pairs_by_chance: float
    items_right: int
    n_groups: int


def agreement(y_true, y_pred):
    """The :class:`Agreement` of clustering ``y_pred`` with the true groups ``y_true``.

    Examples
    --------
    >>> a = agreement([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    >>> a.n_pairs, round(a.pairs_right, 3), round(a.pairs_by_chance, 3), a.items_right, round(a.ari, 3)
    (15, 0.667, 0.507, 5, 0.324)
    """
    table = contingency_matrix(y_true, y_pred)
    n_pairs = int(table.sum()) * (int(table.sum()) - 1) // 2

    def together(counts):  # pairs within the same group
        return float((counts * (counts - 1) // 2).sum())

    both, in_true, in_pred = together(table), together(table.sum(axis=1)), together(table.sum(axis=0))
    pairs_right = (n_pairs - in_true - in_pred + 2 * both) / n_pairs
    pairs_by_chance = (n_pairs - in_true - in_pred + 2 * in_true * in_pred / n_pairs) / n_pairs
    rows, columns = linear_sum_assignment(table, maximize=True)
    return Agreement(ari(y_true, y_pred), n_pairs, pairs_right, pairs_by_chance, int(table[rows, columns].sum()),
                     table.shape[1])


@dataclass(frozen=True)
class Tour:
    """One dataset of ``linkwise demo``: Auto answered by a simulated person, and K-means told the number of groups.

    Attributes
    ----------
    name, description, items, kind : str
        The dataset, what its items are (and their word, e.g. "digits"), and
        what its true groups are (e.g. "digit").
    n_items, n_kinds : int
    curve : list of (int, Agreement)
        The clustering after each number of answers in ``budgets``.
    kmeans : Agreement
        K-means with the true number of groups, no questions.
    seconds_to_start : float
        Measured: from the data to the first question.
    seconds_per_answer : ndarray
        Measured: from each answer to the next question.
    """

    name: str
    description: str
    items: str
    kind: str
    n_items: int
    n_kinds: int
    curve: list
    kmeans: Agreement
    seconds_to_start: float
    seconds_per_answer: np.ndarray


@validate_args({"name": [StrOptions(set(TOUR_DATA))]})
def tour(name, *, budgets=TOUR_BUDGETS, random_state=0):
    """Cluster dataset ``name`` ("digits" or "iris") as ``linkwise demo`` tells it.

    Auto, which is not told how many groups there are, asks up to
    ``max(budgets)`` questions in an :class:`~linkwise.ActiveSession`; a
    :class:`~linkwise.LabelOracle` answers them from the true labels, so the
    clustering can be scored after each number of answers in ``budgets``.
    K-means is given the true number of groups and no answers.

    Returns
    -------
    Tour

    Examples
    --------
    >>> result = tour("iris", budgets=[0, 5])
    >>> [n for n, _ in result.curve], result.n_kinds, len(result.seconds_per_answer)
    ([0, 5], 3, 5)
    """
    if name == "digits":  # scikit-learn ships them: ink from 0 to 16
        from sklearn.datasets import load_digits

        digits = load_digits()
        X, y = digits.data / 16.0, digits.target
    else:
        X, y = load(name, scale="minmax")
    budgets = sorted(set(budgets))
    oracle, curve, waits = LabelOracle(y), [], []
    start = time.perf_counter()
    session = ActiveSession(Auto(max_queries=budgets[-1], random_state=random_state), X, stability=False)
    seconds_to_start = time.perf_counter() - start
    if budgets[0] == 0:
        curve.append((0, agreement(y, session.labels_)))
    while (pair := session.ask()) is not None:
        start = time.perf_counter()
        session.tell(pair, oracle.query(*pair))
        waits.append(time.perf_counter() - start)
        if session.n_queries in budgets:
            curve.append((session.n_queries, agreement(y, session.labels_)))
    if not curve or curve[-1][0] != session.n_queries:  # the method had nothing left to ask before the budget
        curve.append((session.n_queries, agreement(y, session.labels_)))
    n_kinds = len(np.unique(y))
    kmeans = KMeans(n_clusters=n_kinds, n_init=10, random_state=random_state).fit(X).labels_
    return Tour(name, *TOUR_DATA[name], len(y), n_kinds, curve, agreement(y, kmeans), seconds_to_start,
                np.asarray(waits))
