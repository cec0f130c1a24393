"""The wrong-answer engine: contradictions, explanations, questions that tell them apart, repair."""

import logging
import math

import numpy as np
import pytest

from linkwise._validation import InvalidParameterError
from linkwise.constraints import ConstraintStore
from linkwise.repair import AnswerGraph, Correction

# two groups of three points: {0, 1, 2} and {3, 4, 5}
TRUTH = np.array([0, 0, 0, 1, 1, 1])


def truth(i, j):
    return bool(TRUTH[i] == TRUTH[j])


def consistent(graph):
    """The believed answers fit in a strict store (no cycle with exactly one cannot-link)."""
    store = ConstraintStore(graph.n)
    for i, j in graph.pairs().tolist():
        store.add(i, j, graph.believed(i, j))  # raises if inconsistent
    return True


def planted_cycle(noise=0.1):
    """A ring 0-1-2-3-4-5 of must-links (2-3 is the wrong one) closed by the cannot-link 0-5."""
    g = AnswerGraph(6, noise)
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]:
        assert not g.add(i, j, True)
    assert g.add(0, 5, False)  # contradicts the must-link path 0-1-2-3-4-5
    return g


def settle(graph, answer, points, limit):
    """Ask the engine's questions (answered by ``answer``) until the clustering is 95 % certain."""
    asked = []
    for _ in range(limit):
        ex = graph.explain()
        if ex.certainty() >= 0.95:
            break
        pair = ex.question(points)
        assert pair is not None and graph.believed(*pair) is None  # never a pair answered before
        asked.append(pair)
        graph.add(*pair, answer(*pair))
    return asked, graph.explain()


def test_planted_wrong_answer_is_found_with_few_questions_and_corrected():
    g = planted_cycle(0.05)
    ex = g.explain()
    assert ex.exact
    assert len(ex) == 6  # any of the six answers of the cycle may be the wrong one
    assert ex.certainty() < 0.95
    # each well-chosen question halves the six explanations: after ceil(log2 6) = 3 answers the
    # planted one is the most probable; a couple more make it 95 % certain (prior noise 5 %)
    asked, ex = settle(g, truth, range(6), limit=math.ceil(math.log2(6)))
    assert len(asked) == 3
    pairs = [tuple(p) for p in g.pairs().tolist()]
    assert ex.best.tolist() == [truth(i, j) for i, j in pairs]
    more, ex = settle(g, truth, range(6), limit=10)
    assert len(asked) + len(more) <= math.ceil(math.log2(6)) + 2
    changed = g.adopt(ex)
    assert changed == [(2, 3)]
    assert not g.conflicted and consistent(g)
    assert g.relation(0, 2) is True and g.relation(3, 5) is True and g.relation(2, 3) is False
    [fix] = g.corrections()
    assert isinstance(fix, Correction)
    assert fix.pair == (2, 3) and fix.given is True and fix.believed is False
    assert fix.evidence.probability > 0.9
    # the evidence is the other answers of a cycle that contradicts the given must-link
    assert len(fix.evidence.answers) >= 2
    assert all(a == truth(i, j) for i, j, a in fix.evidence.answers)


def test_repair_questions_chosen_by_mutual_information_halve_the_explanations():
    g = planted_cycle()
    ex = g.explain()
    first = ex.question(range(6))
    # the best first question cuts the ring near its middle (3 explanations against 3)
    splits = {frozenset(p) for p in [(0, 3), (1, 4), (2, 5), (0, 2), (3, 5), (1, 3), (2, 4), (0, 4), (1, 5)]}
    assert frozenset(first) in splits


def test_consistent_answers_need_no_repair_question():
    g = AnswerGraph(6, 0.05)
    for i, j in [(0, 1), (1, 2), (0, 2), (3, 4), (2, 3)]:
        assert not g.add(i, j, truth(i, j))
    assert not g.conflicted
    ex = g.explain()
    assert len(ex) == 1 and ex.certainty() == 1.0
    assert ex.question(range(6)) is None
    assert g.adopt(ex) == [] and g.corrections() == []


