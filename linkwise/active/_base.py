"""What every query strategy shares: the base class, ``collect``, and the neighbourhood look-up.

A strategy is a question generator, ``questions(ctx, n_clusters, fit_labels)``,
run by the shared loop (:mod:`linkwise.loop`) inside :class:`~linkwise.active.ActiveClustering`
or alone through :meth:`QueryStrategy.collect`; ``fit_labels()`` is the clustering of
the answers so far (iterative strategies such as NPU need it while they ask).
"""

import inspect
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone

from linkwise._validation import (
    Interval,
    InvalidParameterError,
    check_n_clusters,
    check_value,
    validate_args,
    validate_params,
)
from linkwise.cluster import MKMeans, MPCKMeans, PCKMeans
from linkwise.loop import ActiveEstimator

__all__ = ["QueryStrategy"]

# result of asking a point against every neighbourhood: cannot-linked to all of them
NEW = -1

CONSTRAINT_FORMS = ("auto", "answered", "closure")
# every implied pair adds penalty or metric evidence to these; a hard-constraint clusterer
# (COPKMeans) already works on the closure, and an unknown one gets what was answered
_CLOSURE_CLUSTERERS = (PCKMeans, MPCKMeans, MKMeans)


class QueryStrategy(BaseEstimator):
    """Base class of the query strategies in :mod:`linkwise.active`.

    Subclasses implement the generator ``questions`` and declare their
    parameters in ``_parameter_constraints`` (scikit-learn's table, checked
    before the strategy runs); ``_needs_clusterer = True``: the strategy
    re-clusters while it asks.
    """

    _needs_clusterer = False
    _parameter_constraints = {}

    def questions(self, ctx, n_clusters, fit_labels):
        raise NotImplementedError(f"{type(self).__name__} must implement questions(ctx, n_clusters, fit_labels)")

    @validate_args({**ActiveEstimator._parameter_constraints, "n_clusters": [Interval(Integral, 1, None, closed="left")]})
    def collect(self, X, oracle, *, n_clusters, max_queries=None, queryable=None, random_state=None):
        """Ask ``oracle`` the questions this strategy picks and return the answers.

        Through the shared loop: a pair whose relation is known or inferable
        is never asked, ``max_queries`` never exceeded. A strategy that
        re-clusters while asking (NPU) uses :class:`~linkwise.PCKMeans` on the
        closure here; :class:`~linkwise.active.ActiveClustering` takes others.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        oracle : Oracle
            Anything with ``query(i, j) -> True | False | None``.
        n_clusters : int
            Number of clusters the strategy looks for.
        max_queries : int or None, default=None
            Budget of questions (None: ask until the strategy is done).
        queryable : array-like of int or bool mask, optional
            Rows that may appear in a question (all rows by default).
        random_state : int, RandomState instance or None, default=None
            Seeds every random choice of the strategy.

        Returns
        -------
        ConstraintStore
            Every answer, with what follows from them.
        """
        clusterer = PCKMeans(n_clusters=n_clusters) if self._needs_clusterer else None
        run = _Collect(strategy=self, n_clusters=n_clusters, clusterer=clusterer, max_queries=max_queries,
                       random_state=random_state)
        return run.fit(X, oracle, queryable).constraints_


class ConstrainedFit:
    """A clone of ``clusterer`` refitted on the current answers, once per new answer.

    Unseeded, it is seeded from the run's generator: the same answers always
    give the same labels. ``constraints`` says which pairs it sees (see
    :class:`~linkwise.active.ActiveClustering`; a tolerant store's pair lists
    leave conflicts out). With ``on_infeasible="raise"`` (COPKMeans) and no
    clustering keeping every answer, it is refitted relaxed, with a warning,
    for the rest of the run: wrong answers must not cost every answer given.
    """

    def __init__(self, clusterer, ctx, constraints="auto"):
        template = clone(clusterer)
        if template.get_params().get("random_state", 0) is None:
            template.set_params(random_state=ctx.rng.randint(np.iinfo(np.int32).max))
        self.template, self.ctx, self.closure = template, ctx, constraint_form(clusterer, constraints) == "closure"
        self.fitted = self._key = None

    def labels(self):
        """Labels of every row from the clusterer fitted on the answers so far."""
        store = self.ctx.constraints
        key = (len(store), len(store.conflicts))  # a store only grows during one run
        if key != self._key:
            ml = store.must_link_pairs(closure=self.closure)
            cl = store.cannot_link_pairs(closure=self.closure)
            self.fitted = self._fit(ml, cl)
            self._key = key
        return np.asarray(self.fitted.labels_)

    def _fit(self, ml, cl):
        try:
            return clone(self.template).fit(self.ctx.X, ml=ml, cl=cl)
        except ValueError as error:
            if self.template.get_params().get("on_infeasible") != "raise":
                raise
            warnings.warn(f"{type(self.template).__name__} found no clustering that keeps all {len(ml)} must-links and "
                          f"{len(cl)} cannot-links ({error}); wrong answers can cause this. Refitted with "
                          "on_infeasible='relax' (the fewest cannot-links broken) for the rest of the run; pass "
                          "on_infeasible='relax' to the clusterer to silence this warning.", UserWarning, stacklevel=2)
            self.template.set_params(on_infeasible="relax")
            return clone(self.template).fit(self.ctx.X, ml=ml, cl=cl)


