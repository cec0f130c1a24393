"""predict on new items, and fitted estimators saved and loaded (linkwise.persist), for every public estimator."""

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise.persist import FORMAT, TRUSTED
from tests.reference import checked_classes, fast_instance

pytest.importorskip("skops")

CLUSTERERS = [lw.SeededKMeans(3), lw.ConstrainedKMeans(3), lw.COPKMeans(3), lw.PCKMeans(3), lw.MKMeans(3),
              lw.MPCKMeans(3)]


def _data(seed):
    X, y = make_blobs(n_samples=45, centers=3, n_features=3, cluster_std=0.6, random_state=seed)
    order = np.random.RandomState(seed).permutation(len(X))  # rows in no particular order
    return X[order], y[order]


def _fitted(estimator, X, y, seed):
    if isinstance(estimator, lw.loop.ActiveEstimator):
        return estimator.set_params(max_queries=8, random_state=seed).fit(X, lw.LabelOracle(y))
    if isinstance(estimator, (lw.SeededKMeans, lw.ConstrainedKMeans)):  # seeded by partial labels
        return estimator.set_params(random_state=seed).fit(X, np.where(np.arange(len(y)) < 9, y, -1))
    return estimator.set_params(random_state=seed).fit(X, ml=[(0, 1)], cl=[(0, 2)])


ESTIMATORS = ([fast_instance(cls) for cls in checked_classes() if not cls.__name__.startswith("_")]
              + [lw.COBS(random_state=0), lw.BayesianClustering(3, n_particles=50)] + CLUSTERERS)


@pytest.mark.slow
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("suffix", [".skops", ".joblib"])
def test_round_trip_keeps_labels_and_predictions(estimator, suffix, tmp_path):
    X, y = _data(1)
    est = _fitted(estimator, X, y, seed=1)
    X_new = X + np.random.RandomState(2).normal(scale=0.3, size=X.shape)
    path = tmp_path / f"model{suffix}"
    lw.persist.save(est, path)
    again = lw.persist.load(path)
    assert type(again) is type(est)
    np.testing.assert_array_equal(again.labels_, est.labels_)
    np.testing.assert_array_equal(again.predict(X_new), est.predict(X_new))
    assert again.get_params(deep=False).keys() == est.get_params(deep=False).keys()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_super_instance_representatives_predict_their_cluster(seed):
    X, y = _data(seed)
    for est in (lw.COBRAS(max_queries=15, random_state=seed), lw.COBRA(n_super_instances=10, random_state=seed)):
        est.fit(X, lw.LabelOracle(y))
        reps = est.representatives_
        np.testing.assert_array_equal(est.predict(X[reps]), est.labels_[reps])
        # every new point goes to the cluster of its nearest representative
        X_new = np.random.RandomState(seed).uniform(X.min(), X.max(), size=(20, X.shape[1]))
        nearest = reps[np.argmin(((X_new[:, None] - X[reps][None]) ** 2).sum(axis=2), axis=1)]
        np.testing.assert_array_equal(est.predict(X_new), est.labels_[nearest])


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")  # plain arrays below: asserted once
def test_predict_checks_new_data():
    X, y = _data(0)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    est = lw.COBRAS(max_queries=5, random_state=0).fit(frame, lw.LabelOracle(y))
    assert list(est.feature_names_in_) == ["a", "b", "c"] and est.n_features_in_ == 3
    with pytest.warns(UserWarning, match="fitted with feature names"):
        plain = est.predict(frame.to_numpy()[:5])
    np.testing.assert_array_equal(est.predict(frame.iloc[:5]), plain)
    with pytest.raises(ValueError, match="X has 2 features, but COBRAS is expecting 3"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="feature names"):
        est.predict(frame[["c", "b", "a"]])
    with pytest.raises(lw.exceptions.InvalidParameterError, match="NaN"):
        est.predict(np.full((1, 3), np.nan))
    with pytest.raises(Exception, match="not fitted"):
        lw.COBRAS().predict(X)


