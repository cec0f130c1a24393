"""Oracles answer questions about pairs: must-link (True), cannot-link (False) or don't know (None)."""

from numbers import Integral, Real
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np
from sklearn.utils import check_random_state

from linkwise._validation import Interval, InvalidParameterError, validate_args
from linkwise.graph import check_pair, pair_key

__all__ = ["Oracle", "LabelOracle", "CallbackOracle", "ClusterAction"]


class ClusterAction(NamedTuple):
    """One thing a person does while looking at the clusters (:meth:`LabelOracle.cluster_feedback`).

    Parameters
    ----------
    kind : {"pure", "complete", "move"}
        "pure": the ``rows`` of a cluster belong together; "complete": and
        nothing else belongs with them; "move": one item changes cluster.
    rows : ndarray of int
        The cluster's rows, or for a move the one item.
    to : int or None, default=None
        For a move, a row of the cluster the item belongs in; None for a new
        cluster.
    away : int or None, default=None
        For a move, a row of the cluster the item leaves, or None.
    """

    kind: str
    rows: np.ndarray
    to: int | None = None
    away: int | None = None

    def apply(self, session):
        """State the action in a session.

        A "pure" or "complete" action is a :meth:`~linkwise.ActiveSession.mark`;
        a move informs a must-link to ``to`` and a cannot-link to ``away``
        (whichever is given) with :meth:`~linkwise.ActiveSession.inform`.

        Parameters
        ----------
        session : ActiveSession
            The session told.
        """
        if self.kind != "move":
            session.mark(self.rows, complete=self.kind == "complete")
            return
        x = int(self.rows[0])
        if self.to is not None:
            session.inform(x, self.to, True, move=True)
        if self.away is not None:
            session.inform(x, self.away, False, move=True)


# a protocol has no constructor whose parameters to document
@runtime_checkable
class Oracle(Protocol):  # numpydoc ignore=PR01
    """Anything with ``query(i, j)`` returning True (same cluster), False (different) or None (don't know).

    A structural type: any object with such a method is an oracle, and
    ``isinstance`` checks it at run time.

    Examples
    --------
    >>> import linkwise as lw
    >>> isinstance(lw.LabelOracle([0, 0, 1]), lw.Oracle), isinstance(object(), lw.Oracle)
    (True, False)
    """

    def query(self, i: int, j: int) -> bool | None:
        """Answer whether rows ``i`` and ``j`` belong to the same cluster.

        Parameters
        ----------
        i, j : int
            Two distinct row indices.

        Returns
        -------
        bool or None
            True for same cluster (must-link), False for different
            (cannot-link), None for don't know.
        """


