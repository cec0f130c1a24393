"""Oracles answer questions about pairs: must-link (True), cannot-link (False) or don't know (None)."""

from typing import Protocol, runtime_checkable

import numpy as np
from sklearn.utils import check_random_state

from linkwise._validation import InvalidParameterError, check_scalar
from linkwise.graph import check_pair, pair_key

__all__ = ["Oracle", "LabelOracle", "CallbackOracle"]


@runtime_checkable
class Oracle(Protocol):
    """Anything with ``query(i, j)`` returning True (same cluster), False (different) or None (don't know)."""

    def query(self, i: int, j: int) -> bool | None: ...


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
    """

    def __init__(self, y, noise=0.0, random_state=None):
        self.y = y = np.asarray(y)
        if y.ndim != 1 or y.size < 2:
            raise InvalidParameterError("The 'y' argument of LabelOracle must be a 1-D array of at least 2 labels, "
                                        f"got shape {y.shape}.")
        self.noise = check_scalar(noise, "noise", "LabelOracle", kind="float", low=0.0, high=1.0)
        # one integer seed: the flip of pair (i, j) is a pure function of (seed, i, j)
        self._seed = int(check_random_state(random_state).randint(2**31 - 1))
        self.n_queries = self.n_wrong = 0

    def is_flipped(self, i, j):
        """Whether the answer about ``(i, j)`` is flipped by noise (without counting a query)."""
        return self.noise != 0.0 and bool(np.random.default_rng([self._seed, *pair_key(i, j)]).random() < self.noise)

    def query(self, i, j):
        """Answer whether rows ``i`` and ``j`` belong together."""
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

    Examples
    --------
    >>> oracle = CallbackOracle(lambda i, j: (i % 2) == (j % 2))
    >>> oracle.query(0, 2), oracle.query(0, 1)
    (True, False)
    """

    def __init__(self, fn):
        if not callable(fn):
            raise InvalidParameterError(f"The 'fn' argument of CallbackOracle must be callable, got {fn!r}.")
        self.fn, self.n_queries = fn, 0

    def query(self, i, j):
        """Ask ``fn`` about ``(i, j)`` and check its answer."""
        answer = self.fn(i, j)
        if answer is not None and not isinstance(answer, (bool, np.bool_)):
            raise InvalidParameterError("The callback of CallbackOracle must return True, False or None, got "
                                        f"{answer!r} for ({i}, {j}).")
        self.n_queries += 1
        return None if answer is None else bool(answer)
