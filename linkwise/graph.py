"""Pairs ``(i, j)`` of row indices and their graphs: keys, checks, components, paths, relabelling.

Shared by every module that handles constraints or answers.
"""

import functools

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from linkwise._validation import check_data, check_y_ignored, holds_bool, owner_name
from linkwise.exceptions import InvalidParameterError

__all__ = ["find_root", "pair_key", "check_pair", "check_pairs", "check_constraints", "check_fit_input", "components",
           "breadth_first", "shortest_path", "relabel"]


def pair_key(i, j):
    """Key the unordered pair ``{i, j}`` as the tuple ``(min, max)`` of ints.

    Parameters
    ----------
    i, j : int
        The two row indices, in any order.

    Returns
    -------
    tuple of int
        ``(min(i, j), max(i, j))`` as Python ints.

    Examples
    --------
    >>> pair_key(5, 2)
    (2, 5)
    """
    i, j = int(i), int(j)
    return (i, j) if i < j else (j, i)


def check_pair(i, j, n, owner):
    """Check one pair of distinct row indices in ``[0, n)``.

    Parameters
    ----------
    i, j : int
        The row indices; NumPy integers are accepted, bools are not.
    n : int
        Number of rows: both indices must be below it.
    owner : str
        The caller, named in error messages (e.g. ``"LabelOracle.query"``).

    Returns
    -------
    tuple of int
        ``(i, j)`` as Python ints, in the order given.

    Raises
    ------
    InvalidParameterError
        If an index is not an integer, is out of range, or ``i == j``.

    Examples
    --------
    >>> check_pair(0, 2, 3, "LabelOracle.query")
    (0, 2)
    """
    for name, v in (("i", i), ("j", j)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise InvalidParameterError(f"The '{name}' argument of {owner} must be an int row index, got {v!r}.")
        if not 0 <= v < n:
            raise InvalidParameterError(
                f"The '{name}' argument of {owner} is {v}, out of range for {n} points; it must be in [0, {n - 1}]."
            )
    if i == j:
        raise InvalidParameterError(
            f"{owner} got the pair ({i}, {j}): a point cannot be constrained with itself; give two different points."
        )
    return int(i), int(j)


def check_pairs(pairs, n_samples, name, owner):
    """Check pairs of distinct row indices in ``[0, n_samples)``.

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2) or None
        The ``(i, j)`` pairs; None or an empty sequence means no pair. Floats
        with integer values are accepted.
    n_samples : int
        Number of rows: every index must be below it.
    name : str
        The argument's name, used in error messages (e.g. ``"ml"``).
    owner : str or object
        The caller, named in error messages: a string or an estimator.

    Returns
    -------
    ndarray of shape (n_pairs, 2), dtype intp
        The pairs in the order given; shape ``(0, 2)`` for none.

    Raises
    ------
    InvalidParameterError
        If ``pairs`` is ragged or not of shape ``(n_pairs, 2)``, holds
        non-integers or bools, an index out of range, or a pair ``(i, i)``.

    Examples
    --------
    >>> check_pairs([(0, 1), (2, 3)], 5, "ml", "PCKMeans.fit").tolist()
    [[0, 1], [2, 3]]
    """
    where = f"The '{name}' argument of {owner_name(owner)}"
    try:
        arr = np.asarray(() if pairs is None else pairs)
    except ValueError:  # ragged nested sequences
        raise InvalidParameterError(
            f"{where} must be a sequence of (i, j) index pairs of shape (n_pairs, 2); it is ragged."
        ) from None
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidParameterError(
            f"{where} must be a sequence of (i, j) index pairs of shape (n_pairs, 2), got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iu":
        fractional = ~np.isfinite(arr) | (arr != np.round(arr)) if arr.dtype.kind == "f" else np.ones(arr.shape, bool)
        if fractional.any():
            raise InvalidParameterError(f"{where} must hold integer row indices, got {arr[fractional][:1].tolist()[0]!r} "
                                        f"(dtype {arr.dtype}).")
    elif holds_bool(pairs, arr):
        raise InvalidParameterError(f"{where} must hold integer row indices, got bools among them.")
    arr = arr.astype(np.intp)
    bad = np.flatnonzero((arr < 0).any(axis=1) | (arr >= n_samples).any(axis=1))
    if bad.size:
        raise InvalidParameterError(
            f"{where} has pair {bad[0]} = {tuple(arr[bad[0]].tolist())} with an index out of range for X with "
            f"{n_samples} rows; indices must be in [0, {n_samples - 1}]."
        )
    same = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if same.size:
        raise InvalidParameterError(
            f"{where} has pair {same[0]} = {tuple(arr[same[0]].tolist())}: a point cannot be constrained with itself."
        )
    return arr


def check_constraints(ml, cl, n_samples, owner):
    """Check the must-links and the cannot-links of a constrained fit.

    Parameters
    ----------
    ml, cl : array-like of shape (n_pairs, 2) or None
        Must-link and cannot-link pairs of row indices.
    n_samples : int
        Number of rows: every index must be below it.
    owner : str or object
        The caller, named in error messages.

    Returns
    -------
    ml : ndarray of shape (n_pairs, 2), dtype intp
        The must-links, as checked by :func:`check_pairs`.
    cl : ndarray of shape (n_pairs, 2), dtype intp
        The cannot-links, likewise.

    Raises
    ------
    InvalidParameterError
        If either set fails :func:`check_pairs`.

    Examples
    --------
    >>> ml, cl = check_constraints([(0, 1)], None, 3, "PCKMeans.fit")
    >>> ml.shape, cl.shape
    ((1, 2), (0, 2))
    """
    return check_pairs(ml, n_samples, "ml", owner), check_pairs(cl, n_samples, "cl", owner)


def check_fit_input(estimator, X, y, ml, cl):
    """Check the arguments of a constrained ``fit(X, y=None, *, ml=None, cl=None)``.

    Parameters
    ----------
    estimator : estimator instance
        The estimator being fitted, named in error messages.
    X : array-like of shape (n_samples, n_features)
        The data; at least two rows, finite.
    y : None
        Ignored, present for scikit-learn; a 2-D ``y`` (pairs passed by
        position instead of as ``ml``) is refused.
    ml, cl : array-like of shape (n_pairs, 2) or None
        Must-link and cannot-link pairs of row indices of ``X``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The validated data (sets ``n_features_in_`` on ``estimator``).
    ml, cl : ndarray of shape (n_pairs, 2), dtype intp
        The checked pairs.

    Raises
    ------
    InvalidParameterError
        If ``y`` is 2-D, ``X`` holds NaN or infinity, or a pair fails
        :func:`check_pairs`.
    ValueError
        If ``X`` is not a 2-D numeric array of at least two rows.
    """
    check_y_ignored(y, estimator)
    X = check_data(X, estimator, validate=True, ensure_min_samples=2)
    return (X, *check_constraints(ml, cl, X.shape[0], f"{owner_name(estimator)}.fit"))


def _as_pairs(pairs):
    return np.asarray(pairs, dtype=np.intp).reshape(-1, 2)


# Up to this many nodes plus pairs, plain Python beats the ~100 us scipy takes to set up a sparse graph (the
# answer graph of NoiseRobustCOBRAS is searched thousands of times). Searches run on answers: always Python.
_SMALL = 1000


def components(pairs, n):
    """Find the connected components of the edges ``pairs`` between nodes ``0, ..., n - 1``.

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2)
        The edges, as pairs of node indices.
    n : int
        Number of nodes.

    Returns
    -------
    n_components : int
        Number of components, isolated nodes included.
    labels : ndarray of shape (n,)
        Each node's component, components numbered in order of their
        smallest node.

    Examples
    --------
    >>> n_components, labels = components([(3, 1), (0, 2)], 5)
    >>> n_components, labels.tolist()
    (3, [0, 1, 0, 1, 2])
    """
    pairs = _as_pairs(pairs)
    if n + len(pairs) > _SMALL:
        # bool weights: a repeated pair stays one edge, in a byte per pair
        adjacency = sp.coo_matrix((np.ones(len(pairs), dtype=bool), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
        return connected_components(adjacency, directed=False)
    roots = np.array(_smallest(pairs, n), dtype=np.intp)
    is_root = roots == np.arange(n)
    return int(is_root.sum()), (np.cumsum(is_root, dtype=np.int32) - 1)[roots]


def find_root(parent, x):
    """The root of ``x`` in a union-find forest, halving the path to it on the way.

    The package's one union-find step: :func:`components` and :class:`~linkwise.ConstraintStore` join roots each
    in their own way (scipy's ``DisjointSet`` took 3 to 3.6 times as long for 100,000 unions).

    Parameters
    ----------
    parent : list of int
        Each node's parent (a root is its own); shortened in place.
    x : int
        A node.

    Returns
    -------
    int
        The root of ``x``'s tree.

    Examples
    --------
    >>> parent = [0, 0, 1, 2]
    >>> find_root(parent, 3), parent
    (0, [0, 0, 1, 1])
    """
    while parent[x] != x:
        parent[x] = x = parent[parent[x]]
    return x


def _smallest(pairs, n):
    """The smallest node of every node's component: a union-find whose parents are never larger than the node."""
    parent = list(range(n))
    for a, b in pairs.tolist():
        a, b = find_root(parent, a), find_root(parent, b)
        if a > b:
            a, b = b, a
        parent[b] = a
    for x in range(n):  # in increasing order, parents first: each node then points at its root
        parent[x] = parent[parent[x]]
    return parent


@functools.lru_cache(maxsize=4)  # a caller often searches one graph from several sources
def _neighbours(pairs):
    """Neighbours of every node of the ``pairs`` (as bytes), each with the index of its pair, in pair order."""
    neighbours = {}
    for e, (a, b) in enumerate(np.frombuffer(pairs, dtype=np.intp).reshape(-1, 2).tolist()):
        neighbours.setdefault(a, []).append((b, e))
        neighbours.setdefault(b, []).append((a, e))
    return neighbours


def breadth_first(pairs, n, source=None, until=None):
    """Search breadth-first from ``source`` over the edges ``pairs`` between nodes ``0, ..., n - 1``.

    Neighbours are visited in pair order (ties go to earlier pairs).

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2)
        The edges, as pairs of node indices.
    n : int
        Number of nodes.
    source : int, default=None
        The start node. None searches every component from its smallest
        node, all at once (a spanning forest).
    until : int, default=None
        Stop once this node is reached.

    Returns
    -------
    order : ndarray of int32
        The nodes reached, in the order they were reached, the start nodes
        first.
    via : ndarray of shape (n,)
        For every node, the index of the pair that reached it; -1 for the
        start nodes and the nodes not reached.

    Examples
    --------
    >>> order, via = breadth_first([(0, 1), (1, 2), (0, 2)], 4, source=0)
    >>> order.tolist(), via.tolist()
    ([0, 1, 2], [-1, 0, 2, -1])
    """
    pairs = _as_pairs(pairs)
    neighbours = _neighbours(pairs.tobytes())
    if source is not None:
        roots = [source]
    elif n + len(pairs) > _SMALL:
        roots = np.unique(components(pairs, n)[1], return_index=True)[1].tolist()
    else:
        roots = [x for x, root in enumerate(_smallest(pairs, n)) if x == root]
    seen = np.zeros(n, dtype=np.uint8)
    seen[roots] = 1
    seen, edges = bytearray(seen), []  # a bytearray is quick to read one node at a time
    queue = [r for r in roots if r in neighbours]
    start = len(queue)
    for u in queue:  # nodes are appended as they are reached
        for v, e in neighbours[u]:
            if not seen[v]:
                seen[v] = 1
                queue.append(v)
                edges.append(e)
        if until is not None and seen[until]:
            break
    via = np.full(n, -1, dtype=np.intp)
    via[queue[start:]] = edges
    return np.array(roots + queue[start:], dtype=np.int32), via


def shortest_path(pairs, n, source, target):
    """Find a shortest path from ``source`` to ``target`` over the edges ``pairs``.

    Breadth-first from ``source`` (see :func:`breadth_first` for ties).

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2)
        The edges, as pairs of node indices.
    n : int
        Number of nodes.
    source, target : int
        The path's two ends.

    Returns
    -------
    list of int or None
        Indices of the pairs on the path, walked back from ``target``; ``[]``
        when ``target`` is ``source``, None when it cannot be reached.

    Examples
    --------
    >>> shortest_path([(0, 1), (2, 1), (2, 3), (0, 3)], 5, 1, 3)  # 3 -(pair 3)- 0 -(pair 0)- 1
    [3, 0]
    >>> shortest_path([(0, 1)], 5, 0, 4) is None
    True
    """
    pairs = _as_pairs(pairs)
    _, via = breadth_first(pairs, n, source, until=target)
    if via[target] < 0:
        return [] if target == source else None
    path, node = [], target
    while node != source:
        e = int(via[node])
        path.append(e)
        node = int(pairs[e, 0] if pairs[e, 1] == node else pairs[e, 1])
    return path


def relabel(labels, *, return_order=False):
    """Renumber labels ``0, ..., k - 1`` in order of first appearance.

    Equal partitions give equal arrays, whatever their label values.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Cluster labels of any sortable type.
    return_order : bool, default=False
        Whether to also return the original labels in their new order.

    Returns
    -------
    relabelled : ndarray of shape (n_samples,)
        The renumbered labels.
    order : ndarray of shape (k,)
        Only with ``return_order``: ``order[c]`` is the label renumbered ``c``.

    Examples
    --------
    >>> relabel([5, 5, 2, 9, 2]).tolist()
    [0, 0, 1, 2, 1]
    >>> relabel([5, 5, 2, 9, 2], return_order=True)[1].tolist()
    [5, 2, 9]
    """
    labels = np.asarray(labels)
    if _numbered(labels):  # already numbered so (a clustering shown after every answer): no sort of every row
        relabelled = labels.astype(np.intp)
        return (relabelled, np.arange(int(labels.max()) + 1, dtype=labels.dtype)) if return_order else relabelled
    values, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first)
    relabelled = np.argsort(order)[inverse.ravel()]  # the rank of each label's first appearance
    return (relabelled, values[order]) if return_order else relabelled


def _numbered(labels):
    """Whether integer ``labels`` run 0, 1, ... in order of first appearance: none negative, each at most 1 above
    all before it."""
    if labels.ndim != 1 or not labels.size or labels.dtype.kind not in "iu" or labels[0] != 0:
        return False
    highest = np.maximum.accumulate(labels)
    return bool(np.all(labels[1:] <= highest[:-1] + 1)) and int(labels.min()) >= 0
