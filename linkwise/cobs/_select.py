"""COBS: pick, among many unsupervised clusterings, the one that satisfies the most constraints."""

import hashlib
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from linkwise._validation import Interval, validate_params
from linkwise.cobs._generate import CANDIDATE_CONSTRAINTS, apply_noise, candidates_for, make_estimator
from linkwise.cobs._grid import FAMILIES, GridSpec
from linkwise.committee import sample_rows
from linkwise.graph import check_fit_input
from linkwise.prediction import NearestPoints, check_new_data, fitted_rows

# the weights of the committee that breaks ties: Active COBS's, with its default update factor
_UPDATE_FACTOR = 2.0
# a cluster holding fewer than this share of the rows is tiny (ties pass over degenerate clusterings)
_TINY = 0.02

__all__ = ["COBS", "satisfied", "agreement_matrix", "committee_weights", "TieBreak", "degenerate", "exact_dot", "refit"]


def satisfied(labels, ml, cl):
    """Number of must-links and cannot-links each clustering (row of ``labels``) satisfies."""
    together = (labels[:, ml[:, 0]] == labels[:, ml[:, 1]]).sum(axis=1)
    return together + (labels[:, cl[:, 0]] != labels[:, cl[:, 1]]).sum(axis=1)


_PROFILE_PAIRS = 10_000  # row pairs candidates are compared on, drawn with a fixed seed: not the caller's stream


def agreement_matrix(labels):
    """Measure how much every two clusterings agree.

    The correlation of their co-memberships (together 1, apart 0) on a fixed
    sample of row pairs, a chance-corrected agreement akin to the ARI: 7 MB
    and 0.3 CPU seconds for 931 candidates, whatever the number of rows. It
    is computed from counts of pairs (exact whatever the summation order),
    so that it is the same in every process and for every order of the
    candidates.

    Parameters
    ----------
    labels : ndarray of shape (n_clusterings, n_samples)
        One clustering per row.

    Returns
    -------
    ndarray of shape (n_clusterings, n_clusterings), dtype float64
        Symmetric; 0 where a clustering puts all or none of the sampled
        pairs together (its co-membership does not vary).
    """
    n = labels.shape[1]
    a, b = np.random.RandomState(0).randint(n, size=(2, _PROFILE_PAIRS))
    keep = a != b
    together = (labels[:, a[keep]] == labels[:, b[keep]]).astype(np.float32)
    both = (together @ together.T).astype(np.float64)  # whole numbers < 2 ** 24: exact in float32
    ones, m = together.sum(axis=1, dtype=np.float64), float(keep.sum())
    spread = m * ones - ones**2  # m ** 2 times the variance of each co-membership profile
    scale = np.sqrt(np.outer(spread, spread))
    return np.divide(m * both - np.outer(ones, ones), scale, out=np.zeros_like(scale), where=scale > 0)


def committee_weights(net, update_factor):
    """Active COBS's weights ``m ** net``, ``net`` = answers right - answers wrong, scaled to a largest of 1.

    A power of a float, not ``exp(net * log(m))``: with m = 2 the weights
    are exact, and equal nets always give equal weights."""
    net = np.asarray(net)
    return np.power(float(update_factor), (net - net.max()).astype(np.float64))


def degenerate(labels):
    """Whether each clustering (row of ``labels``) is degenerate: fewer than two clusters of at least ``_TINY`` of
    the rows, or more clusters below that size than above it (one or two clusters beside singletons of noise)."""
    n_cand, n = labels.shape
    shift = labels.astype(np.int64) - labels.min(axis=1, keepdims=True)
    codes, sizes = np.unique(shift + np.arange(n_cand)[:, None] * (int(shift.max()) + 1), return_counts=True)
    owner = codes // (int(shift.max()) + 1)
    tiny = np.bincount(owner, weights=sizes < _TINY * n, minlength=n_cand)
    sound = np.bincount(owner, minlength=n_cand) - tiny
    return (sound < 2) | (tiny > sound)


# agreement in [-1, 1] as whole numbers of 2 ** -36: any sum of up to 2 ** 17 of them is exact in float64
_FIXED = 2.0**36
# a float matrix-vector product is off by far less than this share of the sum of its weights
_NEAR = 1e-6