def test_weak_answers_are_those_nothing_else_confirms():
    g = AnswerGraph(6, 0.05)
    g.add(0, 1, True)
    g.add(1, 2, True)
    g.add(2, 3, False)
    assert g.weak(0, 1) and g.weak(2, 3)
    g.add(0, 2, True)  # closes a consistent triangle: each must-link is now confirmed twice over
    assert not g.weak(0, 1) and not g.weak(1, 2)
    g.add(0, 3, False)  # a second cannot-link between the same two components
    assert not g.weak(2, 3)
    # the verification question of a weak answer crosses the two sides it separates
    g.add(3, 4, True)
    # no pair both worlds settle: with 3-4 reversed, nothing relates 4 to the rest
    assert g.verification([[(3, 4)]], range(6)) is None
    g.add(3, 5, True)
    assert g.verification([[(3, 4)]], range(6)) == (4, 5)  # together if 3-4 holds, apart if not


def test_suspicion_of_a_separation_falls_with_every_cannot_link_behind_it():
    g = AnswerGraph(4, 0.1)
    g.add(0, 1, True)
    g.add(2, 3, True)
    g.add(0, 2, False)
    one = g.suspicion([(0, 2)])
    g.add(1, 3, False)
    two = g.suspicion([(0, 2), (1, 3)])
    assert 0 < two < one < 0.5


def test_distance_prior_makes_far_must_links_and_close_cannot_links_suspicious():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    g = AnswerGraph(6, 0.05, X=X)
    for i, j in [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)]:
        g.add(i, j, truth(i, j))
    prior = g.prior()
    close, far = prior[:4], prior[4:]
    assert close.min() > 0.5 > far.max()
    g.add(2, 3, True)  # a must-link between far points
    g.add(0, 2, False)  # a cannot-link between close points
    assert g.suspicion([(2, 3)]) > g.suspicion([(0, 1)])
    assert g.suspicion([(0, 2)]) > g.suspicion([(0, 3)])


def test_noise_rate_estimate_follows_the_evidence():
    clean = AnswerGraph(30, 0.1)
    for k in range(0, 27, 3):  # consistent triangles: every answer checked, none wrong
        for i, j in [(k, k + 1), (k + 1, k + 2), (k, k + 2)]:
            clean.add(i, j, True)
    assert clean.noise_rate() < 0.1
    noisy = planted_cycle(0.1)
    noisy.adopt(noisy.explain())
    assert noisy.noise_rate() > clean.noise_rate()


def test_reasked_pair_counts_answers_and_follows_the_majority():
    g = AnswerGraph(3, 0.1)
    g.add(0, 1, True)
    assert not g.add(0, 1, False)  # a tie keeps the earlier belief
    assert g.believed(0, 1) is True and g.weak(0, 1)
    assert g.add(0, 1, False)  # now the majority says cannot-link: the belief must change
    assert g.conflicted is False  # a lone pair is consistent either way: rebuilt at once
    assert g.believed(0, 1) is False and g.relation(0, 1) is False


def test_cap_falls_back_to_an_approximate_repair_with_a_warning(caplog):
    g = planted_cycle()
    g.max_nodes = 1
    with caplog.at_level(logging.WARNING, logger="linkwise.repair._explain"):
        ex = g.explain()
    assert not ex.exact
    assert "max_nodes=1" in caplog.text
    g.adopt(ex)  # never an abort: the approximate belief is consistent
    assert not g.conflicted and consistent(g)
    # the approximate rule keeps the earliest answers: the last one (0-5) is the one overruled
    assert [c.pair for c in g.corrections()] == [(0, 5)]


def test_depth_limit_also_falls_back():
    g = AnswerGraph(8, 0.1, max_depth=1)
    for i, j in [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7)]:
        g.add(i, j, True)
    g.add(0, 3, False)
    g.add(4, 7, False)  # two independent contradictions: one change cannot fix both
    ex = g.explain()
    assert not ex.exact
    g.adopt(ex)
    assert consistent(g)


def test_two_wrong_answers_in_one_component_are_both_repaired():
    # ring 0..7 of must-links with two wrong ones (1-2 and 5-6), truth: {0, 1, 6, 7} and {2, 3, 4, 5}
    groups = np.array([0, 0, 1, 1, 1, 1, 0, 0])
    g = AnswerGraph(8, 0.1)
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)]:
        g.add(i, j, True)
    g.add(0, 3, False)
    g.add(4, 7, False)
    asked, ex = settle(g, lambda i, j: bool(groups[i] == groups[j]), range(8), limit=12)
    g.adopt(ex)
    assert sorted(c.pair for c in g.corrections()) == [(1, 2), (5, 6)]
    assert consistent(g)


