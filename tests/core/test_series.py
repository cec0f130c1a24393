"""Time series: check_series, series_distances (DTW, SBD, cache) and COBRA/COBRAS with metric="dtw"/"kshape"."""

import numpy as np
import pytest

import linkwise as lw
from linkwise import series
from linkwise.exceptions import InvalidParameterError
from linkwise.series import check_series, series_distances

aeon_distances = pytest.importorskip("aeon.distances")


def waves(seed, n_per=20, length=80):
    """Sine, pulse train and sawtooth (four periods), each series shifted by up to 9% of its length.

    A shift moves a series by up to a third of a period: Euclidean distance
    then mixes shapes, DTW (band 10%) and SBD realign them.
    """
    rng = np.random.RandomState(seed)
    t = np.linspace(0, 1, length)
    shapes = [lambda u: np.sin(8 * np.pi * u), lambda u: 3 * np.exp(-40 * ((4 * u) % 1 - 0.5) ** 2) - 1,
              lambda u: 2 * ((4 * u) % 1) - 1]
    X = np.array([f(t + rng.uniform(-0.09, 0.09)) + 0.1 * rng.randn(length) for f in shapes for _ in range(n_per)])
    return X, np.repeat(np.arange(3), n_per)


@pytest.mark.parametrize("make", [lambda m: lw.COBRAS(max_queries=15, metric=m, random_state=1),
                                  lambda m: lw.COBRA(n_super_instances=8, metric=m, random_state=1)])
@pytest.mark.slow
def test_shifted_waves_need_dtw_or_kshape(make):
    X, y = waves(1)
    ari = {m: lw.metrics.ari(y, make(m).fit(X, lw.LabelOracle(y)).labels_) for m in ("euclidean", "dtw", "kshape")}
    assert ari["euclidean"] < 0.5 and ari["dtw"] > 0.9 and ari["kshape"] > 0.9, ari


@pytest.mark.slow
def test_noise_robust_cobras_and_auto_take_the_metric():
    X, y = waves(1)
    for est in (lw.NoiseRobustCOBRAS(max_queries=15, metric="dtw", random_state=1),
                lw.Auto(max_queries=15, metric="dtw", random_state=1)):
        assert est.fit(X, lw.LabelOracle(y)).n_queries_ == 15
    assert est._cobras is None or est._cobras.metric == "dtw"


@pytest.mark.slow
def test_three_dimensional_series():
    X, y = waves(1, n_per=10)
    X3 = np.stack([X, X[:, ::-1]], axis=2)  # two channels
    flat = lw.COBRAS(max_queries=10, random_state=0).fit(X3.reshape(len(X3), -1), lw.LabelOracle(y))
    deep = lw.COBRAS(max_queries=10, random_state=0).fit(X3, lw.LabelOracle(y))
    assert deep.query_log_ == flat.query_log_  # Euclidean: the channels flattened
    D = series_distances(X3, "dtw", window=0.2)
    ref = np.sqrt(aeon_distances.dtw_pairwise_distance(X3.transpose(0, 2, 1), window=0.2))
    np.testing.assert_allclose(D, ref)
    for metric in ("dtw", "kshape"):
        est = lw.COBRAS(max_queries=10, metric=metric, random_state=0).fit(X3, lw.LabelOracle(y))
        assert est.labels_.shape == (30,)


@pytest.mark.slow
def test_sbd_matches_aeon():
    X = np.random.RandomState(0).randn(12, 30, 2).cumsum(axis=1)
    ref = aeon_distances.sbd_pairwise_distance(X.transpose(0, 2, 1))
    np.testing.assert_allclose(series_distances(X, "kshape"), ref, atol=1e-12)


@pytest.mark.parametrize("X, match", [
    (np.ones(5), r"shape \(n_series, length\)"),
    (np.ones((2, 3, 4, 5)), r"shape \(n_series, length\)"),
    ([[0.0, 1.0], [1.0]], "one length"),
    ([[0.0, np.nan], [1.0, 2.0]], "NaN"),
    ([[0.0, np.inf], [1.0, 2.0]], "infinity"),
])
def test_bad_series_are_refused(X, match):
    with pytest.raises(ValueError, match=match):
        check_series(X)
    with pytest.raises(ValueError, match=match):
        lw.COBRAS(metric="dtw").fit(X, lw.LabelOracle(np.zeros(len(X), dtype=int)))


@pytest.mark.slow
def test_cache_file_is_reused(tmp_path, monkeypatch):
    X, _ = waves(0, n_per=4)
    calls = []
    D = series_distances(X, "dtw", cache=tmp_path, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (12, 12)
    (stored,) = tmp_path.glob("dtw-*.npy")
    np.save(stored, D + 1)  # what is read back is the file, not a new computation
    np.testing.assert_array_equal(series_distances(X, "dtw", cache=tmp_path), D + 1)
    assert not np.array_equal(series_distances(X, "dtw", window=0.2, cache=tmp_path), D + 1)  # another key
    monkeypatch.setattr(series, "_dtw_matrix", None)  # a fit computing it again would fail
    est = lw.COBRAS(max_queries=3, metric="dtw", cache=tmp_path).fit(X[:, :, None], lw.LabelOracle(np.arange(12) % 3))
    assert est.n_queries_ == 3
    lw.COBRAS(max_queries=3, metric="kshape", cache=str(tmp_path)).fit(X, lw.LabelOracle(np.arange(12) % 3))
    assert len(list(tmp_path.glob("kshape-*.npy"))) == 1


@pytest.mark.parametrize("params", [{"metric": "cosine"}, {"metric": None}, {"window": 1.5}, {"window": "0.1"}])
def test_series_distances_checks_its_arguments(params):
    # the estimators' metric, window and cache are checked against their tables in tests/methods/test_params.py
    X, _ = waves(0, n_per=3)
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        series_distances(X, params.get("metric", "dtw"), window=params.get("window", 0.1))
