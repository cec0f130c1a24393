"""NoiseRobustCOBRAS: wrong answers are noticed, found with few questions and repaired."""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise.active._base import ConstrainedFit
from linkwise.cobra import NoiseRobustCOBRAS
from linkwise.repair import AnswerGraph, Correction, NoisyAnswers
from linkwise.repair import _belief as belief_module


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=90, centers=[[0, 0], [6, 0], [3, 5]], cluster_std=0.6, random_state=1)
    return X, y


@pytest.fixture(scope="module")
def iris():
    return lw.datasets.load("iris", scale="minmax")


class PlantedOracle:
    """Answers from labels, except that the answers about ``wrong`` pairs are flipped."""

    def __init__(self, y, wrong=(), flip_first_cannot_link_after=None):
        self.y = y
        self.wrong = {frozenset(p) for p in wrong}
        self.after = flip_first_cannot_link_after
        self.n_queries = 0

    def query(self, i, j):
        self.n_queries += 1
        truth = bool(self.y[i] == self.y[j])
        if self.after is not None and self.n_queries > self.after and not truth:
            self.wrong.add(frozenset((i, j)))
            self.after = None
        return not truth if frozenset((i, j)) in self.wrong else truth


class Spy(NoiseRobustCOBRAS):
    """Counts the questions each contradiction costs."""

    def knowledge(self, ctx):
        belief = super().knowledge(ctx)
        repair, self.repair_costs = belief._repair, []

        def counted():
            before = ctx.n_queries
            changed = yield from repair()
            self.repair_costs.append(ctx.n_queries - before)
            return changed

        belief._repair = counted
        return belief


@pytest.mark.slow
def test_planted_wrong_must_link_is_found_and_corrected(blobs):
    X, y = blobs
    clean = NoiseRobustCOBRAS(random_state=0).fit(X, lw.LabelOracle(y))
    assert lw.metrics.ari(y, clean.labels_) == 1.0
    # the first cannot-link after the 3rd question is answered must-link instead
    oracle = PlantedOracle(y, flip_first_cannot_link_after=3)
    est = NoiseRobustCOBRAS(random_state=0).fit(X, oracle)
    [planted] = oracle.wrong
    fixes = [c for c in est.corrections_ if frozenset(c.pair) == planted]
    assert len(fixes) == 1
    fix = fixes[0]
    assert isinstance(fix, Correction) and fix.given is True and fix.believed is False
    assert 0 < fix.evidence.probability <= 1 and fix.evidence.answers
    assert est.believed_constraints_.relation(*fix.pair) is False
    assert est.constraints_.tolerant
    # repaired as if the wrong answer had never been given: the same clustering as without it
    assert lw.metrics.ari(y, est.labels_) == 1.0
    assert lw.metrics.ari(clean.labels_, est.labels_) == 1.0


def test_noise_probability_zero_is_plain_cobras_question_for_question(iris):
    X, y = iris
    plain = lw.COBRAS(max_queries=40, random_state=3).fit(X, lw.LabelOracle(y, noise=0.1, random_state=3))
    robust = NoiseRobustCOBRAS(max_queries=40, noise_probability=0.0, random_state=3).fit(
        X, lw.LabelOracle(y, noise=0.1, random_state=3)
    )
    assert robust.query_log_ == plain.query_log_
    np.testing.assert_array_equal(robust.labels_, plain.labels_)
    assert robust.corrections_ == [] and robust.n_extra_queries_ == 0
    assert not robust.constraints_.tolerant


@pytest.mark.slow
def test_with_right_answers_no_contradiction_no_repair_question_same_clustering(blobs):
    X, y = blobs
    plain = lw.COBRAS(random_state=2).fit(X, lw.LabelOracle(y))
    est = Spy(random_state=2).fit(X, lw.LabelOracle(y))
    assert est.constraints_.conflicts == []
    assert est.corrections_ == []
    assert not est.repair_costs  # no repair question: nothing ever contradicted
    # checks are only asked while a decision is doubtful; the run ends where plain COBRAS ends
    assert est.n_extra_queries_ < est.n_queries_ / 4
    np.testing.assert_array_equal(est.labels_, plain.labels_)


@pytest.mark.slow
def test_extra_questions_per_contradiction_are_bounded(iris):
    X, y = iris
    for bound in (0, 2, 4):
        est = Spy(max_queries=120, max_repair_questions=bound, random_state=0).fit(
            X, lw.LabelOracle(y, noise=0.2, random_state=0)
        )
        costs = est.repair_costs
        assert costs, "20 % noise should produce contradictions"
        assert max(costs) <= bound
        assert est.n_queries_ == 120  # the budget covers the extra questions too


@pytest.fixture(scope="module")
def noisy_iris_runs(iris):
    """Plain and noise-robust COBRAS on iris with 10 % of answers flipped, three seeds."""
    X, y = iris
    runs = []
    for seed in range(3):
        plain = lw.COBRAS(max_queries=100, random_state=seed).fit(X, lw.LabelOracle(y, noise=0.1, random_state=seed))
        robust = NoiseRobustCOBRAS(max_queries=100, random_state=seed).fit(
            X, lw.LabelOracle(y, noise=0.1, random_state=seed)
        )
        runs.append((plain, robust))
    return runs