class LabelOracle:
    """Simulated person who answers from known labels, optionally with noise.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels the simulated person has in mind.
    noise : float in [0, 1], default=0.0
        Probability that an answer is flipped. A pair is flipped or not once
        and for all: asking the same pair again gives the same answer, as a
        person with a fixed (mis)belief would.
    random_state : int, RandomState instance or None, default=None
        Seeds which pairs are flipped.

    Attributes
    ----------
    n_queries : int
        Questions answered so far.
    n_wrong : int
        Answers so far that disagreed with ``y`` (flipped by noise).

    Examples
    --------
    >>> oracle = LabelOracle([0, 0, 1])
    >>> oracle.query(0, 1), oracle.query(1, 2), oracle.n_queries
    (True, False, 2)
    >>> [(a.kind, a.rows.tolist(), a.to) for a in oracle.cluster_feedback([0, 0, 0])]
    [('move', [2], None)]
    """

    @validate_args({"noise": [Interval(Real, 0, 1, closed="both")]})
    def __init__(self, y, noise=0.0, random_state=None):
        self.y = y = np.asarray(y)
        if y.ndim != 1 or y.size < 2:
            raise InvalidParameterError("The 'y' argument of LabelOracle must be a 1-D array of at least 2 labels, "
                                        f"got shape {y.shape}.")
        self.noise = float(noise)
        # one integer seed: the flip of pair (i, j) is a pure function of (seed, i, j)
        self._seed = int(check_random_state(random_state).randint(2**31 - 1))
        self.n_queries = self.n_wrong = 0

    def is_flipped(self, i, j):
        """Tell whether the answer about ``(i, j)`` is flipped by noise, without counting a query.

        Parameters
        ----------
        i, j : int
            Two row indices, in either order.

        Returns
        -------
        bool
            The same for a pair whenever asked: a fixed function of the seed
            and the pair.
        """
        return self.noise != 0.0 and bool(np.random.default_rng([self._seed, *pair_key(i, j)]).random() < self.noise)

    def perceived(self):
        """Give the labels the person has in mind when looking at clusters.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``y``, except that with ``noise`` each row is, with that
            probability and once and for all, taken for a random other label
            (a fixed misbelief).
        """
        labels = np.unique(self.y)
        if self.noise == 0.0 or labels.size < 2:
            return self.y
        rng = np.random.default_rng([self._seed, 1])
        wrong = rng.random(self.y.size) < self.noise
        shift = rng.integers(1, labels.size, self.y.size)  # another label, uniformly
        at = np.searchsorted(labels, self.y)
        return np.where(wrong, labels[(at + shift) % labels.size], self.y)

    @validate_args({"max_moves": [Interval(Integral, 0, None, closed="left")]})
    def cluster_feedback(self, labels, max_moves=3):
        """Act as a person who sees the clustering ``labels`` would, largest cluster first.

        A cluster whose members the person takes (:meth:`perceived`) to share
        a label is marked "complete" when no other row has that label, else
        "pure"; a cluster with at most ``max_moves`` members of another label
        than most of its members has each of them moved: to the largest
        cluster where its label is the most common (None: none is), away
        from a member of the majority. A more mixed cluster is left to the
        questions. Feedback is not counted in ``n_queries``. With ``noise``
        the actions follow the misbeliefs, so they may contradict answers.

        Parameters
        ----------
        labels : array-like of shape (n_samples,)
            The clustering shown.
        max_moves : int, default=3
            Most items moved out of one cluster.

        Returns
        -------
        list of ClusterAction
            The actions, largest cluster first.

        Raises
        ------
        InvalidParameterError
            If ``labels`` has not one label per row of ``y`` or ``max_moves``
            is negative.
        """
        labels = np.asarray(labels)
        if labels.shape != self.y.shape:
            raise InvalidParameterError(f"The 'labels' argument of LabelOracle.cluster_feedback must have one label "
                                        f"per row ({self.y.size}), got shape {labels.shape}.")
        max_moves = int(max_moves)
        y = self.perceived()
        clusters, inverse, sizes = np.unique(labels, return_inverse=True, return_counts=True)
        members = [np.flatnonzero(inverse == c) for c in range(clusters.size)]
        majority = [_most_common(y[rows]) for rows in members]
        home = {}  # label -> largest cluster where it is the most common
        for c in np.argsort(-sizes, kind="stable"):
            home.setdefault(majority[c], c)
        actions = []
        for c in np.argsort(-sizes, kind="stable").tolist():
            rows, label = members[c], majority[c]
            odd = rows[y[rows] != label]
            if not odd.size:
                kind = "complete" if np.count_nonzero(y == label) == rows.size else "pure"
                actions.append(ClusterAction(kind, rows))
            elif odd.size <= max_moves:
                away = int(rows[y[rows] == label][0])
                for x in odd.tolist():
                    target = home.get(y[x])
                    to = None if target is None else int(members[target][y[members[target]] == y[x]][0])
                    actions.append(ClusterAction("move", np.array([x]), to, away))
        return actions

    def query(self, i, j):
        """Answer whether rows ``i`` and ``j`` belong together, and count the query.

        Parameters
        ----------
        i, j : int
            Two distinct row indices.

        Returns
        -------
        bool
            Whether the labels agree, flipped when :meth:`is_flipped` says so.

        Raises
        ------
        InvalidParameterError
            If an index is not a row of ``y`` or ``i == j``.
        """
        check_pair(i, j, self.y.size, "LabelOracle.query")
        self.n_queries += 1
        flipped = self.is_flipped(i, j)
        self.n_wrong += flipped
        return bool(self.y[i] == self.y[j]) != flipped


class CallbackOracle:
    """Oracle backed by your own function ``fn(i, j) -> True | False | None``.

    Parameters
    ----------
    fn : callable
        Called with two row indices; returns True (must-link), False
        (cannot-link) or None (don't know).

    Attributes
    ----------
    n_queries : int
        Questions answered so far.

    Examples
    --------
    >>> oracle = CallbackOracle(lambda i, j: (i % 2) == (j % 2))
    >>> oracle.query(0, 2), oracle.query(0, 1)
    (True, False)
    """

    @validate_args({"fn": [callable]})
    def __init__(self, fn):
        self.fn, self.n_queries = fn, 0

    def query(self, i, j):
        """Ask ``fn`` about ``(i, j)``, check its answer and count the query.

        Parameters
        ----------
        i, j : int
            Two row indices, passed to ``fn`` as given.

        Returns
        -------
        bool or None
            The callback's answer (NumPy bools become Python bools).

        Raises
        ------
        InvalidParameterError
            If ``fn`` returns anything but True, False or None.
        """
        answer = self.fn(i, j)
        if answer is not None and not isinstance(answer, (bool, np.bool_)):
            raise InvalidParameterError("The callback of CallbackOracle must return True, False or None, got "
                                        f"{answer!r} for ({i}, {j}).")
        self.n_queries += 1
        return None if answer is None else bool(answer)


def _most_common(values):
    """The most common value (the smallest on ties)."""
    uniq, counts = np.unique(values, return_counts=True)
    return uniq[np.argmax(counts)]