def exact_dot(values, weights):
    """``values @ weights`` for whole-number ``values`` (sums below 2 ** 53), the same in every process and order.

    A matrix product sums in an order that hangs on the BLAS kernel, the
    number of threads and the memory alignment, so equal results can come
    out unequal in the last bit. Here the values are summed exactly for
    each distinct weight (a product with a 0/1 matrix, exact in any order),
    then those sums weighted and added in the order of the weights. Active
    COBS's weights ``m ** (right - wrong)`` take few distinct values."""
    levels, level = np.unique(weights, return_inverse=True)
    sums = values @ (level[:, None] == np.arange(levels.size)).astype(np.float64)
    out = np.zeros(values.shape[0])
    for weight, total in zip(levels, sums.T):
        out += weight * total
    return out


class TieBreak:
    """The choice among the most satisfying candidates of one candidate set (what it needs is computed once).

    Few constraints leave many candidates tied. Fewer clusters would pick
    degenerate partitions (a large cluster beside tiny ones). Ties go to the
    candidate whose co-memberships agree most with the committee's
    (:func:`agreement_matrix`, weighted as Active COBS weighs its
    committee). That consensus prefers what many candidates resemble, and
    the grid holds many near copies of some degenerate partitions (DBSCAN's
    one or two clusters and singletons of noise at neighbouring eps and
    minPts): it is taken among the tied candidates that are not
    :func:`degenerate`, among all of them if every one is
    (benchmarks/results/cobs.md, section 5). The consensus is summed exactly
    and equal consensus goes to the partition first in a fixed order of
    partitions, so the chosen clustering depends neither on the order of
    the candidates nor on the BLAS.

    Parameters
    ----------
    labels : ndarray of shape (n_candidates, n_samples)
    """

    def __init__(self, labels):
        self.agreement = agreement_matrix(labels)
        self._fixed = np.rint(self.agreement * _FIXED)
        self.flagged = degenerate(labels)
        keys = [hashlib.blake2b(_canonical(lab), digest_size=16).digest() for lab in labels]
        rank = {key: r for r, key in enumerate(sorted(set(keys)))}
        self._rank = np.array([rank[key] for key in keys])  # equal partitions, equal rank

    def best(self, scores, weights):
        """Index of the chosen candidate, given each one's ``scores`` (constraints satisfied) and committee ``weights``."""
        top = np.flatnonzero(scores == scores.max())
        sound = top[~self.flagged[top]]
        top = sound if sound.size else top
        consensus = self.agreement[top] @ weights
        near = top[consensus >= consensus.max() - _NEAR * np.abs(weights).sum()]
        # copies of one partition agree alike: each partition is computed once, the first copy standing for it
        first = np.unique(self._rank[near], return_index=True)[1]
        exact = exact_dot(self._fixed[near[first]], weights) if first.size > 1 else np.zeros(1)
        return int(near[first][np.argmax(exact)])  # ranks ascend: ties go to the first partition


def _canonical(labels):
    """The partition as bytes, clusters numbered in order of first appearance: equal for equal partitions."""
    values, first = np.unique(labels, return_index=True)
    rank = np.empty(values.size, dtype=np.int32)
    rank[np.argsort(first)] = np.arange(values.size, dtype=np.int32)
    return rank[np.searchsorted(values, labels)].tobytes()


def refit(X, params, dbscan_noise):
    """Labels of the chosen configuration fitted on all of ``X`` (the large-data path)."""
    return apply_noise(make_estimator(params).fit(X).labels_, dbscan_noise)[0]


