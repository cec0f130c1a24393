"""BayesianActiveClustering and BayesianClustering through their public API."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise.bayes._forest import ConstraintForest
from linkwise.exceptions import InvalidParameterError

FAST = dict(n_particles=8, n_mcmc_steps=2)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=40, centers=3, n_features=8, cluster_std=2.0, random_state=0)
    return X, y


def _answered_forest(est, n):
    """The graph of answered pairs; building it raises if it has a cycle."""
    answered = [(i, j, a) for i, j, a in est.query_log_ if a is not None]
    return ConstraintForest(n, [(i, j) for i, j, _ in answered], [a for *_, a in answered])


@pytest.mark.slow
@pytest.mark.parametrize("criterion", ["info", "uncertain", "random"])
def test_questions_keep_a_forest_until_none_is_left(criterion):
    # 9 points: a forest spanning them has 8 edges, after which every pair closes a cycle
    X, y = make_blobs(n_samples=9, centers=3, n_features=2, random_state=1)
    est = lw.BayesianActiveClustering(3, criterion=criterion, random_state=0, **FAST)
    est.fit(X, lw.LabelOracle(y))
    assert est.n_queries_ == 8
    forest = _answered_forest(est, 9)
    assert len(forest) == 9 and len(forest.roots) == 1
    assert est.n_cycle_pairs_dropped_.shape == (8,)
    # before question t the t answered pairs span at most t + 1 points: at most
    # t (t + 1) / 2 - t unasked pairs among them can close a cycle
    t = np.arange(8)
    assert np.all(est.n_cycle_pairs_dropped_ <= t * (t - 1) // 2)
    assert est.labels_history_.shape == (8, 9)
    np.testing.assert_array_equal(est.labels_history_[-1], est.labels_)


@pytest.mark.slow
def test_sampled_pools_also_run_until_the_forest_spans_the_queryable_rows():
    X, y = make_blobs(n_samples=12, centers=3, n_features=2, random_state=1)
    # 5 of the 66 pairs per question: late questions need fresh draws to find an acyclic pair
    est = lw.BayesianActiveClustering(3, candidate_pairs=5, random_state=0, **FAST).fit(X, lw.LabelOracle(y))
    assert est.n_queries_ == 11 and len(_answered_forest(est, 12).roots) == 1
    two = lw.BayesianActiveClustering(3, random_state=0, **FAST).fit(X, lw.LabelOracle(y), queryable=[3, 7])
    assert [(i, j) for i, j, _ in two.query_log_] == [(3, 7)]


@pytest.mark.slow
def test_info_skips_cycle_closing_pairs_and_counts_them():
    # on 12 points the growing tree soon holds the most informative pairs
    X, y = make_blobs(n_samples=12, centers=3, n_features=2, random_state=1)
    dropped = 0
    for seed in range(3):  # whether a run meets such a pair depends on its seed
        est = lw.BayesianActiveClustering(3, criterion="info", random_state=seed, **FAST).fit(X, lw.LabelOracle(y))
        assert est.n_queries_ == 11 and len(_answered_forest(est, 12).roots) == 1
        dropped += est.n_cycle_pairs_dropped_.sum()
    assert dropped > 0


@pytest.mark.slow
@pytest.mark.parametrize("min_ess", [1.0, 0.5])  # 0.5: moved only when the weights degenerate, scored with them
def test_budget_history_and_quality(blobs, min_ess):
    X, y = blobs
    est = lw.BayesianActiveClustering(3, max_queries=15, min_ess=min_ess, random_state=1, **FAST)
    est.fit(X, lw.LabelOracle(y))
    assert est.n_queries_ == 15 == len(est.query_log_) == len(est.constraints_)
    assert est.labels_history_.shape == (15, 40)
    assert est.W_map_.shape == (9, 3)  # with the intercept row
    assert lw.metrics.pairwise_f_measure(y, est.labels_) > 0.9
    # every answer is honoured by the final clustering on these well separated blobs
    ml, cl = est.constraints_.must_link_pairs(), est.constraints_.cannot_link_pairs()
    assert lw.metrics.constraint_satisfaction(est.labels_, ml, cl) == 1.0


@pytest.mark.slow
def test_queryable_limits_questions_and_labels_cover_every_row(blobs):
    X, y = blobs
    queryable = np.arange(0, 40, 3)

    def answer(i, j):
        assert i in queryable and j in queryable
        return bool(y[i] == y[j])

    est = lw.BayesianActiveClustering(3, max_queries=8, random_state=0, **FAST)
    est.fit(X, lw.CallbackOracle(answer), queryable=queryable)
    assert est.n_queries_ == 8 and est.labels_.shape == (40,)


@pytest.mark.slow
def test_same_seed_same_questions_and_session_matches_fit(blobs):
    X, y = blobs
    params = dict(criterion="uncertain", max_queries=6, random_state=3, **FAST)
    first = lw.BayesianActiveClustering(3, **params).fit(X, lw.LabelOracle(y))
    again = lw.BayesianActiveClustering(3, **params).fit(X, lw.LabelOracle(y))
    assert first.query_log_ == again.query_log_
    np.testing.assert_array_equal(first.labels_history_, again.labels_history_)
    template = lw.BayesianActiveClustering(3, **params)
    session = lw.ActiveSession(template, X)
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    assert session.finish().query_log_ == first.query_log_
    assert not hasattr(template, "W_map_")
    other = lw.BayesianActiveClustering(3, **{**params, "random_state": 4}).fit(X, lw.LabelOracle(y))
    assert other.query_log_ != first.query_log_


@pytest.mark.slow
def test_dont_know_is_skipped_and_not_asked_again(blobs):
    X, y = blobs
    asked = []

    def answer(i, j):
        asked.append((i, j))
        return None if len(asked) == 1 else bool(y[i] == y[j])

    est = lw.BayesianActiveClustering(3, max_queries=6, random_state=0, **FAST)
    est.fit(X, lw.CallbackOracle(answer))
    assert asked.count(asked[0]) == 1 and est.query_log_[0] == (*asked[0], None)
    assert len(est.constraints_) == 5
    _answered_forest(est, len(y))


@pytest.mark.parametrize(
    "params, match",
    [
        # each parameter alone: tests/methods/test_params.py; against the data here
        ({"n_clusters": 50}, "at most the number of samples"),
    ],
)
def test_bad_parameters_are_named(blobs, params, match):
    X, y = blobs
    with pytest.raises(lw.exceptions.InvalidParameterError, match=match):
        lw.BayesianActiveClustering(**params).fit(X, lw.LabelOracle(y))


def test_passive_model_honours_constraints_and_predicts(blobs):
    X, y = blobs
    ml = [(i, j) for i, j in [(0, 1), (2, 3), (4, 5)] if y[i] == y[j]]
    cl = [(i, j) for i, j in [(0, 2), (1, 4), (6, 7)] if y[i] != y[j]]
    bc = lw.BayesianClustering(3, random_state=0, **FAST).fit(X, ml=ml, cl=cl)
    assert lw.metrics.constraint_satisfaction(bc.labels_, ml, cl) == 1.0
    free = np.setdiff1d(np.arange(40), np.ravel(ml + cl))
    np.testing.assert_array_equal(bc.predict(X)[free], bc.labels_[free])
    assert bc.dropped_constraints_.shape == (0, 2)
    unconstrained = lw.BayesianClustering(3, random_state=0, **FAST).fit(X)
    assert unconstrained.labels_.shape == (40,)
    # the paper's model, without the intercept
    paper = lw.BayesianClustering(3, fit_intercept=False, random_state=0, **FAST).fit(X, ml=ml, cl=cl)
    assert paper.W_map_.shape == (8, 3) and bc.W_map_.shape == (9, 3)
    assert lw.metrics.constraint_satisfaction(paper.labels_, ml, cl) == 1.0


def test_passive_model_skips_cycle_closing_constraints_with_a_warning(blobs):
    X, _ = blobs
    with pytest.warns(UserWarning, match="skipped 1 constraint"):
        bc = lw.BayesianClustering(2, random_state=0, **FAST).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 2)])
    assert bc.dropped_constraints_.tolist() == [[0, 2]]
    assert bc.labels_[0] == bc.labels_[1] == bc.labels_[2]


def test_passive_model_rejects_bad_input(blobs):
    X, _ = blobs
    bc = lw.BayesianClustering(3)
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'ml' argument of BayesianClustering.fit"):
        bc.fit(X, ml=[(0, 40)])
    with pytest.raises(lw.exceptions.InvalidParameterError, match="pass constraints by keyword"):
        bc.fit(X, [(0, 1)])
    with pytest.raises(ValueError, match="NaN"):
        bc.fit(np.full((5, 2), np.nan))


def test_passive_labels_are_numbered_without_gaps():
    # three blobs, but the unconstrained model's MAP uses two of its K = 3 clusters
    X, _ = make_blobs(n_samples=50, random_state=1)
    bc = lw.BayesianClustering(3, random_state=0, **FAST).fit(X)
    used = np.unique(bc.labels_)
    np.testing.assert_array_equal(used, np.arange(used.size))
    assert bc.labels_[0] == 0
    np.testing.assert_array_equal(bc.predict(X), bc.labels_)


@pytest.mark.slow
@pytest.mark.timeout(60)
@pytest.mark.parametrize("factor", [1e200, 1e-300])
def test_extreme_magnitudes_give_the_labels_of_the_unscaled_data(factor):
    # standardising X * 1e200 directly overflows to NaN (and the slice sampler then never ended)
    X, y = make_blobs(n_samples=40, centers=2, n_features=3, random_state=2)
    X = X - X.min() + 1.0  # positive, so every value scales by the same factor
    plain = lw.BayesianClustering(2, random_state=0, **FAST).fit(X, ml=[(0, 1)])
    extreme = lw.BayesianClustering(2, random_state=0, **FAST).fit(X * factor, ml=[(0, 1)])
    assert lw.metrics.adjusted_rand_score(plain.labels_, extreme.labels_) == 1.0
    np.testing.assert_array_equal(extreme.predict(X * factor), extreme.labels_)
    active = lw.BayesianActiveClustering(2, max_queries=3, random_state=0, **FAST).fit(X * factor, lw.LabelOracle(y))
    assert lw.metrics.adjusted_rand_score(y, active.labels_) == 1.0


class _RandomThenBayes(lw.ActiveEstimator):
    """Asks ``n_first`` random pairs, then hands over to Bayesian active clustering (as Auto does), with ``inputs``."""

    anytime = True

    def __init__(self, n_first=8, inputs=None, max_queries=None, random_state=None):
        self.n_first, self.inputs, self.max_queries, self.random_state = n_first, inputs, max_queries, random_state

    def questions(self, ctx):
        for _ in range(self.n_first):
            i, j = ctx.rng.choice(ctx.queryable, 2, replace=False)
            yield int(i), int(j)
        self.bayes_ = lw.BayesianActiveClustering(2, criterion="uncertain", **FAST)
        yield from self.bayes_.questions(ctx, inputs=self.inputs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_method_handing_over_conditions_the_particles_on_the_answers_given(seed):
    # two groups along the first feature; the answers given before the hand-over decide the model's first clustering
    rng = np.random.RandomState(seed)
    X = np.c_[np.r_[rng.normal(-3, 1, 30), rng.normal(3, 1, 30)], rng.normal(size=(60, 3))]
    y = np.repeat([0, 1], 30)
    order = rng.permutation(60)  # shuffled rows
    X, y = X[order], y[order]
    est = _RandomThenBayes(n_first=8, max_queries=12, random_state=seed).fit(X, lw.LabelOracle(y))
    pairs = [frozenset((i, j)) for i, j, _ in est.query_log_]
    assert len(set(pairs)) == len(pairs) == 12  # the model asks none of the pairs answered before it
    assert est.bayes_.n_cycle_pairs_dropped_.size == 4  # the last 4 questions are its own
    first = est.labels_history_[7]  # at the hand-over: its first clustering holds the 8 answers given before
    answered = est.query_log_[:8]
    assert all((first[i] == first[j]) == a for i, j, a in answered)
    assert lw.metrics.ari(y, est.labels_) > 0.8


@pytest.mark.parametrize("inputs", [np.zeros((59, 4)), np.zeros(60), np.full((60, 2), np.nan), [[0.0]] * 3])
def test_inputs_of_another_shape_are_refused_in_one_line_and_the_answers_kept(inputs):
    X = np.random.RandomState(0).normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int)
    session = lw.ActiveSession(_RandomThenBayes(n_first=2, inputs=inputs, max_queries=5, random_state=0), X)
    session.tell(session.ask(), True)
    with pytest.raises(InvalidParameterError, match=r"^The 'inputs' argument of BayesianActiveClustering.questions "
                                                    r"must be a finite array of one row per sample \(60\), got shape "):
        pair = session.ask()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    assert len(session.query_log) == 2  # both answers kept


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_relations_stated_in_a_session_hold_at_once_and_after_later_answers(seed):
    # the person's classes are the sign of a noise feature (no clustering of the features); an inform joining two rows
    # of one class the model keeps apart, then a complete mark of the other class: both hold in the report at once
    # (no answer needed) and after every later answer
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(60, 4))
    y = (X[:, 2] > 0).astype(int)
    session = lw.ActiveSession(lw.BayesianActiveClustering(3, criterion="uncertain", max_queries=8,
                                                           random_state=seed, **FAST), X)
    for _ in range(3):
        pair = session.ask()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    labels, ones = session.labels_, np.flatnonzero(y == 1)
    i, j = next((i, j) for i in ones for j in ones if labels[i] != labels[j])
    session.inform(int(i), int(j), True)
    assert session.labels_[i] == session.labels_[j]
    marked = np.flatnonzero(y == 0)
    session.mark(marked, complete=True)

    def holds(labels):
        return (np.unique(labels[marked]).size == 1 and not np.isin(labels[ones], labels[marked]).any()
                and labels[i] == labels[j])

    assert holds(session.labels_)
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        assert holds(session.labels_)


def test_reading_the_labels_after_a_mark_does_not_change_the_next_questions(blobs):
    # the mark conditions the particles when the labels are read or at the next answer, whichever comes first: the
    # random draws come in the same order, so a session replayed without reading them asks the same questions
    X, y = blobs
    logs = []
    for read in (True, False):
        session = lw.ActiveSession(lw.BayesianActiveClustering(3, max_queries=6, random_state=0, **FAST), X)
        for step in range(6):
            if step == 2:
                session.mark(np.flatnonzero(y == 1)[:6])
                if read:
                    assert session.labels_.shape == (len(y),)
            pair = session.ask()
            session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        logs.append(session.query_log)
    assert logs[0] == logs[1]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wide_tables_are_modelled_on_64_components(seed):
    # components rescaled to unit variance (the faint ones magnified) gave ARI near 0 here
    X, y = make_blobs(n_samples=90, n_features=300, centers=3, cluster_std=6.0, random_state=seed)
    session = lw.ActiveSession(lw.BayesianActiveClustering(3, max_queries=10, random_state=seed), X)
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    assert session._ctx.state["bayes"].particles.W.shape == (384, 65, 3)  # 2 d K, d = 64 components, not 300
    est = session.finish()
    assert est.W_map_.shape == (65, 3)  # 64 principal components and the intercept
    assert lw.metrics.ari(y, est.labels_) > 0.5
    # new items go through the same projection: a fitted row's copy joins the cluster the model gives it
    free = est.predictor_.rows[:10]
    np.testing.assert_array_equal(est.predict(X[free]), est.labels_[free])
