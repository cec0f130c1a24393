"""PCKMeans: k-means with soft pairwise constraints (Basu, Banerjee & Mooney 2004)."""

from numbers import Real

import numpy as np

from linkwise._validation import Interval
from linkwise.cluster._base import PairwiseKMeans, _Run, inertia, lloyd, mean_update, sq_distances
from linkwise.cluster._graph import PairGraph, neighbourhood_centers


class PCKMeans(PairwiseKMeans):
    """Pairwise constrained k-means: constraints may be broken, at a price.

    Minimises half the within-cluster sum of squares plus ``w`` for every
    given must-link split across clusters and ``w_bar`` for every given
    cannot-link kept inside one. Centres start from the must-link
    neighbourhoods: with at least ``n_clusters`` of them, a weighted
    farthest-first traversal of their centroids (from the MPCKMeans paper;
    Basu et al.'s largest ones gave mean ARI .77 instead of .84 on iris, 200
    random constraints, 20 draws); with fewer, all of them, then a point
    cannot-linked to every neighbourhood, then k-means++. Each assignment
    step visits the constrained points one at a time in a random order drawn
    once per run (iterated conditional modes), from their nearest-centre
    labels; the others go to their nearest centre at once. Contradictory
    constraints are tolerated: they cost something whatever the clustering.

    Parameters
    ----------
    {n_clusters}
    w : float, default=1.0
        Cost of breaking one must-link (``0`` uses the constraints only to
        initialise, a large value makes them practically hard).
    w_bar : float, default=1.0
        Cost of breaking one cannot-link.
    {runs}

    Attributes
    ----------
    {labels}
    objective_ : float
        Final value of the objective (half the sum of squared distances plus
        the violation costs).
    inertia_ : float
        Sum of squared distances of the points to their centres.
    n_iter_ : int
        Rounds run by the kept run.
    n_features_in_ : int
    {scale}

    See Also
    --------
    MPCKMeans : The same with learned metrics and distance-scaled costs.
    COPKMeans : Constraints as hard rules.

    Notes
    -----
    The penalties cover the constraints as given. To penalise everything
    they imply as well (transitive must-links, entailed cannot-links), pass
    ``ConstraintStore.must_link_pairs(closure=True)`` and
    ``cannot_link_pairs(closure=True)``; this is quadratic in the size of
    the must-link components.

    References
    ----------
    S. Basu, A. Banerjee and R. J. Mooney. Active semi-supervision for
    pairwise constrained clustering. SIAM International Conference on Data
    Mining (SDM), 2004.

    {thesis} (section 2.3.1).

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise import PCKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> model = PCKMeans(n_clusters=2, random_state=0).fit(X, ml=[(0, 1)], cl=[(0, 3)])
    >>> model.labels_[0] == model.labels_[1], model.labels_[0] != model.labels_[3]
    (np.True_, np.True_)
    """

    def __init__(self, n_clusters=8, *, w=1.0, w_bar=1.0, n_init=1, max_iter=100, tol=1e-4, random_state=None):
        super().__init__(n_clusters, n_init=n_init, max_iter=max_iter, tol=tol, random_state=random_state)
        self.w, self.w_bar = w, w_bar

    _parameter_constraints = {
        **PairwiseKMeans._parameter_constraints,
        "w": [Interval(Real, 0, None, closed="left")],
        "w_bar": [Interval(Real, 0, None, closed="left")],
    }

    def _fit(self, X, ml, cl, rng):
        self._fit_runs(X, rng, self._run, PairGraph(ml, cl))

    def _run(self, X, x_sq, tol, rng, graph):
        k, w, w_bar = self.n_clusters, float(self.w), float(self.w_bar)
        edge_is_ml = graph.is_ml[graph.edge_pair]
        schedule = graph.schedule(k, rng)

        def edge_cost(edges, neighbour):
            # must-link: w for every cluster but the neighbour's; cannot-link: w_bar for the neighbour's
            ml = edge_is_ml[edges]
            cost = np.zeros((edges.size, k))
            cost[ml] = w
            cost[np.arange(edges.size), neighbour] = np.where(ml, 0.0, w_bar)
            return cost

        def assign(centers):
            return schedule.icm(0.5 * sq_distances(X, x_sq, centers), edge_cost)

        centers = neighbourhood_centers(graph, X, x_sq, k, rng, cannot_link_seed=True)
        labels, centers, n_iter = lloyd(assign, mean_update(X), centers, self.max_iter, tol)
        violated = graph.violated(labels)
        objective = (0.5 * inertia(X, labels, centers)
                     + w * np.count_nonzero(violated & graph.is_ml)
                     + w_bar * np.count_nonzero(violated & ~graph.is_ml))
        return _Run(labels, centers, objective, n_iter)
