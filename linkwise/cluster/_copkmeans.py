"""COPKMeans: k-means that never breaks a constraint (Wagstaff et al. 2001)."""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from linkwise._validation import check_option
from linkwise.cluster._base import (
    KMeansFamily,
    _Run,
    kmeans_plusplus,
    lloyd,
    mean_update,
    one_hot,
    sq_distances,
)
from linkwise.cluster._graph import PairGraph, start_constrained
from linkwise.exceptions import InconsistentConstraintError


class COPKMeans(KMeansFamily):
    """Constrained k-means with hard must-link and cannot-link constraints.

    Must-linked points (with the transitive closure) move as one group,
    which goes to the cluster with the smallest total squared distance to
    its members (Wagstaff et al. place points one by one, so a group follows
    whichever member comes first). Each assignment step starts from scratch:
    the groups without cannot-links are placed all at once; the others, in
    a random order drawn once per run, each go to the nearest cluster that
    holds none of the groups it is cannot-linked to and that were already
    placed in this step. Centres start by k-means++. When a group finds
    every cluster blocked, the step has failed (COP-k-means gives up; this
    can happen even when a feasible clustering exists, because the outcome
    depends on the order).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters.
    on_infeasible : {"raise", "relax"}, default="raise"
        What a failed step does. ``"raise"``: the run is abandoned; if all
        ``n_init`` runs fail, ``fit`` raises a ``ValueError`` naming the
        point that could not be placed. ``"relax"``: the group goes to the
        cluster that breaks the fewest cannot-links (nearest among those),
        and the run with the fewest broken constraints is kept
        (``n_violated_`` tells how many).
    n_init : int, default=1
        Number of runs (k-means++ initialisation, random order); failed runs
        are discarded, the lowest within-cluster sum of squares is kept.
    max_iter : int, default=100
        Maximum number of assignment / update rounds per run.
    tol : float, default=1e-4
        Convergence threshold on the squared movement of the centres,
        relative to the mean feature variance (as in ``KMeans``).
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the assignment orders.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    inertia_ : float
        Sum of squared distances of the points to their centres.
    objective_ : float
        The same (the quantity COP-k-means minimises).
    n_violated_ : int
        Cannot-links broken (always 0 unless ``on_infeasible="relax"``).
    n_iter_ : int
    n_features_in_ : int

    Raises
    ------
    InconsistentConstraintError
        From ``fit``, when a cannot-link joins two points that the must-links
        put together.

    References
    ----------
    K. Wagstaff, C. Cardie, S. Rogers and S. Schrödl. Constrained k-means
    clustering with background knowledge. International Conference on
    Machine Learning (ICML), 2001.

    J. Švehla. Active semi-supervised clustering. Master's thesis, Czech
    Technical University in Prague, 2018 (section 2.3.1).

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise import COPKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> model = COPKMeans(n_clusters=2, random_state=0).fit(X, ml=[(0, 3)], cl=[(1, 2)])
    >>> bool(model.labels_[0] == model.labels_[3]), bool(model.labels_[1] != model.labels_[2])
    (True, True)
    """

    def __init__(
        self, n_clusters=8, *, on_infeasible="raise", n_init=1, max_iter=100, tol=1e-4, random_state=None
    ):
        self.n_clusters = n_clusters
        self.on_infeasible = on_infeasible
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _validate_extra(self):
        check_option(self.on_infeasible, "on_infeasible", self, ("raise", "relax"))

    def fit(self, X, y=None, *, ml=None, cl=None):
        """Cluster ``X`` so that every must-link pair shares a cluster and no cannot-link pair does.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None
            Ignored (scikit-learn convention).
        ml, cl : array-like of shape (n_pairs, 2), optional
            Row-index pairs that must (``ml``) or must not (``cl``) share a cluster.

        Returns
        -------
        self : COPKMeans
        """
        X, rng, ml, cl = start_constrained(self, X, y, ml, cl)
        n = X.shape[0]
        adjacency = sp.coo_matrix((np.ones(len(ml)), (ml[:, 0], ml[:, 1])), shape=(n, n))
        n_groups, group = connected_components(adjacency, directed=False)
        inside = np.flatnonzero(group[cl[:, 0]] == group[cl[:, 1]])
        if inside.size:
            i, j = cl[inside[0]].tolist()
            raise InconsistentConstraintError(
                f"The cannot-link ({i}, {j}) given to COPKMeans.fit contradicts the must-links, "
                f"which put {i} and {j} in the same cluster; remove one of them.",
                pair=(i, j),
                must_link=False,
            )
        # cannot-links between must-link groups: the groups are the graph's nodes
        group_pairs = np.unique(np.sort(group[cl], axis=1), axis=0)
        graph = PairGraph(np.empty((0, 2), dtype=np.intp), group_pairs)
        x_sq = np.einsum("ij,ij->i", X, X)
        failures = []
        best = self._best_run(lambda r: self._run(X, x_sq, group, n_groups, graph, failures, r), rng)
        if best is None:
            raise self._infeasible_error(failures[0], group)
        self._set_fitted(X, best)
        self.n_violated_ = int(best.state)
        return self

    def _run(self, X, x_sq, group, n_groups, graph, failures, rng):
        k = self.n_clusters
        members = one_hot(group, n_groups)
        schedule = graph.schedule(k, rng)  # one order per run, as COP-k-means keeps the data order
        n_violated = 0

        def assign(centers):
            nonlocal n_violated
            cost = members @ sq_distances(X, x_sq, centers)  # (n_groups, k)
            group_labels = np.argmin(cost, axis=1)
            blocked = cost.max() - cost.min() + 1.0  # outweighs any difference in distance

            def edge_cost(edges, neighbour):
                out = np.zeros((edges.size, k))
                placed = np.flatnonzero(neighbour >= 0)
                out[placed, neighbour[placed]] = blocked
                return out

            node_labels = schedule.sweep(cost[graph.points], np.full(graph.n_nodes, -1, dtype=np.intp), edge_cost)
            group_labels[graph.points] = node_labels
            bad = node_labels[graph.pair_nodes[:, 0]] == node_labels[graph.pair_nodes[:, 1]]
            n_violated = int(np.count_nonzero(bad))
            if n_violated and self.on_infeasible == "raise":
                # the later of the two groups found every cluster blocked; report the first such
                later = np.where(
                    schedule.batch[graph.pair_nodes[bad, 0]] > schedule.batch[graph.pair_nodes[bad, 1]],
                    graph.pair_nodes[bad, 0],
                    graph.pair_nodes[bad, 1],
                )
                failures.append(graph.points[later[np.argmin(schedule.batch[later])]])
                return None
            return group_labels[group]

        centers = kmeans_plusplus(X, x_sq, k, rng)
        result = lloyd(assign, mean_update(X), centers, self.max_iter, self._tol(X))
        if result is None:
            return None
        labels, centers, n_iter = result
        residual = X - centers[labels]
        inertia = float(np.einsum("ij,ij->", residual, residual))
        return _Run(labels, centers, inertia, n_iter, state=n_violated, score=(n_violated, inertia))

    def _infeasible_error(self, failed_group, group):
        together = np.flatnonzero(group == failed_group)
        point = int(together[0])
        with_ml = f" (with the {together.size - 1} points must-linked to it)" if together.size > 1 else ""
        return ValueError(
            f"COPKMeans could not place point {point}{with_ml} in any of its n_init={self.n_init} "
            f"run(s): each of the {self.n_clusters} clusters already held a point it is cannot-linked "
            "to. Try a larger n_init or n_clusters, or on_infeasible='relax' to break the fewest "
            "cannot-links."
        )
