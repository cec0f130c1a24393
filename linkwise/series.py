"""Time series as data: the array shapes linkwise accepts, and DTW and shape-based distance matrices.

A set of series is an array of shape ``(n_series, length)`` or ``(n_series,
length, channels)``. The COBRA family clusters them with ``metric="dtw"`` or
``metric="kshape"`` (see :class:`~linkwise.cobra.SeriesMetric`) from the matrix
:func:`series_distances` computes once, and caches on disk if asked. DTW comes
from aeon (``pip install 'linkwise[timeseries]'``).
"""

import hashlib
import os
import tempfile
from numbers import Real
from pathlib import Path

import numpy as np

from linkwise._extras import requires
from linkwise._validation import Interval, StrOptions, check_finite, validate_args

__all__ = ["check_series", "series_distances", "cross_distances", "resample", "METRICS"]

METRICS = ("euclidean", "dtw", "kshape")
# the arguments of series_distances and cross_distances
_DISTANCE_CONSTRAINTS = {"metric": [StrOptions(set(METRICS[1:]))], "window": [Interval(Real, 0, 1, closed="both")]}
_SHAPE = "shape (n_series, length) or (n_series, length, channels)"
_BLOCK = 32  # rows of DTW per progress step
_SBD_BLOCK = 1 << 22  # floats of cross-correlation held at once


def check_series(X):
    """Check series of one length and return them as a float64 array of shape ``(n_series, length, channels)``.

    Parameters
    ----------
    X : array-like of shape (n_series, length) or (n_series, length, channels)
        Series of one length (one channel when 2-D); NaN and infinity are refused.

    Returns
    -------
    ndarray of shape (n_series, length, channels)
        The series, one channel added to 2-D input.

    Raises
    ------
    ValueError
        If the series differ in length or ``X`` is not 2-D or 3-D.
    InvalidParameterError
        If ``X`` holds NaN or infinity.

    Examples
    --------
    >>> check_series([[0, 1, 2], [2, 1, 0]]).shape
    (2, 3, 1)
    >>> check_series([[0, 1, 2], [2, 1]])
    Traceback (most recent call last):
    ...
    ValueError: X must hold series of one length, shape (n_series, length) or (n_series, length, channels), got series of several lengths; resample or pad them to one length.
    """
    try:
        series = np.asarray(X, dtype=np.float64)
    except ValueError:  # ragged nested lists
        raise ValueError(f"X must hold series of one length, {_SHAPE}, got series of several lengths; "
                         "resample or pad them to one length.") from None
    series = series[:, :, None] if series.ndim == 2 else series
    if series.ndim != 3 or 0 in series.shape:
        raise ValueError(f"X must have {_SHAPE}, got shape {np.shape(X)}; reshape it (one series per row).")
    return check_finite(series, "check_series")


@validate_args(_DISTANCE_CONSTRAINTS)
def series_distances(X, metric, *, window=0.1, cache=None, progress=None):
    """Compute the DTW or shape-based distances between every two series of ``X``.

    ``"dtw"``: dynamic time warping (aeon's ``dtw_pairwise_distance``, the
    square root of the summed squared differences along the best path, all
    channels together) within a Sakoe-Chiba band of ``window`` times the
    length. ``"kshape"``: the shape-based distance of k-Shape (Paparrizos and
    Gravano, SIGMOD 2015): 1 minus the largest normalised cross-correlation
    over all shifts of the z-normalised series, averaged over channels, as
    aeon's ``sbd_distance`` (computed here by blocks of FFTs).

    Parameters
    ----------
    X : array-like of shape (n_series, length) or (n_series, length, channels)
        Series of one length (one channel when 2-D).
    metric : {"dtw", "kshape"}
        The distance.
    window : float in [0, 1], default=0.1
        DTW's band as a fraction of the length (ignored by ``"kshape"``).
    cache : str or Path, optional
        A folder: the matrix is saved there, named by a hash of the series and
        the parameters, and read back by the next call with the same ones.
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of rows.

    Returns
    -------
    ndarray of shape (n_series, n_series)
        The symmetric distance matrix.

    Raises
    ------
    InvalidParameterError
        If ``metric`` or ``window`` is not one allowed.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 2 * np.pi, 40)
    >>> X = [np.sin(t), np.sin(t + 0.5), np.sign(np.sin(t))]
    >>> D = series_distances(X, "kshape")
    >>> bool(D[0, 1] < D[0, 2]), bool(np.allclose(D, D.T))
    (True, True)
    """
    window = float(window)
    series = check_series(X)
    path = None
    if cache is not None:
        key = hashlib.blake2b(series.tobytes(), digest_size=16)
        key.update(repr((series.shape, metric, window if metric == "dtw" else None)).encode())
        path = Path(cache) / f"{metric}-{key.hexdigest()}.npy"
        if path.exists():
            return np.load(path)
    D = _dtw_matrix(series, window, progress) if metric == "dtw" else _sbd_matrix(series, progress)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npy")  # written whole, then renamed: never half a file
        with os.fdopen(fd, "wb") as f:
            np.save(f, D)
        os.replace(tmp, path)
    return D


