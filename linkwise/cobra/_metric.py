"""COBRA and COBRAS on time series: super-instances under DTW or k-Shape (COBRAS-TS).

Van Craenendonck, Meert, Dumančić and Blockeel (COBRAS-TS, Discovery Science
2018, arXiv 1805.00779) and their cobras-ts package: with DTW a super-instance
is split by spectral clustering on the affinity ``exp(-0.5 * D)`` of its
members' DTW distances ``D`` (band 10% of the length) and represented by its
medoid; with k-Shape it is split by k-Shape and represented by the member
closest to its centroid in shape-based distance (SBD). Clusters are merged
closest representatives first under the same distance (for k-Shape the
authors' code compared centroids). Here the affinity's 0.5 is divided by the
data's standard deviation (1 on z-normalised series), and k-Shape is fitted
on at most 64 members resampled to at most 128 points, every member then
joining its nearest centroid: at 1,000 series of length 500 a split takes
under 0.2 s instead of seconds. The ``n x n`` distance matrix is computed once
(:func:`linkwise.series.series_distances`).
"""

import os
import warnings
from numbers import Real

import numpy as np
from scipy.linalg import eigh
from sklearn.cluster import SpectralClustering

from linkwise._extras import requires
from linkwise._validation import Interval, StrOptions
from linkwise.cobra._superinstances import make_parts
from linkwise.series import METRICS, SBD, check_series, resample, series_distances, znormalise

# The authors' affinity exp(-0.5 * DTW) is for z-normalised series (UCR); dividing
# by the data's standard deviation keeps it for series of any amplitude.
_GAMMA = 0.5
# k-Shape is fitted on at most this many members (aeon's k-Shape costs seconds on
# a thousand series); the others join the nearest centroid by SBD.
_KSHAPE_FIT = 64
# k-Shape is fitted on series resampled to at most this length: its centroids are eigenvectors of
# a length x length matrix, which at length 500 cost 0.1 s per centroid and iteration.
_KSHAPE_LENGTH = 128
# Dimensions of the Euclidean embedding of the distances that Auto's candidates are generated on.
_EMBED_DIMS = 16


class SeriesMetric:
    """The ``metric``, ``window`` and ``cache`` parameters of COBRA and COBRAS (a mixin)."""

    # what the estimators using the mixin add to their table
    _parameter_constraints = {
        "metric": [StrOptions(set(METRICS))],
        "window": [Interval(Real, 0, 1, closed="both")],
        "cache": [str, os.PathLike, None],  # a folder
    }

    def as_table(self, X):
        """Flatten 3-D series to a table for the loop's checks, keeping their shape for ``predict``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, length, channels)
            What ``fit`` was given: a table, or series for a series metric.

        Returns
        -------
        array-like of shape (n_samples, n_features)
            A table as it is (Euclidean metric), else the series as
            ``(n_samples, length * channels)``.

        Raises
        ------
        ValueError
            The series differ in length, or ``X`` is not 2-D or 3-D (series metric, or 3-D input).
        InvalidParameterError
            ``X`` holds NaN or infinity (series metric, or 3-D input).
        """
        if self.metric == "euclidean" and np.ndim(X) != 3:
            self._series_shape = None  # predict reads tables
            return X
        series = check_series(X)
        self._series_shape = series.shape[1:]
        return series.reshape(len(series), -1)

    def prediction_metric(self):
        """Return how ``predict`` compares a new item with the fitted ones: under the method's metric.

        Returns
        -------
        dict
            ``metric`` and ``window`` as set, and ``series_shape``, the fitted
            series' ``(length, channels)`` (None for a table).
        """
        return {"metric": self.metric, "window": self.window, "series_shape": self._series_shape}

    def _series_space(self, ctx):
        """The :class:`SeriesSpace` of this fit (None for the Euclidean metric), built once per fit.

        It is kept in ``ctx.state``, so a method handing over to COBRAS (Auto)
        shares its distance matrix.
        """
        if self.metric == "euclidean":
            return None
        if "series_space" not in ctx.state:
            series = ctx.X.reshape(ctx.n_samples, *self._series_shape)
            ctx.state["series_space"] = SeriesSpace(series, self.metric, self.window, self.cache)
        return ctx.state["series_space"]


