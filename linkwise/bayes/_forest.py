"""Exact inference on the constraint forest.

The answered pairs form a graph whose nodes are the constrained points; the
model keeps it a forest, so sum-product and max-product message passing are
exact. Every edge potential is an "epsilon-identity" matrix: ``psi(k, l) =
a + b * [k == l]`` with ``(a, b) = (eps, 1 - 2 eps)`` for a must-link and
``(1 - eps, 2 eps - 1)`` for a cannot-link (``eps`` the model's for an answer,
``STATED_EPS`` for a relation a person stated outside the questions: a mark of a
cluster must hold). A message through such an edge is
``a * sum(h) + b * h``, which costs O(K) instead of O(K^2).

Arrays are node first, ``(n_nodes, n_particles, n_clusters)``: one pass serves
every particle. Nodes are stored level by level (parents before children,
siblings together), a whole depth level, a contiguous slice, at a time; inside
the passes the layout is ``(n_nodes, n_clusters, n_particles)``, so sums and
maxima over clusters run over contiguous rows of particles.
"""

import numpy as np

from linkwise.graph import breadth_first

__all__ = ["ConstraintForest", "STATED_EPS", "upward", "downward", "same_cluster_in_tree", "max_product"]

STATED_EPS = 1e-6  # the error probability of a stated relation: as good as certain, its logarithm still finite


class ConstraintForest:
    """The graph of answered row ``pairs`` (``must``: True for a must-link), rooted and ordered for message passing.

    ``stated`` (default none) marks the pairs a person stated outside the
    questions, whose error probability is ``STATED_EPS``.
    ``nodes`` holds the row of each node level by level (each tree rooted at
    its smallest row; within a level, the trees' breadth-first orders one
    after another); ``parent`` (-1 for a root), ``must`` (the type of the
    edge to the parent), ``stated`` (that edge's) and ``depth`` are per node; ``levels[t]`` is the
    slice of nodes at depth ``t`` and ``runs[t]`` = (distinct parents of that
    level, start of each one's contiguous children); ``roots`` are the first
    level. Per row: ``tree`` id (-1 outside every pair: a pair closes a cycle
    exactly when both rows have the same id >= 0) and ``position`` in
    ``nodes`` (-1 likewise).
    """

    def __init__(self, n_samples, pairs, must, stated=None):
        pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        must = np.asarray(must, dtype=bool).reshape(-1)
        stated = np.zeros(must.size, dtype=bool) if stated is None else np.asarray(stated, dtype=bool).reshape(-1)
        # sorted by (smaller, larger) row, the pairs give every row its neighbours in increasing order; the search
        # from every tree's smallest row at once visits the nodes level by level, siblings together by parent
        by_row = np.lexsort((pairs.max(axis=1), pairs.min(axis=1)))
        visited, via = breadth_first(pairs[by_row], n_samples)
        in_pair = np.zeros(n_samples, dtype=bool)
        in_pair[pairs] = True
        self.nodes = visited[in_pair[visited]].astype(np.intp)
        edge = via[self.nodes]
        n_trees = int(np.count_nonzero(edge < 0))  # the roots, which come first
        if len(pairs) != self.nodes.size - n_trees:  # a forest has one edge fewer than nodes per tree
            raise ValueError("the answered pairs contain a cycle; the constraint graph must be a forest")
        self.n_samples = n_samples
        self.pairs, self.pair_must, self.pair_stated = pairs, must, stated
        self.position = np.full(n_samples, -1, dtype=np.intp)
        self.position[self.nodes] = np.arange(self.nodes.size)
        ends = pairs[by_row][edge]
        self.parent = np.where(edge < 0, -1, self.position[np.where(ends[:, 0] == self.nodes, ends[:, 1], ends[:, 0])])
        self.must = np.where(edge < 0, True, must[by_row][edge])
        self.stated = np.where(edge < 0, False, stated[by_row][edge])
        self.depth = np.zeros(self.nodes.size, dtype=np.intp)
        tree = np.arange(self.nodes.size)
        for p in range(n_trees, self.nodes.size):  # a parent comes before its children
            self.depth[p] = self.depth[self.parent[p]] + 1
            tree[p] = tree[self.parent[p]]
        self.tree = np.full(n_samples, -1, dtype=np.intp)
        self.tree[self.nodes] = tree
        bounds = np.searchsorted(self.depth, np.arange(int(self.depth.max(initial=-1)) + 2))
        self.levels = [slice(start, stop) for start, stop in zip(bounds[:-1], bounds[1:])]
        self.runs = [np.unique(self.parent[level], return_index=True) for level in self.levels]
        self.roots = np.arange(n_trees)

    def __len__(self):
        return self.nodes.size

    def closes_cycle(self, a, b):
        """Whether adding the pairs ``(a[k], b[k])`` would close a cycle (vectorised)."""
        ta, tb = self.tree[a], self.tree[b]
        return (ta >= 0) & (ta == tb)

    def acyclic(self, a, b):
        """Which pairs ``(a[k], b[k])``, taken in order, close no cycle with the forest or the pairs kept before."""
        joined = {}  # union-find over components: a tree's id, or -1 - row for a row in no pair

        def find(c):
            while joined.get(c, c) != c:
                joined[c] = c = joined.get(joined[c], joined[c])
            return c

        keep = np.zeros(len(a), dtype=bool)
        for k, (i, j) in enumerate(zip(np.asarray(a).tolist(), np.asarray(b).tolist())):
            ci, cj = (find(int(t) if t >= 0 else -1 - row) for t, row in ((self.tree[i], i), (self.tree[j], j)))
            if ci != cj:
                joined[ci], keep[k] = cj, True
        return keep

    def with_edge(self, a, b, must):
        """A new forest with one more answered pair (which must not close a cycle)."""
        return self.with_edges([a], [b], [must])

    def with_edges(self, a, b, must, stated=False):
        """A new forest with more answered (or ``stated``) pairs, which together must close no cycle."""
        pairs = np.vstack([self.pairs, np.c_[np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)]])
        must = np.append(self.pair_must, np.asarray(must, dtype=bool))
        return ConstraintForest(self.n_samples, pairs, must, np.append(self.pair_stated, np.broadcast_to(
            stated, len(pairs) - len(self.pairs))))

    def edge_eps(self, eps):
        """The error probability of every node's edge to its parent: ``eps``, ``STATED_EPS`` for a stated relation."""
        return np.where(self.stated, STATED_EPS, eps)

    def coefficients(self, eps):
        """``(a, b)`` of every node's edge to its parent, shaped to broadcast over (node, particle, k)."""
        eps = self.edge_eps(eps)
        a = np.where(self.must, eps, 1.0 - eps)
        b = np.where(self.must, 1.0 - 2.0 * eps, 2.0 * eps - 1.0)
        return a[:, None, None], b[:, None, None]


