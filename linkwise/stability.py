"""When to stop: how much the clustering still changes as answers come in."""

import math
from numbers import Integral
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
        The latest answers in a row that did not change the clustering (nor,
        with ``count_contradicted``, contradict it).
    n_changed : int
        How many of the last ``window`` answers changed it (or, with
        ``count_contradicted``, contradicted it).
    window : int
        The answers ``n_changed``, ``change_rate`` and ``drift`` cover: the
        last ``max(window, ceil(share * n_answers))`` of the monitor, or all so far.
    change_rate : float
        Estimated chance that the next answer changes the clustering (or,
        with ``count_contradicted``, contradicts it):
        ``(n_changed + 1) / (window + 2)`` (Laplace's rule of succession).
    drift : float
        How much the last ``window`` answers moved the clustering: the sum,
        over them, of one minus the ARI of the clustering after the answer to
        the one before it, plus 1 per answer that contradicted it when the
        monitor has ``count_contradicted``.
    stable : bool
        The signal shown to the person ("you can stop"): ``drift <= max_drift``
        once at least the monitor's ``window`` answers are in.
    message : str
        One line for the person.

    Examples
    --------
    >>> import linkwise as lw
    >>> estimate = lw.StabilityMonitor(window=2).update([0, 0, 1])
    >>> estimate.n_answers, estimate.stable, estimate.message
    (1, False, 'Unchanged for the last 1 answer; 1 more like these and you can stop.')
    """

    n_answers: int
    n_stable: int
    n_changed: int
    window: int
    change_rate: float
    drift: float
    stable: bool
    message: str

    def outlook(self, remaining=None):
        """What more answers are expected to change, in one line for the person.

        Parameters
        ----------
        remaining : int, optional
            Questions left in the budget (None: no budget).

        Returns
        -------
        str
            The line.

        Examples
        --------
        >>> import linkwise as lw
        >>> monitor = lw.StabilityMonitor(window=3)
        >>> for labels in ([0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1]):
        ...     estimate = monitor.update(labels)
        >>> estimate.change_rate  # 1 change in 3 answers: (1 + 1) / (3 + 2)
        0.4
        >>> estimate.outlook(remaining=10)
        'About 1 in 2 answers still changes the grouping: about 4 of the 10 left.'
        """
        if not self.n_answers:
            return ""
        every = max(1, round(1 / self.change_rate))
        text = f"About 1 in {every} answers still changes the grouping"
        if remaining:
            text += f": about {round(self.change_rate * remaining)} of the {remaining} left"
        return text + "."


class StabilityMonitor:
    """Follow the clustering after every answer and say when it has stopped changing.

    After every answer the clustering is compared with the one before it:
    one minus their adjusted Rand index is how much the answer *moved* it,
    and a move above ``1 - min_ari`` counts as a change. The estimate covers
    the last ``max(window, ceil(share * n_answers))`` answers (all of them
    while fewer are in): a window that grows with the session, so that a
    clustering counts as settled once it has held for a stretch as long as a
    fixed share of everything asked so far. It is ``stable`` once at least
    ``window`` answers are in and those it covers moved it by at most
    ``max_drift`` together. On data of more than ``max_rows`` rows the
    clusterings are compared on a fixed random sample of ``max_rows`` rows,
    so an update costs about a millisecond whatever the size.

    With ``count_contradicted``, an answer that the clustering it was asked
    in got wrong also counts as a move of 1: a method often takes such an
    answer in without changing its clustering at once, and the moves alone
    would miss it.

    The rule was calibrated with a simulated person (Auto and COBRAS, up to
    100 questions) on the tuning half of the benchmark and checked on the
    held-out half: a person who stops at the first ``stable`` should lose
    at most 0.02 ARI against answering every question, in at least 90 % of
    the runs where it is shown (``benchmarks/results/stability.md`` has the
    figures of both halves). Each active method declares the rule chosen on
    its own runs (:meth:`ActiveEstimator.stop_rule
    <linkwise.ActiveEstimator.stop_rule>`), which the sessions use: for
    Auto, 40 answers whose moves and contradicted answers add up to at most
    0.2 (91 % on the tuning half, 100 % on the held-out half); for COBRAS,
    80 answers that moved it by at most 0.2 (97 %; 73 % on the held-out
    half, short of the requirement). The defaults here, 70 answers that
    moved it by at most 0.2, are the rule chosen on both methods together
    (92 %; 79 % held out), the rule of every other method. Shorter windows
    stopped too early, as these clusterings often hold for tens of answers
    before a late improvement. A signal, not a guarantee: it cannot see an
    improvement that no answer so far has hinted at.

    Parameters
    ----------
    window : int, default=70
        The fewest answers the estimate covers; none is ``stable`` before.
    share : float in [0, 1], default=0.0
        The share of all answers so far that the estimate covers when that
        is more than ``window`` (0: always the last ``window``).
    max_drift : float >= 0, default=0.2
        The most the answers covered may have moved a ``stable`` clustering.
    count_contradicted : bool, default=False
        Also count each answer that contradicted the clustering it was asked
        in (``update(..., contradicted=True)``) as a move of 1.
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
    >>> monitor.update([1, 1, 1, 0]).message  # the same grouping, renamed
    'Still changing: 1 of the last 2 answers changed the grouping.'
    >>> for _ in range(3):
    ...     estimate = monitor.update([1, 1, 1, 0])
    >>> estimate.stable, estimate.n_stable, estimate.n_changed
    (True, 4, 0)
    >>> estimate.message
    'You can stop: the grouping has held for the last 4 answers.'
    >>> lw.StabilityMonitor(window=3).update([0, 1, 1]).message
    'Unchanged for the last 1 answer; 2 more like these and you can stop.'

    An answer the clustering got wrong, though it did not move it:

    >>> monitor = lw.StabilityMonitor(window=3, count_contradicted=True)
    >>> monitor.update([0, 0, 1, 1], answered=False).message
    'No answers yet.'
    >>> monitor.update([0, 0, 1, 1], contradicted=True).message
    'Still changing: the latest answer changed or contradicted the grouping.'
    """

    def __init__(self, window=70, share=0.0, max_drift=0.2, count_contradicted=False, min_ari=0.99, max_rows=2000,
                 random_state=0):
        owner = "StabilityMonitor"
        self.window = check_scalar(window, "window", owner, kind="int", low=1)
        self.share = check_scalar(share, "share", owner, kind="float", low=0, high=1)
        self.max_drift = check_scalar(max_drift, "max_drift", owner, kind="float", low=0)
        self.count_contradicted = check_scalar(count_contradicted, "count_contradicted", owner, kind="bool")
        self.min_ari = check_scalar(min_ari, "min_ari", owner, kind="float", low=0, high=1, include_low=False)
        self.max_rows = check_scalar(max_rows, "max_rows", owner, kind="int", low=2)
        self.random_state = random_state
        self._n = self._rows = self._previous = self._labels = None
        self._moves = []  # how much each answer moved the clustering (and 1 if it contradicted it, when counted)
        self._n_answers = self._n_stable = 0

    def update(self, labels, answered=True, contradicted=False):
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
        contradicted : bool, default=False
            The answer contradicted the clustering it was asked in (the one
            of the update before): a must-link across two of its clusters or
            a cannot-link within one. Counted as a move of 1 when the monitor
            has ``count_contradicted``; only an answer can contradict.

        Returns
        -------
        Stability
            The estimate after this clustering.

        Raises
        ------
        InvalidParameterError
            If ``labels`` is not a 1-D int array, or labels other rows than
            at the first update, or ``contradicted`` is not a bool or is True
            for what is not an answer.
        """
        owner = "StabilityMonitor.update"
        if check_scalar(contradicted, "contradicted", owner, kind="bool", role="argument") and not answered:
            raise InvalidParameterError("The 'contradicted' argument of StabilityMonitor.update is for an answer: "
                                        "give answered=True, or contradicted=False for what is not an answer.")
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
        previous = self._previous
        # the read-only clustering of the update before, as such (a session's when nothing moved): no move
        same = labels is self._labels and not labels.flags.writeable
        current = previous if same else relabel(labels[self._rows])
        self._labels = labels  # what the next answer is given to, for contradicts()
        move = 0.0 if previous is None or np.array_equal(current, previous) else 1 - ari(previous, current)
        move += 1.0 if contradicted and self.count_contradicted else 0.0
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

    def contradicts(self, pair, answer):
        """Whether an answer contradicts the clustering of the latest update (the one it was given to).

        Parameters
        ----------
        pair : tuple of (int, int)
            The two rows asked about.
        answer : bool or None
            True for the same cluster, False for different ones, None for
            "don't know" (which contradicts nothing).

        Returns
        -------
        bool
            True for a must-link across two of its clusters or a cannot-link
            within one; False before the first update.

        Raises
        ------
        InvalidParameterError
            If ``pair`` is not two row indices of the clustering.

        Examples
        --------
        >>> import linkwise as lw
        >>> monitor = lw.StabilityMonitor(count_contradicted=True)
        >>> _ = monitor.update([0, 0, 1], answered=False)
        >>> monitor.contradicts((0, 2), True), monitor.contradicts((0, 1), True)
        (True, False)
        """
        if self._labels is None:
            return False
        n = self._labels.size
        if (not isinstance(pair, tuple | list) or len(pair) != 2
                or not all(isinstance(k, Integral) and not isinstance(k, bool) and 0 <= k < n for k in pair)):
            raise InvalidParameterError(f"The 'pair' argument of StabilityMonitor.contradicts must be two row indices "
                                        f"(i, j) in [0, {n}); got {pair!r}.")
        i, j = pair
        return answer is not None and bool(self._labels[i] == self._labels[j]) != answer

    @property
    def estimate(self):
        """The current :class:`Stability`."""
        n = self._n_answers
        grown = math.ceil(self.share * n - 1e-9)  # 1e-9: 0.3 * 10 is 3.0000000000000004, not 3
        covered = self._moves[n - min(n, max(self.window, grown)):]
        window, drift, n_stable = len(covered), float(sum(covered)), self._n_stable
        n_changed = sum(move > 1 - self.min_ari for move in covered)
        stable = n >= self.window and drift <= self.max_drift
        verb = "changed or contradicted" if self.count_contradicted else "changed"
        if not self._n_answers:
            message = "No answers yet."
        elif stable and not n_changed:
            message = f"You can stop: the grouping has held for the last {_answers(n_stable)}."
        elif stable:
            message = f"You can stop: the grouping has barely changed in the last {_answers(window)}."
        elif window == 1 and n_changed:
            message = f"Still changing: the latest answer {verb} the grouping."
        elif n_changed:
            message = f"Still changing: {n_changed} of the last {_answers(window)} {verb} the grouping."
        elif n < self.window:
            message = (f"{'Unchanged and uncontradicted' if self.count_contradicted else 'Unchanged'} for the last "
                       f"{_answers(n_stable)}; {self.window - n} more like these and you can stop.")
        else:
            message = f"Still changing: small moves add up over the last {_answers(window)}."
        return Stability(self._n_answers, n_stable, n_changed, window, (n_changed + 1) / (window + 2), drift, stable,
                         message)
