"""MKMeans: learn a metric from the constraints, then run k-means in it (Xing et al. 2003)."""

import numpy as np
from scipy.optimize import minimize
from sklearn.cluster import KMeans

from linkwise._validation import StrOptions
from linkwise.cluster._base import PairwiseKMeans, _Run, sq_distances, update_centers

# Directions no must-link pins down would grow without bound; the must-link
# scatter gets this fraction of its mean diagonal added to keep them finite.
_RIDGE = 1e-3


def _dissimilar_sample(n_samples, ml, rng):
    """Random pairs not must-linked (directly): the stand-in for missing cannot-links."""
    pairs = np.sort(rng.randint(n_samples, size=(max(100, 10 * len(ml)), 2)), axis=1)
    code = [n_samples, 1]  # (i, j), i < j -> i * n + j
    keep = (pairs[:, 0] != pairs[:, 1]) & ~np.isin(pairs @ code, np.sort(ml, axis=1) @ code)
    return pairs[keep]


def learn_metric(X, ml, cl, *, full, rng):
    """The linear map ``L`` (``A = L^T L``) of Xing et al.'s metric.

    Minimises ``sum_ML ||x - y||_A^2 - log sum_CL ||x - y||_A`` over
    ``A >= 0`` (diagonal or ``L^T L``) with L-BFGS: the papers' problem with
    its constraint folded in, whose minimiser is a multiple of theirs (which
    k-means does not notice). ``L`` is the identity without must-links or
    when the must-linked rows (nearly) coincide: they say nothing about the
    metric and the problem would have no minimum. Without cannot-links,
    random pairs not must-linked stand in.
    """
    d = X.shape[1]
    if len(ml) == 0:
        return np.eye(d)
    sim = X[ml[:, 0]] - X[ml[:, 1]]
    sim_scatter = sim.T @ sim
    if not np.trace(sim_scatter) > np.finfo(float).eps * len(ml) * np.var(X, axis=0).sum():
        return np.eye(d)
    if len(cl) == 0:
        cl = _dissimilar_sample(X.shape[0], ml, rng)
    dis = X[cl[:, 0]] - X[cl[:, 1]]
    sim_scatter += _RIDGE * np.trace(sim_scatter) / d * np.eye(d)
    # start from the best multiple of the identity (the objective's minimum along c * I),
    # so that the first line search steps at the right scale
    scale = 1.0 / (2.0 * np.trace(sim_scatter))
    if full:

        def objective(flat):
            L = flat.reshape(d, d)
            proj = dis @ L.T
            norms = np.sqrt(np.einsum("ij,ij->i", proj, proj)) + 1e-12
            total = norms.sum()
            value = np.einsum("ij,jk,ik->", L, sim_scatter, L) - np.log(total)
            grad = 2.0 * L @ sim_scatter - ((proj / norms[:, None]).T @ dis) / total
            return value, grad.ravel()

        res = minimize(objective, np.sqrt(scale) * np.eye(d).ravel(), jac=True, method="L-BFGS-B")
        return res.x.reshape(d, d)

    sim_diag, dis_sq = np.diag(sim_scatter), dis * dis

    def objective(a):
        norms = np.sqrt(dis_sq @ a) + 1e-12
        total = norms.sum()
        value = sim_diag @ a - np.log(total)
        grad = sim_diag - (dis_sq / (2.0 * norms[:, None])).sum(axis=0) / total
        return value, grad

    res = minimize(objective, np.full(d, scale), jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * d)
    return np.diag(np.sqrt(res.x))


class MKMeans(PairwiseKMeans):
    """Metric k-means: learn a distance from the constraints, then cluster with k-means.

    A Mahalanobis metric ``||x - y||_A`` is learned from the constraints
    alone, making must-linked pairs close while keeping cannot-linked pairs
    apart (Xing et al.), and scikit-learn's ``KMeans`` clusters the data
    mapped by ``L`` (``A = L^T L``). The constraints are not enforced
    afterwards.

    Parameters
    ----------
    {n_clusters}
    metric : {"diagonal", "full"}, default="diagonal"
        Learn feature weights (diagonal ``A``) or a full matrix.
    n_init : int, default=1
        Number of k-means++ runs of ``KMeans``; the lowest inertia is kept.
    max_iter : int, default=100
        Maximum number of ``KMeans`` iterations per run.
    tol : float, default=1e-4
        ``KMeans`` convergence tolerance.
    random_state : int, RandomState instance or None, default=None
        Seeds ``KMeans`` (and the stand-in pairs when there are no cannot-links).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Cluster means in the original space.
    components_ : ndarray of shape (n_features, n_features)
        The learned map ``L``.
    metric_ : ndarray of shape (n_features, n_features)
        The learned matrix ``A = L^T L``.
    objective_ : float
        Sum of squared learned distances of the points to their centres.
    inertia_ : float
        Sum of squared Euclidean distances of the points to their centres.
    n_iter_ : int
    n_features_in_ : int
    {scale}

    References
    ----------
    E. P. Xing, A. Y. Ng, M. I. Jordan and S. Russell. Distance metric
    learning, with application to clustering with side-information. Advances
    in Neural Information Processing Systems (NIPS), 2003.

    {thesis} (section 2.3.2).

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise import MKMeans
    >>> rng = np.random.RandomState(0)
    >>> X = np.c_[np.repeat([0.0, 3.0], 20), rng.uniform(0, 10, 40)]  # noise on feature 1
    >>> model = MKMeans(n_clusters=2, random_state=0).fit(X, ml=[(0, 1), (20, 21)], cl=[(0, 20)])
    >>> bool((model.labels_[:20] == model.labels_[0]).all() and (model.labels_[20:] != model.labels_[0]).all())
    True
    """

    def __init__(self, n_clusters=8, *, metric="diagonal", n_init=1, max_iter=100, tol=1e-4, random_state=None):
        super().__init__(n_clusters, n_init=n_init, max_iter=max_iter, tol=tol, random_state=random_state)
        self.metric = metric

    _parameter_constraints = {**PairwiseKMeans._parameter_constraints, "metric": [StrOptions({"diagonal", "full"})]}

    def _fit(self, X, ml, cl, rng):
        L = learn_metric(X, ml, cl, full=self.metric == "full", rng=rng)
        km = KMeans(self.n_clusters, n_init=self.n_init, max_iter=self.max_iter, tol=self.tol, random_state=rng)
        km.fit(X @ L.T)
        labels = km.labels_
        centers = update_centers(X, labels, km.cluster_centers_ @ np.linalg.pinv(L).T)
        self._set_fitted(X, _Run(labels, centers, float(km.inertia_), int(km.n_iter_)))
        self.components_ = L
        self.metric_ = L.T @ L

    def _point_costs(self, X, centers):
        Z = X @ self.components_.T
        return sq_distances(Z, np.einsum("ij,ij->i", Z, Z), centers @ self.components_.T)
