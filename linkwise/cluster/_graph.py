"""Pairwise constraints as a graph over the constrained points, and what the k-means family does with it.

:class:`PairGraph` holds the pairs as directed edges; :class:`Schedule` runs
passes of iterated conditional modes (the order-dependent greedy assignment of
PCKMeans / MPCKMeans / COPKMeans) vectorised without changing their result;
:func:`neighbourhood_centers` initialises from the must-link neighbourhoods
(Basu et al. 2004; Bilenko et al. 2004).
"""

import numpy as np

from linkwise.cluster._base import kmeans_plusplus, one_hot
from linkwise.graph import components


class PairGraph:
    """Must-link and cannot-link pairs as a graph over the points they mention.

    Parameters
    ----------
    ml, cl : ndarray of shape (m, 2)
        Validated pairs of row indices. Repeated pairs count repeatedly (each
        is one term of the objective).

    Attributes
    ----------
    pairs : ndarray of shape (n_pairs, 2)
        Row indices, must-links first.
    is_ml : ndarray of bool, shape (n_pairs,)
    points : ndarray of int
        Sorted rows that appear in some pair; node ``u`` is row ``points[u]``.
    pair_nodes : ndarray of shape (n_pairs, 2)
        The pairs as node ids.
    src, dst, edge_pair : ndarray of int, shape (2 * n_pairs,)
        Directed edges (both directions of every pair) and the pair each comes from.
    """

    def __init__(self, ml, cl):
        self.pairs = np.concatenate([ml, cl]).astype(np.intp)
        self.is_ml = np.r_[np.ones(len(ml), dtype=bool), np.zeros(len(cl), dtype=bool)]
        self.points, nodes = np.unique(self.pairs, return_inverse=True)
        self.pair_nodes = nodes.reshape(-1, 2)
        self.n_nodes = self.points.size
        m = len(self.pairs)
        self.src = np.r_[self.pair_nodes[:, 0], self.pair_nodes[:, 1]]
        self.dst = np.r_[self.pair_nodes[:, 1], self.pair_nodes[:, 0]]
        self.edge_pair = np.r_[np.arange(m), np.arange(m)]

    def violated(self, labels):
        """Tell which constraints a clustering breaks.

        Parameters
        ----------
        labels : ndarray of shape (n_samples,)
            One label per row of X.

        Returns
        -------
        ndarray of bool, shape (n_pairs,)
            True for each pair of ``pairs`` that ``labels`` breaks.
        """
        same = labels[self.pairs[:, 0]] == labels[self.pairs[:, 1]]
        return np.where(self.is_ml, ~same, same)

    def schedule(self, n_clusters, rng):
        """Draw a random visiting order for ICM passes.

        Parameters
        ----------
        n_clusters : int
            Number of clusters the passes assign to.
        rng : numpy.random.RandomState
            Draws the order.

        Returns
        -------
        Schedule
            The order, prepared for repeated passes.
        """
        return Schedule(self, self._batches(rng), n_clusters)

    def _batches(self, rng):
        """Split the nodes, in a random order, into batches that can move at once.

        A node's batch is one more than the latest among its *earlier*
        neighbours, so no two neighbours share a batch and moving the batches
        one after another gives exactly the sequential result for that order
        (a handful of batches on sparse graphs).
        """
        rank = rng.permutation(self.n_nodes)
        forward = rank[self.src] < rank[self.dst]
        before, after = self.src[forward], self.dst[forward]
        order = np.argsort(after, kind="stable")
        before, after = before[order], after[order]
        batch = np.zeros(self.n_nodes, dtype=np.intp)
        if after.size == 0:
            return batch
        starts = np.flatnonzero(np.r_[True, after[1:] != after[:-1]])
        targets = after[starts]
        while True:
            pushed = np.maximum.reduceat(batch[before], starts) + 1
            if np.array_equal(pushed, batch[targets]):
                return batch
            batch[targets] = pushed


