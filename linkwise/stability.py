"""When to stop: how much the clustering still changes as answers come in."""

from collections import deque
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
    """An estimate of :class:`StabilityMonitor`: how much the clustering still changes.

    Parameters
    ----------
    n_answers : int
        Answers seen.
    n_stable : int
        The latest answers in a row that did not change the clustering.
    n_changed : int
        How many of the last ``window`` answers changed it.
    window : int
        The answers ``n_changed``, ``change_rate`` and ``drift`` cover (the last ``window``, or all so far).
    change_rate : float
        Estimated chance that the next answer changes the clustering:
        ``(n_changed + 1) / (window + 2)`` (Laplace's rule of succession).
    drift : float
        How much the last ``window`` answers moved the clustering: the sum,
        over them, of one minus the ARI of the clustering after the answer to
        the one before it.
    stable : bool
        The signal shown to the person: ``drift <= max_drift`` over a full
        window of answers.
    message : str
        One line for the person.

    Examples
    --------
    >>> import linkwise as lw
    >>> estimate = lw.StabilityMonitor(window=2).update([0, 0, 1])
    >>> estimate.n_answers, estimate.stable, estimate.message
    (1, False, 'Unchanged for the last 1 answer; too few to call it stable yet.')
    """

    n_answers: int
    n_stable: int
    n_changed: int
    window: int
    change_rate: float
    drift: float
    stable: bool
    message: str


class StabilityMonitor:
    """Follow the clustering after every answer and say when it has stopped changing.

    After every answer the clustering is compared with the one before it:
    one minus their adjusted Rand index is how much the answer *moved* it,
    and a move above ``1 - min_ari`` counts as a change. The clustering is
    ``stable`` once ``window`` answers are in and together they moved it
    by at most ``max_drift``. On data of more than ``max_rows`` rows the
    clusterings are compared on a fixed random sample of ``max_rows`` rows,
    so an update costs about a millisecond whatever the size.

    The rule and its defaults were chosen with a simulated person (Auto and
    COBRAS, up to 150 questions) on half of the shipped tables and checked
    on the other half: there ``stable`` was shown while the ARI to the true
    classes still rose by more than 0.05 over the next 50 answers at about
    8 % of the answers where it was shown; a run of 10 to 30 unchanged
    answers, which reacts sooner, was wrong at 12 to 36 %, as these
    clusterings often hold for tens of answers between improvements
    (``benchmarks/results/stability.md``). A signal, not a guarantee: it
    cannot see an improvement that no answer so far has hinted at.

    Parameters
    ----------
    window : int, default=50
        Recent answers that the estimate covers; none is ``stable`` before.
    max_drift : float >= 0, default=0.05
        The most the last ``window`` answers may have moved a ``stable`` clustering.
    min_ari : float in (0, 1], default=0.99
        An answer after which the clustering is at least this close (ARI) to
        the one before it did not change it (``n_stable``, ``n_changed``).
    max_rows : int, default=2000
        At most this many rows are compared.
    random_state : int, RandomState instance or None, default=0
        Seeds the sample of rows.

    Examples
    --------
    >>> import linkwise as lw
    >>> monitor = lw.StabilityMonitor(window=3)
    >>> monitor.update([0, 0, 1, 1], answered=False).message  # the clustering at the start
    'No answers yet.'
    >>> monitor.update([0, 0, 0, 1]).message
    'Still changing: the latest answer changed the grouping.'
    >>> for _ in range(3):
    ...     estimate = monitor.update([1, 1, 1, 0])  # the same grouping, renamed
    >>> estimate.stable, estimate.n_stable, estimate.n_changed
    (True, 3, 0)
    >>> estimate.message
    'The grouping has been stable for the last 3 answers.'
    """

    def __init__(self, window=50, max_drift=0.05, min_ari=0.99, max_rows=2000, random_state=0):
        owner = "StabilityMonitor"
        self.window = check_scalar(window, "window", owner, kind="int", low=1)
        self.max_drift = check_scalar(max_drift, "max_drift", owner, kind="float", low=0)
        self.min_ari = check_scalar(min_ari, "min_ari", owner, kind="float", low=0, high=1, include_low=False)
        self.max_rows = check_scalar(max_rows, "max_rows", owner, kind="int", low=2)
        self.random_state = random_state
        self._n = self._rows = self._previous = None
        self._moves = deque(maxlen=self.window)  # how much each of the last answers moved the clustering
        self._n_answers = self._n_stable = 0

    def update(self, labels, answered=True):
        """Take the clustering after an answer and return the new :attr:`estimate`.

        Parameters
        ----------
        labels : array-like of int of shape (n_samples,)
            The clustering of every row (the same rows at every update).
        answered : bool, default=True
            False for what is not an answer to a question (the clustering at
            the start, an imported constraint, feedback on a cluster): not
            counted as an answer, but what it moves counts with the latest
            answer.

        Returns
        -------
        Stability
            The estimate after this clustering.

        Raises
        ------
        InvalidParameterError
            If ``labels`` is not a 1-D int array, or labels other rows than
            at the first update.
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
        current, previous = relabel(labels[self._rows]), self._previous
        move = 0.0 if previous is None or np.array_equal(current, previous) else 1 - ari(previous, current)
        self._previous = current
        changed = move > 1 - self.min_ari
        if answered:
            self._n_answers += 1
            self._moves.append(move)
            self._n_stable = 0 if changed else self._n_stable + 1
        elif self._moves:
            self._moves[-1] += move
            self._n_stable = 0 if changed else self._n_stable
        return self.estimate

    @property
    def estimate(self):
        """The current :class:`Stability`."""
        window, drift, n_stable = len(self._moves), float(sum(self._moves)), self._n_stable
        n_changed = sum(move > 1 - self.min_ari for move in self._moves)
        stable = window == self.window and drift <= self.max_drift
        if not self._n_answers:
            message = "No answers yet."
        elif stable and not n_changed:
            message = f"The grouping has been stable for the last {_answers(n_stable)}."
        elif stable:
            message = f"The grouping has barely changed in the last {_answers(window)}."
        elif window == 1 and n_changed:
            message = "Still changing: the latest answer changed the grouping."
        elif n_changed:
            message = f"Still changing: {n_changed} of the last {_answers(window)} changed the grouping."
        elif window < self.window:
            message = f"Unchanged for the last {_answers(n_stable)}; too few to call it stable yet."
        else:
            message = f"Still changing: small moves add up over the last {_answers(window)}."
        return Stability(self._n_answers, n_stable, n_changed, window, (n_changed + 1) / (window + 2), drift, stable,
                         message)