def constraint_form(clusterer, constraints):
    """Which pairs ``clusterer`` is given: ``"answered"`` or ``"closure"`` (``"auto"`` resolved)."""
    if constraints != "auto":
        return constraints
    return "closure" if isinstance(clusterer, _CLOSURE_CLUSTERERS) else "answered"


def check_clusterer(clusterer, owner):
    """A constrained clusterer: ``fit(X, ml=, cl=)`` and an int ``n_clusters`` parameter; return n_clusters."""
    params = clusterer.get_params() if hasattr(clusterer, "get_params") else {}
    fit = getattr(clusterer, "fit", None)
    if not callable(fit) or "n_clusters" not in params:
        raise InvalidParameterError(f"The 'clusterer' parameter of {owner} must be a constrained clusterer with fit(X, "
                                    "ml=, cl=) and an n_clusters parameter (e.g. linkwise.PCKMeans(n_clusters=3)), "
                                    f"got {type(clusterer).__name__}.")
    if not _takes_pairs(fit):
        raise InvalidParameterError(f"The 'clusterer' parameter of {owner} must take pairwise constraints, fit(X, ml=, "
                                    f"cl=), but {type(clusterer).__name__}.fit has no ml / cl arguments. Use a "
                                    "constrained clusterer (linkwise.PCKMeans, MPCKMeans, COPKMeans or MKMeans).")
    check_value(params["n_clusters"], [Interval(Integral, 1, None, closed="left")], "n_clusters", f"{owner}'s clusterer",
                role="parameter")
    return int(params["n_clusters"])


def _takes_pairs(fit):
    """Whether ``fit`` accepts ``ml=`` and ``cl=`` keywords (True when its signature cannot be read)."""
    try:
        params = inspect.signature(fit).parameters
    except (TypeError, ValueError):
        return True
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return all(name in params and params[name].kind is not inspect.Parameter.POSITIONAL_ONLY for name in ("ml", "cl"))


def run_strategy(strategy, ctx, n_clusters, fit_labels):
    """Validate a strategy's parameters and run its question generator."""
    validate_params(strategy)
    return strategy.questions(ctx, n_clusters, fit_labels)


class _Collect(ActiveEstimator):
    """Runs one strategy alone under the shared loop (what ``collect`` fits)."""

    def __init__(self, *, strategy, n_clusters, clusterer=None, max_queries=None, random_state=None):
        self.strategy, self.n_clusters, self.clusterer = strategy, n_clusters, clusterer
        self.max_queries, self.random_state = max_queries, random_state

    # the arguments of collect, checked there
    _parameter_constraints = dict.fromkeys(("strategy", "n_clusters", "clusterer", "max_queries", "random_state"),
                                           "no_validation")

    def check_params_vs_input(self, X):
        check_n_clusters(self.n_clusters, X.shape[0], f"{type(self.strategy).__name__}.collect")

    def questions(self, ctx):
        fit_labels = None if self.clusterer is None else ConstrainedFit(self.clusterer, ctx).labels
        yield from run_strategy(clone(self.strategy), ctx, self.n_clusters, fit_labels)


def ask_membership(x, order, anchors, complete):
    """Neighbourhood of ``x`` (``NEW``: none; None: undecided), asking it against each one's anchor.

    A generator for ``yield from``: neighbourhoods are tried in ``order``
    until a must-link. When ``complete`` (they cover every cluster), the last
    one left is concluded without a question, so at most K - 1 are asked.
    """
    n_no = 0
    for h in order:
        if complete and n_no == len(order) - 1:
            return int(h)
        answer = yield (int(x), int(anchors[h]))
        if answer:
            return int(h)
        n_no += answer is False
    return NEW if n_no == len(order) else None


def argbest(scores, candidates, rng):
    """Index of the largest score among ``candidates`` (bool mask), ties broken at random."""
    masked = np.where(candidates, scores, -np.inf)
    best = np.flatnonzero(masked == masked.max())
    return int(best[0] if best.size == 1 else rng.choice(best))
