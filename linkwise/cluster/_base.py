"""What every clusterer of the constrained k-means family shares.

Parameter and data checks, the k-means++ seeding (which can also *complete* a
set of centres chosen from the constraints), the Lloyd iteration skeleton, the
choice of the best of ``n_init`` runs, and ``predict``.
"""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from linkwise._docstrings import fill_placeholders
from linkwise._validation import (
    Interval,
    check_data,
    check_n_clusters,
    check_y_ignored,
    magnitude_scale,
    owner_name,
    validate_params,
)
from linkwise.graph import check_constraints


class _Run(NamedTuple):
    """The outcome of one initialisation: what ``fit`` keeps from the best run."""

    labels: np.ndarray
    centers: np.ndarray
    objective: float
    n_iter: int
    state: object = None  # method-specific extras (learned metrics, ...)
    score: object = None  # what the best run minimises, when not the objective alone


def sq_distances(X, x_sq, centers):
    """Squared Euclidean distances ``(n_samples, n_clusters)``, clipped at 0."""
    d = x_sq[:, None] - 2.0 * (X @ centers.T) + np.einsum("ij,ij->i", centers, centers)[None, :]
    return np.maximum(d, 0.0, out=d)


def inertia(X, labels, centers):
    """Sum of squared distances of the rows of ``X`` to their centres."""
    residual = X - centers[labels]
    return float(np.einsum("ij,ij->", residual, residual))


def one_hot(labels, n_clusters):
    """Sparse ``(n_clusters, n_samples)`` membership matrix: ``one_hot @ X`` sums each cluster."""
    n = labels.size
    # built directly in CSC form (one entry per column): no COO conversion, no sorting
    return sp.csc_matrix((np.ones(n), labels, np.arange(n + 1)), shape=(n_clusters, n))


def update_centers(X, labels, old_centers):
    """Cluster means; an empty cluster keeps its previous centre."""
    n_clusters = old_centers.shape[0]
    counts = np.bincount(labels, minlength=n_clusters)
    sums = one_hot(labels, n_clusters) @ X
    centers = old_centers.copy()
    full = counts > 0
    centers[full] = sums[full] / counts[full, None]
    return centers


def mean_update(X):
    """The k-means update step for :func:`lloyd`: ``(labels, old_centers) -> cluster means``."""
    return lambda labels, old_centers: update_centers(X, labels, old_centers)


def kmeans_plusplus(X, x_sq, n_clusters, rng, centers=None):
    """Greedy k-means++ seeding of ``n_clusters`` centres, completing the (m, d) ``centers`` already chosen.

    Each new centre is the best of ``2 + log(n_clusters)`` candidates drawn
    in proportion to the squared distance (``x_sq``: squared row norms) to the nearest
    chosen centre, as scikit-learn's ``kmeans_plusplus`` does.
    """
    n = X.shape[0]
    chosen = [] if centers is None else list(centers)
    if len(chosen) >= n_clusters:
        return np.asarray(chosen[:n_clusters], dtype=float)
    if not chosen:
        chosen.append(X[rng.randint(n)])
    closest = sq_distances(X, x_sq, np.asarray(chosen)).min(axis=1)
    n_trials = 2 + int(np.log(n_clusters))
    while len(chosen) < n_clusters:
        total = closest.sum()
        if total <= 0:  # every point sits on a centre: any point will do
            candidates = rng.randint(n, size=n_trials)
        else:
            cum = np.cumsum(closest)
            candidates = np.minimum(np.searchsorted(cum, rng.uniform(size=n_trials) * total), n - 1)
        trial = np.minimum(closest[:, None], sq_distances(X, x_sq, X[candidates]))
        best = int(np.argmin(trial.sum(axis=0)))
        closest = trial[:, best]
        chosen.append(X[candidates[best]])
    return np.asarray(chosen, dtype=float)


def lloyd(assign, update, centers, max_iter, tol):
    """``(labels, centers, n_iter)`` of alternating ``assign(centers)`` and ``update(labels, centers)``.

    Stops, as ``KMeans``, once the labels repeat or the centres shift less than ``tol`` (summed squares);
    None when ``assign`` returns None (no feasible assignment: the run is abandoned).
    """
    labels = None
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - the count is returned after the loop
        new_labels = assign(centers)
        if new_labels is None:
            return None
        new_centers = update(new_labels, centers)
        shift = float(((new_centers - centers) ** 2).sum())
        converged = labels is not None and np.array_equal(labels, new_labels)
        labels, centers = new_labels, new_centers
        if converged or shift <= tol:
            break
    return labels, centers, n_iter


def _score(run):
    return run.objective if run.score is None else run.score


