"""When to stop: how much the clustering still changes as answers come in."""

import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from linkwise._validation import Interval, InvalidParameterError, validate_args
from linkwise.graph import relabel
from linkwise.metrics import ari

__all__ = ["Stability", "StabilityMonitor", "misplaced_share"]


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
        once at least the monitor's ``window`` answers are in, and no more
        than ``max_misplaced`` of the rows misplaced; or the monitor's early
        signal (see :class:`StabilityMonitor`).
    message : str
        One line for the person, saying why.
    contradicting : int
        The answers (and other stated relations) that the latest clustering
        contradicts: what the person sees as errors in it.
    misplaced : float or None
        The share of the compared rows nearer another cluster's centre than
        their own (their cluster's least typical members); None when the
        features were not given or it could not change the signal (it is
        computed only then).
    doubt : float or None
        The method's own doubt about the latest clustering: the monitor's
        ``doubt_quantile`` of its doubt on each probe pair
        (:meth:`ActiveEstimator.doubt <linkwise.ActiveEstimator.doubt>`),
        asked only when the rest of the early signal holds; None otherwise,
        and for a method that keeps no belief over clusterings.
    early : bool
        ``stable`` by the early signal.

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
    contradicting: int = 0
    misplaced: float | None = None
    doubt: float | None = None
    early: bool = False

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
    ``window`` answers are in, those it covers moved it by at most
    ``max_drift`` together, and at most ``max_misplaced`` of the rows sit
    nearer another cluster's centre than their own. On data of more than
    ``max_rows`` rows the clusterings are compared on a fixed random sample
    of ``max_rows`` rows, so an update costs about a millisecond whatever
    the size.

    With ``count_contradicted``, an answer that the clustering it was asked
    in got wrong also counts as a move of 1: a method often takes such an
    answer in without changing its clustering at once, and the moves alone
    would miss it.

    The monitor also weighs what the person sees besides the moves: the
    answers the latest clustering contradicts (``contradicting``), the rows
    nearer another cluster's centre than their own (``misplaced``: the
    least typical members a cluster's view lists first; from ``X``), and
    the method's own doubt (:meth:`ActiveEstimator.doubt
    <linkwise.ActiveEstimator.doubt>` on ``probe_pairs``). With
    ``early_window``, it says "you can stop" early, from answer
    ``early_window`` on, when none of the last ``early_window`` answers
    changed the clustering, it contradicts no answer, at most
    ``early_max_misplaced`` of the rows are misplaced, and the method's
    doubt (its ``doubt_quantile`` over the probe pairs) is at most
    ``early_max_doubt`` (never for a method without one).

    The rules were calibrated with a simulated person (Auto and COBRAS, up
    to 100 questions) on the tuning half of the benchmark and checked on the
    held-out half: a person who stops at the first ``stable`` should lose
    at most 0.02 ARI against answering every question, in at least 90 % of
    the runs where it is shown (``benchmarks/results/stability.md`` has the
    figures of both halves). Each active method declares the rule chosen on
    its own runs (:meth:`ActiveEstimator.stop_rule
    <linkwise.ActiveEstimator.stop_rule>`), which the sessions use. The
    defaults here, 80 answers that moved it by at most 0.2 or the early
    signal after 15 with the method sure of 95 % of the probe pairs to
    0.02, are the rule chosen on Auto and COBRAS together, the rule of every
    method without runs of its own (90 % on the tuning half, 85 % held
    out). Shorter windows stopped too early, as these
    clusterings often hold for tens of answers before a late improvement.
    A signal, not a guarantee: it cannot see an improvement that no answer
    so far has hinted at.

    Parameters
    ----------
    window : int, default=80
        The fewest answers the estimate covers; none is ``stable`` before
        (but by the early signal).
    share : float in [0, 1], default=0.0
        The share of all answers so far that the estimate covers when that
        is more than ``window`` (0: always the last ``window``).
    max_drift : float >= 0, default=0.2
        The most the answers covered may have moved a ``stable`` clustering.
    count_contradicted : bool, default=False
        Also count each answer that contradicted the clustering it was asked
        in (``update(..., contradicted=True)``) as a move of 1.
    max_misplaced : float in [0, 1], default=1.0
        The largest share of misplaced rows a ``stable`` clustering may
        have (1: not looked at); unknown without ``X``.
    early_window : int or None, default=15
        The answers of the early signal (None: no early signal).
    early_max_misplaced : float in [0, 1], default=0.1
        The largest share of misplaced rows for the early signal.
    early_max_doubt : float in [0, 0.5], default=0.02
        The method's largest doubt for the early signal.
    doubt_quantile : float in (0, 1], default=0.95
        The quantile of the method's doubt over the probe pairs that the
        early signal reads (1: the pair it is least sure of).
    min_ari : float in (0, 1], default=0.99
        An answer after which the clustering is at least this close (ARI) to
        the one before it did not change it (``n_stable``, ``n_changed``).
    max_rows : int, default=2000
        At most this many rows are compared.
    random_state : int, RandomState instance or None, default=0
        Seeds the sample of rows and ``probe_pairs``.

    Attributes
    ----------
    probe_pairs : ndarray of shape (200, 2) or None
        The fixed random pairs of rows the method's doubt is asked about
        (drawn at the first update).

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

    What the person sees: an item nearer the other cluster's centre, and the
    early signal once the method is sure:

    >>> X = [[0.0], [0.1], [0.9], [1.0], [0.2]]
    >>> monitor = lw.StabilityMonitor(window=3, max_misplaced=0.1, early_window=2)
    >>> for _ in range(3):
    ...     estimate = monitor.update([0, 0, 1, 1, 1], X=X)
    >>> estimate.stable, estimate.misplaced
    (False, 0.2)
    >>> estimate.message
    'Not yet: 1 of 5 items sits nearer another group than its own (the least typical members).'
    >>> for _ in range(2):
    ...     estimate = monitor.update([0, 0, 1, 1, 0], X=X, doubt=0.0)  # the 4th changes it, the 5th does not
    >>> estimate.early, estimate.message
    (False, 'Still changing: 1 of the last 3 answers changed the grouping.')
    >>> estimate = monitor.update([0, 0, 1, 1, 0], X=X, doubt=0.0)
    >>> estimate.early, estimate.message
    (True, 'You can stop: the last 2 answers changed nothing, the grouping contradicts none of your answers and the method is sure of it.')
    """

    _PROBES = 200  # pairs the method's doubt is asked about

    @validate_args({
        "window": [Interval(Integral, 1, None, closed="left")],
        "share": [Interval(Real, 0, 1, closed="both")],
        "max_drift": [Interval(Real, 0, None, closed="left")],
        "count_contradicted": ["boolean"],
        "max_misplaced": [Interval(Real, 0, 1, closed="both")],
        "early_window": [Interval(Integral, 1, None, closed="left"), None],
        "early_max_misplaced": [Interval(Real, 0, 1, closed="both")],
        "early_max_doubt": [Interval(Real, 0, 0.5, closed="both")],
        "doubt_quantile": [Interval(Real, 0, 1, closed="right")],
        "min_ari": [Interval(Real, 0, 1, closed="right")],
        "max_rows": [Interval(Integral, 2, None, closed="left")],
    })
    def __init__(self, window=80, share=0.0, max_drift=0.2, count_contradicted=False, max_misplaced=1.0,
                 early_window=15, early_max_misplaced=0.1, early_max_doubt=0.02, doubt_quantile=0.95, min_ari=0.99,
                 max_rows=2000, random_state=0):
        self.window, self.max_rows, self.count_contradicted = int(window), int(max_rows), bool(count_contradicted)
        self.early_window = None if early_window is None else int(early_window)
        self.share, self.max_drift, self.max_misplaced = float(share), float(max_drift), float(max_misplaced)
        self.early_max_misplaced, self.early_max_doubt = float(early_max_misplaced), float(early_max_doubt)
        self.doubt_quantile, self.min_ari = float(doubt_quantile), float(min_ari)
        self.random_state = random_state
        self._n = self._rows = self._previous = self._labels = self.probe_pairs = None
        self._moves = []  # how much each answer moved the clustering (and 1 if it contradicted it, when counted)
        self._n_answers = self._n_stable = 0
        self._seen = (0, None, None)  # the latest clustering's contradicting, misplaced and doubt

    @validate_args({"contradicted": ["boolean"]})
    def update(self, labels, answered=True, contradicted=False, *, X=None, answers=(), doubt=None):
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
        X : array-like of shape (n_samples, n_features), optional
            The rows' features, for the share of misplaced rows (only the
            compared rows are read).
        answers : sequence of (int, int, bool or None), default=()
            Every answer so far, in order, as ``(i, j, answer)`` ("don't
            know" as None): those that ``labels`` contradicts are counted
            (``contradicting``). The sequence only grows from one update to
            the next (a session's query log): the answers before the length
            seen at the last update are not read again.
        doubt : array-like of float in [0, 0.5], callable or None, default=None
            The method's doubt about ``labels`` on each of some pairs (one
            float: one pair; None: it keeps none), or a function of no
            argument returning it, called only when the rest of the early
            signal holds; the early signal reads its ``doubt_quantile``.

        Returns
        -------
        Stability
            The estimate after this clustering.

        Raises
        ------
        InvalidParameterError
            If ``labels`` is not a 1-D int array, or labels other rows than
            at the first update, or ``contradicted`` is not a bool or is True
            for what is not an answer, or ``X``, ``answers`` or ``doubt``
            is not what is described above.
        """
        if contradicted and not answered:
            raise InvalidParameterError("The 'contradicted' argument of StabilityMonitor.update is for an answer: "
                                        "give answered=True, or contradicted=False for what is not an answer.")
        if doubt is not None and not callable(doubt):
            doubt = self._summary(doubt)
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.size < 1 or not np.issubdtype(labels.dtype, np.integer):
            raise InvalidParameterError("The 'labels' argument of StabilityMonitor.update must be a 1-D array of "
                                        f"int cluster labels, one per row; got shape {labels.shape}, dtype "
                                        f"{labels.dtype}.")
        if self._n is None:
            n = self._n = labels.size
            rng = check_random_state(self.random_state)
            self._rows = np.sort(rng.choice(n, self.max_rows, replace=False)) if n > self.max_rows else np.arange(n)
            self.probe_pairs = rng.randint(n, size=(self._PROBES, 2))
        elif labels.size != self._n:
            raise InvalidParameterError("The 'labels' argument of StabilityMonitor.update must label the same rows "
                                        f"at every update: {self._n} before, {labels.size} now. Use a new monitor "
                                        "for new data.")
        if X is not None:
            self._sample(X)  # checked before anything changes
        contradicting = self._contradicting(labels, answers)  # as are the answers
        previous = self._previous
        # the read-only clustering of the update before, as such (a session's when nothing moved): no move
        same = labels is self._labels and not labels.flags.writeable
        current = previous if same else relabel(labels[self._rows])
        self._labels = labels  # what the next answer is given to, for contradicts()
        unchanged = previous is not None and (same or np.array_equal(current, previous))
        move = 0.0 if previous is None or unchanged else 1 - ari(previous, current)
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
        self._see(contradicting, current, X, doubt, unchanged)
        return self.estimate

    def _see(self, contradicting, current, X, doubt, unchanged):
        """What the person sees besides the answers contradicted, only where it can change the signal (each costs a
        fraction of a millisecond): the misplaced rows (kept while the compared rows' clustering is ``unchanged``)
        and the method's doubt."""
        n = self._n_answers
        w = self.early_window
        quiet = (w is not None and n >= w and not contradicting
                 and not any(move > 1 - self.min_ari for move in self._moves[n - w:]))
        settled = self._settled(n, self._covered(n))
        misplaced = None
        if X is not None and (quiet or (settled and self.max_misplaced < 1)):
            misplaced = self._seen[1] if unchanged and self._seen[1] is not None else self._misplaced(X, current)
        if not quiet or (misplaced is not None and misplaced > self.early_max_misplaced + 1e-12):
            doubt = None
        elif callable(doubt):
            doubt = doubt()
            doubt = None if doubt is None else self._summary(doubt)
        self._seen = (contradicting, misplaced, doubt)

    def _summary(self, doubt):
        """The ``doubt_quantile`` of a method's doubt on each pair (0 on no pair), checked."""
        try:
            values = None if isinstance(doubt, bool) else np.atleast_1d(np.asarray(doubt))
        except ValueError:  # a ragged sequence
            values = None
        if (values is None or values.ndim != 1 or values.dtype.kind not in "iuf"
                or not np.all((values >= 0) & (values <= 0.5))):
            raise InvalidParameterError("The 'doubt' argument of StabilityMonitor.update must be the method's doubt "
                                        f"on each pair, floats in [0, 0.5] (or one float); got {doubt!r:.80}.")
        return float(np.quantile(values, self.doubt_quantile)) if values.size else 0.0

    def _settled(self, n, covered):
        """The settled rule's moves part after ``n`` answers whose ``covered`` moves are those the estimate covers."""
        return n >= self.window and sum(covered) <= self.max_drift

    def _covered(self, n):
        """The moves of the answers the estimate covers after ``n`` answers."""
        grown = math.ceil(self.share * n - 1e-9)  # 1e-9: 0.3 * 10 is 3.0000000000000004, not 3
        return self._moves[n - min(n, max(self.window, grown)):]

    def __getstate__(self):  # the sampled features are a cache of the caller's X: not pickled with a resume point
        return {k: v for k, v in self.__dict__.items() if k != "_sampled"}

    def _contradicting(self, labels, answers):
        """How many of ``answers`` (``(i, j, answer)``) ``labels`` contradicts. A session's answers only grow: those
        seen at an earlier update are kept as arrays, and only the new ones are read."""
        seen, pairs, told = getattr(self, "_told", (0, np.empty((0, 2), np.intp), np.empty(0, bool)))
        if len(answers) < seen:  # another, shorter sequence: read it all
            seen, pairs, told = 0, pairs[:0], told[:0]
        try:
            new = [(i, j, a) for i, j, a in answers[seen:] if a is not None]
            more = np.array([(i, j) for i, j, _ in new], dtype=np.intp).reshape(-1, 2)
            if new and (more.min() < 0 or more.max() >= labels.size):
                raise IndexError
        except (IndexError, ValueError, TypeError):
            raise InvalidParameterError("The 'answers' argument of StabilityMonitor.update must be (i, j, answer) "
                                        f"triples of row indices in [0, {labels.size}) and True, False or None."
                                        ) from None
        if new:
            pairs, told = np.concatenate([pairs, more]), np.concatenate([told, [bool(a) for *_, a in new]])
        self._told = (len(answers), pairs, told)
        return int(np.count_nonzero((labels[pairs[:, 0]] == labels[pairs[:, 1]]) != told))

    def _sample(self, X):
        """The compared rows of ``X`` as floats, checked and taken once per ``X`` (a session gives the same X at every
        update)."""
        cached = getattr(self, "_sampled", None)
        if cached is not None and cached[0] is X:
            return cached[1]
        table = np.asarray(X)
        if table.ndim != 2 or table.shape[0] != self._n or not np.issubdtype(table.dtype, np.number):
            raise InvalidParameterError("The 'X' argument of StabilityMonitor.update must be the numeric features of "
                                        f"the {self._n} rows labelled, one row each; got shape {table.shape}, dtype "
                                        f"{table.dtype}.")
        self._sampled = (X, table[self._rows].astype(float))
        return self._sampled[1]

    def _misplaced(self, X, current):
        """:func:`misplaced_share` of the compared rows of ``X``."""
        return misplaced_share(self._sample(X), current)

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
        contradicting, misplaced, doubt = self._seen
        covered = self._covered(n)
        window, drift, n_stable = len(covered), float(sum(covered)), self._n_stable
        n_changed = sum(move > 1 - self.min_ari for move in covered)
        settled = self._settled(n, covered)
        crowded = misplaced is not None and misplaced > self.max_misplaced + 1e-12
        early = doubt is not None and doubt <= self.early_max_doubt  # asked only when the rest holds (_see)
        stable = early or (settled and not crowded)
        verb = "changed or contradicted" if self.count_contradicted else "changed"
        if not self._n_answers:
            message = "No answers yet."
        elif early:
            message = (f"You can stop: the last {_answers(self.early_window)} changed nothing, the grouping "
                       "contradicts none of your answers and the method is sure of it.")
        elif settled and crowded:
            rows, far = self._rows.size, round(misplaced * self._rows.size)
            message = (f"Not yet: {far} of {rows} items {'sits' if far == 1 else 'sit'} nearer another group than "
                       f"{'its' if far == 1 else 'their'} own (the least typical members).")
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
        if stable and contradicting:  # errors the person can see: said beside the signal
            message += f" It still contradicts {_answers(contradicting)}."
        return Stability(self._n_answers, n_stable, n_changed, window, (n_changed + 1) / (window + 2), drift, stable,
                         message, contradicting, misplaced, doubt, early)


def observe(monitor, estimator, labels, X, answers, answered=True, contradicted=False):
    """Update ``monitor`` with what a session's person sees: ``labels`` of ``X``, the ``answers`` it contradicts, and
    ``estimator``'s doubt (:meth:`ActiveEstimator.doubt <linkwise.ActiveEstimator.doubt>`) on the monitor's probe
    pairs. Returns the new :class:`Stability`. Features other than a dense numeric table (series, sparse text) give no
    share of misplaced rows."""
    pairs = monitor.probe_pairs
    doubt = None if pairs is None else lambda: estimator.doubt(pairs)  # asked only when it can change the signal
    dense = isinstance(X, np.ndarray) and X.ndim == 2 and np.issubdtype(X.dtype, np.number)
    return monitor.update(labels, answered, contradicted, X=X if dense else None, answers=answers, doubt=doubt)


def misplaced_share(X, labels):
    """The share of rows nearer (Euclidean) another cluster's centre than their own.

    What a person sees among the clusters' least typical members. A centre is the mean of its cluster's rows. A row as near another centre as its own (equal rows, constant
    columns) is not counted. :class:`StabilityMonitor` reads it on its compared rows; the benchmark of the stop
    signal (``benchmarks/bench_stability.py``) on every row.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The features.
    labels : array-like of shape (n_samples,)
        The clustering (any labels).

    Returns
    -------
    float
        The share, in [0, 1].

    Examples
    --------
    >>> from linkwise.stability import misplaced_share
    >>> misplaced_share([[0.0], [1.0], [2.0], [10.0]], [0, 0, 1, 1])  # 2.0 lies nearer the first centre (0.5)
    0.25
    """
    Z, current = np.asarray(X, dtype=float), relabel(labels)
    if Z.ndim != 2 or current.shape != (Z.shape[0],) or not Z.shape[0]:
        raise InvalidParameterError(f"misplaced_share takes features X of shape (n_samples, n_features) and one label "
                                    f"per row; got X of shape {Z.shape} and {current.size} labels.")
    n, k = Z.shape[0], int(current.max()) + 1
    onehot = np.zeros((n, k))
    onehot[np.arange(n), current] = 1.0
    centres = (onehot.T @ Z) / onehot.sum(axis=0)[:, None]
    # squared distances up to each row's own norm, the same for every centre; the tolerance keeps a tie a tie
    d = (centres ** 2).sum(axis=1) - 2 * Z @ centres.T
    own = d[np.arange(n), current]
    return float(np.mean(d.min(axis=1) < own - 1e-9 * (1 + (Z ** 2).sum(axis=1))))
