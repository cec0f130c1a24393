"""COPKMeans: k-means that never breaks a constraint (Wagstaff et al. 2001)."""

import numpy as np
import scipy.sparse as sp

from linkwise._validation import StrOptions
from linkwise.cluster._base import (
    PairwiseKMeans,
    _Run,
    inertia,
    kmeans_plusplus,
    lloyd,
    mean_update,
    one_hot,
    sq_distances,
)
from linkwise.cluster._colouring import SearchGaveUp, colour
from linkwise.cluster._graph import PairGraph
from linkwise.exceptions import InconsistentConstraintError
from linkwise.graph import components


class COPKMeans(PairwiseKMeans):
    """Constrained k-means with hard must-link and cannot-link constraints.

    Must-linked points (with the transitive closure) move as one group,
    which goes to the cluster with the smallest total squared distance to
    its members. Each assignment step places the groups without
    cannot-links all at once, the others in a random order drawn once per
    run, each in the nearest cluster holding none of the groups it is
    cannot-linked to. Centres start by k-means++. Where COP-k-means gives
    up (a group finds every cluster blocked, though another order might
    place it), ``on_infeasible="raise"`` places that cannot-link component
    again by an exact search (DSatur colouring with backtracking, cheapest
    cluster first, bounded in steps) that finds an assignment breaking no
    constraint, proves none exists, or gives up. Runs where the greedy
    order succeeds are those of COP-k-means.

    Parameters
    ----------
    {n_clusters}
    on_infeasible : {"raise", "relax"}, default="raise"
        What a step does when the greedy order leaves a group with every
        cluster blocked. ``"raise"``: the search above places the groups
        again; when it gives up, the run is abandoned (see Raises).
        ``"relax"`` (no search, as COP-k-means with soft fallback): the group
        goes to the nearest cluster among those breaking the fewest
        cannot-links, and the run with the fewest broken constraints is kept
        (``n_violated_`` tells how many).
    n_init : int, default=1
        Number of runs (k-means++ initialisation, random order); failed runs
        are discarded, the lowest within-cluster sum of squares is kept.
    {max_iter}
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the assignment orders.

    Attributes
    ----------
    {labels}
    inertia_ : float
        Sum of squared distances of the points to their centres.
    objective_ : float
        The same (the quantity COP-k-means minimises), for ``X / scale_``.
    n_violated_ : int
        Cannot-links broken (always 0 unless ``on_infeasible="relax"``).
    n_iter_ : int
    n_features_in_ : int
    {scale}

    Raises
    ------
    InconsistentConstraintError
        From ``fit``, when a cannot-link joins two points that the must-links
        put together.
    ValueError
        From ``fit`` with ``on_infeasible="raise"``, when no assignment to
        ``n_clusters`` clusters honours every constraint (proved), or when in
        all ``n_init`` runs neither the greedy order nor the bounded search
        found one (naming the point the greedy order could not place).

    References
    ----------
    K. Wagstaff, C. Cardie, S. Rogers and S. Schrödl. Constrained k-means
    clustering with background knowledge. International Conference on
    Machine Learning (ICML), 2001.

    D. Brélaz. New methods to color the vertices of a graph. Communications
    of the ACM 22(4), 1979 (DSatur).

    {thesis} (section 2.3.1).

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise import COPKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> model = COPKMeans(n_clusters=2, random_state=0).fit(X, ml=[(0, 3)], cl=[(1, 2)])
    >>> bool(model.labels_[0] == model.labels_[3]), bool(model.labels_[1] != model.labels_[2])
    (True, True)
    """

    def __init__(self, n_clusters=8, *, on_infeasible="raise", n_init=1, max_iter=100, tol=1e-4, random_state=None):
        super().__init__(n_clusters, n_init=n_init, max_iter=max_iter, tol=tol, random_state=random_state)
        self.on_infeasible = on_infeasible

    _parameter_constraints = {**PairwiseKMeans._parameter_constraints, "on_infeasible": [StrOptions({"raise", "relax"})]}

    def _fit(self, X, ml, cl, rng):
        n_groups, group = components(ml, X.shape[0])
        inside = np.flatnonzero(group[cl[:, 0]] == group[cl[:, 1]])
        if inside.size:
            i, j = cl[inside[0]].tolist()
            raise InconsistentConstraintError(f"The cannot-link ({i}, {j}) given to COPKMeans.fit contradicts the "
                                              f"must-links, which put {i} and {j} in the same cluster; remove one of "
                                              "them.", pair=(i, j), must_link=False)
        # cannot-links between must-link groups: the groups are the graph's nodes
        group_pairs = np.unique(np.sort(group[cl], axis=1), axis=0)
        graph = PairGraph(np.empty((0, 2), dtype=np.intp), group_pairs)
        failures = []
        best = self._fit_runs(X, rng, self._run, group, n_groups, graph, _Recolouring(graph), failures)
        if best is None:
            raise self._infeasible_error(failures[0], group)
        self.n_violated_ = int(best.state)

    def _run(self, X, x_sq, tol, rng, group, n_groups, graph, recolour, failures):
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

            node_cost = cost[graph.points]
            node_labels = schedule.sweep(node_cost, np.full(graph.n_nodes, -1, dtype=np.intp), edge_cost)
            bad = node_labels[graph.pair_nodes[:, 0]] == node_labels[graph.pair_nodes[:, 1]]
            n_violated = int(np.count_nonzero(bad))
            if n_violated and self.on_infeasible == "raise":
                try:
                    impossible = recolour(node_labels, graph.pair_nodes[bad].ravel(), node_cost)
                except SearchGaveUp:
                    # the later of the two groups found every cluster blocked; report the first such
                    u, v = graph.pair_nodes[bad].T
                    later = np.where(schedule.batch[u] > schedule.batch[v], u, v)
                    failures.append(graph.points[later[np.argmin(schedule.batch[later])]])
                    return None
                if impossible is not None:
                    raise self._unsatisfiable_error(graph.points[impossible], group)
                n_violated = 0
            group_labels[graph.points] = node_labels
            return group_labels[group]

        centers = kmeans_plusplus(X, x_sq, k, rng)
        result = lloyd(assign, mean_update(X), centers, self.max_iter, tol)
        if result is None:
            return None
        labels, centers, n_iter = result
        sse = inertia(X, labels, centers)
        return _Run(labels, centers, sse, n_iter, state=n_violated, score=(n_violated, sse))

    def _infeasible_error(self, failed_group, group):
        together = np.flatnonzero(group == failed_group)
        point = int(together[0])
        with_ml = f" (with the {together.size - 1} points must-linked to it)" if together.size > 1 else ""
        return ValueError(f"COPKMeans could not place point {point}{with_ml} in any of its n_init={self.n_init} "
                          f"run(s): in the greedy order each of the {self.n_clusters} clusters already held a point "
                          f"it is cannot-linked to, and a search of {_SEARCH_STEPS} steps found no other assignment "
                          "(one may still exist). Try a larger n_init or n_clusters, or on_infeasible='relax' to "
                          "break the fewest cannot-links.")

    def _unsatisfiable_error(self, groups, group):
        first = np.unique(group, return_index=True)[1][groups]  # one point per must-link group
        shown = ", ".join(str(p) for p in np.sort(first)[:_SHOWN])
        more = f" and {first.size - _SHOWN} more" if first.size > _SHOWN else ""
        return ValueError(f"No assignment to n_clusters={self.n_clusters} clusters honours the constraints given "
                          f"to COPKMeans.fit: the cannot-links among points {shown}{more} (with the points "
                          "must-linked to them) need more clusters (proved by exhaustive search). Use a larger "
                          "n_clusters, remove a cannot-link, or on_infeasible='relax' to break the fewest.")


