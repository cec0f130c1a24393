import copy

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw
import linkwise.cobra._cobras as cobras_module
import linkwise.cobra._superinstances as si_module
from linkwise.cobra._superinstances import LabelsHistory


@pytest.fixture(scope="module")
def iris():
    return lw.datasets.load("iris", scale="minmax")


@pytest.fixture(scope="module")
def ecoli():
    return lw.datasets.load("ecoli", scale="minmax")


def _fit(X, y, **kw):
    return lw.COBRAS(**kw).fit(X, lw.LabelOracle(y))


def test_learning_curve_improves_and_history_is_consistent(iris):
    X, y = iris
    early, late = [], []
    for seed in range(3):
        est = _fit(X, y, max_queries=60, random_state=seed)
        h = est.labels_history_
        assert isinstance(h, np.ndarray) and h.shape == (60, len(y)) and h.dtype == np.int32
        np.testing.assert_array_equal(h[-1], est.labels_)
        early.append(lw.metrics.ari(y, h[4]))
        late.append(lw.metrics.ari(y, h[-1]))
    # the paper's iris curve reaches ~0.9 ARI within 60 questions
    assert np.mean(late) > 0.8
    assert np.mean(late) > np.mean(early)


def test_stopping_early_gives_the_history_of_a_longer_run(ecoli):
    """Anytime: a run stopped after b questions asks the same questions and reports history row b - 1."""
    X, y = ecoli
    full = _fit(X, y, max_queries=80, random_state=1)
    for b in (1, 7, 33, 80):
        short = _fit(X, y, max_queries=b, random_state=1)
        assert short.query_log_ == full.query_log_[:b]
        np.testing.assert_array_equal(short.labels_, full.labels_history_[b - 1])


def test_budget_queryable_and_seed(ecoli):
    X, y = ecoli
    rng = np.random.RandomState(0)
    queryable = np.sort(rng.permutation(len(y))[: int(0.8 * len(y))])
    allowed = set(queryable.tolist())

    def answer(i, j):
        assert i in allowed and j in allowed
        return bool(y[i] == y[j])

    est = lw.COBRAS(max_queries=50, random_state=5).fit(X, lw.CallbackOracle(answer), queryable=queryable)
    assert est.n_queries_ == 50  # COBRAS spends the whole budget
    # every super-instance is represented by a queryable row
    assert set(est.representatives_.tolist()) <= allowed
    other = lw.COBRAS(max_queries=50, random_state=6).fit(X, lw.CallbackOracle(answer), queryable=queryable)
    assert other.query_log_ != est.query_log_


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed"), [("ecoli", 0), ("wine", 1)])
def test_answers_between_representatives_are_honoured(name, seed):
    """Run to the end: every answer between final representatives holds in labels_, and no
    super-instance holds both points of a cannot-link (split-level answers included)."""
    X, y = lw.datasets.load(name, scale="minmax")
    queryable = np.flatnonzero(np.random.RandomState(seed).rand(len(y)) < 0.8)
    est = lw.COBRAS(random_state=seed).fit(X, lw.LabelOracle(y), queryable=queryable)
    reps = set(est.representatives_.tolist())
    si, labels = est.super_instances_, est.labels_
    between_reps = 0
    for i, j, answer in est.query_log_:
        if answer is False:
            assert si[i] != si[j]
        if i in reps and j in reps:
            between_reps += 1
            assert (labels[i] == labels[j]) == answer
    assert between_reps > 50
    # asked to the end: refined down to a few rows per super-instance
    assert len(reps) > 0.7 * len(queryable)
    assert lw.metrics.ari(y, labels) > 0.85


def test_perfect_oracle_on_separated_blobs_recovers_them():
    X, y = make_blobs(n_samples=300, centers=5, cluster_std=0.4, random_state=3)
    est = lw.COBRAS(max_queries=40, random_state=0).fit(X, lw.LabelOracle(y))
    assert lw.metrics.ari(y, est.labels_) == 1.0


def test_noisy_answers_do_not_break_the_run(iris):
    X, y = iris
    est = lw.COBRAS(max_queries=100, random_state=0).fit(X, lw.LabelOracle(y, noise=0.2, random_state=0))
    assert est.n_queries_ == 100
    assert est.constraints_.conflicts == []  # only pairs the store did not know are asked