# numpydoc entries the family shares, filled into every subclass's docstring by KMeansFamily
_SHARED_DOC = {
    "{n_clusters}": """n_clusters : int, default=8
        Number of clusters.""",
    "{runs}": """n_init : int, default=1
        Number of runs (each with its own visiting order and k-means++
        completion); the one with the lowest objective is kept.
    {max_iter}
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the assignment order.""",
    "{labels}": """labels_ : ndarray of shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)""",
    "{max_iter}": """max_iter : int, default=100
        Maximum number of assignment / update rounds per run.
    tol : float, default=1e-4
        Convergence threshold on the squared movement of the centres,
        relative to the mean feature variance (as in ``KMeans``).""",
    "{thesis}": """J. Švehla. Active semi-supervised clustering. Master's thesis, Czech
    Technical University in Prague, 2018""",
    "{scale}": """scale_ : float
        The power of two ``X`` was divided by to fit: 1.0 unless its
        magnitude would overflow or underflow squared distances (see
        ``linkwise.cluster._base.KMeansFamily``).""",
}


class KMeansFamily(ClusterMixin, BaseEstimator):
    """Base class: checks, best-of-``n_init`` and ``predict`` for the k-means family.

    Subclasses write ``fit`` (``_start``, then ``_fit_runs``), add their
    parameters to ``_parameter_constraints`` and may override
    ``_point_costs(X, centers)`` (used by ``predict``).
    The keys of ``_SHARED_DOC`` in their docstrings become shared numpydoc entries.

    Data whose magnitude would overflow or underflow squared distances is
    fitted divided by the power of two ``scale_`` (1.0 for ordinary data;
    :func:`~linkwise._validation.magnitude_scale`): ``cluster_centers_`` and
    ``inertia_`` are given in the data's units, while ``objective_``, learned
    metrics and constraint weights refer to ``X / scale_``.
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }
    _doc_parts = {}  # more placeholders a subclass's docstring shares, filled in before those above

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = fill_placeholders(cls.__doc__, {**cls._doc_parts, **_SHARED_DOC})

    def __init__(self, n_clusters=8, *, n_init=1, max_iter=100, tol=1e-4, random_state=None):
        self.n_clusters, self.n_init, self.max_iter, self.tol = n_clusters, n_init, max_iter, tol
        self.random_state = random_state

    def _start(self, X):
        """Validate parameters and data; return ``(X / scale_, rng)`` (the one generator of this fit)."""
        validate_params(self)
        X = check_data(X, self, validate=True, ensure_min_samples=1)
        self._check_params_vs_input(X)
        self.scale_ = magnitude_scale(X)
        return (X if self.scale_ == 1.0 else X / self.scale_), check_random_state(self.random_state)

    def _check_params_vs_input(self, X):
        """The checks of the parameters against the data: no more clusters than rows."""
        check_n_clusters(self.n_clusters, X.shape[0], self)

    def _fit_runs(self, X, rng, run, *args):
        """Fit the best (lowest score) of ``n_init`` runs ``run(X, x_sq, tol, rng, *args)``; None if all failed."""
        x_sq = np.einsum("ij,ij->i", X, X)
        tol = self.tol * float(np.mean(np.var(X, axis=0)))  # relative to the data's spread, as in KMeans
        best = None
        for _ in range(self.n_init):
            result = run(X, x_sq, tol, rng, *args)
            if result is not None and (best is None or _score(result) < _score(best)):
                best = result
        if best is not None:
            self._set_fitted(X, best)
        return best

    def _set_fitted(self, X, result):
        self.labels_ = result.labels.astype(np.intp)
        self.cluster_centers_ = result.centers * self.scale_  # in the units of the data given
        self.n_iter_ = result.n_iter
        self.objective_ = float(result.objective)
        self.inertia_ = inertia(X, self.labels_, result.centers) * self.scale_ * self.scale_

    def predict(self, X):
        """Assign new points, which carry no constraints, to their cheapest cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data, with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Index of each point's cluster.
        """
        check_is_fitted(self)
        X = check_data(X, self, validate=True, reset=False)
        centers = self.cluster_centers_
        if self.scale_ != 1.0:  # the costs refer to the data as fitted
            X, centers = X / self.scale_, centers / self.scale_
        return np.argmin(self._point_costs(X, centers), axis=1).astype(np.intp)

    def _point_costs(self, X, centers):
        return sq_distances(X, np.einsum("ij,ij->i", X, X), centers)


class PairwiseKMeans(KMeansFamily):
    """Base class of the clusterers that take must-link / cannot-link pairs; subclasses write ``_fit``."""

    def fit(self, X, y=None, *, ml=None, cl=None):
        """Cluster ``X`` under must-link pairs ``ml`` and cannot-link pairs ``cl``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : None
            Ignored, as by scikit-learn's clusterers.
        ml, cl : array-like of shape (n_pairs, 2), optional
            Row-index pairs that must (``ml``) or must not (``cl``) share a
            cluster: hard rules for COPKMeans, costs or metric evidence for
            the others.

        Returns
        -------
        self
            The fitted estimator.
        """
        check_y_ignored(y, self)
        X, rng = self._start(X)
        self._fit(X, *check_constraints(ml, cl, X.shape[0], f"{owner_name(self)}.fit"), rng)
        return self