def test_search_is_fast_on_a_large_answer_graph():
    # 150 answers: a long must-link chain per group plus cannot-links, one planted error
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(5), 30)
    g = AnswerGraph(150, 0.05)
    for k in range(149):
        g.add(k, k + 1, bool(groups[k] == groups[k + 1]))
    g.add(3, 27, False)  # contradicts the chain 3..27 (all one group)
    ex = g.explain()
    assert ex.exact and len(ex) >= 2
    assert ex.question(rng.permutation(150)[:60].tolist() + list(range(3, 28))) is not None


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"noise_probability": 0.0}, "noise_probability"),
        ({"noise_probability": 0.5}, "noise_probability"),
        ({"noise_probability": 0.1, "max_depth": 0}, "max_depth"),
        ({"noise_probability": 0.1, "max_nodes": 0}, "max_nodes"),
        ({"noise_probability": 0.1, "slack": -1}, "slack"),
        ({"noise_probability": 0.1, "prior_strength": 0}, "prior_strength"),
    ],
)
def test_bad_parameters_are_named(kwargs, name):
    with pytest.raises(InvalidParameterError, match=rf"^The '{name}' argument of AnswerGraph must be .+\. Got .+ instead\.$"):
        AnswerGraph(5, **kwargs)


def test_one_verification_question_checks_a_whole_path_of_weak_answers():
    g = AnswerGraph(6, 0.05)
    for i in range(4):
        g.add(i, i + 1, True)  # a path of four must-links, none confirmed
    assert all(g.weak(i, i + 1) for i in range(4))
    # the question closing the longest cycle checks all four at once
    assert g.verification([[(i, i + 1)] for i in range(4)], range(6)) == (0, 4)
    g.add(0, 4, True)
    assert not any(g.weak(i, i + 1) for i in range(4))


def test_noise_rate_counts_only_answers_a_wrong_value_would_have_contradicted():
    # a triangle of cannot-links: reversing any one of them leaves it consistent, so it checks nothing
    apart = AnswerGraph(3, 0.05)
    for i, j in [(0, 1), (1, 2), (0, 2)]:
        apart.add(i, j, False)
    assert apart.noise_rate() == pytest.approx(0.05)
    together = AnswerGraph(3, 0.05)
    for i, j in [(0, 1), (1, 2), (0, 2)]:
        together.add(i, j, True)
    assert together.noise_rate() < 0.05


def test_a_careful_person_is_believed_sooner_than_a_single_noise_rate_would_allow():
    g = AnswerGraph(60, 0.05)
    for k in range(0, 60, 3):  # 20 consistent triangles: 60 answers checked, none wrong
        for i, j in [(k, k + 1), (k + 1, k + 2), (k, k + 2)]:
            g.add(i, j, True)
    # a single Beta(2, 18) rate would still say 2 / 80 = 0.025; the careful person explains it far better
    assert g.noise_rate() < 0.005
    # one contradiction rules the careful person out: back to the careless rate
    g.add(0, 3, True)
    g.add(1, 4, False)
    g.adopt(g.explain())
    assert g.noise_rate() > 0.02


def test_a_check_that_cannot_confirm_is_only_asked_on_request():
    g = AnswerGraph(6, 0.05)
    for i, j, a in [(0, 1, True), (1, 2, True), (2, 3, False), (0, 2, True), (0, 3, False), (3, 4, True)]:
        g.add(i, j, a)
    assert g.verification([[(3, 4)]], range(6)) is None
    # reversed, 3-4 leaves 4 unrelated to {0, 1, 2}: asking about it only gathers evidence
    pair = g.verification([[(3, 4)]], range(6), decisive=False)
    assert pair is not None and 4 in pair and g.believed(*pair) is None


def test_contradicted_once_an_answer_is_known_wrong():
    clean = AnswerGraph(3, 0.05)
    clean.add(0, 1, True)
    clean.add(1, 2, False)
    assert not clean.contradicted
    g = planted_cycle()
    assert g.contradicted  # inconsistent
    g.adopt(g.explain())
    assert not g.conflicted and g.contradicted  # consistent again, and one answer is believed wrong
