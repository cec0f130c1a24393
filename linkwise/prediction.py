"""New items to the clusters a method found: the rules behind every estimator's ``predict``.

A clustering found with questions is a labelling of the rows it was fitted
on, not a model of the feature space; ``predict`` extends it by a rule fitted
on the final clustering and kept with the estimator:

- :class:`NearestPoints` (COBRA, COBRAS and the other super-instance
  methods): a new item joins the super-instance whose representative (the
  row asked about) is nearest under the method's metric (Euclidean, DTW or
  shape-based distance), hence that super-instance's cluster. Every
  representative maps to its own cluster.
- :class:`NearestPoints` on the fitted rows (Auto, COBS, ActiveCOBS,
  ActiveClustering): the label of the nearest fitted row (1-nearest
  neighbour), on at most 20,000 rows taken at a fixed stride, so that
  ``predict`` on the fitted rows gives back ``labels_`` (for rows without
  an identical twin of another cluster).
- :class:`LogisticAssignment` (BayesianActiveClustering): the most probable
  cluster of the method's own logistic model at its MAP weights, among the
  clusters of ``labels_``; exact on the rows no answer involves.
"""

import numpy as np
from sklearn.metrics import pairwise_distances_argmin
from sklearn.utils.validation import check_is_fitted

from linkwise._validation import check_data, owner_name
from linkwise.series import check_series, cross_distances

__all__ = ["NearestPoints", "LogisticAssignment", "MAX_POINTS", "check_new_data", "fitted_rows"]

# The 1-nearest-neighbour rule keeps at most this many fitted rows: the saved model stays small on large data.
MAX_POINTS = 20_000


def fitted_rows(n_samples, size=MAX_POINTS):
    """Choose the fitted rows the 1-nearest-neighbour rule keeps.

    Parameters
    ----------
    n_samples : int
        Number of fitted rows.
    size : int, default=MAX_POINTS
        Most rows kept.

    Returns
    -------
    ndarray of int
        All rows when ``n_samples <= size``, else every k-th row from row 0
        with the smallest stride k that keeps at most ``size``.

    Examples
    --------
    >>> fitted_rows(5, size=2).tolist()
    [0, 3]
    """
    return np.arange(0, n_samples, -(-n_samples // size), dtype=np.intp)


class NearestPoints:
    """The label of the nearest stored point.

    Parameters
    ----------
    points : ndarray of shape (n_points, n_features)
        Rows of the fitted data (flattened series for a series metric), as
        the method saw them (divided by ``scale``).
    labels : ndarray of shape (n_points,)
        The cluster each point stands for.
    rows : ndarray of shape (n_points,)
        Where the points are among the fitted rows (where the rule is exact).
    metric : {"euclidean", "dtw", "kshape"}, default="euclidean"
        The distance under which the nearest point is found.
    window : float, default=0.1
        DTW's band, as a fraction of the length.
    series_shape : tuple of int, optional
        ``(length, channels)`` of the series under a series metric.
    scale : float, default=1.0
        The power of two the fitted data were divided by
        (``magnitude_scale`` in ``linkwise._validation``).
    """

    def __init__(self, points, labels, rows, *, metric="euclidean", window=0.1, series_shape=None, scale=1.0):
        self.points, self.labels, self.rows = points, np.asarray(labels, dtype=np.intp), np.asarray(rows, dtype=np.intp)
        self.metric, self.window, self.series_shape, self.scale = metric, window, series_shape, scale

    def predict(self, X):
        """Give every new row the label of its nearest stored point.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Validated 2-D data, series flattened (see :func:`check_new_data`),
            in the data's own units.

        Returns
        -------
        ndarray of shape (n_samples,)
            The label of the nearest point of each row.
        """
        X = X / self.scale if self.scale != 1.0 else X
        if self.metric == "euclidean":
            return self.labels[pairwise_distances_argmin(X, self.points)]
        shape = (-1, *self.series_shape)
        D = cross_distances(X.reshape(shape), self.points.reshape(shape), self.metric, window=self.window)
        return self.labels[np.argmin(D, axis=1)]


class LogisticAssignment:
    """The most probable cluster under a logistic model ``softmax(design(x) @ W)``, among ``clusters``.

    Parameters
    ----------
    scaler : transformer
        The standardisation the model was fitted on.
    W : ndarray of shape (n_inputs, n_clusters)
        The model's MAP weights.
    clusters : ndarray of int
        The clusters a new item may join (those of ``labels_``).
    fit_intercept : bool
        Whether the last row of ``W`` is an intercept.
    rows : ndarray of int
        Fitted rows where the rule is exact (no answer involves them).
    scale : float, default=1.0
        As for :class:`NearestPoints`.
    """

    def __init__(self, scaler, W, clusters, fit_intercept, rows, *, scale=1.0):
        self.scaler, self.W, self.clusters, self.fit_intercept = scaler, W, np.asarray(clusters, dtype=np.intp), fit_intercept
        self.rows, self.scale = np.asarray(rows, dtype=np.intp), scale

    def predict(self, X):
        """Give every new row its most probable cluster among ``clusters``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Validated 2-D data, in the data's own units.

        Returns
        -------
        ndarray of shape (n_samples,)
            The cluster of ``clusters`` with the highest score of each row.
        """
        Z = self.scaler.transform(X / self.scale if self.scale != 1.0 else X)
        if self.fit_intercept:
            Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
        return self.clusters[np.argmax(Z @ self.W[:, self.clusters], axis=1)]


def check_new_data(estimator, X):
    """Validate new data against what ``estimator`` was fitted on.

    Tables: ``n_features_in_`` (and ``feature_names_in_`` for DataFrames) as
    scikit-learn checks them. Series (an estimator fitted with a series
    metric or 3-D data): the ``(length, channels)`` of the fitted ones.

    Parameters
    ----------
    estimator : estimator instance
        A fitted estimator (one with ``labels_``).
    X : array-like
        The new data: a table, or series for an estimator fitted on series.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The 2-D table its rule reads (series flattened).

    Raises
    ------
    NotFittedError
        If ``estimator`` has no ``labels_``.
    ValueError
        If the features, or the series' length or channels, differ from
        the fitted ones.
    """
    check_is_fitted(estimator, "labels_")
    shape = getattr(estimator, "_series_shape", None)
    if shape is None:
        return check_data(X, estimator, validate=True, reset=False)
    series = check_series(X)
    if series.shape[1:] != tuple(shape):
        raise ValueError(f"X holds series of shape (length, channels) = {series.shape[1:]}, but "
                         f"{owner_name(estimator)} was fitted on series of shape {tuple(shape)}; resample them to "
                         "that length.")
    return series.reshape(len(series), -1)
