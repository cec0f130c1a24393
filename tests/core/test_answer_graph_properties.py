"""Invariants of the answer graph (wrong-answer repair) on random small answer sets with random wrong answers.

Every belief is checked against a brute-force transitive closure written here, not against
:class:`~linkwise.ConstraintStore`, which the graph itself uses.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linkwise.repair import AnswerGraph


def closure(n, answers):
    """``together[i, j]``: a must-link chain joins i and j (Warshall's transitive closure)."""
    together = np.eye(n, dtype=bool)
    for i, j, ml in answers:
        if ml:
            together[i, j] = together[j, i] = True
    for k in range(n):
        together |= together[:, [k]] & together[[k], :]
    return together


def consistent(n, answers):
    """No must-link chain across a cannot-link."""
    together = closure(n, answers)
    return not any(together[i, j] for i, j, ml in answers if not ml)


def implied(n, answers):
    """Relation of every pair implied by consistent ``answers``: True, False or None."""
    together = closure(n, answers)
    apart = np.zeros((n, n), dtype=bool)
    for i, j, ml in answers:
        if not ml:
            apart |= np.outer(together[i], together[j]) | np.outer(together[j], together[i])
    return {(i, j): True if together[i, j] else False if apart[i, j] else None
            for i in range(n) for j in range(i + 1, n)}


@st.composite
def noisy_answers(draw):
    """``(n, X, answers, max_depth, max_nodes)``: answers ``(i, j, must_link)`` about a random truth, a third wrong."""
    n = draw(st.integers(3, 6))
    truth = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    steps = draw(st.lists(st.tuples(pairs, st.integers(0, 2).map(lambda k: k == 0)), min_size=8, max_size=24))
    X = np.random.RandomState(draw(st.integers(0, 2**16))).normal(size=(n, 2))
    answers = [(i, j, (truth[i] == truth[j]) != wrong) for (i, j), wrong in steps]
    return n, X, answers, draw(st.integers(1, 4)), draw(st.sampled_from([3, 30, 2000]))


def belief(graph):
    return [(i, j, graph.believed(i, j)) for i, j in graph.pairs().tolist()]


def replay(n, X, answers, max_depth, max_nodes, on_explanations=None):
    """Feed the answers as the noise-robust method does: on a contradiction, explain and adopt.

    Yields the graph and the answer counts per pair after every answer.
    """
    graph = AnswerGraph(n, 0.1, X=X, max_depth=max_depth, max_nodes=max_nodes)
    counts = {}
    for i, j, ml in answers:
        key = (min(i, j), max(i, j))
        n_ml, n_cl = counts.get(key, (0, 0))
        counts[key] = (n_ml + ml, n_cl + (not ml))
        if graph.add(i, j, ml):
            explanations = graph.explain()
            old = belief(graph)
            if on_explanations:
                on_explanations(graph, explanations, old, counts)
            changed = graph.adopt(explanations)
            assert sorted(changed) == sorted((a, b) for (a, b, v), w in zip(old, explanations.best) if v != w)
            assert not graph.conflicted
        yield graph, counts


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(noisy_answers())
def test_the_belief_is_always_consistent_and_its_store_is_its_closure(case):
    n = case[0]
    for graph, _ in replay(*case):
        believed = belief(graph)
        assert consistent(n, believed)
        expected = implied(n, believed)
        assert {pair: graph.relation(*pair) for pair in expected} == expected


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(noisy_answers())
def test_explanations_are_consistent_counted_ranked_and_change_at_most_max_depth(case):
    n, _, _, max_depth, _ = case

    def check(graph, explanations, old, counts):
        start = np.array([v for *_, v in old])
        pairs = [(i, j) for i, j, _ in old]
        changes = (explanations.values != start).sum(axis=1)
        for values, cost in zip(explanations.values, explanations.costs):
            assert consistent(n, [(i, j, v) for (i, j), v in zip(pairs, values)])
            # the cost is the number of answers the labelling contradicts
            assert cost == sum(counts[p][1] if v else counts[p][0] for p, v in zip(pairs, values))
        # past the search's cap one approximate labelling is added, which may change more
        assert (changes > max_depth).sum() <= (0 if explanations.exact else 1)
        assert np.isclose(explanations.posterior.sum(), 1.0) and (np.diff(explanations.posterior) <= 1e-12).all()
        assert 0.0 <= explanations.certainty() <= 1.0 + 1e-12

    for _ in replay(*case, on_explanations=check):
        pass


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(noisy_answers())
def test_weak_answers_and_corrections_are_what_they_claim(case):
    n = case[0]
    for graph, counts in replay(*case):
        believed = belief(graph)
        for k, (i, j, value) in enumerate(believed):
            n_ml, n_cl = counts[(i, j)]
            flipped = believed[:k] + [(i, j, not value)] + believed[k + 1:]
            # weak: a one-answer margin, and changing it alone leaves the belief consistent
            assert graph.weak(i, j) == (abs(n_ml - n_cl) <= 1 and consistent(n, flipped))
        # one correction per pair with an answer against its belief; its evidence contradicts that answer
        against = {(i, j) for i, j, v in believed if counts[(i, j)][0 if v else 1] < sum(counts[(i, j)])}
        corrections = graph.corrections()
        assert {c.pair for c in corrections} == against
        for c in corrections:
            assert c.given != c.believed == graph.believed(*c.pair)
            assert 0.0 <= c.evidence.probability <= 1.0
            if c.evidence.answers:
                assert not consistent(n, [*c.evidence.answers, (*c.pair, c.given)])
        assert 1e-3 <= graph.noise_rate() <= 0.49
        assert ((graph.prior() >= 0.01) & (graph.prior() <= 0.99)).all()


@pytest.mark.xfail(strict=True, reason="known, kept: when a later answer alone makes the belief consistent again, "
                   "explain() keeps an earlier repair whose contradiction is gone. Reverting such repairs was tried "
                   "(commit 5e9a291): mean ARI of NoiseRobustCOBRAS at 10% noise, 5 datasets x 10 seeds, fell "
                   ".729 -> .723 after 100 questions (4 of 72 recorded runs worse, none better), so it was reverted")
def test_a_repair_is_undone_when_the_contradiction_behind_it_is_gone():
    graph = AnswerGraph(4, 0.1)
    # 0~2, 1!~2 and 0~1 contradict: one of the three is repaired (the latest, 0~1)
    for i, j, ml in [(0, 2, True), (1, 2, False), (0, 3, False), (0, 1, True), (0, 2, False), (0, 2, False)]:
        if graph.add(i, j, ml):
            graph.adopt(graph.explain())
    # 0!~2 now outvotes 0~2, so nothing contradicts the one answer 0~1 any more: believing it costs one wrong
    # answer (0~2), keeping it repaired costs two
    assert graph.believed(0, 1) is True
    assert [c.pair for c in graph.corrections()] == [(0, 2)]
