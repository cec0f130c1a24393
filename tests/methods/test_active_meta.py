"""ActiveClustering: a constrained clusterer driven by a query strategy through the shared loop."""

import warnings

import numpy as np
import pytest
from sklearn.cluster import DBSCAN, KMeans
from sklearn.datasets import load_breast_cancer, make_blobs
from sklearn.preprocessing import StandardScaler

import linkwise as lw
from linkwise._validation import InvalidParameterError
from linkwise.active import NPU, ActiveClustering, Committee, ExploreConsolidate, MinMax, Random
from linkwise.active._base import ConstrainedFit
from linkwise.loop import QueryContext

STRATEGIES = [Random(), ExploreConsolidate(), MinMax(), NPU(n_trees=5), Committee(n_estimators=10)]


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=80, centers=4, cluster_std=1.2, random_state=7)
    return X, y


def test_explore_consolidate_recovers_well_separated_blobs_exactly():
    X, y = make_blobs(n_samples=150, centers=5, cluster_std=0.6, random_state=11)
    est = ActiveClustering(lw.PCKMeans(n_clusters=5), ExploreConsolidate(), random_state=0).fit(X, lw.LabelOracle(y))
    assert lw.metrics.ari(y, est.labels_) == 1.0
    assert est.n_queries_ <= 150 * 4  # at most K - 1 questions per point after the skeleton


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: type(s).__name__)
def test_budget_queryable_and_labels_for_every_row(strategy, blobs):
    X, y = blobs
    train = np.arange(80) % 5 != 0
    asked = []

    def answer(i, j):
        asked.append((i, j))
        return bool(y[i] == y[j])

    est = ActiveClustering(lw.PCKMeans(n_clusters=4), strategy, max_queries=18, random_state=1)
    est.fit(X, lw.CallbackOracle(answer), queryable=train)
    assert est.n_queries_ == len(asked) == len(est.query_log_) == 18
    assert all(train[i] and train[j] for i, j in asked)
    assert est.labels_.shape == (80,)
    np.testing.assert_array_equal(est.labels_, est.clusterer_.labels_)
    assert len(est.clusterer_.cluster_centers_) == 4
    again = ActiveClustering(lw.PCKMeans(n_clusters=4), strategy, max_queries=18, random_state=1)
    again.fit(X, lw.LabelOracle(y), queryable=train)
    assert again.query_log_ == est.query_log_
    np.testing.assert_array_equal(again.labels_, est.labels_)


def test_user_objects_are_not_modified(blobs):
    X, y = blobs
    clusterer, strategy = lw.PCKMeans(n_clusters=4), MinMax()
    before = (clusterer.get_params(), strategy.get_params())
    est = ActiveClustering(clusterer, strategy, max_queries=10, random_state=0).fit(X, lw.LabelOracle(y))
    assert (clusterer.get_params(), strategy.get_params()) == before
    assert not hasattr(clusterer, "labels_") and not hasattr(strategy, "sigma_")
    assert est.clusterer_ is not clusterer and est.strategy_ is not strategy
    assert est.clusterer_.random_state is not None  # an unseeded clusterer is seeded from random_state


def test_budget_spent_mid_explore_fits_on_what_was_learned(blobs):
    X, y = blobs
    est = ActiveClustering(lw.PCKMeans(n_clusters=4), ExploreConsolidate(), max_queries=1, random_state=0)
    est.fit(X, lw.LabelOracle(y))
    assert est.n_queries_ == 1 and len(est.constraints_) == 1
    (i, j, answer), = est.query_log_
    assert (est.labels_[i] == est.labels_[j]) == answer
    assert ActiveClustering(lw.PCKMeans(n_clusters=4), Random(), max_queries=0).fit(X, lw.LabelOracle(y)).n_queries_ == 0


