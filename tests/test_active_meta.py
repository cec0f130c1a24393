"""ActiveClustering: a constrained clusterer driven by a query strategy through the shared loop."""

import numpy as np
import pytest
from sklearn.cluster import DBSCAN
from sklearn.datasets import make_blobs

import linkwise as lw
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


def test_only_consistent_answers_reach_the_clusterer():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    seen = {}

    class RecordingPCKMeans(lw.PCKMeans):
        def fit(self, X, y=None, *, ml=None, cl=None):
            seen["ml"], seen["cl"] = np.asarray(ml).tolist(), np.asarray(cl).tolist()
            return super().fit(X, ml=ml, cl=cl)

    store = lw.ConstraintStore(4, tolerant=True)
    store.add(0, 1, True)
    store.add(1, 2, False)
    store.add(0, 2, True)  # contradicts the two before: recorded as a conflict
    ctx = QueryContext(X, np.arange(4), store, np.random.RandomState(0), None)
    labels = ConstrainedFit(RecordingPCKMeans(n_clusters=2), ctx).labels()
    assert seen == {"ml": [[0, 1]], "cl": [[1, 2]]}
    assert labels[0] == labels[1] != labels[2]


def test_clusterer_is_refitted_only_after_new_answers(blobs):
    X, y = blobs
    fits = []

    class CountingPCKMeans(lw.PCKMeans):
        def fit(self, X, y=None, *, ml=None, cl=None):
            fits.append(len(ml) + len(cl))
            return super().fit(X, ml=ml, cl=cl)

    session = lw.ActiveSession(ActiveClustering(CountingPCKMeans(n_clusters=4), ExploreConsolidate(), random_state=0), X)
    session.labels_, session.labels_
    assert fits == [0]
    pair = session.ask()
    session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    session.labels_, session.finish()
    assert fits == [0, 1]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(clusterer=DBSCAN(), strategy=Random()), "'clusterer' parameter of ActiveClustering must be a constrained clusterer"),
        (dict(clusterer="pckmeans", strategy=Random()), "'clusterer' parameter of ActiveClustering .* got str"),
        (dict(clusterer=lw.PCKMeans(n_clusters=3), strategy="minmax"), "'strategy' parameter of ActiveClustering must be a query strategy"),
        (dict(clusterer=lw.PCKMeans(n_clusters=3), strategy=Random(), max_queries=-1), "'max_queries' parameter of ActiveClustering must be an int >= 0"),
        (dict(clusterer=lw.PCKMeans(n_clusters=81), strategy=Random()), "n_clusters=81 is larger than the number of rows of X \\(80\\)"),
        (dict(clusterer=lw.PCKMeans(n_clusters=3), strategy=MinMax(sigma=-1.0)), "'sigma' parameter of MinMax must be a float > 0.0"),
    ],
)
def test_bad_parameters_are_named(kwargs, match, blobs):
    X, y = blobs
    with pytest.raises(ValueError, match=match):
        ActiveClustering(**kwargs).fit(X, lw.LabelOracle(y))


def test_bad_oracle_and_data(blobs):
    X, y = blobs
    est = ActiveClustering(lw.PCKMeans(n_clusters=3), Random())
    with pytest.raises(TypeError, match="'oracle' argument of ActiveClustering.fit must have a query"):
        est.fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        est.fit(np.where(np.eye(80, 2) > 0, np.nan, X), lw.LabelOracle(y))


def test_public_names():
    assert lw.ActiveClustering is ActiveClustering
    assert set(lw.active.__all__) >= {"ActiveClustering", "Random", "ExploreConsolidate", "MinMax", "NPU", "Committee"}