@validate_args(_DISTANCE_CONSTRAINTS)
def cross_distances(A, B, metric, *, window=0.1):
    """Compute the DTW or shape-based distances from the series of ``A`` to those of ``B``.

    The distances of :func:`series_distances`, between two sets (new series
    and the representatives of a fitted clustering).

    Parameters
    ----------
    A, B : array-like of shape (n_series, length) or (n_series, length, channels)
        Two sets of series, all of one length and with the same channels.
    metric : {"dtw", "kshape"}
        The distance.
    window : float in [0, 1], default=0.1
        DTW's band as a fraction of the length (ignored by ``"kshape"``).

    Returns
    -------
    ndarray of shape (len(A), len(B))
        ``D[a, b]`` is the distance from series ``a`` of ``A`` to series
        ``b`` of ``B``.

    Raises
    ------
    InvalidParameterError
        If ``metric`` or ``window`` is not one allowed.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 2 * np.pi, 40)
    >>> D = cross_distances([np.sin(t + 0.2)], [np.sin(t), np.sign(np.sin(t))], "kshape")
    >>> D.shape, int(np.argmin(D))
    ((1, 2), 0)
    """
    window = float(window)
    A, B = check_series(A), check_series(B)
    if metric == "kshape":
        sbd, other = SBD(A), SBD(B)
        rows = max(1, _SBD_BLOCK // (len(B) * sbd.nfft * A.shape[2]))
        return np.vstack([sbd(slice(s, s + rows), other=other) for s in range(0, len(A), rows)])
    with requires("timeseries", "metric='dtw'"):
        from aeon.distances import dtw_pairwise_distance
    TA, TB = (np.ascontiguousarray(S.transpose(0, 2, 1)) for S in (A, B))  # aeon's (n, channels, length)
    return np.sqrt(dtw_pairwise_distance(TA, TB, window=window))


def _symmetric(n, block, rows, progress):
    """Fill an ``(n, n)`` symmetric matrix from ``block(a, b)`` over the upper triangle, ``rows`` rows at a time."""
    D = np.zeros((n, n))
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        D[start:stop, start:] = part = block(slice(start, stop), slice(start, None))
        D[start:, start:stop] = part.T
        if progress is not None:
            progress(stop, n)
    return D


def _dtw_matrix(series, window, progress):
    with requires("timeseries", "metric='dtw'"):
        from aeon.distances import dtw_pairwise_distance
    T = np.ascontiguousarray(series.transpose(0, 2, 1))  # aeon's (n, channels, length)
    return _symmetric(len(T), lambda a, b: np.sqrt(dtw_pairwise_distance(T[a], T[b], window=window)), _BLOCK,
                      progress)


def resample(series, length):
    """Interpolate series linearly to ``length`` points, keeping both ends.

    Parameters
    ----------
    series : ndarray of shape (n_series, L, channels)
        Series of one length.
    length : int
        The new length.

    Returns
    -------
    ndarray of shape (n_series, length, channels)
        The resampled series.

    Examples
    --------
    >>> resample(np.array([[[0.0], [2.0]]]), 3)[0, :, 0].tolist()
    [0.0, 1.0, 2.0]
    """
    old = series.shape[1]
    if old == length:
        return series
    grid, at = np.linspace(0, 1, length), np.linspace(0, 1, old)
    return np.stack([np.column_stack([np.interp(grid, at, c) for c in s.T]) for s in series])


def znormalise(series):
    """Each channel of each series to mean 0 and standard deviation 1 (a constant one to 0)."""
    Z = series - series.mean(axis=1, keepdims=True)
    sd = Z.std(axis=1, keepdims=True)
    return np.divide(Z, sd, out=np.zeros_like(Z), where=sd > 0)


class SBD:
    """Shape-based distances from ``series`` (z-normalised once, FFTs kept) to any set of series."""

    def __init__(self, series):
        Z = znormalise(series)
        self.nfft = 1 << (2 * Z.shape[1] - 1).bit_length()  # every shift, no wrap-around
        self.F = np.fft.rfft(Z, self.nfft, axis=1)
        self.norm = np.sqrt(np.einsum("ilc,ilc->ic", Z, Z))

    def __call__(self, a, b=slice(None), other=None):
        """Distances from rows ``a`` to rows ``b`` of ``other`` (another SBD, default: this one)."""
        other = self if other is None else other
        cc = np.fft.irfft(self.F[a, None] * other.F[b][None].conj(), self.nfft, axis=2).max(axis=2)
        denom = self.norm[a, None] * other.norm[b][None]
        return 1 - np.divide(cc, denom, out=np.zeros_like(cc), where=denom > 0).mean(axis=2)


def _sbd_matrix(series, progress):
    sbd = SBD(series)
    n, _, channels = series.shape
    return _symmetric(n, sbd, max(1, _SBD_BLOCK // (n * sbd.nfft * channels)), progress)