def test_session_matches_fit_and_replays(blobs):
    X, y = blobs
    template = ActiveClustering(lw.PCKMeans(n_clusters=4), NPU(n_trees=5), max_queries=8, random_state=2)
    session = lw.ActiveSession(template, X)
    checkpoints = []
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        checkpoints.append(session.labels_.copy())
    fitted = session.finish()
    direct = ActiveClustering(lw.PCKMeans(n_clusters=4), NPU(n_trees=5), max_queries=8, random_state=2)
    direct.fit(X, lw.LabelOracle(y))
    assert fitted.query_log_ == direct.query_log_
    np.testing.assert_array_equal(fitted.labels_, direct.labels_)
    np.testing.assert_array_equal(checkpoints[-1], direct.labels_)
    # a reopened session replays the stored answers and asks nothing new
    reopened = lw.ActiveSession(template, X)
    assert reopened.replay({(i, j): a for i, j, a in direct.query_log_}) == 8
    assert reopened.done
    np.testing.assert_array_equal(reopened.labels_, direct.labels_)


class RecordingPCKMeans(lw.PCKMeans):
    """PCKMeans that records the pairs of its last fit (class-level, as clones are fitted)."""

    seen = {}

    def fit(self, X, y=None, *, ml=None, cl=None):
        RecordingPCKMeans.seen = {"ml": np.asarray(ml).tolist(), "cl": np.asarray(cl).tolist()}
        return super().fit(X, ml=ml, cl=cl)


@pytest.mark.parametrize(
    "constraints, expected",
    [("answered", {"ml": [[0, 1]], "cl": [[1, 2]]}), ("closure", {"ml": [[0, 1]], "cl": [[0, 2], [1, 2]]})],
)
def test_only_consistent_answers_reach_the_clusterer(constraints, expected):
    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    store = lw.ConstraintStore(4, tolerant=True)
    store.add(0, 1, True)
    store.add(1, 2, False)
    store.add(0, 2, True)  # contradicts the two before: recorded as a conflict, in no closure
    ctx = QueryContext(X, np.arange(4), store, np.random.RandomState(0), None)
    labels = ConstrainedFit(RecordingPCKMeans(n_clusters=2), ctx, constraints).labels()
    assert RecordingPCKMeans.seen == expected
    assert labels[0] == labels[1] != labels[2]


@pytest.mark.parametrize(
    "clusterer, constraints, closure",
    [
        (RecordingPCKMeans(n_clusters=3), "auto", True),
        (RecordingPCKMeans(n_clusters=3), "answered", False),
        (lw.MPCKMeans(n_clusters=3), "auto", True),
        (lw.MKMeans(n_clusters=3), "auto", True),
        (lw.COPKMeans(n_clusters=3), "auto", False),
        (lw.COPKMeans(n_clusters=3), "closure", True),
    ],
    ids=lambda v: type(v).__name__ if hasattr(v, "fit") else str(v),
)
def test_soft_and_metric_clusterers_see_the_closure_by_default(clusterer, constraints, closure):
    X, y = lw.datasets.load("iris", scale="standard")
    est = ActiveClustering(clusterer, MinMax(), max_queries=30, constraints=constraints, random_state=0)
    est.fit(X, lw.LabelOracle(y))
    store = est.constraints_
    want = (store.must_link_pairs(closure=closure), store.cannot_link_pairs(closure=closure))
    assert len(want[0]) + len(want[1]) > 30 if closure else len(want[0]) + len(want[1]) == 30
    if isinstance(clusterer, RecordingPCKMeans):
        assert RecordingPCKMeans.seen == {"ml": want[0].tolist(), "cl": want[1].tolist()}


def test_closure_lets_pckmeans_use_its_answers():
    # Švehla's library gives PCKMeans every pair its neighbourhoods imply: ARI .768 after 100
    # MinMax questions on breast cancer; the answered pairs alone left it at .678
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    scores = {}
    for constraints in ("auto", "answered"):
        est = ActiveClustering(lw.PCKMeans(n_clusters=2), MinMax(), max_queries=100, constraints=constraints, random_state=0)
        scores[constraints] = lw.metrics.ari(y, est.fit(X, lw.LabelOracle(y)).labels_)
    assert scores["auto"] > 0.75 > scores["answered"]


