from math import comb

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw

# COBRA paper (IJCAI 2017), Table 1: questions with 25 super-instances, mean of 5 runs.
TABLE_1 = {"iris": 34, "wine": 35, "dermatology": 42, "hepatitis": 39, "ecoli": 51, "optdigits389": 54}


def _lower_bound(n_super_instances, n_clusters):
    return n_super_instances - n_clusters + comb(n_clusters, 2)


@pytest.fixture(scope="module")
def iris():
    return lw.datasets.load("iris", scale="minmax")


def test_table_1_question_counts():
    """Table 1 within ±25%, except optdigits389, and never above it.

    Our counts are below the paper's on all six datasets (iris -23%, wine
    -24%, dermatology -18%, hepatitis -20%, ecoli -12%). On optdigits389
    (-50%) they sit at the section 3 lower bound instead: the
    super-instances are nearly pure and every must-link comes before the
    cannot-links. Our point-level closest-pairs-first counts equal the
    paper's column 5 exactly on the same data, and a brute-force
    re-implementation of Algorithm 1 gives our counts, so the difference is
    not in the merging step. Other ways of building the super-instances
    (z-score or no scaling, random init, ten K-means starts, the row closest
    to the mean instead of the medoid, the 5-fold protocol) all give 25-28
    questions on optdigits389 (benchmarks/results/cobra.md).
    """
    for name, paper in TABLE_1.items():
        X, y = lw.datasets.load(name, scale="minmax")
        counts = [lw.COBRA(n_super_instances=25, random_state=s).fit(X, lw.LabelOracle(y)).n_queries_ for s in range(5)]
        mean = np.mean(counts)
        assert mean <= paper, (name, mean)
        if name == "optdigits389":
            bound = _lower_bound(25, len(np.unique(y)))
            assert abs(mean - bound) <= 0.25 * bound, (name, mean, bound)
        else:
            assert abs(mean - paper) <= 0.25 * paper, (name, mean)


def test_lower_bound_is_exact_for_pure_super_instances():
    """Pure super-instances, must-links closer than cannot-links: exactly N_S - N_C + C(N_C, 2)."""
    centres = np.array([[0, 0], [100, 0], [0, 100], [100, 100]], dtype=float)
    X, y = make_blobs(n_samples=400, centers=centres, cluster_std=2.0, random_state=0)
    for n_s in (8, 20, 40):
        est = lw.COBRA(n_super_instances=n_s, random_state=1).fit(X, lw.LabelOracle(y))
        si = est.super_instances_
        assert all(len(np.unique(y[si == s])) == 1 for s in np.unique(si))  # pure
        assert est.n_queries_ == _lower_bound(n_s, 4)
        assert lw.metrics.ari(y, est.labels_) == 1.0


@pytest.mark.parametrize("noise", [0.0, 0.2])
def test_every_answer_is_honoured_and_bounds_hold(iris, noise):
    X, y = iris
    est = lw.COBRA(n_super_instances=30, random_state=0).fit(X, lw.LabelOracle(y, noise=noise, random_state=0))
    labels, si = est.labels_, est.super_instances_
    # labels are constant on super-instances, questions only about representatives
    assert all(len(np.unique(labels[si == s])) == 1 for s in range(30))
    reps = set(est.representatives_.tolist())
    assert len(reps) == 30
    for i, j, answer in est.query_log_:
        assert i in reps and j in reps
        assert (labels[i] == labels[j]) == answer
    assert est.n_queries_ <= comb(30, 2)
    # nothing left to merge: every two clusters are separated by a cannot-link between their medoids
    medoids = est.representatives_
    for a, b in zip(*np.triu_indices(len(medoids), k=1)):
        ca, cb = labels[medoids[a]], labels[medoids[b]]
        if ca != cb:
            in_a, in_b = medoids[labels[medoids] == ca], medoids[labels[medoids] == cb]
            assert any(est.constraints_.relation(int(m), int(r)) is False for m in in_a for r in in_b)


def test_a_budget_stops_the_run_at_its_history(iris):
    X, y = iris
    full = lw.COBRA(n_super_instances=25, random_state=3).fit(X, lw.LabelOracle(y))
    short = lw.COBRA(n_super_instances=25, max_queries=10, random_state=3).fit(X, lw.LabelOracle(y))
    assert short.query_log_ == full.query_log_[:10]
    np.testing.assert_array_equal(short.labels_, full.labels_history_[9])
    # before any must-link each super-instance is a cluster of its own
    assert len(np.unique(full.labels_history_[0])) >= 24


