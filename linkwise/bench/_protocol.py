"""The evaluation protocol of the active-clustering papers: folds, seeds, the guarded oracle, scores.

Stratified k-fold cross-validation (Van Craenendonck et al., IJCAI 2017; Van Craenendonck & Blockeel, Machine
Learning 2017): a method sees every row but may ask only about the training rows of a fold, and its clustering is
scored on the test rows. Repeats reshuffle the folds with another seed.
"""

import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold

from linkwise import metrics
from linkwise.oracle import LabelOracle

__all__ = ["METRICS", "ProtocolViolation", "FoldOracle", "fold_split", "cell_seed", "score"]

# name in results files -> scoring function(y_true, y_pred)
METRICS = {"ari": metrics.ari, "nmi": metrics.nmi, "f": metrics.pairwise_f_measure}


class ProtocolViolation(RuntimeError):
    """A method asked about a row it must not see the label of (a test row).

    Examples
    --------
    >>> try:
    ...     FoldOracle([0, 1, 1], train=[0, 1]).query(1, 2)
    ... except ProtocolViolation as exc:
    ...     print(exc)
    question (1, 2) touches test row 2, not a training row
    """


class FoldOracle(LabelOracle):
    """A :class:`~linkwise.LabelOracle` that refuses questions about test rows.

    The harness already passes the training rows as ``queryable``; this guard
    makes a leak impossible to miss rather than silently inflating scores.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels of every row.
    train : array-like of int
        Rows that may be asked about.
    noise : float in [0, 1], default=0.0
        Probability that an answer is wrong (see :class:`~linkwise.LabelOracle`).
    random_state : int, RandomState instance or None, default=None
        Seeds which answers are wrong.

    Examples
    --------
    >>> oracle = FoldOracle([0, 0, 1, 1], train=[0, 1, 2])
    >>> oracle.query(0, 2)
    False
    >>> oracle.query(0, 3)
    Traceback (most recent call last):
    ...
    linkwise.bench._protocol.ProtocolViolation: question (0, 3) touches test row 3, not a training row
    """

    def __init__(self, y, train, noise=0.0, random_state=None):
        super().__init__(y, noise=noise, random_state=random_state)
        self._allowed = np.zeros(self.y.size, dtype=bool)
        self._allowed[np.asarray(train, dtype=np.intp)] = True

    def query(self, i, j):
        """Answer from the labels, or refuse a question about a test row.

        Parameters
        ----------
        i, j : int
            Two distinct row indices.

        Returns
        -------
        bool
            As :meth:`linkwise.LabelOracle.query` answers.

        Raises
        ------
        ProtocolViolation
            If ``i`` or ``j`` is a test row.
        InvalidParameterError
            If an index is not a row or ``i == j``.
        """
        for row in (i, j):
            if 0 <= row < self.y.size and not self._allowed[row]:
                raise ProtocolViolation(f"question ({i}, {j}) touches test row {row}, not a training row")
        return super().query(i, j)


def fold_split(y, n_folds, repeat, seed):
    """Split the rows into the stratified folds of one repeat.

    Every repeat reshuffles with its own seed, derived from ``(seed, repeat)``.
    Classes smaller than ``n_folds`` (ecoli, yeast) are spread as well as they
    can be; scikit-learn's warning about them is expected here and silenced.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The classes the folds are stratified by.
    n_folds : int
        Number of folds.
    repeat : int
        Which repeat of the cross-validation.
    seed : int
        The run's seed.

    Returns
    -------
    list of tuple of ndarray
        One ``(train, test)`` pair of row-index arrays per fold.

    Examples
    --------
    >>> folds = fold_split([0] * 5 + [1] * 5, n_folds=5, repeat=0, seed=0)
    >>> [len(test) for _, test in folds]
    [2, 2, 2, 2, 2]
    """
    y = np.asarray(y)
    shuffle_seed = int(np.random.SeedSequence([seed, repeat]).generate_state(1)[0])
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=shuffle_seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        return [(train, test) for train, test in splitter.split(np.zeros((y.size, 1)), y)]


def cell_seed(seed, repeat, fold):
    """Derive the ``random_state`` every method gets in one (repeat, fold): common random numbers.

    Parameters
    ----------
    seed : int
        The run's seed.
    repeat, fold : int
        The cell.

    Returns
    -------
    int
        A seed in ``[0, 2**31 - 1)``, the same for every method of the cell.

    Examples
    --------
    >>> cell_seed(0, 0, 1) == cell_seed(0, 0, 1) != cell_seed(0, 1, 1)
    True
    """
    return int(np.random.SeedSequence([seed, repeat, fold, 1]).generate_state(1)[0] % (2**31 - 1))


def score(y, labels, test):
    """Every metric of :data:`METRICS` on the test rows, as a dict.

    Examples
    --------
    >>> score([0, 0, 1, 1], [1, 1, 0, 0], test=[0, 2])["ari"]
    1.0
    """
    y, labels = np.asarray(y)[test], np.asarray(labels)[test]
    return {name: fn(y, labels) for name, fn in METRICS.items()}