_SEARCH_STEPS = 50_000  # per cannot-link component and step; a few seconds at most
_SHOWN = 5  # points named in a message


class _Recolouring:
    """The cannot-link components of the group graph, placed again by :func:`colour` when the greedy order fails."""

    def __init__(self, graph):
        self._graph = graph
        self._adjacency = self._component = None  # built on the first failure: none when greedy succeeds
        self._parts = {}  # component -> (nodes, neighbours in local ids)

    def __call__(self, node_labels, bad_nodes, node_cost):
        """Recolour the components holding ``bad_nodes`` in place; the nodes of an impossible one, or None."""
        if self._adjacency is None:
            g = self._graph
            shape = (g.n_nodes, g.n_nodes)
            self._adjacency = sp.csr_matrix((np.ones(g.src.size), (g.src, g.dst)), shape=shape)
            self._component = components(g.pair_nodes, g.n_nodes)[1]
        for c in np.unique(self._component[bad_nodes]):
            if c not in self._parts:
                nodes = np.flatnonzero(self._component == c)
                sub = self._adjacency[nodes][:, nodes]
                self._parts[c] = nodes, np.split(sub.indices, sub.indptr[1:-1])
            nodes, neighbours = self._parts[c]
            labels = colour(neighbours, node_cost[nodes], _SEARCH_STEPS)
            if labels is None:
                return nodes
            node_labels[nodes] = labels
        return None