def test_queryable_rows_only_and_super_instances_without_them_are_merged(iris):
    X, y = iris
    queryable = np.arange(0, len(y), 7)  # 21 rows: many of the 25 K-means clusters have none
    allowed = set(queryable.tolist())

    def answer(i, j):
        assert i in allowed and j in allowed
        return bool(y[i] == y[j])

    est = lw.COBRA(n_super_instances=25, random_state=0).fit(X, lw.CallbackOracle(answer), queryable=queryable)
    si = est.super_instances_
    assert len(np.unique(si)) < 25
    # every super-instance holds a queryable row, and its medoid is one of them
    assert all(np.isin(np.flatnonzero(si == s), queryable).any() for s in np.unique(si))
    assert set(est.representatives_.tolist()) <= allowed
    assert est.labels_.shape == (len(y),)


def test_medoid_is_the_most_central_queryable_row():
    X = np.array([[0.0], [1.0], [2.0], [10.0], [10.5], [13.0]])
    oracle = lw.LabelOracle([0, 0, 0, 1, 1, 1])
    est = lw.COBRA(n_super_instances=2, random_state=0).fit(X, oracle, queryable=[0, 1, 2, 3, 5])
    # 1 is central in {0, 1, 2}; 3 and 5 tie in {3, 5} (4 is not queryable): the first wins
    assert est.representatives_.tolist() == [1, 3]
    assert est.query_log_ == [(1, 3, False)]


# -- bad input -------------------------------------------------------------------
def test_more_super_instances_than_points():
    X, y = make_blobs(n_samples=10, random_state=0)
    message = r"'n_super_instances' parameter of COBRA must be at most the number of rows of X \(10\), got 50"
    with pytest.raises(ValueError, match=message):
        lw.COBRA().fit(X, lw.LabelOracle(y))
    est = lw.COBRA(n_super_instances=10, random_state=0).fit(X, lw.LabelOracle(y))
    assert lw.metrics.ari(y, est.labels_) == 1.0  # one point per super-instance: exact


def test_identical_points_make_one_super_instance():
    X = np.zeros((30, 2))
    est = lw.COBRA(n_super_instances=5, random_state=0).fit(X, lw.LabelOracle(np.arange(30) % 3))
    assert est.n_queries_ == 0 and set(est.labels_) == {0} and set(est.super_instances_) == {0}


def test_single_queryable_point(iris):
    X, y = iris
    est = lw.COBRA(n_super_instances=10, random_state=0).fit(X, lw.LabelOracle(y), queryable=[42])
    assert est.n_queries_ == 0 and set(est.labels_) == {0}
    assert est.representatives_.tolist() == [42]


def test_dont_know_moves_to_the_next_pair(iris):
    X, y = iris
    first = []

    def answer(i, j):
        if not first:
            first.append((i, j))
            return None
        return bool(y[i] == y[j])

    est = lw.COBRA(n_super_instances=15, random_state=0).fit(X, lw.CallbackOracle(answer))
    assert est.query_log_[0] == (*first[0], None)
    asked = [frozenset(p[:2]) for p in est.query_log_]
    assert len(set(asked)) == len(asked)
    assert lw.metrics.ari(y, est.labels_) > 0.6


def test_large_data_is_clustered_from_a_sample_with_few_queryable_rows():
    centres = [[0, 0], [10, 0], [20, 0], [0, 10], [10, 10]]
    X, y = make_blobs(n_samples=25_000, centers=centres, cluster_std=1.0, random_state=2)
    queryable = np.sort(np.random.RandomState(1).choice(len(y), 100, replace=False))
    est = lw.COBRA(n_super_instances=20, random_state=0).fit(X, lw.LabelOracle(y), queryable=queryable)
    assert set(est.representatives_.tolist()) <= set(queryable.tolist())
    assert lw.metrics.ari(y, est.labels_) > 0.95


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize(
    "make",
    [lambda: lw.COBRA(random_state=0), lambda: lw.COBRAS(max_queries=30, random_state=0)],
    ids=["COBRA", "COBRAS"],
)
def test_extreme_magnitudes_give_the_labels_of_ordinary_data(iris, make, factor):
    X, y = iris
    ordinary = make().fit(X, lw.LabelOracle(y))
    extreme = make().fit(X * factor, lw.LabelOracle(y))
    # before the data was rescaled, no question was asked and all was one cluster
    assert extreme.n_queries_ == ordinary.n_queries_ > 10
    np.testing.assert_array_equal(extreme.labels_, ordinary.labels_)
