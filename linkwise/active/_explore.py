"""Explore & Consolidate and Min-Max: a farthest-first skeleton, then consolidation.

Both strategies first *explore*: a farthest-first traversal asks each new
point against the neighbourhoods found so far until there are K of them (the
skeleton). They differ in how they *consolidate*: Explore & Consolidate takes
random points, Min-Max the point least similar to the skeleton.
"""

from numbers import Real

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.utils import check_random_state

from linkwise._validation import Interval
from linkwise.active._base import NEW, QueryStrategy, argbest, ask_membership

__all__ = ["ExploreConsolidate", "MinMax", "kernel_width"]

# rows sampled to estimate MinMax's kernel width on large data (a ~2 million distance sample)
_SIGMA_SAMPLE = 2000


class _Skeleton:
    """Neighbourhoods found so far, and each row's squared distance to the nearest visited point."""

    def __init__(self, ctx):
        self.X = ctx.X
        self.open = ctx.queryable_mask.copy()  # queryable points not asked about yet
        self.min_d2 = np.full(ctx.n_samples, np.inf)
        self.members = []  # one list of rows per neighbourhood; members[h][0] is its anchor
        self.sums = []  # feature sums, for centroids

    def ask(self, x, order, n_clusters):
        """Ask ``x`` against the neighbourhoods in ``order`` (:func:`ask_membership`) and record it."""
        anchors = [m[0] for m in self.members]
        self.record(x, (yield from ask_membership(x, order, anchors, complete=len(self.members) >= n_clusters)))

    def record(self, x, h):
        """Mark ``x`` as asked about (updating the farthest-first distances), in neighbourhood ``h``."""
        self.open[x] = False
        np.minimum(self.min_d2, ((self.X - self.X[x]) ** 2).sum(axis=1), out=self.min_d2)
        if h == NEW:
            self.members.append([x])
            self.sums.append(self.X[x].copy())
        elif h is not None:
            self.members[h].append(x)
            self.sums[h] += self.X[x]

    def nearest_member_d2(self, x):
        """Squared distance from ``x`` to the closest member of each neighbourhood."""
        return np.array([((self.X[m] - self.X[x]) ** 2).sum(axis=1).min() for m in self.members])

    def centroid_d2(self, x):
        """Squared distance from ``x`` to each neighbourhood's centroid."""
        centroids = np.array(self.sums) / np.array([len(m) for m in self.members])[:, None]
        return ((centroids - self.X[x]) ** 2).sum(axis=1)


class _FarthestFirst(QueryStrategy):
    """Explore phase shared by ExploreConsolidate and MinMax; subclasses consolidate."""

    def questions(self, ctx, n_clusters, fit_labels):
        """Explore farthest-first until there are K neighbourhoods, then consolidate.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this run.
        n_clusters : int
            The number of clusters the strategy looks for (K).
        fit_labels : callable or None
            Returns the clusterer's labels fitted on the answers so far (None
            when the strategy runs without a clusterer).

        Yields
        ------
        tuple of (int, int)
            The next pair to ask (a point against a neighbourhood's anchor);
            the loop sends back its answer.
        """
        skeleton = _Skeleton(ctx)
        skeleton.record(int(ctx.rng.choice(ctx.queryable)), NEW)
        while len(skeleton.members) < n_clusters and skeleton.open.any():
            x = argbest(skeleton.min_d2, skeleton.open, ctx.rng)
            yield from skeleton.ask(x, np.argsort(skeleton.nearest_member_d2(x), kind="stable"), n_clusters)
        yield from self._consolidate(ctx, skeleton, n_clusters)


class ExploreConsolidate(_FarthestFirst):
    """Explore & Consolidate: farthest-first skeleton, then random points.

    *Explore*: starting from a random point, the point farthest from every
    point asked so far is asked against the neighbourhoods (nearest first)
    until K neighbourhoods exist. *Consolidate*: queryable points in random
    order are asked against the neighbourhoods by increasing distance to
    their centroids; after K - 1 cannot-links the last neighbourhood is
    concluded without a question.

    References
    ----------
    S. Basu, A. Banerjee and R. J. Mooney. Active semi-supervision for
    pairwise constrained clustering. SIAM International Conference on Data
    Mining (SDM), 2004, pp. 333-344.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="standard")
    >>> store = lw.active.ExploreConsolidate().collect(
    ...     X, lw.LabelOracle(y), n_clusters=3, max_queries=15, random_state=0
    ... )
    >>> len(store), store.n_components() <= 15
    (15, True)
    """

    def _consolidate(self, ctx, skeleton, n_clusters):
        for x in ctx.rng.permutation(np.flatnonzero(skeleton.open)).tolist():
            yield from skeleton.ask(x, np.argsort(skeleton.centroid_d2(x), kind="stable"), n_clusters)


