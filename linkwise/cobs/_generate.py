"""Generate COBS's candidate clusterings: K-means, DBSCAN and spectral clustering over a grid.

The work runs as joblib tasks (``n_jobs``, any joblib backend) that share one
k-nearest-neighbour search (spectral kNN graphs, DBSCAN's core distances):

* spectral clustering, one task per affinity: scikit-learn's
  ``SpectralClustering`` (same normalised Laplacian, eigenvector scaling and
  K-means seeding) with one eigensolve for every K instead of one per K;
  eigenvectors tied at the K-th place get a canonical basis, so that the
  result does not hang on rounding. kNN graphs and large Gaussian affinities
  go to ARPACK (shift-invert), small ones, ARPACK's failures and kernels so
  wide that ARPACK would fail (:func:`_in_bulk`) to LAPACK;
* DBSCAN, one task per minPts: its clusters at every eps are cuts of one
  single-linkage tree over the mutual reachability distance
  ``max(core(a), core(b), d(a, b))``; a border point joins the cluster of its
  nearest core point within eps (scikit-learn gives a border point within eps
  of two clusters to the first to reach it);
* K-means, one task per K running the seeds one after the other.
"""

import hashlib
import inspect
import json
import os
import tempfile
import threading
import warnings
from collections import Counter, OrderedDict
from contextlib import contextmanager
from numbers import Integral
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from scipy import sparse
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.linalg import eigh
from scipy.sparse.csgraph import laplacian as csgraph_laplacian
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from scipy.spatial.distance import pdist
from sklearn.cluster import DBSCAN, KMeans, SpectralClustering, k_means
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from linkwise._extras import requires
from linkwise._validation import Interval, StrOptions, check_data, validate_args
from linkwise.cobs._grid import FAMILIES, GridSpec
from linkwise.exceptions import InvalidParameterError

__all__ = ["Candidates", "generate", "make_estimator"]