def upward(forest, log_phi, eps):
    """Sum-product from the leaves to the roots, given log node potentials ``(n_nodes, n_particles, K)``.

    Returns ``log P(Z | W)`` per particle (node potentials are normalised, so
    rows outside the forest contribute nothing) and ``beta``, each node's
    subtree belief (its potential times its children's messages), normalised
    over clusters, shaped like ``log_phi``.
    """
    a, b = forest.coefficients(eps)
    log_beta = np.ascontiguousarray(log_phi.transpose(0, 2, 1))
    beta = np.empty_like(log_beta)
    log_z = np.zeros(log_phi.shape[1])
    for t in range(len(forest.levels) - 1, -1, -1):
        level = forest.levels[t]
        top = log_beta[level].max(axis=1, keepdims=True)
        x = beta[level]
        np.exp(log_beta[level] - top, out=x)
        total = x.sum(axis=1, keepdims=True)
        x /= total
        norm = np.log(total) + top
        if t == 0:
            log_z = norm.sum(axis=0)[0]
        else:
            # the message a*sum(beta) + b*beta, with sum(beta) = 1 after normalising
            message = np.log(a[level] + b[level] * x) + norm
            parents, starts = forest.runs[t]
            log_beta[parents] += np.add.reduceat(message, starts, axis=0)
    return log_z, beta.transpose(0, 2, 1)