@pytest.mark.slow
def test_series_predict_under_dtw_and_kshape():
    pytest.importorskip("aeon")
    t = np.linspace(0, 2 * np.pi, 30)
    rng = np.random.RandomState(0)
    shapes = [np.sin(t), np.sign(np.sin(t)), np.cos(2 * t)]
    y = np.repeat([0, 1, 2], 10)
    X = np.stack([shapes[c] + rng.normal(scale=0.1, size=t.size) for c in y])
    X_new = np.stack([shapes[c] + rng.normal(scale=0.1, size=t.size) for c in (0, 1, 2)])
    for metric in ("dtw", "kshape"):
        est = lw.COBRAS(metric=metric, max_queries=20, random_state=0).fit(X, lw.LabelOracle(y))
        labels = est.predict(X_new)
        assert lw.metrics.ari([0, 1, 2], labels) == 1.0
        auto = lw.Auto(metric=metric, max_queries=20, random_state=0).fit(X, lw.LabelOracle(y))
        nearest = np.argmin(lw.series.cross_distances(X_new, X, metric), axis=1)  # the nearest fitted series
        np.testing.assert_array_equal(auto.predict(X_new), auto.labels_[nearest])
        with pytest.raises(ValueError, match="resample"):
            est.predict(X_new[:, :20])


@pytest.mark.slow
def test_load_refuses_a_later_format_and_foreign_files(tmp_path):
    X, y = _data(0)
    est = lw.COBRAS(max_queries=5, random_state=0).fit(X, lw.LabelOracle(y))
    later = tmp_path / "later.joblib"
    joblib.dump({"linkwise_version": "9.0", "format": FORMAT + 1, "estimator": est}, later)
    with pytest.raises(ValueError, match=r"format 2; this linkwise .* reads format 1"):
        lw.persist.load(later)
    other = tmp_path / "other.joblib"
    joblib.dump([1, 2], other)
    with pytest.raises(ValueError, match="not a linkwise model"):
        lw.persist.load(other)
    import skops.io as sio

    foreign = tmp_path / "foreign.skops"
    sio.dump({"format": FORMAT, "estimator": pd.Timestamp(0)}, foreign)
    with pytest.raises(ValueError, match="does not trust"):
        lw.persist.load(foreign)
    assert all(name.startswith("linkwise.") for name in TRUSTED)


@pytest.mark.parametrize("estimator", CLUSTERERS[2:], ids=lambda e: type(e).__name__)
def test_pairwise_kmeans_fit_predict_and_predict(estimator):
    X, y = _data(3)
    labels = estimator.set_params(random_state=0).fit_predict(X, ml=[(0, 1)], cl=[(0, 2)])
    np.testing.assert_array_equal(labels, estimator.labels_)
    centres = estimator.cluster_centers_
    X_new = X[:10] + 0.1
    nearest = np.argmin(((X_new[:, None] - centres[None]) ** 2).sum(axis=2), axis=1)
    if not isinstance(estimator, lw.MPCKMeans):  # MPCKMeans measures by its learned metric
        np.testing.assert_array_equal(estimator.predict(X_new), nearest)


def test_finish_reports_given_labels_and_refuses_bad_ones():
    X, y = _data(4)
    session = lw.ActiveSession(lw.COBRAS(max_queries=6, random_state=0), X)
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'labels' argument of ActiveSession.finish"):
        session.finish(labels=np.zeros(3, dtype=int))
    given = np.arange(len(X)) % 2  # e.g. a person's feedback: predict follows it
    est = session.finish(labels=given)
    np.testing.assert_array_equal(est.labels_, given)
    reps = est.representatives_
    np.testing.assert_array_equal(est.predict(X[reps]), given[reps])


@pytest.mark.parametrize("name", ["bac", "cobras", "auto"])
def test_models_saved_by_an_earlier_linkwise_load_and_predict_as_they_did(name):
    """Fitted on iris by linkwise at commit ec1509d (before resume points stored the union-find as arrays and
    the Bayesian model's scaler moved to linkwise.bayes._inputs), with that code's predictions of noisy rows."""
    from pathlib import Path

    here = Path(__file__).parent / "saved_models"
    X, _ = lw.datasets.load("iris", scale="minmax")
    X_new = X + np.random.RandomState(2).normal(scale=0.05, size=X.shape)
    est = lw.persist.load(here / f"{name}-ec1509d.joblib")
    np.testing.assert_array_equal(est.predict(X_new), np.load(here / "predictions-ec1509d.npz")[name])
    assert len(est.constraints_.constraints) > 0 and est.constraints_.find(0) in range(len(X))
