"""An exact search for an assignment that breaks no cannot-link (graph colouring).

COP-k-means gives up when its greedy order finds a point's every cluster
blocked, even when another order would succeed. :func:`colour` is the fallback:
DSatur with backtracking (Brélaz 1979), cheapest allowed cluster first.
"""

import numpy as np


class SearchGaveUp(Exception):
    """The bounded search ran out of steps before finding or ruling out an assignment."""


def colour(neighbours, cost, max_steps):
    """Labels such that no two ``neighbours`` share one, cheap ``cost`` first; None if none exist.

    DSatur order (the node with the most distinct clusters among its placed
    neighbours goes next, ties to the most neighbours), each node trying its
    allowed clusters cheapest first, backtracking on a dead end. Clusters not
    used yet are interchangeable as far as feasibility goes, so only the
    cheapest of them is tried: the search stays complete while it prunes
    symmetric branches. Raises :class:`SearchGaveUp` after ``max_steps``
    placements without an answer.

    Examples
    --------
    >>> import numpy as np
    >>> triangle = [np.array([1, 2]), np.array([0, 2]), np.array([0, 1])]
    >>> colour(triangle, np.zeros((3, 3)), 100).tolist()
    [0, 1, 2]
    >>> colour(triangle, np.zeros((3, 2)), 100) is None
    True
    """
    n, k = cost.shape
    labels = np.full(n, -1, dtype=np.intp)
    blocked = np.zeros((n, k), dtype=np.intp)  # placed neighbours in each cluster
    saturation = np.zeros(n, dtype=np.intp)
    n_used = np.zeros(k, dtype=np.intp)  # placed nodes per cluster
    degree = np.array([a.size for a in neighbours], dtype=np.intp)
    order = np.argsort(cost, axis=1, kind="stable")

    def place(node, c, step):  # step = +1 places node in c, -1 takes it out again
        nb = neighbours[node]
        if step < 0:
            blocked[nb, c] -= 1
        saturation[nb[blocked[nb, c] == 0]] += step
        if step > 0:
            blocked[nb, c] += 1
        n_used[c] += step
        labels[node] = c if step > 0 else -1

    stack = []  # (node, clusters to try, index of the next try)
    backtracking = False
    for _ in range(max_steps):
        if not backtracking:
            free = labels < 0
            if not free.any():
                return labels
            node = int(np.argmax(np.where(free, saturation * (n + 1) + degree, -1)))
            stack.append((node, _tries(order[node], blocked[node], n_used), 0))
        node, options, nxt = stack[-1]
        if labels[node] >= 0:
            place(node, labels[node], -1)
        backtracking = nxt == len(options)
        if backtracking:  # dead end: undo the previous choice and try its next cluster
            stack.pop()
            if not stack:
                return None
        else:
            place(node, options[nxt], 1)
            stack[-1] = (node, options, nxt + 1)
    raise SearchGaveUp


def _tries(order, blocked, n_used):
    """The clusters a node may try, cheapest first (``order``): those none of its placed neighbours is in
    (``blocked`` counts them per cluster) and, of the unused ones (interchangeable), only the first."""
    out, new_seen = [], False
    for c in order:
        if n_used[c] == 0:
            if not new_seen:
                out.append(c)
            new_seen = True
        elif blocked[c] == 0:
            out.append(c)
    return out
