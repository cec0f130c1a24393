"""linkwise.graph against plain-Python references on small random graphs, and ConstraintStore.explain."""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import linkwise as lw
from linkwise.constraints import Constraint
from linkwise.graph import (
    _SMALL,
    breadth_first,
    check_constraints,
    check_pair,
    check_pairs,
    components,
    pair_key,
    relabel,
    shortest_path,
)


@st.composite
def graphs(draw, max_nodes=9, max_pairs=14):
    """``(n, pairs)``: distinct ends, repeats and both orders allowed."""
    n = draw(st.integers(2, max_nodes))
    ends = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    return n, draw(st.lists(ends, max_size=max_pairs))


def reference_bfs(pairs, n, roots):
    """Queue-based search from each root in turn, neighbours in pair order: (order, via)."""
    adjacency = [[] for _ in range(n)]
    for e, (a, b) in enumerate(pairs):
        adjacency[a].append((b, e))
        adjacency[b].append((a, e))
    via, order, seen = [-1] * n, [], [False] * n
    for root in roots:
        if seen[root]:
            continue
        seen[root] = True
        queue = deque([root])
        while queue:
            u = queue.popleft()
            order.append(u)
            for v, e in adjacency[u]:
                if not seen[v]:
                    seen[v], via[v] = True, e
                    queue.append(v)
    return order, via


def reference_labels(pairs, n):
    """Union-find components, numbered by smallest node."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    numbers = {}
    return [numbers.setdefault(find(x), len(numbers)) for x in range(n)]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(graphs())
def test_components_match_union_find(graph):
    n, pairs = graph
    n_components, labels = components(pairs, n)
    expected = reference_labels(pairs, n)
    assert labels.tolist() == expected and n_components == max(expected) + 1
    n_big, labels = components(pairs, n + _SMALL)  # past _SMALL, scipy's csgraph: the same numbering
    assert labels[:n].tolist() == expected and n_big == n_components + _SMALL


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(graphs(), st.data())
def test_breadth_first_matches_a_queue_search_in_pair_order(graph, data):
    n, pairs = graph
    source = data.draw(st.integers(0, n - 1))
    order, via = breadth_first(pairs, n, source)
    assert (order.tolist(), via.tolist()) == reference_bfs(pairs, n, [source])
    until = data.draw(st.integers(0, n - 1))
    early, early_via = breadth_first(pairs, n, source, until=until)  # the same search, stopped once until is reached
    assert early.tolist() == order.tolist()[: len(early)] and (until in early.tolist()) == (until in order.tolist())
    assert all(early_via[v] == via[v] for v in early.tolist())
    order, via = breadth_first(pairs, n)  # the forest: every component from its smallest node
    expected_order, expected_via = reference_bfs(pairs, n, range(n))
    assert via.tolist() == expected_via and sorted(order.tolist()) == sorted(expected_order) == list(range(n))
    labels = reference_labels(pairs, n)
    smallest = [labels.index(c) for c in range(max(labels) + 1)]
    rooted, _ = reference_bfs(list(pairs) + [(n, r) for r in smallest], n + 1, [n])  # all components at once
    assert order.tolist() == rooted[1:]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(graphs(), st.data())
def test_shortest_path_is_a_shortest_walk(graph, data):
    n, pairs = graph
    source, target = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    path = shortest_path(pairs, n, source, target)
    labels = reference_labels(pairs, n)
    if labels[source] != labels[target]:
        assert path is None
        return
    node = target
    for e in path:  # a walk back from target to source along the pairs
        a, b = pairs[e]
        assert node in (a, b)
        node = b if node == a else a
    assert node == source
    _, via = reference_bfs(pairs, n, [source])  # as short as the search's distance, same ties
    expected, node = [], target
    while node != source:
        expected.append(via[node])
        a, b = pairs[via[node]]
        node = a if b == node else b
    assert path == expected


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 5), max_size=20))
def test_relabel_numbers_by_first_appearance(labels):
    numbers = {}
    expected = [numbers.setdefault(v, len(numbers)) for v in labels]
    relabelled, order = relabel(np.array(labels, dtype=int), return_order=True)
    assert relabelled.tolist() == expected
    assert order.tolist() == list(numbers)


def test_relabel_identifies_partitions():
    assert np.array_equal(relabel([1, 1, 0, 2]), relabel([2, 2, 1, 0]))
    assert not np.array_equal(relabel([1, 1, 0, 2]), relabel([1, 0, 0, 2]))


@given(st.integers(-5, 5), st.integers(-5, 5))
def test_pair_key_is_sorted_and_symmetric(i, j):
    assert pair_key(i, j) == pair_key(j, i) == (min(i, j), max(i, j))
    assert all(type(v) is int for v in pair_key(np.int64(i), j))


@pytest.mark.parametrize(
    "i, j, match",
    [(0, 0, "itself.*two different points"), (0, 3, "'j' argument of O is 3, out of range"),
     (-1, 1, "'i'.*out of range"), (0, 1.0, "'j'.*int row index"), (True, 1, "'i'.*int row index")],
)
def test_check_pair_names_the_argument(i, j, match):
    with pytest.raises(ValueError, match=match):
        check_pair(i, j, 3, "O")


def test_check_pairs():
    assert check_pair(np.int64(2), 0, 3, "O") == (2, 0)
    assert check_pairs(None, 3, "ml", "O").shape == (0, 2)
    assert check_pairs(np.array([[0.0, 2.0]]), 3, "ml", "O").dtype == np.intp
    with pytest.raises(ValueError, match="ragged"):
        check_pairs([(0, 1), (2,)], 3, "ml", "O")
    with pytest.raises(ValueError, match="integer"):
        check_pairs([(0, 1.5)], 3, "ml", "O")
    with pytest.raises(ValueError, match=r"pair 1 = \(2, 3\).*\[0, 2\]"):
        check_pairs([(0, 1), (2, 3)], 3, "ml", "O")
    with pytest.raises(ValueError, match="'cl' argument of O has pair 0 = \\(1, 1\\): .*itself"):
        check_constraints([(0, 1)], [(1, 1)], 3, "O")


# -- ConstraintStore.explain -----------------------------------------------------
def test_explain_a_must_link_chain():
    store = lw.ConstraintStore.from_pairs(6, ml=[(0, 1), (2, 1), (2, 3), (3, 4), (0, 4)])
    assert [tuple(c) for c in store.explain(1, 4)] == [(0, 1, True), (0, 4, True)]  # the shorter way round
    assert [tuple(c) for c in store.explain(2, 4)] == [(2, 3, True), (3, 4, True)]


def test_explain_a_cannot_link_through_must_links():
    store = lw.ConstraintStore.from_pairs(7, ml=[(0, 1), (1, 2), (4, 3), (5, 4)], cl=[(6, 0), (3, 2), (1, 4)])
    # the earliest cannot-link between the two components, reached from both ends
    assert [tuple(c) for c in store.explain(0, 5)] == [(0, 1, True), (1, 2, True), (3, 2, False), (4, 3, True),
                                                       (5, 4, True)]
    assert store.explain(5, 0) == store.explain(0, 5)[::-1]
    assert store.explain(6, 1) == [Constraint(6, 0, False), Constraint(0, 1, True)]


def test_explain_an_unrelated_pair_is_none():
    store = lw.ConstraintStore.from_pairs(5, ml=[(0, 1)], cl=[(2, 3)])
    assert store.explain(0, 2) is None and store.explain(3, 4) is None
    with pytest.raises(ValueError, match="itself"):
        store.explain(1, 1)


def test_explain_leaves_out_a_conflicting_answer():
    store = lw.ConstraintStore(4, tolerant=True)
    for i, j, must in [(0, 1, True), (1, 2, True), (0, 2, False), (2, 3, False)]:
        store.add(i, j, must)
    assert store.conflicts == [Constraint(0, 2, False)]
    assert [tuple(c) for c in store.explain(0, 2)] == [(0, 1, True), (1, 2, True)]
    assert [tuple(c) for c in store.explain(0, 3)] == [(0, 1, True), (1, 2, True), (2, 3, False)]


def _reach(adjacent, source):
    """Breadth-first from ``source``: for each node reached, the node and the answer it was reached by."""
    via, queue = {source: None}, deque([source])
    while queue:
        node = queue.popleft()
        for other, c in adjacent.get(node, ()):
            if other not in via:
                via[other] = (node, c)
                queue.append(other)
    return via


def _path(via, node):
    """The answers on the way back from ``node`` to the search's source."""
    steps = []
    while via[node] is not None:
        node, c = via[node]
        steps.append(c)
    return steps


