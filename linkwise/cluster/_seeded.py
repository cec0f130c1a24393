"""SeededKMeans and ConstrainedKMeans: k-means guided by partial labels (Basu et al. 2002)."""

import numbers

import numpy as np

from linkwise._validation import owner_name
from linkwise.cluster._base import (
    KMeansFamily,
    _Run,
    inertia,
    kmeans_plusplus,
    lloyd,
    mean_update,
    sq_distances,
    update_centers,
)
from linkwise.exceptions import InvalidParameterError

_PARAMETERS = """{n_clusters}
    n_init : int, default=1
        Number of runs (they differ only in how unseeded clusters start);
        the lowest within-cluster sum of squares is kept.
    {max_iter}
    random_state : int, RandomState instance or None, default=None
        Seeds the k-means++ completion."""
_REFERENCES = """References
    ----------
    S. Basu, A. Banerjee and R. J. Mooney. Semi-supervised clustering by
    seeding. International Conference on Machine Learning (ICML), 2002.

    {thesis} (section 2.2)."""


def _check_seeds(y, n_samples, n_clusters, owner):
    """Validate partial labels: ints in ``[-1, n_clusters)``, -1 = unlabeled, one per row."""
    if y is None:
        return np.full(n_samples, -1, dtype=np.intp)
    arr, where = np.asarray(y), f"The 'y' argument of {owner_name(owner)}.fit"
    if arr.ndim != 1 or arr.shape[0] != n_samples:
        raise InvalidParameterError(f"{where} must be a 1-D array with one label per row of X ({n_samples}), got shape "
                                    f"{arr.shape}.")
    whole = arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
    if not (arr.dtype.kind in "iu" or whole or all(isinstance(v, numbers.Integral) for v in arr.tolist())):
        raise InvalidParameterError(f"{where} must hold integer cluster labels (-1 for unlabeled rows), got dtype "
                                    f"{arr.dtype}.")
    arr = arr.astype(np.intp)
    bad = np.flatnonzero((arr < -1) | (arr >= n_clusters))
    if bad.size:
        raise InvalidParameterError(f"{where} has label {arr[bad[0]]} at row {bad[0]}; labels must be -1 (unlabeled) "
                                    f"or a cluster in [0, {n_clusters - 1}] (n_clusters={n_clusters}).")
    return arr


class SeededKMeans(KMeansFamily):
    """K-means whose centres start at the means of labelled seed points.

    Cluster ``k`` starts at the mean of the points labelled ``k``; clusters
    without seeds are completed by k-means++. After that the seeds are
    ordinary points: a wrong label only affects the start.

    Parameters
    ----------
    {seeded_parameters}

    Attributes
    ----------
    {labels}
    inertia_, objective_ : float
        Sum of squared distances of the points to their centres (what is minimised).
    n_iter_ : int
    n_features_in_ : int
    {scale}

    See Also
    --------
    ConstrainedKMeans : Keeps the seeds in their clusters throughout.

    {references}

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise import SeededKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> SeededKMeans(n_clusters=2).fit(X, [1, -1, -1, 0, -1, -1]).labels_.tolist()
    [1, 1, 1, 0, 0, 0]
    """

    _keep_seeds = False
    _doc_parts = {"{seeded_parameters}": _PARAMETERS, "{references}": _REFERENCES}

    def fit(self, X, y=None):
        """Cluster ``X`` from partial labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : array-like of int, shape (n_samples,), optional
            Cluster of each seed point in ``[0, n_clusters)``; -1 for
            unlabeled rows. None: no seeds (plain k-means++).

        Returns
        -------
        self
            The fitted estimator.
        """
        X, rng = self._start(X)
        self._fit_runs(X, rng, self._run, _check_seeds(y, X.shape[0], self.n_clusters, self))
        return self

    def _run(self, X, x_sq, tol, rng, seeds):
        k = self.n_clusters
        labelled = np.flatnonzero(seeds >= 0)
        seeded = np.unique(seeds[labelled])
        unseeded = np.setdiff1d(np.arange(k), seeded)
        start_centers = update_centers(X[labelled], seeds[labelled], np.zeros((k, X.shape[1])))[seeded]
        centers = kmeans_plusplus(X, x_sq, k, rng, start_centers)[np.argsort(np.r_[seeded, unseeded])]

        def assign(centers):
            labels = np.argmin(sq_distances(X, x_sq, centers), axis=1)
            if self._keep_seeds:
                labels[labelled] = seeds[labelled]
            return labels

        labels, centers, n_iter = lloyd(assign, mean_update(X), centers, self.max_iter, tol)
        return _Run(labels, centers, inertia(X, labels, centers), n_iter)


class ConstrainedKMeans(SeededKMeans):
    """K-means that starts from labelled seeds and keeps them in their clusters.

    Like :class:`SeededKMeans`, cluster ``k`` starts at the mean of the
    points labelled ``k``; in every assignment step the seeds stay in their
    given cluster and only unlabeled points move. Labels are hard: a wrong
    one is kept.

    Parameters
    ----------
    {seeded_parameters}

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Equal to ``y`` on every labelled row.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    inertia_, objective_ : float
    n_iter_ : int
    n_features_in_ : int
    {scale}

    See Also
    --------
    SeededKMeans : Uses the seeds only to start.

    {references}

    Examples
    --------
    >>> import numpy as np
    >>> import linkwise as lw
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> lw.ConstrainedKMeans(n_clusters=2).fit(X, [0, -1, -1, 1, -1, 0]).labels_.tolist()
    [0, 0, 0, 1, 1, 0]
    """

    _keep_seeds = True