@pytest.mark.slow
def test_robust_beats_plain_cobras_under_noise(iris, noisy_iris_runs):
    _, y = iris
    plain = [lw.metrics.ari(y, p.labels_) for p, _ in noisy_iris_runs]
    robust = [lw.metrics.ari(y, r.labels_) for _, r in noisy_iris_runs]
    assert np.mean(robust) > np.mean(plain) + 0.1


@pytest.mark.slow
def test_corrections_are_right_more_often_than_not(iris, noisy_iris_runs):
    _, y = iris
    right = total = 0
    for _, est in noisy_iris_runs:
        for c in est.corrections_:
            assert c.given != c.believed
            total += 1
            right += c.believed == bool(y[c.pair[0]] == y[c.pair[1]])
    assert total and right / total > 0.7


def test_checks_ask_only_decisive_pairs_until_an_answer_is_known_wrong(iris, monkeypatch):
    # records every check through the real AnswerGraph, to read the policy of NoiseRobustCOBRAS._verify
    calls = []

    class Recorded(AnswerGraph):
        def verification(self, decisions, candidates, X=None, decisive=True):
            calls.append((self.contradicted, len(decisions), decisive))
            return super().verification(decisions, candidates, X=X, decisive=decisive)

    monkeypatch.setattr(belief_module, "AnswerGraph", Recorded)
    X, y = iris
    NoiseRobustCOBRAS(max_queries=100, random_state=0).fit(X, lw.LabelOracle(y, noise=0.1, random_state=0))
    assert all(decisive == (not contradicted) for contradicted, _, decisive in calls)
    # before a contradiction, only questions that can confirm; after it, group checks may gather evidence too
    assert any(not contradicted for contradicted, _, _ in calls)
    assert any(contradicted and n > 1 for contradicted, n, _ in calls)


def test_session_matches_fit_and_shows_corrections_as_they_happen(iris):
    X, y = iris
    direct = NoiseRobustCOBRAS(max_queries=60, random_state=1).fit(X, lw.LabelOracle(y, noise=0.15, random_state=1))
    oracle = lw.LabelOracle(y, noise=0.15, random_state=1)
    session = lw.ActiveSession(NoiseRobustCOBRAS(max_queries=60, random_state=1), X)
    seen = 0
    while (pair := session.ask()) is not None:
        session.tell(pair, oracle.query(*pair))
        seen = max(seen, len(session.estimator_.corrections_))
    fitted = session.finish()
    assert fitted.query_log_ == direct.query_log_
    np.testing.assert_array_equal(fitted.labels_, direct.labels_)
    assert seen == len(direct.corrections_) > 0
    # a re-asked pair (Recheck) is in the log like any other question, within the budget
    assert fitted.n_queries_ == len(fitted.query_log_) == 60


def test_no_pair_is_asked_twice_so_a_session_resumes_by_pair(iris):
    X, y = iris
    est = NoiseRobustCOBRAS(max_queries=80, random_state=4).fit(X, lw.LabelOracle(y, noise=0.15, random_state=4))
    asked = [frozenset((i, j)) for i, j, _ in est.query_log_]
    assert len(set(asked)) == len(asked)
    assert est.n_extra_queries_ > 0
    resumed = lw.ActiveSession(NoiseRobustCOBRAS(max_queries=80, random_state=4), X)
    assert resumed.replay({(i, j): a for i, j, a in est.query_log_}) == 80
    np.testing.assert_array_equal(resumed.labels_, est.labels_)


def test_constrained_fit_of_active_clustering_leaves_contradicted_answers_out(blobs):
    X, y = blobs
    store = lw.ConstraintStore(len(y), tolerant=True)
    store.add(0, 1, bool(y[0] == y[1]))
    i, j = np.flatnonzero(y == y[0])[1:3]
    store.add(0, int(i), True)
    store.add(int(i), int(j), True)
    store.add(0, int(j), False)  # contradicts the two must-links: recorded, not fed to the clusterer
    assert store.conflicts
    ctx = SimpleNamespace(X=X, constraints=store, rng=np.random.RandomState(0))
    labels = ConstrainedFit(lw.PCKMeans(n_clusters=3, random_state=0), ctx).labels()
    reference = lw.PCKMeans(n_clusters=3, random_state=0).fit(
        X, ml=store.must_link_pairs(), cl=store.cannot_link_pairs()
    )
    np.testing.assert_array_equal(labels, reference.labels_)
    assert (0, int(j)) not in map(tuple, store.cannot_link_pairs().tolist())


def test_the_noisy_answer_belief_plugs_into_another_method_cobra(iris):
    # the repair is the knowledge's, not COBRAS's: COBRA on NoisyAnswers finds and repairs wrong answers too
    class NoisyCOBRA(lw.COBRA):
        def tolerates_contradictions(self):
            return True

        def knowledge(self, ctx):
            self.belief = NoisyAnswers(ctx, 0.05, self.focus)
            return self.belief

    X, y = iris
    plain, noisy, corrections = [], [], 0
    for seed in range(3):
        for est, out in ((lw.COBRA, plain), (NoisyCOBRA, noisy)):
            fitted = est(n_super_instances=25, max_queries=100, random_state=seed).fit(
                X, lw.LabelOracle(y, noise=0.1, random_state=seed)
            )
            out.append(lw.metrics.ari(y, fitted.labels_))
        corrections += len(fitted.belief.corrections)
        assert fitted.belief.n_extra_queries > 0
        assert fitted.belief.store is not fitted.constraints_  # the answers as given stay apart from the belief
    assert corrections > 0
    assert np.mean(noisy) > np.mean(plain) + 0.1
