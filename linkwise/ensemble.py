"""Co-association from an ensemble of k-means runs, and constraints imputed from it.

An ensemble of base clusterings, each fitted on a random subsample of the
rows, tells how often two points land in the same cluster: their
*co-association*. Pairs almost always together are likely must-links, pairs
never together likely cannot-links (the :class:`~linkwise.active.Committee`
strategy). Every clustering is one column of integer codes, so the
co-association of a point with a group is a histogram look-up: only
:func:`coassociation` builds the dense ``(n, n)`` matrix.

D. Greene and P. Cunningham. Constraint selection by committee: an ensemble
approach to identifying informative constraints for semi-supervised
clustering. European Conference on Machine Learning (ECML), 2007, LNAI 4701.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_random_state

from linkwise._validation import Interval, InvalidParameterError, check_n_clusters, validate_args
from linkwise.graph import components

# the arguments of coassociation and ensemble_labels (Committee's table declares the same as parameters)
_ENSEMBLE_CONSTRAINTS = {"n_clusters": [Interval(Integral, 1, None, closed="left")],
                         "n_estimators": [Interval(Integral, 1, None, closed="left")],
                         "sample_fraction": [Interval(Real, 0, 1, closed="right")]}

__all__ = ["coassociation", "impute_constraints", "ensemble_labels", "flat_codes", "agreement", "imputed_neighbourhoods"]

# rows of unique ensemble signatures compared per block when finding imputed neighbourhoods
_BLOCK = 512


@validate_args(_ENSEMBLE_CONSTRAINTS)
def coassociation(X, n_clusters, *, n_estimators=100, sample_fraction=0.8, random_state=None):
    """Co-association matrix of an ensemble of k-means clusterings on subsamples.

    Each of ``n_estimators`` k-means runs (random initialisation) clusters a
    random ``sample_fraction`` of the rows, drawn without replacement; the
    rows left out are assigned to their nearest centroid. Entry ``A[i, j]`` is
    the fraction of runs that put ``i`` and ``j`` in the same cluster.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    n_clusters : int
        Clusters per k-means run (usually the number of classes wanted).
    n_estimators : int, default=100
        Number of base clusterings.
    sample_fraction : float, default=0.8
        Fraction of the rows each base clustering is fitted on, in (0, 1].
    random_state : int, RandomState instance or None, default=None
        Seeds the subsamples and every k-means run.

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
        Symmetric, values in [0, 1], ones on the diagonal. Dense: memory grows
        as ``n_samples ** 2``.

    See Also
    --------
    impute_constraints : Threshold the matrix into must-link and cannot-link pairs.

    References
    ----------
    D. Greene and P. Cunningham, ECML 2007 (see :mod:`linkwise.ensemble`).

    Examples
    --------
    >>> import linkwise as lw
    >>> from sklearn.datasets import make_blobs
    >>> X, y = make_blobs(60, centers=3, cluster_std=0.5, random_state=0)
    >>> A = lw.ensemble.coassociation(X, 3, n_estimators=20, random_state=0)
    >>> A.shape
    (60, 60)
    >>> same = y[:, None] == y[None, :]
    >>> round(float(A[same].mean()), 2), round(float(A[~same].mean()), 2)  # some runs split a blob
    (0.98, 0.03)
    """
    codes = ensemble_labels(X, n_clusters, n_estimators, sample_fraction, random_state, owner="coassociation")
    flat, n_codes = flat_codes(codes)
    onehot = _onehot(flat, n_codes)
    return (onehot @ onehot.T).astype(np.float64) / codes.shape[1]


@validate_args({"kappa_ml": [Interval(Real, 0, 1, closed="both")], "kappa_cl": [Interval(Real, 0, 1, closed="both")]})
def impute_constraints(A, kappa_ml=0.98, kappa_cl=0.0):
    """Guess constraints from a co-association matrix by thresholding it.

    A pair with ``A[i, j] >= kappa_ml`` becomes a must-link, one with
    ``A[i, j] <= kappa_cl`` a cannot-link; pairs in between are left
    uncertain. Conservative thresholds give few but precise constraints.

    Parameters
    ----------
    A : array-like of shape (n_samples, n_samples)
        Co-association values in [0, 1], e.g. from :func:`coassociation`.
    kappa_ml : float, default=0.98
        Least co-association of an imputed must-link.
    kappa_cl : float, default=0.0
        Greatest co-association of an imputed cannot-link; must be below
        ``kappa_ml``.

    Returns
    -------
    ml : ndarray of shape (n_pairs, 2)
        Imputed must-link pairs ``(i, j)`` with ``i < j``, in row-major
        order. Only the upper triangle of ``A`` is read.
    cl : ndarray of shape (n_pairs, 2)
        Imputed cannot-link pairs, in the same form.

    Raises
    ------
    InvalidParameterError
        If a threshold is outside [0, 1], ``kappa_cl >= kappa_ml``, or ``A``
        is not square or has values outside [0, 1].

    References
    ----------
    D. Greene and P. Cunningham, ECML 2007 (see :mod:`linkwise.ensemble`).

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise.ensemble import impute_constraints
    >>> A = np.array([[1.0, 0.99, 0.0], [0.99, 1.0, 0.5], [0.0, 0.5, 1.0]])
    >>> ml, cl = impute_constraints(A, kappa_ml=0.98, kappa_cl=0.0)
    >>> ml.tolist(), cl.tolist()
    ([[0, 1]], [[0, 2]])
    """
    owner = "impute_constraints"
    kappa_ml, kappa_cl = float(kappa_ml), float(kappa_cl)
    if kappa_cl >= kappa_ml:  # a relation of two arguments, beyond what the table states
        raise InvalidParameterError(f"The 'kappa_cl' argument of {owner} must be below kappa_ml={kappa_ml!r}, got "
                                    f"{kappa_cl!r}.")
    A = check_array(A, dtype=np.float64, input_name="A")
    if A.shape[0] != A.shape[1]:
        raise InvalidParameterError(f"The 'A' argument of {owner} must be a square co-association matrix, got shape "
                                    f"{A.shape}.")
    if A.min() < 0.0 or A.max() > 1.0:
        raise InvalidParameterError(f"The 'A' argument of {owner} must hold co-association values in [0, 1], "
                                    f"got values in [{A.min():g}, {A.max():g}].")
    ml = np.argwhere(np.triu(A >= kappa_ml, k=1))
    cl = np.argwhere(np.triu(A <= kappa_cl, k=1))
    return ml.astype(np.intp), cl.astype(np.intp)


# -- ensemble codes, shared with the query strategies (Committee, NPU) -------------
@validate_args(_ENSEMBLE_CONSTRAINTS)
def ensemble_labels(X, n_clusters, n_estimators=100, sample_fraction=0.8, random_state=None, owner="ensemble_labels"):
    """Run the base clusterings of :func:`coassociation`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data, at least two rows.
    n_clusters : int
        Clusters per k-means run, in ``[1, n_samples]``.
    n_estimators : int, default=100
        Number of base clusterings.
    sample_fraction : float, default=0.8
        Fraction of the rows each base clustering is fitted on, in (0, 1];
        never fewer rows than ``n_clusters``.
    random_state : int, RandomState instance or None, default=None
        Seeds the subsamples and every k-means run.
    owner : str, default="ensemble_labels"
        The caller, named in error messages.

    Returns
    -------
    ndarray of shape (n_samples, n_estimators), dtype int32
        Column ``t`` holds every row's nearest centroid in run ``t``.

    Raises
    ------
    InvalidParameterError
        If ``n_clusters``, ``n_estimators`` or ``sample_fraction`` is out of
        range.

    Examples
    --------
    >>> from linkwise.ensemble import ensemble_labels
    >>> codes = ensemble_labels([[0.0], [0.1], [5.0], [5.1]], 2, n_estimators=3, random_state=0)
    >>> codes.shape, bool((codes[0] == codes[1]).all())
    ((4, 3), True)
    """
    X = check_array(X, dtype=np.float64, ensure_min_samples=2, input_name="X")
    rng = check_random_state(random_state)
    n = X.shape[0]
    check_n_clusters(n_clusters, n, owner, role="argument")
    n_clusters, n_estimators, sample_fraction = int(n_clusters), int(n_estimators), float(sample_fraction)
    size = max(n_clusters, int(round(sample_fraction * n)))
    codes = np.empty((n, n_estimators), dtype=np.int32)
    with warnings.catch_warnings():
        # a sample of fewer distinct points than n_clusters has fewer clusters: a fact of the data that the
        # coassociation records, not one warning per member (a hundred on duplicated rows)
        warnings.simplefilter("ignore", ConvergenceWarning)
        for t in range(n_estimators):
            rows = rng.choice(n, size, replace=False)
            km = KMeans(n_clusters, init="random", n_init=1, random_state=rng.randint(np.iinfo(np.int32).max))
            codes[:, t] = km.fit(X[rows]).predict(X)  # nearest centroid for every row, sampled or not
    return codes


def flat_codes(codes):
    """Shift each column's codes into its own id range, so that all columns share one histogram.

    Parameters
    ----------
    codes : array-like of shape (n_samples, n_columns)
        Non-negative integer codes, one clustering (or tree) per column.

    Returns
    -------
    flat : ndarray of shape (n_samples, n_columns), dtype intp
        The shifted codes, column-major so that row sums run over contiguous
        memory.
    n_codes : int
        Number of ids over all columns.

    Examples
    --------
    >>> from linkwise.ensemble import flat_codes
    >>> flat, n_codes = flat_codes([[0, 1], [1, 0], [1, 1]])
    >>> flat.tolist(), n_codes
    ([[0, 3], [1, 2], [1, 3]], 4)
    """
    codes = np.asarray(codes)
    width = codes.max(axis=0).astype(np.int64) + 1
    offsets = np.concatenate([[0], np.cumsum(width)[:-1]])
    return np.asfortranarray(codes + offsets, dtype=np.intp), int(width.sum())


def agreement(flat, n_codes, members, rows=None):
    """Count, for each row, its code agreements with a group of rows.

    Linear in ``len(rows) * n_columns``. Divided by
    ``n_columns * len(members)``, the counts are each row's mean
    co-association with the group (a forest's leaf ids work the same way).

    Parameters
    ----------
    flat : ndarray of shape (n_samples, n_columns)
        Shifted codes from :func:`flat_codes`.
    n_codes : int
        Number of ids, from :func:`flat_codes`.
    members : array-like of int
        Row indices of the group.
    rows : array-like of int, default=None
        The rows to score; None scores every row.

    Returns
    -------
    ndarray of int
        For each scored row, the number of (member, column) pairs whose code
        equals the row's code in that column.

    Examples
    --------
    >>> from linkwise.ensemble import agreement, flat_codes
    >>> flat, n_codes = flat_codes([[0, 1], [1, 0], [1, 1]])
    >>> agreement(flat, n_codes, [0]).tolist()  # row 0 agrees with itself twice, with row 2 once
    [2, 0, 1]
    """
    members = np.asarray(members)
    target = flat if rows is None else flat[rows]
    if members.size == 1:  # the hot path of growing a cluster: comparing beats a histogram look-up
        return (target == flat[members[0]]).sum(axis=1)
    return np.bincount(flat[members].ravel(), minlength=n_codes)[target].sum(axis=1)


def _onehot(flat, n_codes):
    """Dense float32 indicator matrix of the codes: rows dot rows = agreement counts."""
    onehot = np.zeros((flat.shape[0], n_codes), dtype=np.float32)
    np.put_along_axis(onehot, flat, 1.0, axis=1)
    return onehot


def imputed_neighbourhoods(flat, n_codes, kappa_ml):
    """Label every row by its component under the transitive closure of imputed must-links.

    Equal to the connected components of ``impute_constraints(A, kappa_ml)``'s
    must-links, without the ``(n, n)`` matrix: rows with identical codes are
    merged first (they co-associate fully), then unique code rows are compared
    block by block and joined through a running component labelling.

    Parameters
    ----------
    flat : ndarray of shape (n_samples, n_columns)
        Shifted codes from :func:`flat_codes`.
    n_codes : int
        Number of ids, from :func:`flat_codes`.
    kappa_ml : float
        Least co-association of an imputed must-link.

    Returns
    -------
    ndarray of shape (n_samples,)
        Component labels, numbered as :func:`linkwise.graph.components` does
        over the unique code rows.

    Examples
    --------
    >>> from linkwise.ensemble import flat_codes, imputed_neighbourhoods
    >>> flat, n_codes = flat_codes([[0, 1], [1, 0], [1, 1]])
    >>> imputed_neighbourhoods(flat, n_codes, 0.5).tolist()  # 0 and 1 each agree with 2 on half the runs
    [0, 0, 0]
    """
    n_columns = flat.shape[1]
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    u = unique.shape[0]
    onehot = _onehot(unique, n_codes)
    nodes = np.arange(u)
    root = nodes  # a representative node of each node's component so far
    labels = nodes
    for start in range(0, u, _BLOCK):
        stop = min(start + _BLOCK, u)
        counts = onehot[start:stop] @ onehot[start:].T  # each pair (i, j >= i) once
        r, c = np.nonzero(counts.astype(np.float64) / n_columns >= kappa_ml)
        # this block's edges plus a star joining every node to its representative
        edges = np.column_stack([np.r_[r + start, nodes], np.r_[c + start, root]])
        n_comp, labels = components(edges, u)
        first = np.empty(n_comp, dtype=np.intp)
        first[labels[::-1]] = nodes[::-1]  # smallest node of each component
        root = first[labels]
    return labels[inverse.ravel()]