class SeriesSpace:
    """Series under ``metric`` ("dtw" or "kshape"): their distance matrix ``D``, splits and representatives."""

    def __init__(self, series, metric, window, cache):
        self.series, self.metric = series, metric
        self.D = series_distances(series, metric, window=window, cache=cache)
        self.gamma = _GAMMA / max(series.std(), np.finfo(float).tiny)
        self._sbd = SBD(series) if metric == "kshape" else None

    def split(self, rows, k, rng, fit=None):
        """``(labels, centres)``: a part ``< k`` for each of ``rows``, fitted on ``fit`` (default: all of them).

        ``centres`` are the k-Shape centroids (flattened like rows of ``X``),
        None for DTW. Rows outside ``fit`` join the part of their nearest
        fitted row (DTW) or centroid (k-Shape).
        """
        fit = rows if fit is None else fit
        if self.metric == "dtw":
            labels = self._spectral(fit, min(k, fit.size), rng)
            if fit is not rows:
                labels = labels[np.argmin(self.D[np.ix_(rows, fit)], axis=1)]
            return labels, None
        with requires("timeseries", "metric='kshape'"):
            from aeon.clustering import KShape
        sample = fit if fit.size <= _KSHAPE_FIT else np.sort(rng.choice(fit, _KSHAPE_FIT, replace=False))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's type-safety notes
            model = KShape(n_clusters=min(k, sample.size), random_state=rng.randint(np.iinfo(np.int32).max))
            model.fit(resample(self.series[sample], min(_KSHAPE_LENGTH, self.series.shape[1])).transpose(0, 2, 1))
        centres = znormalise(resample(model.cluster_centres_.transpose(0, 2, 1), self.series.shape[1]))
        labels = np.argmin(self._sbd(rows, other=SBD(centres)), axis=1)
        return labels, centres.reshape(len(centres), -1)

    def embedding(self, rows, dims=_EMBED_DIMS):
        """Coordinates of ``rows`` whose Euclidean distances approximate ``D`` (classical MDS, Torgerson 1952)."""
        D2 = self.D[np.ix_(rows, rows)] ** 2
        B = -0.5 * (D2 - D2.mean(axis=0) - D2.mean(axis=1)[:, None] + D2.mean())
        dims = min(dims, rows.size)
        w, V = eigh(B, subset_by_index=[rows.size - dims, rows.size - 1])
        return V * np.sqrt(np.maximum(w, 0))

    def halves(self, X, rows, qmask, rng):
        """Two parts of ``rows`` as :meth:`parts` gives them, fitted on the queryable rows if a part had none."""
        for fit in (rows, rows[qmask[rows]]):
            parts, means = self.parts(X, rows, *self.split(rows, 2, rng, fit=fit), qmask)
            if len(parts) == 2:
                break
        return parts, means

    def _spectral(self, rows, k, rng):
        if k >= rows.size:
            return np.arange(rows.size)
        affinity = np.exp(-self.gamma * self.D[np.ix_(rows, rows)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a graph not fully connected is still split
            # one k-means start on the embedding, as the Euclidean splits (ten cost 4x the time of a split)
            model = SpectralClustering(k, affinity="precomputed", n_init=1,
                                       random_state=rng.randint(np.iinfo(np.int32).max)).fit(affinity)
        return model.labels_

    def parts(self, X, rows, labels, centres, qmask, Xm=None):
        """:func:`make_parts`, a part's centre being its k-Shape centroid where it has one."""
        parts, means = make_parts(X, rows, labels, qmask, Xm=Xm)
        if centres is None:
            return parts, means
        for p, part in enumerate(parts):
            label = labels[part[qmask[rows[part]]][0]]  # a queryable row keeps its part's label
            if label < len(centres):  # else a part cut off after the split: its mean
                means[p] = centres[label]
        return parts, means

    def representative(self, X, rows, qmask, centre):
        """The queryable row of ``rows`` closest to ``centre`` by SBD (k-Shape), or their medoid (DTW)."""
        cand = rows[qmask[rows]]
        if self.metric == "dtw":
            return int(cand[np.argmin(self.D[np.ix_(cand, rows)].sum(axis=1))])
        centre = SBD(znormalise(centre.reshape(1, *self.series.shape[1:])))
        return int(cand[np.argmin(self._sbd(cand, other=centre)[:, 0])])