def test_lazy_history_matches_the_dense_one(iris, monkeypatch):
    X, y = iris
    dense = _fit(X, y, max_queries=25, random_state=4).labels_history_
    monkeypatch.setattr(si_module, "_DENSE_HISTORY_MAX", 0)
    lazy = _fit(X, y, max_queries=25, random_state=4).labels_history_
    assert isinstance(lazy, LabelsHistory)
    assert lazy.shape == dense.shape and len(lazy) == 25
    np.testing.assert_array_equal(np.asarray(lazy), dense)
    np.testing.assert_array_equal(lazy[-1], dense[-1])
    np.testing.assert_array_equal(lazy[3:9:2], dense[3:9:2])
    np.testing.assert_array_equal(lazy[7, [0, 50, 100]], dense[7, [0, 50, 100]])
    assert [row.tolist() for row in lazy][10] == dense[10].tolist()
    with pytest.raises(IndexError, match="out of bounds"):
        lazy[25]


@pytest.mark.parametrize("seed", [0, 1, 3])  # seeds whose merging phases outlast lazy splits often enough
def test_lazy_splits_read_at_any_moment_agree_with_their_settled_rows(monkeypatch, seed):
    # splits of more than 40 rows assign 8 rows a question, as splits of more than 131,072 rows 131,072
    monkeypatch.setattr(cobras_module, "_LAZY_MIN", 40)
    monkeypatch.setattr(si_module, "_CHUNK", 8)
    X, y = make_blobs(n_samples=600, centers=10, cluster_std=2.0, random_state=seed)
    fitted = lw.COBRAS(max_queries=60, random_state=seed).fit(X, lw.LabelOracle(y))
    session = lw.ActiveSession(lw.COBRAS(max_queries=60, random_state=seed), X)
    pending = 0
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        tree = session.estimator_._tree
        pending += bool(tree._pending)
        settled = copy.deepcopy(tree)
        settled.settle()
        np.testing.assert_array_equal(session.labels_, settled.labels())  # without assigning the pending rows
    assert pending >= 5  # the lazy path was taken
    assert session.query_log == fitted.query_log_  # reading the clustering changes no question
    np.testing.assert_array_equal(session.finish().labels_, fitted.labels_)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_clustering_kept_between_answers_is_the_one_computed_afresh(monkeypatch, seed):
    """The tree keeps the labels of every row until the clustering shown or a leaf's rows change: after every
    answer, statement and mark (lazy splits on the way) they equal those of a copy that computes them afresh."""
    monkeypatch.setattr(cobras_module, "_LAZY_MIN", 40)
    monkeypatch.setattr(si_module, "_CHUNK", 8)
    X, y = make_blobs(n_samples=500, centers=6, cluster_std=2.5, random_state=seed)
    session = lw.ActiveSession(lw.COBRAS(max_queries=50, random_state=seed), X)
    rng = np.random.RandomState(seed)
    kept = 0
    for step in range(60):
        before = session.labels()
        if step % 7 == 3:
            i, j = rng.choice(len(y), 2, replace=False)
            session.inform(int(i), int(j), bool(y[i] == y[j]))
        elif step == 30:
            session.mark(np.flatnonzero(y == y[0])[:20])
        elif (pair := session.ask()) is not None:
            session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        shown = session.labels()
        afresh = copy.deepcopy(session.estimator_._tree)  # the copy keeps no labels
        assert afresh._labels is None
        np.testing.assert_array_equal(shown, afresh.labels())
        kept += shown is before
    assert kept > 0


# -- bad input -------------------------------------------------------------------
def test_identical_points_need_no_question():
    X = np.ones((20, 3))
    est = lw.COBRAS(random_state=0).fit(X, lw.LabelOracle(np.arange(20) % 2))
    assert est.n_queries_ == 0
    assert est.labels_.tolist() == [0] * 20
    assert est.labels_history_.shape == (0, 20)


def test_single_queryable_point_needs_no_question(iris):
    X, y = iris
    est = lw.COBRAS(random_state=0).fit(X, lw.LabelOracle(y), queryable=[5])
    assert est.n_queries_ == 0 and set(est.labels_) == {0}
    assert est.representatives_.tolist() == [5]


def test_two_points():
    est = lw.COBRAS(random_state=0).fit([[0.0], [1.0]], lw.LabelOracle([0, 1]))
    assert est.n_queries_ == 1 and est.labels_.tolist() == [0, 1]


