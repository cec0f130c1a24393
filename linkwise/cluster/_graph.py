"""Pairwise constraints as a sparse graph, and what the clusterers do with it.

Three things the constrained k-means family shares:

* :class:`PairGraph`: the constraints over the *constrained points only*
  (nodes), as directed edges (each pair in both directions) with a
  CSR-like grouping, so that a point's penalty needs only its own edges;
* :meth:`PairGraph.icm`: one pass of iterated conditional modes (ICM), the
  order-dependent greedy assignment of PCKMeans / MPCKMeans / COPKMeans, in a
  fresh random order, vectorised without changing its result (see there);
* :func:`neighbourhood_centers`: the initialisation from the must-link
  neighbourhoods (Basu et al. 2004; Bilenko et al. 2004).
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from linkwise._validation import check_pairs, owner_name
from linkwise.cluster._base import kmeans_plusplus, one_hot


def check_constraints(ml, cl, n_samples, owner):
    """Validate ``ml`` / ``cl`` pair lists against ``n_samples`` rows; return two ``(m, 2)`` arrays."""
    where = f"{owner_name(owner)}.fit"
    return check_pairs(ml, n_samples, "ml", where), check_pairs(cl, n_samples, "cl", where)


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
        """Boolean mask over pairs: which constraints ``labels`` (one per row of X) break."""
        same = labels[self.pairs[:, 0]] == labels[self.pairs[:, 1]]
        return np.where(self.is_ml, ~same, same)

    def ml_components(self):
        """Must-link component of every node: ``(n_components, component_id_per_node)``."""
        ml = self.pair_nodes[self.is_ml]
        adjacency = sp.coo_matrix(
            (np.ones(len(ml)), (ml[:, 0], ml[:, 1])), shape=(self.n_nodes, self.n_nodes)
        )
        return connected_components(adjacency, directed=False)

    def _layers(self, rng):
        """Split the nodes, taken in a random order, into batches that can move at once.

        A node's batch is one more than the latest batch among its neighbours
        that come *earlier* in the order (the longest chain of earlier
        neighbours). No two neighbours share a batch, and every earlier
        neighbour of a node is in an earlier batch, so updating the batches one
        after another, each all at once, gives exactly the sequential result
        for that order. On sparse constraint graphs there are only a handful
        of batches.
        """
        rank = rng.permutation(self.n_nodes)
        forward = rank[self.src] < rank[self.dst]
        before, after = self.src[forward], self.dst[forward]
        layer = np.zeros(self.n_nodes, dtype=np.intp)
        while True:
            pushed = layer.copy()
            np.maximum.at(pushed, after, layer[before] + 1)
            if np.array_equal(pushed, layer):
                return layer
            layer = pushed

    def icm(self, base_cost, labels, edge_cost, rng):
        """One ICM pass: each node, in a random order, takes its cheapest cluster.

        Parameters
        ----------
        base_cost : ndarray of shape (n_nodes, n_clusters)
            Each node's cost per cluster, constraints aside.
        labels : ndarray of int, shape (n_nodes,)
            Current labels of the nodes (-1: not assigned yet, imposes
            nothing); updated in place as the pass goes.
        edge_cost : callable
            ``edge_cost(edges, neighbour_labels)`` gives the
            ``(len(edges), n_clusters)`` cost that each directed edge adds to
            its source node for each cluster, given the neighbour's label.
        rng : numpy.random.RandomState

        Returns
        -------
        labels : ndarray
            The same array, updated.
        batch : ndarray of int, shape (n_nodes,)
            When each node moved (nodes in later batches saw the new labels
            of their neighbours in earlier ones).
        """
        if self.n_nodes == 0:
            return labels, np.zeros(0, dtype=np.intp)
        layer = self._layers(rng)
        n_layers = int(layer.max()) + 1
        node_order = np.argsort(layer, kind="stable")
        node_bounds = np.searchsorted(layer[node_order], np.arange(n_layers + 1))
        position = np.empty(self.n_nodes, dtype=np.intp)  # row of each node within its batch
        position[node_order] = np.arange(self.n_nodes) - np.repeat(node_bounds[:-1], np.diff(node_bounds))
        edge_layer = layer[self.src]
        edge_order = np.argsort(edge_layer, kind="stable")
        edge_bounds = np.searchsorted(edge_layer[edge_order], np.arange(n_layers + 1))
        for b in range(n_layers):
            nodes = node_order[node_bounds[b] : node_bounds[b + 1]]
            edges = edge_order[edge_bounds[b] : edge_bounds[b + 1]]
            cost = base_cost[nodes]
            np.add.at(cost, position[self.src[edges]], edge_cost(edges, labels[self.dst[edges]]))
            labels[nodes] = np.argmin(cost, axis=1)
        return labels, layer


def weighted_farthest_first(points, weights, n_select):
    """Indices of ``n_select`` points by farthest-first traversal, distances scaled by weight.

    Starts from the heaviest point; each next point maximises its weight
    times its distance to the nearest point already chosen.
    """
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


def neighbourhood_centers(graph, X, x_sq, n_clusters, rng, *, select, cannot_link_seed):
    """Initial centres from the must-link neighbourhoods.

    The neighbourhoods are the components of the must-link closure with at
    least two points. With at least ``n_clusters`` of them, their centroids
    are chosen by ``select``: ``"largest"`` (PCKMeans: the largest ones, ties
    at random) or ``"farthest"`` (MPCKMeans: weighted farthest-first
    traversal, weights = sizes). With fewer, every neighbourhood centroid is
    used; with ``cannot_link_seed`` (PCKMeans) a point outside them that is
    cannot-linked to all of them becomes the next centre; the remaining
    centres are completed by k-means++ (the papers perturb the global mean
    instead; k-means++ makes the unconstrained case match KMeans).

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
    """
    n_comp, comp = graph.ml_components()
    sizes = np.bincount(comp, minlength=n_comp)
    hood = np.flatnonzero(sizes >= 2)
    means = (one_hot(comp, n_comp) @ X[graph.points]) / np.maximum(sizes, 1)[:, None]
    if hood.size >= n_clusters:
        if select == "largest":
            pick = hood[np.lexsort((rng.uniform(size=hood.size), -sizes[hood]))[:n_clusters]]
        else:
            pick = hood[weighted_farthest_first(means[hood], sizes[hood].astype(float), n_clusters)]
        return means[pick]
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