class Schedule:
    """One random order of the constrained points, prepared for repeated ICM passes.

    Iterated conditional modes (ICM) visits the points one at a time, each
    taking the cluster cheapest given its constraint neighbours' labels. The
    order is drawn once per run (COP-k-means keeps one order); ``batch`` (the
    step in which each node moves, see :meth:`PairGraph._batches`) makes a
    pass a handful of vectorised steps.
    """

    def __init__(self, graph, batch, n_clusters):
        self.batch, self.n_clusters, self._points = batch, n_clusters, graph.points
        self._labels = None  # the nodes' labels, carried from one icm() call to the next
        self._steps = []
        if graph.n_nodes == 0:
            return
        n_steps = int(batch.max()) + 1
        node_order = np.argsort(batch, kind="stable")
        node_bounds = np.searchsorted(batch[node_order], np.arange(n_steps + 1))
        position = np.empty(graph.n_nodes, dtype=np.intp)  # row of each node within its step
        position[node_order] = np.arange(graph.n_nodes) - np.repeat(node_bounds[:-1], np.diff(node_bounds))
        edge_step = batch[graph.src]
        edge_order = np.argsort(edge_step, kind="stable")
        edge_bounds = np.searchsorted(edge_step[edge_order], np.arange(n_steps + 1))
        for b in range(n_steps):
            nodes = node_order[node_bounds[b] : node_bounds[b + 1]]
            edges = edge_order[edge_bounds[b] : edge_bounds[b + 1]]
            # (row, cluster) cell of each edge's cost: one bincount sums a node's edges
            cells = (position[graph.src[edges]][:, None] * n_clusters + np.arange(n_clusters)).ravel()
            self._steps.append((nodes, edges, graph.dst[edges], cells))

    def sweep(self, base_cost, labels, edge_cost):
        """One ICM pass from the nodes' ``labels`` (-1: not placed yet), updated in place and returned.

        ``base_cost`` is each node's ``(n_nodes, n_clusters)`` cost without
        constraints; ``edge_cost(edges, neighbour_labels)`` the
        ``(len(edges), n_clusters)`` cost each directed edge adds to its source.
        """
        k = self.n_clusters
        for nodes, edges, neighbours, cells in self._steps:
            cost = edge_cost(edges, labels[neighbours]).ravel()
            penalty = np.bincount(cells, weights=cost, minlength=nodes.size * k).reshape(nodes.size, k)
            labels[nodes] = np.argmin(base_cost[nodes] + penalty, axis=1)
        return labels

    def icm(self, cost, edge_cost):
        """Labels of every row given its ``(n_samples, n_clusters)`` ``cost``: the cheapest cluster, then a
        :meth:`sweep` of the constrained points from their labels of the previous call (cheapest in the first)."""
        labels = np.argmin(cost, axis=1)
        if self._labels is None:
            self._labels = labels[self._points]
        labels[self._points] = self.sweep(cost[self._points], self._labels, edge_cost)
        return labels


def weighted_farthest_first(points, weights, n_select):
    """``n_select`` points by farthest-first traversal from the heaviest, each next maximising weight times distance."""
    chosen = [int(np.argmax(weights))]
    dist = np.linalg.norm(points - points[chosen[0]], axis=1)
    score = weights * dist
    for _ in range(n_select - 1):
        score[chosen] = -np.inf
        nxt = int(np.argmax(score))
        chosen.append(nxt)
        dist = np.minimum(dist, np.linalg.norm(points - points[nxt], axis=1))
        score = weights * dist
    return np.array(chosen, dtype=np.intp)


def neighbourhood_centers(graph, X, x_sq, n_clusters, rng, *, cannot_link_seed):
    """Initial centres from the must-link neighbourhoods (must-link components of two or more points).

    With at least ``n_clusters`` of them, their centroids by weighted
    farthest-first traversal (weights = sizes, Bilenko et al. 2004); with
    fewer, all of them, then with ``cannot_link_seed`` (PCKMeans, Basu et al.
    2004) a point cannot-linked to all of them, then k-means++ (the papers
    perturb the global mean; k-means++ makes the unconstrained case KMeans).
    """
    n_comp, comp = components(graph.pair_nodes[graph.is_ml], graph.n_nodes)  # must-link component of each node
    sizes = np.bincount(comp, minlength=n_comp)
    hood = np.flatnonzero(sizes >= 2)
    means = (one_hot(comp, n_comp) @ X[graph.points]) / np.maximum(sizes, 1)[:, None]
    if hood.size >= n_clusters:
        return means[hood[weighted_farthest_first(means[hood], sizes[hood].astype(float), n_clusters)]]
    centers = means[hood]
    if cannot_link_seed and hood.size:
        inside = sizes[comp] >= 2
        cl = graph.pair_nodes[~graph.is_ml]
        a, b = np.r_[cl[:, 0], cl[:, 1]], np.r_[cl[:, 1], cl[:, 0]]
        keep = ~inside[a] & inside[b]
        links = np.unique(np.column_stack([a[keep], comp[b[keep]]]), axis=0)
        nodes, n_linked = np.unique(links[:, 0], return_counts=True)
        candidates = nodes[n_linked == hood.size]
        if candidates.size:
            seed = graph.points[candidates[rng.randint(candidates.size)]]
            centers = np.vstack([centers, X[seed]])
    return kmeans_plusplus(X, x_sq, n_clusters, rng, centers)
