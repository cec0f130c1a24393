"""The UCR/UEA time series of aeon's wheel through linkwise.datasets (the 'timeseries' extra)."""

import numpy as np
import pytest

from linkwise import datasets

pytest.importorskip("aeon")

# name -> (n, shape of one series, k): train + test of the archives' files
SIZES = {
    "ACSF1": (200, (1460,), 10),
    "ArrowHead": (211, (251,), 3),
    "BasicMotions": (80, (100, 6), 4),
    "GunPoint": (200, (150,), 2),
    "ItalyPowerDemand": (1096, (24,), 2),
    "JapaneseVowels": (640, (29, 12), 9),
    "OSULeaf": (442, (427,), 6),
    "PickupGestureWiimoteZ": (100, (361,), 10),
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_series_load_with_their_shapes_labels_and_citations(name):
    n, shape, k = SIZES[name]
    X, y = datasets.load(name)
    assert X.shape == (n, *shape) and X.dtype == np.float64 and np.isfinite(X).all()
    assert y.shape == (n,) and set(np.unique(y)) == set(range(k))
    meta = datasets.info(name)
    assert (meta["n"], meta["d"], meta["k"], meta["channels"]) == (n, shape[0], k, shape[1] if len(shape) > 1 else 1)
    archive = "Bagnall et al." if len(shape) > 1 else "Dau et al."
    assert archive in meta["citation"] and "series" in meta["source"] and "aeon" in meta["source"]
    assert name in datasets.names()


def test_a_multivariate_set_is_series_by_length_by_channel():
    """aeon stores (n, channels, length); linkwise gives (n, length, channels), as lw.series expects."""
    from aeon.datasets import load_from_ts_file

    X, _ = datasets.load("BasicMotions")
    raw, _ = load_from_ts_file(str(datasets._aeon_data() / "BasicMotions" / "BasicMotions_TRAIN.ts"))
    np.testing.assert_array_equal(X[: len(raw)], raw.transpose(0, 2, 1))


def test_unequal_lengths_are_resampled_to_the_longest_and_said():
    meta = datasets.info("PickupGestureWiimoteZ")
    assert meta["notes"].endswith("lengths 29..361 resampled linearly to 361")
    assert "resampled" in datasets.info("JapaneseVowels")["notes"]
    assert "resampled" not in datasets.info("GunPoint")["notes"]
    X, _ = datasets.load("PickupGestureWiimoteZ")
    from aeon.datasets import load_from_ts_file

    raw, _ = load_from_ts_file(str(datasets._aeon_data() / "PickupGestureWiimoteZ" / "PickupGestureWiimoteZ_TRAIN.ts"))
    first = raw[0][0]  # ends and the longest series are kept exactly
    assert X[0, 0] == first[0] and X[0, -1] == first[-1]
    longest = max(range(len(raw)), key=lambda i: raw[i].shape[1])
    np.testing.assert_array_equal(X[longest], raw[longest][0])


def test_scale_acts_on_each_series_over_time():
    Z, _ = datasets.load("BasicMotions", scale="standard")  # the UCR archive's z-normalisation
    np.testing.assert_allclose(Z.mean(axis=1), 0, atol=1e-9)
    np.testing.assert_allclose(Z.std(axis=1)[Z.std(axis=1) > 0], 1)
    M, _ = datasets.load("GunPoint", scale="minmax")
    np.testing.assert_allclose(M.min(axis=1), 0)
    np.testing.assert_allclose(M.max(axis=1), 1)
    raw, _ = datasets.load("GunPoint")
    assert not np.allclose(raw.min(axis=1), 0)  # the cached copy is not scaled in place


@pytest.mark.slow
def test_the_bench_runs_series_methods_on_series_and_flattens_them_for_the_others():
    """cobras-dtw gets (n, length, channels); K-means (no series) gets each series flattened, channels side by side."""
    from linkwise.bench import registry
    from linkwise.bench._runner import run_cell
    from tests.bench_reference import make_task

    for name, kind in (("cobras-dtw", "anytime"), ("kmeans", "baseline")):
        spec = registry()[name]
        assert spec.series == (name == "cobras-dtw")
        result = run_cell(make_task(spec, kind, "BasicMotions", (0, 10), folds=2))
        assert result["error"] is None, result["error"]
        assert [r["budget"] for r in result["rows"]] == [0, 10] and all(-1 <= r["ari"] <= 1 for r in result["rows"])
    assert run_cell(make_task(registry()["kmeans"], "baseline", "BasicMotions", (0,), folds=2))["rows"][0]["ari"] > 0.1