def test_super_instances_need_a_fit():
    with pytest.raises(lw.exceptions.NotFittedError):
        _ = lw.COBRAS().super_instances_


def test_bad_data_and_oracle(iris):
    X, y = iris
    with pytest.raises(ValueError, match="NaN"):
        lw.COBRAS().fit(np.full((5, 2), np.nan), lw.LabelOracle([0] * 5))
    with pytest.raises(TypeError, match="'oracle' argument of COBRAS.fit"):
        lw.COBRAS().fit(X, y)
    with pytest.raises(ValueError, match="'queryable' argument"):
        lw.COBRAS().fit(X, lw.LabelOracle(y), queryable=[500])


def _six_blobs(n_queryable):
    """20,000 rows in six blobs, ``n_queryable`` random queryable rows, an oracle that fails on any other row."""
    centres = [[0, 0], [10, 0], [20, 0], [0, 10], [10, 10], [20, 10]]
    X, y = make_blobs(n_samples=20_000, centers=centres, cluster_std=1.0, random_state=1)
    queryable = np.sort(np.random.RandomState(0).choice(len(y), n_queryable, replace=False))
    allowed = set(queryable.tolist())

    def answer(i, j):
        assert i in allowed and j in allowed
        return bool(y[i] == y[j])

    return X, y, queryable, lw.CallbackOracle(answer)


def test_large_super_instances_are_split_on_a_sample():
    """Above 4,096 rows the splits run on a seeded sample; few queryable rows still represent every part."""
    X, y, queryable, oracle = _six_blobs(150)
    runs = [lw.COBRAS(max_queries=40, random_state=0).fit(X, oracle, queryable=queryable) for _ in range(2)]
    assert runs[0].query_log_ == runs[1].query_log_
    assert lw.metrics.ari(y, runs[0].labels_) > 0.95
    si = runs[0].super_instances_
    assert all(np.isin(np.flatnonzero(si == s), queryable).any() for s in np.unique(si))


def test_split_cutting_off_only_unqueryable_rows_falls_back_to_queryable_rows():
    rng = np.random.RandomState(0)
    X = np.concatenate([rng.normal(0, 0.1, (20, 2)), rng.normal(1, 0.1, (20, 2)), [[100.0, 100.0], [101.0, 100.0]]])
    y = np.array([0] * 20 + [1] * 20 + [1, 1])
    # 2-means on all rows isolates the two far rows, which may not be asked about
    est = lw.COBRAS(max_queries=10, random_state=0).fit(X, lw.LabelOracle(y), queryable=np.arange(40))
    assert est.n_queries_ > 0
    assert lw.metrics.ari(y[:40], est.labels_[:40]) == 1.0


def test_lazy_splits_keep_the_super_instances_and_every_invariant(monkeypatch):
    """Large super-instances are split lazily (rows assigned a chunk per question): forced here on
    20,000 rows. The parts are those of the direct split; answers and budgets hold as ever."""
    import linkwise.cobra._cobras as cobras_module

    X, y, queryable, oracle = _six_blobs(5000)

    def fit(b):
        return lw.COBRAS(max_queries=b, random_state=2).fit(X, oracle, queryable=queryable)

    direct = [fit(b) for b in (5, 9)]
    monkeypatch.setattr(cobras_module, "_LAZY_MIN", 4096)
    monkeypatch.setattr(si_module, "_CHUNK", 3000)
    for b, est in zip((5, 9), direct):  # stopped before the second split: the same parts
        lazy = fit(b)
        assert len(np.unique(lazy.super_instances_)) > 2
        assert lw.metrics.ari(est.super_instances_, lazy.super_instances_) == 1.0
        np.testing.assert_array_equal(lazy.labels_, lazy.labels_history_[-1])
    runs = [fit(60) for _ in range(2)]
    assert runs[0].query_log_ == runs[1].query_log_ and runs[0].n_queries_ == 60
    est = runs[0]
    si, labels, reps = est.super_instances_, est.labels_, est.representatives_
    np.testing.assert_array_equal(si[reps], np.arange(reps.size))  # each represented by a row of its own
    rep_set = set(reps.tolist())
    for i, j, a in est.query_log_:
        if a is False:
            assert si[i] != si[j]
        if i in rep_set and j in rep_set:
            assert (labels[i] == labels[j]) == a
    assert lw.metrics.ari(y, labels) > 0.95