def session_explain(answers, i, j, must_link):
    """The search the session ran before ConstraintStore.explain (reference)."""
    adjacent, cannot = {}, []
    for c in answers:
        if c.must_link:
            adjacent.setdefault(c.i, []).append((c.j, c))
            adjacent.setdefault(c.j, []).append((c.i, c))
        else:
            cannot.append(c)
    from_i = _reach(adjacent, i)
    if must_link:
        return _path(from_i, j)[::-1]
    from_j = _reach(adjacent, j)
    for c in cannot:
        for a, b in ((c.i, c.j), (c.j, c.i)):
            if a in from_i and b in from_j:
                return _path(from_i, a)[::-1] + [c] + _path(from_j, b)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(graphs(max_nodes=8, max_pairs=12), st.data())
def test_explain_is_the_sessions_former_search(graph, data):
    n, pairs = graph
    store = lw.ConstraintStore(n, tolerant=True)
    for i, j in pairs:
        store.add(i, j, data.draw(st.booleans()))
    kept = [c for c in store.constraints if c not in set(store.conflicts)]
    for i in range(n):
        for j in range(n):
            if i != j:
                known = store.relation(i, j)
                chain = store.explain(i, j)
                assert chain == (None if known is None else session_explain(kept, i, j, known))
                if chain is not None:
                    assert sum(not c.must_link for c in chain) == (not known)