CACHE_VERSION = "linkwise-cobs-4"  # 4: ARPACK's restart vectors seeded; 3: kNN ties go to the lower index
# The parameters of generate, COBS and ActiveCOBS that shape the candidates, as scikit-learn constraints (the
# estimators' tables hold them); GridSpec reads the names of algorithms and the entries of grid further.
CANDIDATE_CONSTRAINTS = {
    "algorithms": ["array-like"],
    "grid": [dict, None],
    "dbscan_noise": [StrOptions({"singletons", "cluster"})],
    "n_jobs": [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"), None],
    "cache": [str, os.PathLike, None],  # a folder
}


class Candidates:
    """A set of clusterings of the same rows, with the parameters that made each.

    Parameters
    ----------
    labels : ndarray of shape (n_candidates, n_samples)
        One clustering per row (int32); DBSCAN noise is already turned into
        clusters as ``dbscan_noise`` asked.
    params : sequence of dict
        For each clustering, ``{"algorithm": ..., <parameter>: <value>}``;
        :func:`make_estimator` turns one into a scikit-learn estimator.

    Attributes
    ----------
    labels, params : ndarray of int32, tuple of dict
    n_clusters_found : ndarray of shape (n_candidates,)
        Number of clusters of each clustering (noise clusters included).

    Examples
    --------
    >>> import linkwise as lw
    >>> X, _ = lw.datasets.load("iris", scale="minmax")
    >>> grid = {"kmeans": {"n_clusters": [2, 3], "n_seeds": 2}}
    >>> cands = lw.cobs.generate(X, algorithms=["kmeans"], grid=grid, random_state=0)
    >>> len(cands), cands.labels.shape
    (4, (4, 147))
    >>> cands.to_frame()[["algorithm", "n_clusters", "n_clusters_found"]].values.tolist()
    [['kmeans', 2, 2], ['kmeans', 2, 2], ['kmeans', 3, 3], ['kmeans', 3, 3]]
    """

    def __init__(self, labels, params):
        self.labels = np.asarray(labels, dtype=np.int32)
        self.params = tuple(params)
        ordered = np.sort(self.labels, axis=1)
        self.n_clusters_found = (np.diff(ordered, axis=1) != 0).sum(axis=1) + 1

    def __len__(self):
        return len(self.params)

    def __repr__(self):
        counts = Counter(p["algorithm"] for p in self.params)
        parts = ", ".join(f"{name} {counts[name]}" for name in FAMILIES if name in counts)
        return f"Candidates({len(self)} clusterings of {self.labels.shape[1]} rows: {parts})"

    def to_frame(self):
        """Tabulate the parameters of every clustering (needs pandas).

        Returns
        -------
        pandas.DataFrame
            One row per clustering, one column per parameter (missing where
            a family does not have it) and ``n_clusters_found``.
        """
        with requires("bench", "Candidates.to_frame"):  # a pandas table, for inspecting a grid
            import pandas as pd
        return pd.DataFrame(list(self.params)).convert_dtypes().assign(n_clusters_found=self.n_clusters_found)


def make_estimator(params):
    """Make the scikit-learn estimator (KMeans, DBSCAN or SpectralClustering) of one candidate's parameters.

    Parameters
    ----------
    params : dict
        One entry of ``Candidates.params`` (e.g. ``COBS().best_``).

    Returns
    -------
    sklearn.base.BaseEstimator
        The unfitted estimator; a Gaussian kernel's ``sigma`` becomes
        ``gamma = 1 / (2 sigma ** 2)``.

    Examples
    --------
    >>> from linkwise.cobs import make_estimator
    >>> make_estimator({"algorithm": "dbscan", "eps": 0.5, "min_samples": 4})
    DBSCAN(min_samples=4)
    >>> make_estimator({"algorithm": "spectral", "n_clusters": 3, "affinity": "rbf",
    ...                 "sigma": 0.5, "random_state": 7})
    SpectralClustering(gamma=2.0, n_clusters=3, random_state=7)
    """
    if params["algorithm"] == "kmeans":
        return KMeans(n_clusters=params["n_clusters"], n_init=1, random_state=params["random_state"])
    if params["algorithm"] == "dbscan":
        return DBSCAN(eps=params["eps"], min_samples=params["min_samples"])
    kw = {"affinity": params["affinity"], "random_state": params["random_state"]}
    if params["affinity"] == "rbf":
        return SpectralClustering(params["n_clusters"], gamma=0.5 / params["sigma"] ** 2, **kw)
    return SpectralClustering(params["n_clusters"], n_neighbors=params["n_neighbors"], **kw)


def apply_noise(labels, mode):
    """Turn DBSCAN noise (label -1) into clusters: one per point, or one for all noise of a row."""
    labels = np.array(labels, dtype=np.int32, ndmin=2)
    noise = labels < 0
    if not noise.any():
        return labels
    first_free = labels.max(axis=1, keepdims=True) + 1
    fill = first_free if mode == "cluster" else first_free + np.cumsum(noise, axis=1, dtype=np.int32) - 1
    return np.where(noise, fill, labels).astype(np.int32)


# -- tasks (top-level functions, so that any joblib backend can ship them) ---------


@contextmanager
def _task():
    """Run a task on one thread (parallelism is across tasks) without the warnings a grid sweep expects
    (disconnected kNN graphs, fewer distinct points than K, overflow under a very narrow kernel)."""
    with threadpool_limits(limits=1), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", UserWarning)  # ConvergenceWarning is a UserWarning
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _kmeans_task(X, params):
    with _task():
        return np.stack([make_estimator(p).fit(X).labels_ for p in params]).astype(np.int32)


_TIE = 1e-8  # eigenvalues of a normalised Laplacian (in [0, 2]) closer than this are one tied eigenvalue
# Gaussian affinities up to this many rows go to LAPACK, O(n^3); above, ARPACK's shift-invert mode
# (one LU factorisation, a third of that work, then O(n^2) per iteration) is quicker
_DENSE_MAX = 2500
# converging ARPACK runs take a few dozen restarts; a narrow kernel's crowd of eigenvalues at 0 never converges
_ARPACK_RESTARTS = 100
# A dense affinity whose kernel matrix has its k-th eigenvalue below this goes straight to LAPACK (_in_bulk): ARPACK
# failed on every such affinity of engytime and cure-t2-4k (raw and scaled to [0, 1], at most 0.13) and converged on
# every one above (at least 0.26, in 20 restarts there, 5 at 0.76): benchmarks/results/cobs.md, issue 37
_BULK = 0.05
# ARPACK draws a new start vector when the Krylov space of v0 is used up (a graph of many components); scipy >= 1.17
# draws it from fresh entropy unless given a generator, so that such a solve differed from one call to the next
_SEEDS_RESTARTS = "rng" in inspect.signature(eigsh).parameters


def _canonical(vectors, values, last_complete):
    """The eigenvectors in a basis that rounding cannot change.

    Any orthonormal basis of a tied eigenvalue's eigenspace is an answer, and
    which one a solver returns hangs on the last bits of its arithmetic. Each
    tied group becomes the eigenvectors of a fixed diagonal matrix restricted
    to the group's span, which depend on that span only; the last group is
    left alone unless ``last_complete`` (a group cut short does not span its
    eigenspace). Each vector's largest entry is then made positive, as
    scikit-learn does.
    """
    n, m = vectors.shape
    weight = (np.arange(1, n + 1) * 0.6180339887498949) % 1.0  # fixed, with distinct entries
    groups = np.split(np.arange(m), np.flatnonzero(np.diff(values) > _TIE) + 1)
    for group in groups if last_complete else groups[:-1]:
        if group.size > 1:
            span = vectors[:, group]
            vectors[:, group] = span @ eigh(span.T @ (weight[:, None] * span))[1]
    peak = np.abs(vectors).argmax(axis=0)
    return vectors * np.sign(vectors[peak, np.arange(m)])


def _smallest_eigenpairs(laplacian, k, v0, arpack):
    """The k smallest eigenpairs (ascending) of a normalised Laplacian, and whether ARPACK found them.

    Else LAPACK finds 4 k of them (or all): cheap beside its O(n^3)
    reduction, they take in a tie at the k-th place without a second solve."""
    n = laplacian.shape[0]
    if arpack and k < n - 1:
        try:
            seeded = {"rng": np.random.default_rng(0)} if _SEEDS_RESTARTS else {}
            values, vectors = eigsh(laplacian, k=k, sigma=-1e-5, which="LM", tol=0, v0=v0, maxiter=_ARPACK_RESTARTS,
                                    **seeded)
            order = np.argsort(values, kind="stable")
            return values[order], vectors[:, order], True
        except ArpackNoConvergence:
            pass
    matrix = laplacian.toarray() if sparse.issparse(laplacian) else laplacian
    return (*eigh(matrix, subset_by_index=[0, min(4 * k, n) - 1], check_finite=False), False)


def _in_bulk(affinity, k):
    """Whether the k-th smallest eigenvalue of the normalised Laplacian of a dense ``affinity`` lies in its bulk.

    The Laplacian is ``I + 1/D - G / sqrt(D D')``, with G the kernel matrix
    (``affinity`` with a unit diagonal) and D the degrees. Each large
    eigenvalue of G gives the Laplacian one of its smallest; each one near 0
    leaves one in a bulk near ``1 + 1/D``: thousands within 1e-3 of each
    other for a kernel wide beside the data. ARPACK does not converge there,
    and its 100 restarts, an O(n^2) solve each step, are lost. Pivoted
    Cholesky steps G = F'F + E (E positive semi-definite) bound G's k-th
    eigenvalue (Weyl): at least F'F's (from the small matrix F F'), at most
    that plus E's trace; it is in the bulk below ``_BULK``. Up to 4 k steps,
    O(n k^2), against the O(n^3) LU factorisation ARPACK starts with.
    """
    n = affinity.shape[0]
    residual, factor = np.ones(n), np.zeros((min(4 * k, n), n))
    for step in range(factor.shape[0]):
        low = np.linalg.eigvalsh(factor[:step] @ factor[:step].T)[-k] if step >= k else 0.0
        if low >= _BULK or low + residual.sum() < _BULK:
            return low < _BULK
        p = int(np.argmax(residual))
        column = affinity[p].copy()
        column[p] = 1.0
        factor[step] = (column - factor[:step, p] @ factor[:step]) / np.sqrt(residual[p])
        residual -= factor[step] ** 2
    return False


def _spectral_embedding(affinity, n_components, rs):
    """scikit-learn's ``spectral_embedding``, with tied eigenvectors in the basis of :func:`_canonical`."""
    laplacian, dd = csgraph_laplacian(affinity, normed=True, return_diag=True)
    if sparse.issparse(laplacian):
        laplacian = laplacian.tocsr()
        laplacian.setdiag(1.0)
    else:
        laplacian.flat[:: laplacian.shape[0] + 1] = 1.0
    n = laplacian.shape[0]
    v0 = rs.uniform(-1, 1, n)  # ARPACK's start vector, drawn as scikit-learn draws it
    # One eigenpair more than needed shows a tie at the last needed one; up to 4 times as many take in
    # its group. A longer tie (a crowd at 0) is left as the single-threaded solver gives it.
    k = min(n_components + 1, n)
    arpack = sparse.issparse(laplacian) or (n > _DENSE_MAX and not _in_bulk(affinity, k))
    values, vectors, arpack = _smallest_eigenpairs(laplacian, k, v0, arpack)
    if arpack and not (np.diff(values[n_components - 1 :]) > _TIE).any() and k < n:
        values, vectors, arpack = _smallest_eigenpairs(laplacian, min(4 * k, n), v0, arpack)
    ends = np.flatnonzero(np.diff(values[n_components - 1 :]) > _TIE)
    if ends.size:
        m, complete = n_components + ends[0], True
    else:
        m, complete = (n, True) if values.size == n else (n_components, False)
    return _canonical(vectors[:, :m], values[:m], complete)[:, :n_components] / dd[:, None]


def _spectral_task(X, knn_ind, affinity, value, n_clusters, seed):
    n, n_components = X.shape[0], max(n_clusters)
    rs = np.random.RandomState(seed)
    with _task():
        if affinity == "nearest_neighbors":
            # the k nearest neighbours, the point itself included, as kneighbors_graph(include_self=True)
            indptr = np.arange(0, n * value + 1, value)
            conn = sparse.csr_matrix((np.ones(n * value), knn_ind[:, :value].ravel(), indptr), shape=(n, n))
            maps = _spectral_embedding(0.5 * (conn + conn.T), n_components, rs)
        else:
            maps = _spectral_embedding(rbf_kernel(X, gamma=0.5 / value**2), n_components, rs)
        state = rs.get_state()  # as in SpectralClustering, K-means continues the embedding's generator
        out = np.empty((len(n_clusters), n), dtype=np.int32)
        for row, k in enumerate(n_clusters):
            rs.set_state(state)
            out[row] = k_means(maps[:, :k], k, random_state=rs, n_init=10)[1]
        return out


def _mutual_reachability(X, core):
    """Condensed ``max(core[a], core[b], d(a, b))``, built in place row block by row block."""
    d = pdist(X)
    n, start = X.shape[0], 0
    for i in range(n - 1):
        seg = d[start : start + n - 1 - i]
        np.maximum(seg, core[i + 1 :], out=seg)
        np.maximum(seg, core[i], out=seg)
        start += n - 1 - i
    return d


def _dbscan_task(X, knn_dist, knn_ind, min_samples, eps_values):
    n = X.shape[0]
    out = np.full((len(eps_values), n), -1, dtype=np.int32)
    if min_samples > knn_dist.shape[1]:
        return out  # fewer rows than minPts: no core point, everything is noise
    core_dist = knn_dist[:, min_samples - 1]
    tree = linkage(_mutual_reachability(X, core_dist), method="single")
    for row, eps in enumerate(eps_values):
        comp = fcluster(tree, eps, criterion="distance")
        core = core_dist <= eps
        labels = np.where(core, comp, 0)
        # a non-core point has its < minPts points within eps in its kNN list: the first core one is the nearest
        hit = (knn_dist <= eps) & core[knn_ind]
        border = ~core & hit.any(axis=1)
        first = hit[border].argmax(axis=1)
        labels[border] = comp[knn_ind[border, first]]
        clustered = labels > 0
        out[row, clustered] = np.unique(labels[clustered], return_inverse=True)[1]
    return out


# -- orchestration ----------------------------------------------------------------


def _proposed(X, Q, m):
    """``m`` rows of ``X`` near each row of ``Q`` as sklearn's rounded distances order them (the search of
    :func:`neighbours`, which then orders them exactly). Many queries of few rows (every row of a large table
    against a sample) are answered by matrix products, a block of queries at a time: a tree search visits the rows
    one query at a time, twice as slow there."""
    if Q.shape[0] < _MANY * X.shape[0] or X.shape[1] < _TREE_DIMS:
        return NearestNeighbors(n_neighbors=m).fit(X).kneighbors(Q, return_distance=False)
    norms = (X**2).sum(axis=1)
    out = np.empty((Q.shape[0], m), dtype=np.intp)
    step = max(1, _CACHED // X.shape[0])
    for start in range(0, Q.shape[0], step):
        block = Q[start : start + step] @ X.T
        block *= -2
        block += norms  # the squared distances less each query's own norm
        rows = np.arange(block.shape[0])
        for j in range(m):  # the m nearest one after another: m scans, no sort (m is 2 for a nearest row)
            out[start + rows, j] = near = block.argmin(axis=1)
            block[rows, near] = np.inf
    return out


def _exact(Q, X, ind):
    """Euclidean distances from each row of ``Q`` to the rows ``ind`` of ``X``, element by element (no BLAS)."""
    out = np.empty(ind.shape)
    step = max(1, _CHUNK // (ind.shape[1] * X.shape[1]))  # bounded memory: a chunk of rows x candidates x d
    for start in range(0, len(Q), step):
        part = slice(start, start + step)
        out[part] = np.sqrt(((Q[part, None, :] - X[ind[part]]) ** 2).sum(axis=2))
    return out


_CHUNK = 2**23
# distances in a block of :func:`_proposed` at most: the passes over a block are memory-bound, so it stays in cache
# (a million queries against 1,000 rows: 2.3 s, against 9.3 s in blocks of _CHUNK)
_CACHED = 2**16
# queries per row of the searched rows above which :func:`_proposed` multiplies matrices instead of searching a tree,
# unless they have fewer features than this (a tree prunes well in few dimensions)
_MANY = 64
_TREE_DIMS = 6
# sklearn's squared distances (|x|^2 + |y|^2 - 2 x.y) are off by far less than this times the squared norms
_ROUNDING = 1e-10


def neighbours(X, k, Q=None):
    """The ``k`` rows of ``X`` nearest to each row of ``Q`` (default ``X``), and their distances, nearest first.

    Ties go to the lower index, so that the answer does not hang on the
    order in which a search visits the rows, the number of threads or the
    BLAS kernel (sklearn's rounded distances order equidistant rows
    differently from one process to another): sklearn's search proposes
    twice as many rows, their exact distances order them, and a query whose
    k-th distance is not clearly below the farthest proposed one (an
    equidistant row may have been left out) is answered by exact brute force.

    Returns
    -------
    dist, ind : ndarray of shape (n_queries, k)
    """
    X = np.asarray(X, dtype=np.float64)
    Q = X if Q is None else np.asarray(Q, dtype=np.float64)
    n = X.shape[0]
    m = min(n, 2 * k)
    ind = _proposed(X, Q, m)
    dist = _exact(Q, X, ind)
    if m < n:
        slack = 4 * _ROUNDING * ((X**2).sum(axis=1).max() + (Q**2).sum(axis=1))
        kth, far = np.sort(dist, axis=1)[:, [k - 1, m - 1]].T
        unsure = np.flatnonzero(kth**2 + slack >= far**2)
        if unsure.size:
            everyone = np.broadcast_to(np.arange(n), (unsure.size, n))
            full = _exact(Q[unsure], X, everyone)
            order = np.lexsort((everyone, full), axis=1)[:, :m]
            ind[unsure] = np.take_along_axis(everyone, order, axis=1)
            dist[unsure] = np.take_along_axis(full, order, axis=1)
    order = np.lexsort((ind, dist), axis=1)[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)


def _eps_values(X, eps, owner):
    if not isinstance(eps, int):
        return eps
    d = pdist(X)
    if not (positive := d[d > 0]).size:
        raise InvalidParameterError(f"{owner} cannot spread DBSCAN's eps over the pairwise distances: all rows of X "
                                    "are identical. Give explicit eps values in the grid.")
    return [float(v) for v in np.linspace(positive.min(), d.max(), eps)]


def _plan(X, spec, kmeans_seeds, spectral_seed, owner):
    """The tasks of the grid, in the canonical candidate order, each with its parameters."""
    values = spec.values
    ks = [values["dbscan"]["min_samples"][-1]] if "dbscan" in values else []
    k = max(ks + values.get("spectral", {}).get("n_neighbors", [])[-1:], default=0)  # neighbours the grid needs
    knn_dist, knn_ind = neighbours(X, min(k, X.shape[0])) if k else (None, None)
    plan = []  # (cost rank, params of each row, delayed call)
    if "kmeans" in values:
        for n_clusters in values["kmeans"]["n_clusters"]:
            params = [{"algorithm": "kmeans", "n_clusters": n_clusters, "random_state": s} for s in kmeans_seeds]
            plan.append((2, params, delayed(_kmeans_task)(X, params)))
    if "dbscan" in values:
        eps_values = _eps_values(X, values["dbscan"]["eps"], owner)
        for m in values["dbscan"]["min_samples"]:
            params = [{"algorithm": "dbscan", "eps": e, "min_samples": m} for e in eps_values]
            plan.append((1, params, delayed(_dbscan_task)(X, knn_dist, knn_ind, m, eps_values)))
    if "spectral" in values:
        ks = values["spectral"]["n_clusters"]
        graphs = [("nearest_neighbors", "n_neighbors", v) for v in values["spectral"]["n_neighbors"]]
        graphs += [("rbf", "sigma", v) for v in values["spectral"]["sigma"]]
        for affinity, key, value in graphs:
            common = {"affinity": affinity, key: value, "random_state": spectral_seed}
            params = [{"algorithm": "spectral", "n_clusters": c, **common} for c in ks]
            plan.append((0, params, delayed(_spectral_task)(X, knn_ind, affinity, value, ks, spectral_seed)))
    return plan


def _run(X, plan, n_jobs):
    # costliest tasks first, so that the last ones to finish are short; results go back in plan order
    order = sorted(range(len(plan)), key=lambda t: plan[t][0])
    by_task = dict(zip(order, Parallel(n_jobs=n_jobs)(plan[t][2] for t in order)))
    return np.concatenate([by_task[t] for t in range(len(plan))]), [p for _, params, _ in plan for p in params]


def _digest(X, spec, seeds):
    """Hash of what the candidates depend on: the data, the grid and the drawn seeds."""
    h = hashlib.sha256(f"{CACHE_VERSION}{X.shape!r}".encode())
    h.update(np.ascontiguousarray(X).tobytes())
    h.update(f"{spec.key()}{json.dumps(seeds)}".encode())
    return h.hexdigest()[:40]


class _Memo:
    """Generated ``(labels, params)`` of this process, least recently used first, within ``max_bytes``.

    Locked for joblib's threading backend (two threads asking for the same new
    candidates both generate them); processes share the ``cache`` directory.
    """

    def __init__(self, max_bytes):
        self.max_bytes, self._entries, self._lock = max_bytes, OrderedDict(), threading.Lock()
        self.hits = self.misses = 0

    def get(self, key, make):
        """The entry for ``key``, made by ``make()`` (outside the lock) if absent."""
        with self._lock:
            if key in self._entries:
                self.hits += 1
                self._entries.move_to_end(key)
                return self._entries[key]
            self.misses += 1
        labels, params = make()
        labels.flags.writeable = False  # shared by every later fit: nobody may alter it
        with self._lock:
            self._entries[key] = labels, params
            # the newest entry stays even if alone above the budget: the fit using it holds it anyway
            while len(self._entries) > 1 and sum(v[0].nbytes for v in self._entries.values()) > self.max_bytes:
                self._entries.popitem(last=False)
        return labels, params

    def clear(self):
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0


# 931 candidates of 20,000 rows (COBS's default max_samples) take 74 MB: this keeps a few such sets
MEMO = _Memo(max_bytes=256 * 2**20)


def _load(path):
    with np.load(path) as f:
        return f["labels"], json.loads(str(f["params"]))


def _save(path, labels, params):
    path.parent.mkdir(parents=True, exist_ok=True)
    # write then rename: a reader never sees half a file, parallel writers never clash
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, labels=labels, params=np.array(json.dumps(params)))
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@validate_args(CANDIDATE_CONSTRAINTS)
def generate(X, *, algorithms=FAMILIES, grid=None, dbscan_noise="singletons", n_jobs=None, cache=None,
             random_state=None):
    """Cluster ``X`` with every algorithm and parameter setting of a grid.

    The expensive, offline step of COBS: run it once, then select among the
    candidates with as many constraint sets as you like (:class:`COBS` and
    :class:`ActiveCOBS` call it). The paper's 931 clusterings took,
    single-threaded, 5.6 CPU seconds on wine (178 rows), 42 on segmentation
    (2,086 rows), 194 and 230 on engytime and cure-t2-4k scaled to [0, 1]
    (4,096 and 4,200 rows) and 357 on 10,000 two-dimensional rows without the
    Gaussian kernels (benchmarks/results/cobs.md). The last few generated sets (up to
    256 MB of labels) are also kept in memory, keyed by a hash of ``X``, the
    grid and the drawn seeds: a later call of this process with the same
    data, grid and int ``random_state`` (a fit of COBS or ActiveCOBS
    included) reuses them without ``cache``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data (Euclidean distances are used throughout).
    algorithms : sequence of {"kmeans", "dbscan", "spectral"}, default=all three
        The algorithm families to run.
    grid : dict, optional
        ``{family: {parameter: values}}`` overriding the default grid
        (:func:`paper_grid`, the paper's Table 2: 931 clusterings) family by
        family and parameter by parameter.
    dbscan_noise : {"singletons", "cluster"}, default="singletons"
        DBSCAN's noise points each form their own cluster (the paper's
        choice) or together form one cluster.
    n_jobs : int, optional
        Tasks run in parallel through joblib: ``-1`` uses every core; under
        ``joblib.parallel_backend("dask")`` they run on a Dask cluster.
    cache : str or path, optional
        A directory where the candidates are stored (a ``.npz`` file named by
        the hash above) and read back when the same generation is asked again.
    random_state : int, RandomState instance or None
        Draws the K-means seeds (``n_seeds`` of them, shared by every K) and
        the spectral clustering seed. An int makes the result, and so the
        cache file, reproducible.

    Returns
    -------
    Candidates
        The clusterings in the order K-means (by K, then seed), DBSCAN (by
        minPts, then eps), spectral (kNN graphs by k, then Gaussian kernels
        by sigma; K inside), with their ``params``.

    Notes
    -----
    Memory grows as ``n_samples ** 2`` and the spectral solves up to
    ``n_samples ** 3``: :class:`COBS` generates on at most ``max_samples`` rows.
    The candidates do not depend on ``n_jobs`` or the joblib backend, except
    under a Gaussian kernel so narrow that degrees fall to 1e-150 (sigma =
    0.01 on data scaled to [0, 1]): the embedding, like scikit-learn's,
    divides rounding noise by them, so a process whose arithmetic differs in
    the last bit (seen on Dask workers) can differ for that sigma.

    References
    ----------
    Van Craenendonck, T. and Blockeel, H. (2017). Constraint-based clustering
    selection. Machine Learning, 106(9-10), 1497-1521 (Table 2).

    Examples
    --------
    >>> from linkwise.datasets import load
    >>> grid = {"kmeans": {"n_clusters": [2, 3], "n_seeds": 3},
    ...         "dbscan": {"eps": 4, "min_samples": [3, 5]}}
    >>> generate(load("iris", scale="minmax")[0], algorithms=["kmeans", "dbscan"], grid=grid, random_state=0)
    Candidates(14 clusterings of 147 rows: kmeans 6, dbscan 8)
    """
    owner = "generate"
    spec = GridSpec(algorithms, grid, owner, role="argument")
    X = check_data(X, owner, ensure_min_samples=2)
    return candidates_for(X, spec, dbscan_noise, n_jobs, cache, check_random_state(random_state), owner)


def candidates_for(X, spec, dbscan_noise, n_jobs, cache, rng, owner):
    """Generate the candidates from checked arguments: :func:`generate` after its checks.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data.
    spec : GridSpec
        The checked grid (``GridSpec(algorithms, grid, owner)``); default values the data cannot
        support are left out.
    dbscan_noise : {"singletons", "cluster"}
        How DBSCAN's noise points are turned into clusters.
    n_jobs : int or None
        The joblib parallelism.
    cache : str, path or None
        Directory of the candidate cache.
    rng : numpy.random.RandomState
        Draws the K-means seeds and the spectral seed.
    owner : str
        The caller, named in error messages.

    Returns
    -------
    Candidates
        The clusterings, as :func:`generate` returns them.
    """
    spec.check_against(X.shape[0], owner)
    n_seeds = spec.values["kmeans"]["n_seeds"] if "kmeans" in spec.values else 0
    seeds = [int(s) for s in rng.randint(np.iinfo(np.int32).max, size=n_seeds + 1)]
    digest = _digest(X, spec, seeds)
    path = None if cache is None else Path(cache) / f"cobs-{digest}.npz"

    def make():
        if path is not None and path.exists():
            return _load(path)
        return _run(X, _plan(X, spec, seeds[:-1], seeds[-1], owner), n_jobs)

    labels, params = MEMO.get(digest, make)
    if path is not None and not path.exists():
        _save(path, labels, params)
    return Candidates(apply_noise(labels, dbscan_noise), params)
