"""MPCKMeans: soft pairwise constraints plus learned metrics (Bilenko, Basu & Mooney 2004)."""

from numbers import Real

import numpy as np

from linkwise._validation import Interval, StrOptions
from linkwise.cluster._base import PairwiseKMeans, _Run, lloyd, update_centers
from linkwise.cluster._graph import PairGraph, neighbourhood_centers

# A singular scatter S gets this fraction of its trace added to its diagonal
# before A = |X_k| S^-1 (the regularisation of the thesis, after Bilenko et al.).
_RIDGE = 1e-3


class _Metrics:
    """The matrices A of MPCKMeans, ``values`` ``(n_matrices, d)`` (diagonals) or ``(n_matrices, d, d)``.

    ``group[k]`` is the matrix cluster ``k`` uses (one per cluster or one shared).
    """

    def __init__(self, values, group):
        self.values = values
        self.group = group
        self.full = values.ndim == 3
        self.logdet = np.linalg.slogdet(values)[1] if self.full else np.log(values).sum(axis=1)

    @classmethod
    def identity(cls, n_features, n_clusters, *, full, shared):
        n = 1 if shared else n_clusters
        values = np.tile(np.eye(n_features), (n, 1, 1)) if full else np.ones((n, n_features))
        group = np.zeros(n_clusters, dtype=np.intp) if shared else np.arange(n_clusters)
        return cls(values, group)

    def sq_norms(self, V):
        """``||v||^2_{A_k}`` for each row of ``V`` and cluster ``k``: ``(len(V), n_clusters)``."""
        A = self.values[self.group]
        if self.full:
            return np.einsum("md,kde,me->mk", V, A, V, optimize=True)
        return (V * V) @ A.T

    def point_costs(self, X, centers):
        """``||x - mu_k||^2_{A_k} - log det A_k``: ``(n_samples, n_clusters)``."""
        A = self.values[self.group]
        if self.full:
            d = np.stack([np.einsum("ij,ij->i", (X - c) @ a, X - c) for c, a in zip(centers, A)], axis=1)
        else:
            d = (X * X) @ A.T - 2.0 * X @ (A * centers).T + np.einsum("kd,kd->k", A, centers * centers)
        return np.maximum(d, 0.0) - self.logdet[self.group]

    def span(self, extent):
        """Squared length of the data's bounding-box diagonal under each cluster's metric."""
        return self.sq_norms(extent[None, :])[0]

    def updated(self, blocks, sizes, *, shared):
        """New metrics ``A = size * S^-1`` from the scatter ``blocks`` S (one per cluster).

        S is projected onto the positive semidefinite cone and regularised when singular; an
        empty cluster (or a zero scatter) keeps its old matrix.
        """
        if shared:
            blocks, sizes = blocks.sum(axis=0, keepdims=True), sizes.sum(keepdims=True)
        eigval, eigvec = np.linalg.eigh(blocks) if self.full else (blocks, None)
        eigval = np.maximum(eigval, 0.0)
        trace = eigval.sum(axis=1, keepdims=True)
        singular = eigval.min(axis=1, keepdims=True) < _RIDGE * trace
        eigval = eigval + np.where(singular, _RIDGE * trace, 0.0)
        keep = (sizes == 0) | (trace[:, 0] <= 0)
        inverse = np.divide(sizes[:, None], eigval, out=np.ones_like(eigval), where=~keep[:, None])
        values = np.einsum("gij,gj,gkj->gik", eigvec, inverse, eigvec) if self.full else inverse
        values[keep] = self.values[keep]
        return _Metrics(values, self.group)

    def scatter(self, vectors, clusters, weights, n_clusters):
        """Sum of ``weight * v v^T`` (or ``weight * v**2`` for diagonals) per cluster."""
        if not self.full:
            # dense, not _base's sparse one_hot: ~5x faster on the few hundred rows NPU re-clusters after
            # every point; at 20,000 rows, 2 ms per call against the sparse product's 0.5 ms
            membership = (np.arange(n_clusters)[:, None] == clusters).astype(np.float64)
            return membership @ (weights[:, None] * vectors * vectors)
        out = np.zeros((n_clusters, vectors.shape[1], vectors.shape[1]))
        for k in np.unique(clusters):
            rows = clusters == k
            out[k] = (vectors[rows] * weights[rows, None]).T @ vectors[rows]
        return out


