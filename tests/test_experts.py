import itertools
from math import log

import numpy as np
import pytest
from scipy.special import beta, betainc

from linkwise._experts import PrequentialRecord


@pytest.mark.parametrize("seed", range(4))
def test_a_fixed_clustering_scores_its_marginal_likelihood(seed):
    # the sequential predictions multiply to the likelihood of the verdicts with the error rate integrated over its
    # prior (uniform on [0, 1/2]): it depends on the number of wrong verdicts only, not on their order
    rng = np.random.RandomState(seed)
    n = 30
    verdicts, answers = rng.rand(n) < 0.5, rng.rand(n) < 0.5
    record = PrequentialRecord(["fixed"])
    for verdict, answer in zip(verdicts, answers):
        record.observe({"fixed": record.verdict("fixed", verdict)}, answer)
    wrong = int(np.count_nonzero(verdicts != answers))
    marginal = 2 * beta(wrong + 1, n - wrong + 1) * betainc(wrong + 1, n - wrong + 1, 0.5)
    assert record.log_evidence["fixed"] == pytest.approx(log(marginal))
    assert record.n_answers == n


def test_more_evidence_leads_and_ties_go_to_the_first_named():
    record = PrequentialRecord(["a", "b", "c"])
    assert record.leader(["a", "b", "c"]) == "a" and record.leader(["c", "b"]) == "c"
    record.observe({"a": 0.5, "b": 0.9, "c": 0.9}, True)
    assert record.leader(["a", "b", "c"]) == "b" and record.leader(["c", "b"]) == "c"
    record.observe({"a": 0.5, "b": 0.9, "c": 0.2}, False)  # b: 0.9 * 0.1 < a: 0.25 < c: 0.9 * 0.8
    assert record.leader(["a", "b", "c"]) == "c" and record.leader(["a", "b"]) == "a"


def test_a_certain_wrong_prediction_is_finite():
    record = PrequentialRecord(["sure"])
    record.observe({"sure": 1.0}, False)
    assert np.isfinite(record.log_evidence["sure"]) and record.log_evidence["sure"] < -700


def test_laplace_verdicts_learn_the_error_rate():
    record = PrequentialRecord(["often right", "often wrong"])
    for answer in itertools.islice(itertools.cycle([True, True, True, False]), 40):
        record.observe({"often right": record.verdict("often right", answer),
                        "often wrong": record.verdict("often wrong", not answer)}, answer)
    assert record.verdict("often right", True) == pytest.approx(41 / 42, rel=1e-6)
    # always wrong: a coin at best (with Laplace's rule it would predict as well as one always right)
    assert 0.5 <= record.verdict("often wrong", True) < 0.52
    assert record.leader(["often wrong", "often right"]) == "often right"


def test_an_expert_that_improves_takes_the_lead_though_its_record_is_worse():
    # "late" is wrong on the first 10 answers and right on the next 30; "steady" is right 3 times in 4 throughout
    record = PrequentialRecord(["steady", "late"])
    for t in range(40):
        answer = t % 2 == 0
        record.observe({"steady": record.verdict("steady", answer if t % 4 else not answer),
                        "late": record.verdict("late", answer if t >= 10 else not answer)}, answer)
        if t == 12:
            assert record.leader(["steady", "late"]) == "steady"
    assert record.log_evidence["late"] < record.log_evidence["steady"]  # since the start, steady did better
    assert record.leader(["steady", "late"]) == "late"  # but late is the one to follow now
    weights = np.exp(list(record.log_weight.values()))
    assert weights.sum() == pytest.approx(1.0)
