"""When to stop: how much the clustering still changes as answers come in."""

from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from linkwise._validation import InvalidParameterError, check_scalar
from linkwise.graph import relabel
from linkwise.metrics import ari

__all__ = ["Stability", "StabilityMonitor"]


def _answers(n):
    return f"{n} answer" + ("" if n == 1 else "s")


class Stability(NamedTuple):
    """An estimate of :class:`StabilityMonitor`: how long the clustering has held, and how often it changed.

    Attributes
    ----------
    n_answers : int
        Answers seen.
    n_stable : int
        The latest answers in a row that did not change the clustering.
    n_changed : int
        How many of the last ``window`` answers changed it.
    window : int
        The answers ``n_changed`` counts (the last ``window`` ones, or all so far).
    change_rate : float
        Estimated chance that the next answer changes the clustering:
        ``(n_changed + 1) / (window + 2)`` (Laplace's rule of succession).
    stable : bool
        ``n_stable >= patience``: the signal shown to the person.
    message : str
        One line for the person.
    """

    n_answers: int
    n_stable: int
    n_changed: int
    window: int
    change_rate: float
    stable: bool
    message: str


class StabilityMonitor:
    """Follow the clustering after every answer and say when it has stopped changing.

    An answer *changes* the clustering when the clustering after it agrees
    with the one at the latest change (the first one at the start) with an
    adjusted Rand index below ``min_ari``; comparing with that clustering
    rather than the previous one, a drift of many small moves adds up to a
    change. The estimate is ``stable`` after ``patience`` answers in a row
    that changed nothing. On data of more than ``max_rows`` rows both
    clusterings are compared on a fixed random sample of ``max_rows`` rows,
    so an update costs about a millisecond whatever the size.

    ``benchmarks/results/stability.md`` reports how often ``stable`` was
    shown while the ARI to the true classes still rose by more than 0.05
    over the next 50 answers, on the shipped datasets with a simulated
    person, and how the defaults were chosen.

    Parameters
    ----------
    patience : int, default=20
        Unchanged answers in a row after which the clustering is ``stable``.
    min_ari : float in (0, 1], default=0.99
        A clustering at least this close (ARI) to the one at the latest
        change counts as unchanged; 1 counts every moved row as a change.
    window : int, default=20
        Recent answers that ``n_changed`` and ``change_rate`` count.
    max_rows : int, default=2000
        At most this many rows are compared.
    random_state : int, RandomState instance or None, default=0
        Seeds the sample of rows.

    Examples
    --------
    >>> import linkwise as lw
    >>> monitor = lw.StabilityMonitor(patience=3)
    >>> monitor.update([0, 0, 1, 1]).message
    'Still changing: the latest answer changed the grouping.'
    >>> for _ in range(3):
    ...     estimate = monitor.update([1, 1, 0, 0])  # the same grouping, renamed
    >>> estimate.stable, estimate.n_stable
    (True, 3)
    >>> estimate.message
    'The grouping has been stable for the last 3 answers.'
    """

    def __init__(self, patience=20, min_ari=0.99, window=20, max_rows=2000, random_state=0):
        owner = "StabilityMonitor"
        self.patience = check_scalar(patience, "patience", owner, kind="int", low=1)
        self.min_ari = check_scalar(min_ari, "min_ari", owner, kind="float", low=0, high=1, include_low=False)
        self.window = check_scalar(window, "window", owner, kind="int", low=1)
        self.max_rows = check_scalar(max_rows, "max_rows", owner, kind="int", low=2)
        self.random_state = random_state
        self._n = self._rows = self._anchor = None
        self._changes = []  # True/False per answer, newest last (only the last `window` are kept)
        self._n_answers = self._n_stable = 0

    def update(self, labels, answered=True):
        """Take the clustering after an answer and return the new :attr:`estimate`.

        Parameters
        ----------
        labels : array-like of int of shape (n_samples,)
            The clustering of every row (the same rows at every update).
        answered : bool, default=True
            False for what is not an answer to a question (the clustering at
            the start, an imported constraint, feedback on a cluster): it
            is the new reference when it changed the clustering, and is not
            counted as an answer.

        Returns
        -------
        Stability
        """
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.size < 1 or not np.issubdtype(labels.dtype, np.integer):
            raise InvalidParameterError("The 'labels' argument of StabilityMonitor.update must be a 1-D array of "
                                        f"int cluster labels, one per row; got shape {labels.shape}, dtype "
                                        f"{labels.dtype}.")
        if self._n is None:
            n = self._n = labels.size
            rng = check_random_state(self.random_state)
            self._rows = np.sort(rng.choice(n, self.max_rows, replace=False)) if n > self.max_rows else np.arange(n)
        elif labels.size != self._n:
            raise InvalidParameterError("The 'labels' argument of StabilityMonitor.update must label the same rows "
                                        f"at every update: {self._n} before, {labels.size} now. Use a new monitor "
                                        "for new data.")
        current = relabel(labels[self._rows])
        changed = self._anchor is None or (
            not np.array_equal(current, self._anchor) and ari(self._anchor, current) < self.min_ari)
        if changed:
            self._anchor = current
        if answered:
            self._n_answers += 1
            self._n_stable = 0 if changed else self._n_stable + 1
            self._changes = (self._changes + [changed])[-self.window:]
        elif changed:
            self._n_stable = 0
        return self.estimate

    @property
    def estimate(self):
        """The current :class:`Stability`."""
        window, n_changed, n_stable = len(self._changes), sum(self._changes), self._n_stable
        stable = n_stable >= self.patience
        if stable:
            message = f"The grouping has been stable for the last {_answers(n_stable)}."
        elif not self._n_answers:
            message = "No answers yet."
        elif window == 1 and n_changed:
            message = "Still changing: the latest answer changed the grouping."
        elif n_changed:
            message = f"Still changing: {n_changed} of the last {_answers(window)} changed the grouping."
        else:
            message = f"Unchanged for the last {_answers(n_stable)}; stable after {self.patience}."
        return Stability(self._n_answers, n_stable, n_changed, window, (n_changed + 1) / (window + 2), stable,
                         message)