class MPCKMeans(PairwiseKMeans):
    """Metric pairwise constrained k-means: soft constraints and learned distances.

    Clusters are measured with learned Mahalanobis metrics
    ``||x - mu||^2_A`` (one per cluster or one shared, diagonal or full). A
    broken must-link costs ``w`` times the pair's mean squared distance under
    the two clusters' metrics (splitting far-apart points is a sign of a bad
    metric); a broken cannot-link ``w_bar`` times how much shorter the pair
    is than the data's bounding-box diagonal (joining close points is worse).
    Centres start as in :class:`PCKMeans` but for its cannot-linked seed
    point, with Euclidean metrics. Each round assigns the points as PCKMeans
    does, then updates the centres and sets each ``A = |cluster| * S^-1``,
    ``S`` the cluster's scatter plus the outer products of its broken
    constraints, projected onto the positive semidefinite cone and
    regularised when singular. Contradictory constraints are tolerated.

    Parameters
    ----------
    {n_clusters}
    metric : {"diagonal", "full"}, default="diagonal"
        Learn diagonal matrices (feature weights) or full ones.
    shared_metric : bool, default=True
        One metric for all clusters (True) or one per cluster (False).
    w : float, default=0.5
        Weight of must-link violations: ``w`` times the pair's squared
        distance, about twice a point's average cost, so by default one
        broken must-link weighs about as much as one point.
    w_bar : float, default=0.03
        Weight of cannot-link violations, measured from the largest squared
        distance in the data (tens of times a typical pair's): with
        ``w_bar = w`` they act as nearly hard and runs stick in poor local
        minima (see ``benchmarks/results/kmeans_family.md``).
    {runs}

    Attributes
    ----------
    {labels}
    metrics_ : ndarray of shape (n_metrics, n_features, n_features)
        The learned matrices A (``n_metrics`` is 1 with ``shared_metric``,
        else ``n_clusters``; cluster ``k`` uses ``metrics_[k]``).
    objective_ : float
        Final value of the objective (metric distances minus log
        determinants plus the violation costs).
    inertia_ : float
        Sum of squared Euclidean distances of the points to their centres.
    n_iter_ : int
    n_features_in_ : int
    {scale}

    Notes
    -----
    The papers measure a cannot-link against the two points farthest apart
    under each metric; this finds them only approximately, so the bounding
    box of the data stands in for them (exact for diagonal metrics, and the
    cost is clipped at 0 for full ones).

    References
    ----------
    M. Bilenko, S. Basu and R. J. Mooney. Integrating constraints and metric
    learning in semi-supervised clustering. International Conference on
    Machine Learning (ICML), 2004.

    {thesis} (section 2.3.3).

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise import MPCKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 3.0], [0.0, 6.0], [5.0, 0.0], [5.1, 3.0], [5.0, 6.0]])
    >>> model = MPCKMeans(n_clusters=2, random_state=0).fit(X, ml=[(0, 2), (3, 5)], cl=[(0, 3)])
    >>> model.labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    def __init__(self, n_clusters=8, *, metric="diagonal", shared_metric=True, w=0.5, w_bar=0.03, n_init=1,
                 max_iter=100, tol=1e-4, random_state=None):
        super().__init__(n_clusters, n_init=n_init, max_iter=max_iter, tol=tol, random_state=random_state)
        self.metric, self.shared_metric, self.w, self.w_bar = metric, shared_metric, w, w_bar

    _parameter_constraints = {
        **PairwiseKMeans._parameter_constraints,
        "metric": [StrOptions({"diagonal", "full"})],
        "shared_metric": ["boolean"],
        "w": [Interval(Real, 0, None, closed="left")],
        "w_bar": [Interval(Real, 0, None, closed="left")],
    }

    def _fit(self, X, ml, cl, rng):
        self._metric = self._fit_runs(X, rng, self._run, PairGraph(ml, cl)).state
        values = self._metric.values
        self.metrics_ = values.copy() if values.ndim == 3 else np.stack([np.diag(v) for v in values])

    def _point_costs(self, X, centers):
        return self._metric.point_costs(X, centers)

    def _run(self, X, x_sq, tol, rng, graph):
        k, w, w_bar = self.n_clusters, float(self.w), float(self.w_bar)
        metrics = _Metrics.identity(X.shape[1], k, full=self.metric == "full", shared=self.shared_metric)
        delta = X[graph.pairs[:, 0]] - X[graph.pairs[:, 1]]
        extent = X.max(axis=0) - X.min(axis=0)
        edge_pair, edge_is_ml = graph.edge_pair, graph.is_ml[graph.edge_pair]
        schedule = graph.schedule(k, rng)

        def pair_costs(metrics):
            """Squared pair distances and cannot-link slack per cluster, ``(n_pairs, k)`` each."""
            dist = metrics.sq_norms(delta)
            return dist, np.maximum(metrics.span(extent)[None, :] - dist, 0.0)

        def assign(centers):
            dist, slack = pair_costs(metrics)

            def edge_cost(edges, neighbour):
                pair, out = edge_pair[edges], np.zeros((edges.size, k))
                rows = np.flatnonzero(edge_is_ml[edges])
                p, lab = pair[rows], neighbour[rows]
                out[rows] = 0.5 * w * (dist[p] + dist[p, lab][:, None])  # f_M under both clusters' metrics
                out[rows, lab] = 0.0
                rows = np.flatnonzero(~edge_is_ml[edges])
                out[rows, neighbour[rows]] = w_bar * slack[pair[rows], neighbour[rows]]
                return out

            return schedule.icm(metrics.point_costs(X, centers), edge_cost)

        def update(labels, old_centers):
            nonlocal metrics
            centers = update_centers(X, labels, old_centers)
            _, slack = pair_costs(metrics)
            a, b = labels[graph.pairs[:, 0]], labels[graph.pairs[:, 1]]
            ml_broken = np.flatnonzero(graph.is_ml & (a != b))
            cl_broken = np.flatnonzero(~graph.is_ml & (a == b) & (slack[np.arange(a.size), a] > 0))
            ones = np.ones(X.shape[0])
            blocks = (metrics.scatter(X - centers[labels], labels, ones, k)
                      + metrics.scatter(delta[ml_broken], a[ml_broken], np.full(ml_broken.size, 0.5 * w), k)
                      + metrics.scatter(delta[ml_broken], b[ml_broken], np.full(ml_broken.size, 0.5 * w), k)
                      - metrics.scatter(delta[cl_broken], a[cl_broken], np.full(cl_broken.size, w_bar), k))
            n_cl = np.bincount(a[cl_broken], minlength=k) * w_bar
            blocks += metrics.scatter(np.tile(extent, (k, 1)), np.arange(k), n_cl, k)
            metrics = metrics.updated(blocks, np.bincount(labels, minlength=k), shared=self.shared_metric)
            return centers

        centers = neighbourhood_centers(graph, X, x_sq, k, rng, cannot_link_seed=False)
        labels, centers, n_iter = lloyd(assign, update, centers, self.max_iter, tol)
        point_cost = metrics.point_costs(X, centers)[np.arange(X.shape[0]), labels].sum()
        dist, slack = pair_costs(metrics)
        a, b = labels[graph.pairs[:, 0]], labels[graph.pairs[:, 1]]
        rows = np.arange(a.size)
        ml_cost = 0.5 * w * (dist[rows, a] + dist[rows, b])
        broken = graph.violated(labels)
        cl_cost = w_bar * slack[rows, a][broken & ~graph.is_ml].sum()
        objective = point_cost + ml_cost[broken & graph.is_ml].sum() + cl_cost
        return _Run(labels, centers, float(objective), n_iter, state=metrics)