class MinMax(_FarthestFirst):
    """Min-Max: farthest-first skeleton, then the point least similar to it.

    Explores as :class:`ExploreConsolidate`. Consolidation asks next about the
    point whose largest Gaussian similarity ``exp(-d² / (2 σ²))`` to the
    skeleton (every point asked so far) is smallest: the point the skeleton
    says least about. It is asked against the neighbourhoods by decreasing
    similarity to their closest member; after K - 1 cannot-links the last
    neighbourhood is concluded without a question. The similarity to the
    skeleton is kept as a running per-row minimum distance, updated once per
    new skeleton point, so picking the next point is linear in ``n``.

    The kernel decreasing with distance, the order does not depend on ``σ``
    but for ties: a farthest-first traversal from the whole skeleton,
    deterministic where Explore & Consolidate's is random.

    Parameters
    ----------
    sigma : float or None, default=None
        Kernel width. None: the 20th percentile of pairwise Euclidean
        distances, estimated from a random sample of 2000 rows when the data
        is larger (never a full distance matrix).

    Attributes
    ----------
    sigma_ : float
        The kernel width used (set on the strategy's clone during a run).

    References
    ----------
    P. K. Mallapragada, R. Jin and A. K. Jain. Active query selection for
    semi-supervised clustering. International Conference on Pattern
    Recognition (ICPR), 2008.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("wine", scale="standard")
    >>> store = lw.active.MinMax().collect(X, lw.LabelOracle(y), n_clusters=3, max_queries=12, random_state=0)
    >>> len(store)
    12
    """

    def __init__(self, *, sigma=None):
        self.sigma = sigma

    _parameter_constraints = {"sigma": [Interval(Real, 0, None, closed="neither"), None]}

    def questions(self, ctx, n_clusters, fit_labels):
        """Set ``sigma_``, then explore farthest-first and consolidate by least similarity to the skeleton.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this run.
        n_clusters : int
            The number of clusters the strategy looks for (K).
        fit_labels : callable or None
            Returns the clusterer's labels fitted on the answers so far (None
            when the strategy runs without a clusterer).

        Yields
        ------
        tuple of (int, int)
            The next pair to ask (a point against a neighbourhood's anchor);
            the loop sends back its answer.
        """
        self.sigma_ = kernel_width(ctx.X, ctx.rng) if self.sigma is None else float(self.sigma)
        yield from super().questions(ctx, n_clusters, fit_labels)

    def _consolidate(self, ctx, skeleton, n_clusters):
        scale = 2.0 * self.sigma_**2
        while skeleton.open.any():
            max_similarity = np.exp(-skeleton.min_d2 / scale)
            x = argbest(-max_similarity, skeleton.open, ctx.rng)
            order = np.argsort(-np.exp(-skeleton.nearest_member_d2(x) / scale), kind="stable")
            yield from skeleton.ask(x, order, n_clusters)


def kernel_width(X, random_state=None):
    """Compute :class:`MinMax`'s default kernel width: the 20th percentile of pairwise distances.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    random_state : int, RandomState instance or None, default=None
        Draws a sample of 2000 rows, on which the distances are taken when
        ``X`` has more.

    Returns
    -------
    float
        The width; 1.0 when every distance is 0.

    Examples
    --------
    >>> from linkwise.active import kernel_width
    >>> kernel_width(np.array([[0.0], [1.0], [3.0]]))  # distances 1, 2, 3
    1.4
    """
    if X.shape[0] > _SIGMA_SAMPLE:
        X = X[check_random_state(random_state).choice(X.shape[0], _SIGMA_SAMPLE, replace=False)]
    width = float(np.percentile(pdist(X), 20))
    return width if width > 0 else 1.0  # all sampled rows identical: any width ranks the same
