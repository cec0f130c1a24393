"""Query strategies run alone (``collect``): the loop's invariants and each paper's selection rule."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import cdist, pdist
from sklearn.datasets import make_blobs
from sklearn.ensemble import RandomForestClassifier

import linkwise as lw
import linkwise.active._npu as npu_module
from linkwise.active import NPU, Committee, ExploreConsolidate, MinMax, Random
from linkwise.active._committee import _Clusters
from linkwise.active._npu import _forest_leaves, _membership_proba, _normalised_uncertainty
from linkwise.ensemble import coassociation, ensemble_labels, flat_codes, impute_constraints
from linkwise.graph import relabel

STRATEGIES = {
    "random": lambda: Random(),
    "explore_consolidate": lambda: ExploreConsolidate(),
    "minmax": lambda: MinMax(),
    "npu": lambda: NPU(n_trees=5),
    "committee": lambda: Committee(n_estimators=10),
}


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=60, centers=3, cluster_std=1.5, random_state=0)
    return X, y


class Recorder:
    """A perfect oracle that records every question and says "don't know" to every ``dont_know``-th one."""

    def __init__(self, y, dont_know=0):
        self.y, self.dont_know, self.asked = y, dont_know, []

    def query(self, i, j):
        self.asked.append((i, j))
        if self.dont_know and len(self.asked) % self.dont_know == 0:
            return None
        return bool(self.y[i] == self.y[j])


def collect(strategy, X, y, **kwargs):
    oracle = Recorder(y, dont_know=kwargs.pop("dont_know", 0))
    store = strategy.collect(X, oracle, **kwargs)
    return store, oracle.asked


@pytest.mark.parametrize("name", STRATEGIES)
def test_loop_invariants(name, blobs):
    X, y = blobs
    queryable = np.arange(0, 60, 2)
    store, asked = collect(STRATEGIES[name](), X, y, n_clusters=3, max_queries=25, queryable=queryable, random_state=0, dont_know=6)
    assert 0 < len(asked) <= 25
    assert all(i in queryable and j in queryable and i != j for i, j in asked)
    # no question repeats a known or inferable relation (nor a "don't know")
    replay, seen = lw.ConstraintStore(60), set()
    for k, (i, j) in enumerate(asked, start=1):
        assert replay.relation(i, j) is None and frozenset((i, j)) not in seen
        seen.add(frozenset((i, j)))
        if k % 6:
            replay.add(i, j, bool(y[i] == y[j]))
    assert len(store) == len(replay) == len(asked) - len(asked) // 6


@pytest.mark.parametrize("name", STRATEGIES)
def test_same_random_state_same_questions(name, blobs):
    X, y = blobs
    first = collect(STRATEGIES[name](), X, y, n_clusters=3, max_queries=15, random_state=3)[1]
    again = collect(STRATEGIES[name](), X, y, n_clusters=3, max_queries=15, random_state=3)[1]
    assert first == again and len(first) == 15


@pytest.mark.parametrize("name", ["random", "explore_consolidate", "minmax", "committee"])
def test_without_budget_every_queryable_point_is_resolved(name, blobs):
    X, y = blobs
    store, asked = collect(STRATEGIES[name](), X, y, n_clusters=3, random_state=1)
    comps = store.component_labels()
    for i in range(60):
        # each point is must-linked to its class, or cannot-linked to the other classes' components
        same = [store.relation(i, j) for j in np.flatnonzero(y == y[i]) if j != i]
        other = {comps[j] for j in np.flatnonzero(y != y[i]) if store.relation(i, j) is False}
        assert all(s is not False for s in same)
        assert any(same) or len(other) >= 2, i
    assert len(asked) < 60 * 59 // 2


def test_random_draws_each_pair_once_and_stops():
    X = np.arange(12, dtype=float).reshape(6, 2)
    y = np.array([0, 1, 2, 3, 4, 5])  # all apart: no pair follows from others, so all 15 are asked
    store, asked = collect(Random(), X, y, n_clusters=2, random_state=0)
    assert sorted(map(sorted, asked)) == [[i, j] for i in range(6) for j in range(i + 1, 6)]
    assert len(store) == 15


def explore_steps(asked):
    """The points in order of their first question (the skeleton as it grew)."""
    order = []
    for i, j in asked:
        for p in (j, i):  # the anchor was visited before the point asked about
            if p not in order:
                order.append(p)
    return order


@pytest.mark.parametrize("strategy", [ExploreConsolidate(), MinMax()], ids=["ec", "minmax"])
def test_explore_is_farthest_first(strategy, blobs):
    X, y = blobs
    _, asked = collect(strategy, X, y, n_clusters=3, max_queries=40, random_state=4)
    visited = explore_steps(asked)
    n_explore = 3 if isinstance(strategy, ExploreConsolidate) else len(visited)  # MinMax never stops
    d = cdist(X, X)
    for k in range(1, n_explore):
        others = np.setdiff1d(np.arange(60), visited[:k])
        expected = others[np.argmax(d[np.ix_(others, visited[:k])].min(axis=1))]
        assert visited[k] == expected


@pytest.mark.parametrize("strategy", [ExploreConsolidate(), MinMax()], ids=["ec", "minmax"])
def test_consolidation_asks_at_most_k_minus_one_per_point(strategy):
    X, y = make_blobs(n_samples=80, centers=4, cluster_std=2.0, random_state=2)
    _, asked = collect(strategy, X, y, n_clusters=4, random_state=0)
    per_point = {}
    for i, _ in asked:
        per_point[i] = per_point.get(i, 0) + 1
    assert max(per_point.values()) == 3  # consolidation never asks the 4th neighbourhood
    anchors = {j for _, j in asked}
    assert len(anchors) == 4


def test_explore_consolidate_asks_neighbourhoods_nearest_centroid_first():
    X, y = make_blobs(n_samples=90, centers=[[0, 0], [10, 0], [0, 10]], cluster_std=1.0, random_state=5)
    _, asked = collect(ExploreConsolidate(), X, y, n_clusters=3, random_state=0)
    # well separated: the nearest neighbourhood is always right, one question per point
    assert len(asked) == (1 + 2) + (90 - 3)  # explore: 1 + 2 questions; then one per remaining point
    assert all(y[i] == y[j] for i, j in asked[3:])


def test_minmax_kernel_width_is_20th_percentile_of_distances(blobs):
    X, y = blobs
    strategy = MinMax()
    est = lw.ActiveClustering(lw.PCKMeans(n_clusters=3), strategy, max_queries=3, random_state=0).fit(X, lw.LabelOracle(y))
    assert est.strategy_.sigma_ == pytest.approx(np.percentile(pdist(X), 20))
    assert not hasattr(strategy, "sigma_")  # the user's object is not modified


def test_minmax_estimates_sigma_from_a_sample_on_large_data():
    X, _ = make_blobs(n_samples=3000, centers=5, n_features=4, random_state=0)
    est = lw.ActiveClustering(lw.PCKMeans(n_clusters=5), MinMax(), max_queries=3, random_state=0)
    session = lw.ActiveSession(est, X)
    sigma = session.estimator_.strategy_.sigma_
    assert sigma == pytest.approx(np.percentile(pdist(X), 20), rel=0.05)


def test_minmax_given_sigma_is_used(blobs):
    X, y = blobs
    est = lw.ActiveClustering(lw.PCKMeans(n_clusters=3), MinMax(sigma=0.7), max_queries=3, random_state=0)
    assert est.fit(X, lw.LabelOracle(y)).strategy_.sigma_ == 0.7


def test_npu_probabilities_and_normalised_uncertainty():
    sums = np.array([[2.0, 2.0], [3.0, 0.0], [0.0, 0.0], [4.0, 1.0]])
    proba = _membership_proba(sums, np.array([2, 1]))  # mean similarity: divide by sizes
    np.testing.assert_allclose(proba, [[1 / 3, 2 / 3], [1, 0], [0.5, 0.5], [2 / 3, 1 / 3]])
    score = _normalised_uncertainty(proba)
    h = -(1 / 3 * np.log2(1 / 3) + 2 / 3 * np.log2(2 / 3))
    # expected questions: most likely neighbourhood first (1 question), the other second (2)
    np.testing.assert_allclose(score, [h / (2 / 3 + 2 / 3), 0.0, 1 / 1.5, h / (2 / 3 + 2 / 3)])


def test_npu_batches_recluster_less_often(blobs):
    X, y = blobs
    fits = []

    class CountingPCKMeans(lw.PCKMeans):
        def fit(self, X, y=None, *, ml=None, cl=None):
            fits.append(len(ml) + len(cl))
            return super().fit(X, ml=ml, cl=cl)

    for batch_size in (1, 5):
        fits.clear()
        est = lw.ActiveClustering(CountingPCKMeans(n_clusters=3), NPU(n_trees=5, batch_size=batch_size), max_queries=20, random_state=0)
        est.fit(X, lw.LabelOracle(y))
        assert est.n_queries_ == 20
        if batch_size == 1:
            single = len(fits)
    assert len(fits) < single / 2


def test_npu_forest_is_scikit_learns_random_forest(blobs):
    X, y = blobs
    leaves = _forest_leaves(X.astype(np.float32), y, 7, 42)
    np.testing.assert_array_equal(leaves, RandomForestClassifier(n_estimators=7, random_state=42).fit(X, y).apply(X))


def test_npu_regrows_the_whole_forest_only_when_the_clustering_changes(blobs, monkeypatch):
    X, y = blobs
    fitted, grown = [], []  # every clustering; (clusterings so far, trees grown) at each growth

    def spy(X32, labels, n_trees, seed):
        np.testing.assert_array_equal(labels, fitted[-1])  # grown on the latest clustering
        grown.append((len(fitted), n_trees))
        return _forest_leaves(X32, labels, n_trees, seed)

    class RecordingPCKMeans(lw.PCKMeans):
        def fit(self, X, y=None, *, ml=None, cl=None):
            super().fit(X, ml=ml, cl=cl)
            fitted.append(relabel(self.labels_))
            return self

    monkeypatch.setattr(npu_module, "_forest_leaves", spy)
    est = lw.ActiveClustering(
        RecordingPCKMeans(n_clusters=3), NPU(n_trees=10, renew=0.2), max_queries=30, random_state=0
    )
    est.fit(X, lw.LabelOracle(y))
    changed = {1} | {c for c in range(2, len(fitted) + 1) if not np.array_equal(fitted[c - 1], fitted[c - 2])}
    # one growth per clustering NPU asked for (the last clustering may be the final one, after the questions)
    assert [c for c, _ in grown] == list(range(1, len(grown) + 1)) and len(grown) >= len(fitted) - 1
    # the whole forest after a change, a fifth of it otherwise
    assert [n for _, n in grown] == [10 if c in changed else 2 for c, _ in grown]
    assert 10 in [n for _, n in grown[1:]] and 2 in [n for _, n in grown]


def test_npu_by_default_regrows_the_whole_forest_after_every_point(blobs, monkeypatch):
    X, y = blobs
    grown = []

    def spy(X32, labels, n_trees, seed):
        grown.append(n_trees)
        return _forest_leaves(X32, labels, n_trees, seed)

    monkeypatch.setattr(npu_module, "_forest_leaves", spy)
    lw.ActiveClustering(lw.PCKMeans(n_clusters=3), NPU(n_trees=5), max_queries=20, random_state=0).fit(
        X, lw.LabelOracle(y)
    )
    assert len(grown) > 5 and set(grown) == {5}


def test_committee_first_representative_is_median_of_largest_imputed_neighbourhood():
    X, y = make_blobs(n_samples=90, centers=3, cluster_std=1.8, random_state=3)
    queryable = np.arange(1, 90, 2)
    _, asked = collect(Committee(n_estimators=15), X, y, n_clusters=3, max_queries=5, queryable=queryable, random_state=0)
    A = coassociation(X, 3, n_estimators=15, random_state=0)  # the same runs: the ensemble draws first
    ml, _ = impute_constraints(A, kappa_ml=0.98)
    hood = connected_components(coo_matrix((np.ones(len(ml)), tuple(ml.T)), shape=(90, 90)), directed=False)[1]
    largest = np.flatnonzero(hood == np.bincount(hood).argmax())
    candidates = np.intersect1d(largest, queryable)
    median = candidates[np.argmax(A[np.ix_(candidates, largest)].mean(axis=1))]
    assert asked[0][1] == median


def test_committee_certainty_is_the_size_weighted_margin():
    X, _ = make_blobs(n_samples=50, centers=3, cluster_std=2.5, random_state=3)
    codes = ensemble_labels(X, 3, n_estimators=12, random_state=0)
    A = np.mean([codes[:, [t]] == codes[:, t] for t in range(12)], axis=0)
    clusters = _Clusters(*flat_codes(codes))
    groups = [np.array([0, 4, 9, 11]), np.array([1, 2]), np.array([5, 6, 7, 8, 20, 30])]
    for g in groups:
        clusters.new(g[0], g[:-1])
        clusters.assign(g[-1], len(clusters.reps) - 1)
    clusters.assign(9, 2)  # an answer moves a member to another cluster
    groups = [np.array([0, 4, 11]), np.array([1, 2]), np.array([5, 6, 7, 8, 20, 30, 9])]
    np.testing.assert_array_equal(clusters.owner[[0, 9, 1, 3]], [0, 2, 1, -1])
    S = np.column_stack([A[:, g].mean(axis=1) for g in groups])  # Eq. 3
    T = S * np.array([len(g) for g in groups]) / sum(len(g) for g in groups)
    top = -np.sort(-T, axis=1)
    np.testing.assert_allclose(clusters.certainty(), 2 * top[:, 0] / (top[:, 0] + top[:, 1]) - 1)
    np.testing.assert_array_equal(clusters.order(13), np.argsort(-S[13], kind="stable"))


def test_committee_expansion_asks_at_most_k_minus_one_per_point():
    X, y = make_blobs(n_samples=90, centers=3, cluster_std=2.5, random_state=3)
    store, asked = collect(Committee(n_estimators=15), X, y, n_clusters=3, random_state=0)
    per_point = {}
    for i, _ in asked:
        per_point[i] = per_point.get(i, 0) + 1
    assert max(per_point.values()) <= 2
    assert len({j for _, j in asked}) == 3  # every question is against one of the 3 representatives


@pytest.mark.parametrize(
    "strategy, match",
    [
        # each parameter alone: tests/methods/test_params.py; a relation of two here
        (Committee(kappa_ml=0.5, kappa_cl=0.6), "'kappa_cl' parameter of Committee must be below kappa_ml=0.5, got 0.6"),
        (Committee(kappa_ml=0.5, kappa_cl=0.5), "'kappa_cl' parameter of Committee must be below kappa_ml=0.5, got 0.5"),
    ],
)
def test_bad_strategy_parameters_are_named(strategy, match, blobs):
    X, y = blobs
    with pytest.raises(ValueError, match=match):
        strategy.collect(X, lw.LabelOracle(y), n_clusters=3)


def test_collect_checks_its_arguments(blobs):
    X, y = blobs
    # each argument alone: tests/methods/test_params.py
    with pytest.raises(ValueError, match="'n_clusters' parameter of ExploreConsolidate.collect must be at most the "
                       "number of samples, got n_clusters=61 for n_samples=60"):
        ExploreConsolidate().collect(X, lw.LabelOracle(y), n_clusters=61)
    with pytest.raises(ValueError, match="'queryable' argument"):
        Random().collect(X, lw.LabelOracle(y), n_clusters=2, queryable=[0, 99])


def test_npu_collect_reclusters_on_everything_the_answers_imply(blobs):
    # collect's PCKMeans sees the closure, as ActiveClustering gives PCKMeans by default
    X, y = blobs
    _, asked = collect(NPU(n_trees=3), X, y, n_clusters=3, max_queries=20, random_state=0)
    logs = {}
    for form in ("closure", "answered"):
        est = lw.ActiveClustering(
            lw.PCKMeans(n_clusters=3), NPU(n_trees=3), max_queries=20, constraints=form, random_state=0
        )
        logs[form] = [q[:2] for q in est.fit(X, lw.LabelOracle(y)).query_log_]
    assert asked == logs["closure"] != logs["answered"]