@pytest.mark.parametrize("clusterer", [KMeans(n_clusters=3), lw.SeededKMeans(n_clusters=3)], ids=lambda c: type(c).__name__)
def test_clusterer_without_pairs_is_refused_before_any_question(clusterer, blobs):
    X, y = blobs
    asked = []
    oracle = lw.CallbackOracle(lambda i, j: asked.append((i, j)) or True)
    match = f"'clusterer' parameter of ActiveClustering must take pairwise constraints.*{type(clusterer).__name__}.fit"
    with pytest.raises(InvalidParameterError, match=match):
        lw.ActiveSession(ActiveClustering(clusterer, Random(), max_queries=5), X)
    with pytest.raises(InvalidParameterError, match=match):
        ActiveClustering(clusterer, MinMax(), max_queries=5).fit(X, oracle)
    assert asked == []


@pytest.mark.parametrize("strategy", [Random(), NPU(n_trees=3)], ids=lambda s: type(s).__name__)
def test_infeasible_answers_relax_copkmeans_with_one_warning_and_keep_every_answer(strategy):
    # "different" to every question: 6 points pairwise apart cannot fit 2 clusters
    X = np.arange(12.0).reshape(6, 2)
    est = ActiveClustering(lw.COPKMeans(n_clusters=2), strategy, max_queries=15, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, lw.CallbackOracle(lambda i, j: False))
    relaxed = [w for w in caught if "on_infeasible='relax'" in str(w.message)]
    assert len(relaxed) == 1 and issubclass(relaxed[0].category, UserWarning)
    assert "wrong answers" in str(relaxed[0].message)
    assert est.n_queries_ == len(est.query_log_) == len(est.constraints_) == 15
    assert est.clusterer_.on_infeasible == "relax" and est.clusterer_.n_violated_ > 0
    assert est.labels_.shape == (6,)


def test_relaxed_copkmeans_is_left_alone():
    X = np.arange(12.0).reshape(6, 2)
    est = ActiveClustering(lw.COPKMeans(n_clusters=2, on_infeasible="relax"), Random(), max_queries=15, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.fit(X, lw.CallbackOracle(lambda i, j: False))
    assert est.clusterer_.n_violated_ > 0


def test_clusterer_is_refitted_only_after_new_answers(blobs):
    X, y = blobs
    fits = []

    class CountingPCKMeans(lw.PCKMeans):
        def fit(self, X, y=None, *, ml=None, cl=None):
            fits.append(len(ml) + len(cl))
            return super().fit(X, ml=ml, cl=cl)

    session = lw.ActiveSession(ActiveClustering(CountingPCKMeans(n_clusters=4), ExploreConsolidate(), random_state=0), X)
    _ = session.labels_, session.labels_
    assert fits == [0]
    pair = session.ask()
    session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    session.labels_, session.finish()
    assert fits == [0, 1]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(clusterer=DBSCAN(), strategy=Random()), "'clusterer' parameter of ActiveClustering must be a constrained clusterer"),
        (dict(clusterer=lw.PCKMeans(n_clusters=81), strategy=Random()), "'n_clusters' parameter of ActiveClustering's clusterer must be at most the number of samples, got n_clusters=81 for n_samples=80"),
    ],
)
def test_bad_parameters_are_named(kwargs, match, blobs):
    X, y = blobs
    with pytest.raises(ValueError, match=match):
        ActiveClustering(**kwargs).fit(X, lw.LabelOracle(y))


def test_bad_oracle_and_data(blobs):
    X, y = blobs
    est = ActiveClustering(lw.PCKMeans(n_clusters=3), Random())
    refused = (r"^The 'oracle' argument of ActiveClustering.fit must be an object implementing 'query'\. Got an array of "
               r"shape \(80,\) and dtype int64 instead\.$")  # one line, not the array
    with pytest.raises(TypeError, match=refused):
        est.fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        est.fit(np.where(np.eye(80, 2) > 0, np.nan, X), lw.LabelOracle(y))


def test_public_names():
    assert lw.ActiveClustering is ActiveClustering
    assert set(lw.active.__all__) >= {"ActiveClustering", "Random", "ExploreConsolidate", "MinMax", "NPU", "Committee"}