class COBS(ClusterMixin, BaseEstimator):
    """Constraint-based selection: the unsupervised clustering that satisfies the most constraints.

    COBS clusters the data with K-means, DBSCAN and spectral clustering over a
    grid of their parameters (:func:`linkwise.cobs.generate`) and returns the
    candidate that satisfies the largest number of the given must-link and
    cannot-link constraints. Ties (common with few constraints) go to the
    candidate that agrees most with the others, weighted as Active COBS
    weighs its committee (``2 ** (right - wrong)``), among the tied ones that
    are not degenerate (fewer than two clusters of at least 2 % of the rows,
    or more clusters below that size than above it, as one or two clusters
    beside singletons of DBSCAN noise); the choice does not depend on the
    order of the candidates. The
    constraints choose the algorithm and its parameters (K included); they are
    not used inside any algorithm, and contradicting (noisy) constraints are
    simply counted.

    Parameters
    ----------
    algorithms : sequence of {"kmeans", "dbscan", "spectral"}, default=all three
        Algorithm families to generate candidates with.
    grid : dict, optional
        ``{family: {parameter: values}}`` overriding the paper's grid (Table 2,
        931 clusterings: :func:`linkwise.cobs.paper_grid`).
    dbscan_noise : {"singletons", "cluster"}, default="singletons"
        DBSCAN noise points each form their own cluster (as in the paper), or
        all of them one cluster.
    max_samples : int, default=20000
        With more rows than this, candidates are generated and selected on a
        sample of this many rows (every constrained row included), and the
        chosen configuration is fitted on all rows, as the paper suggests.
    n_jobs : int, optional
        The joblib parallelism of the generation (``-1``: every core; any joblib
        backend, e.g. Dask).
    cache : str or path, optional
        Directory where generated candidates are stored for later processes
        (within one, an in-memory memo: :func:`linkwise.cobs.generate`).
    random_state : int, RandomState instance or None
        Seeds the K-means and spectral runs (and the sample on large data).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The selected clustering.
    best_, best_index_ : dict, int
        Algorithm and parameters of the selected clustering
        (:func:`linkwise.cobs.make_estimator` rebuilds it), its index in ``candidates_``.
    scores_ : ndarray of shape (n_candidates,)
        Constraints satisfied by each candidate.
    candidates_ : Candidates
        Every generated clustering (``labels``, int32 ``(n_candidates, n)``)
        and its parameters (``params``, ``to_frame()``).
    sample_indices_ : ndarray or None
        The rows candidates were generated on, or None when all rows were used.
    n_features_in_ : int

    References
    ----------
    Van Craenendonck, T. and Blockeel, H. (2017). Constraint-based clustering
    selection. Machine Learning, 106(9-10), 1497-1521.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> grid = {"kmeans": {"n_clusters": [2, 3, 4], "n_seeds": 2},
    ...         "dbscan": {"eps": 5, "min_samples": [4]}}
    >>> cobs = lw.COBS(algorithms=["kmeans", "dbscan"], grid=grid, random_state=0)
    >>> cobs = cobs.fit(X, ml=[(0, 1), (60, 70)], cl=[(0, 100), (50, 120), (55, 110)])
    >>> cobs.best_["algorithm"], cobs.best_["n_clusters"], int(cobs.scores_.max())
    ('kmeans', 3, 4)
    """

    def __init__(self, *, algorithms=FAMILIES, grid=None, dbscan_noise="singletons", max_samples=20_000, n_jobs=None,
                 cache=None, random_state=None):
        self.algorithms, self.grid, self.dbscan_noise, self.max_samples = algorithms, grid, dbscan_noise, max_samples
        self.n_jobs, self.cache, self.random_state = n_jobs, cache, random_state

    _parameter_constraints = {
        **CANDIDATE_CONSTRAINTS,
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def fit(self, X, y=None, *, ml=None, cl=None):
        """Generate the candidates and select the one that satisfies the most constraints.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : None
            Ignored (scikit-learn convention).
        ml, cl : sequence of (int, int), optional
            Must-link and cannot-link pairs of row indices.

        Returns
        -------
        self
            The fitted estimator.
        """
        owner = type(self).__name__
        validate_params(self)
        spec = GridSpec(self.algorithms, self.grid, owner)
        X, ml, cl = check_fit_input(self, X, y, ml, cl)
        rng = check_random_state(self.random_state)
        n, rows = X.shape[0], None
        if n > self.max_samples:
            constrained = np.unique(np.concatenate([ml.ravel(), cl.ravel()]))
            rows = sample_rows(n, constrained, max(self.max_samples, constrained.size), rng)
            local = np.full(n, -1, dtype=np.intp)
            local[rows] = np.arange(rows.size)
            ml, cl = local[ml], local[cl]
        data = X if rows is None else X[rows]
        self.candidates_ = cands = candidates_for(data, spec, self.dbscan_noise, self.n_jobs, self.cache, rng, owner)
        self.sample_indices_ = rows
        self.scores_ = satisfied(cands.labels, ml, cl)
        weights = committee_weights(2 * self.scores_ - len(ml) - len(cl), _UPDATE_FACTOR)
        self.best_index_ = TieBreak(cands.labels).best(self.scores_, weights)
        self.best_ = dict(cands.params[self.best_index_])
        self.labels_ = cands.labels[self.best_index_].copy()
        if rows is not None:
            self.labels_ = refit(X, self.best_, self.dbscan_noise)
        kept = fitted_rows(n)
        self._predictor = NearestPoints(X[kept], self.labels_[kept], kept)
        return self

    def predict(self, X):
        """Predict the cluster of each new item: the label of its nearest fitted row (:mod:`linkwise.prediction`).

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            New data, with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_new,)
            The cluster of each new item.
        """
        X = check_new_data(self, X)
        return self._predictor.predict(X)