def downward(forest, beta, eps):
    """Node marginals ``P(y_i | Z, W)``, ``(n_nodes, n_particles, K)``, from the upward beliefs."""
    a, b = forest.coefficients(eps)
    beta = np.ascontiguousarray(beta.transpose(0, 2, 1))  # no copy for upward's beta
    q = np.empty_like(beta)
    q[forest.roots] = beta[forest.roots]
    for level in forest.levels[1:]:
        u = forest.parent[level]
        # the parent's belief without this child's message, sent back down
        rest = q[u] / (a[level] + b[level] * beta[level])
        rest /= rest.sum(axis=1, keepdims=True)
        qv = beta[level] * (a[level] + b[level] * rest)
        q[level] = qv / qv.sum(axis=1, keepdims=True)
    return q.transpose(0, 2, 1)


def same_cluster_in_tree(forest, beta, q, eps, u, v):
    """``P(y_u = y_v | Z, W)`` for node pairs inside one tree.

    Given Z the labels along the tree path are a Markov chain; with ``c`` the
    lowest common ancestor, ``P(y_u = y_v) = sum_k q_c(k) sum_l D_cu[k, l]
    D_cv[k, l]`` where ``D_cu`` is the product of the parent-to-child
    conditionals from ``c`` down to ``u``. ``u``, ``v`` are node positions;
    returns ``(n_particles, n_pairs)``.
    """
    n_particles, k = beta.shape[1], beta.shape[2]
    if u.size == 0:
        return np.empty((n_particles, 0))
    a, b = forest.coefficients(eps)
    eye = np.eye(k)
    # P(y_child = l | y_parent = k, Z) = psi(k, l) beta_child(l) / (a + b beta_child(k))
    psi = a[..., None] + b[..., None] * eye
    cond = psi * beta[:, :, None, :] / (a + b * beta)[..., None]
    # chain[offset[w] + t] = P(y_w | y of w's ancestor at depth t, Z); the last one is the identity.
    # A whole depth level at a time: a node's chain is its parent's, times its own conditional.
    offset = np.concatenate([[0], np.cumsum(forest.depth + 1)])
    chain = np.empty((offset[-1], n_particles, k, k))
    ancestors = np.full((len(forest), len(forest.levels)), -1, dtype=np.intp)
    for t, level in enumerate(forest.levels):
        if t:
            parent, up = forest.parent[level], np.arange(t)
            chain[offset[level][:, None] + up] = chain[offset[parent][:, None] + up] @ cond[level][:, None]
            ancestors[level, :t] = ancestors[parent, :t]
        chain[offset[level] + t] = eye
        ancestors[level, t] = np.arange(level.start, level.stop)
    common = (ancestors[u] == ancestors[v]) & (ancestors[u] >= 0)
    lca_depth = np.cumprod(common, axis=1).sum(axis=1) - 1
    lca = ancestors[u, lca_depth]
    du, dv = chain[offset[u] + lca_depth], chain[offset[v] + lca_depth]
    return np.einsum("psk,pskl,pskl->sp", q[lca], du, dv)


def max_product(forest, log_phi, eps):
    """Most probable labels of the forest's nodes for one W's ``(n_nodes, K)`` log potentials (max-product)."""
    n, k = log_phi.shape
    labels = np.zeros(n, dtype=np.intp)
    if n == 0 or k == 1:
        return labels
    eps = forest.edge_eps(eps)
    log_same = np.where(forest.must, np.log1p(-eps), np.log(eps))
    log_diff = np.where(forest.must, np.log(eps), np.log1p(-eps))
    delta = log_phi.copy()
    choice = np.zeros((n, k), dtype=np.intp)  # best child label given the parent's label
    ks = np.arange(k)
    for level, (parents, starts) in zip(forest.levels[:0:-1], forest.runs[:0:-1]):
        d = delta[level]
        order = np.argsort(-d, axis=1, kind="stable")
        first, second = order[:, 0], order[:, 1]
        top = np.take_along_axis(d, order[:, :2], axis=1)
        is_first = ks == first[:, None]
        other = np.where(is_first, top[:, 1:2], top[:, 0:1]) + log_diff[level, None]
        other_label = np.where(is_first, second[:, None], first[:, None])
        same = d + log_same[level, None]
        choice[level] = np.where(same >= other, ks, other_label)
        delta[parents] += np.add.reduceat(np.maximum(same, other), starts, axis=0)
    labels[forest.roots] = np.argmax(delta[forest.roots], axis=1)
    for level in forest.levels[1:]:
        labels[level] = np.take_along_axis(choice[level], labels[forest.parent[level], None], axis=1)[:, 0]
    return labels
