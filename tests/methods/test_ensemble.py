import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise import ensemble
from linkwise.ensemble import (
    agreement,
    coassociation,
    ensemble_labels,
    flat_codes,
    impute_constraints,
    imputed_neighbourhoods,
)


@pytest.fixture(scope="module")
def overlapping():
    X, y = make_blobs(240, centers=4, cluster_std=2.2, random_state=1)
    return X, y


@pytest.fixture(scope="module")
def runs(overlapping):
    """20 runs on the overlapping blobs: their codes and the co-association matrix (same seed)."""
    X, _ = overlapping
    codes = ensemble_labels(X, 4, n_estimators=20, random_state=0)
    return codes, coassociation(X, 4, n_estimators=20, random_state=0)


@pytest.mark.slow
def test_coassociation_is_a_fraction_of_runs(overlapping, runs):
    X, _ = overlapping
    _, A = runs
    assert A.shape == (240, 240)
    np.testing.assert_array_equal(A, A.T)
    np.testing.assert_array_equal(np.diag(A), 1.0)
    assert A.min() >= 0.0 and A.max() <= 1.0
    np.testing.assert_allclose(A * 20, np.round(A * 20), atol=1e-9)  # multiples of 1 / n_estimators
    np.testing.assert_array_equal(A[:5], coassociation(X, 4, n_estimators=20, random_state=0)[:5])
    # uncertain pairs exist on overlapping blobs: neither always nor never together
    assert ((A > 0.1) & (A < 0.9)).any()


def test_coassociation_separates_well_separated_blobs():
    X, y = make_blobs(90, centers=3, cluster_std=0.4, random_state=0)
    A = coassociation(X, 3, n_estimators=20, random_state=0)
    same = y[:, None] == y[None, :]
    # k-means with random initialisation sometimes splits a blob, so look at the average
    assert A[same].mean() > 0.8 and A[~same].mean() < 0.2


def test_coassociation_matches_counting_over_runs(runs):
    codes, A = runs
    expected = np.mean([codes[:, [t]] == codes[:, t] for t in range(codes.shape[1])], axis=0)
    np.testing.assert_allclose(A, expected)


def test_impute_constraints_thresholds():
    A = np.array(
        [
            [1.0, 0.98, 0.0, 0.5],
            [0.98, 1.0, 0.02, 0.97],
            [0.0, 0.02, 1.0, 0.0],
            [0.5, 0.97, 0.0, 1.0],
        ]
    )
    ml, cl = impute_constraints(A, kappa_ml=0.98, kappa_cl=0.0)
    assert ml.tolist() == [[0, 1]]
    assert cl.tolist() == [[0, 2], [2, 3]]
    ml, cl = impute_constraints(A, kappa_ml=0.9, kappa_cl=0.05)
    assert ml.tolist() == [[0, 1], [1, 3]]
    assert cl.tolist() == [[0, 2], [1, 2], [2, 3]]


def test_imputed_constraints_are_precise_on_separated_data():
    X, y = make_blobs(150, centers=3, cluster_std=0.8, random_state=2)
    A = coassociation(X, 3, n_estimators=20, random_state=0)
    ml, cl = impute_constraints(A, kappa_ml=0.98, kappa_cl=0.0)
    assert len(ml) > 1000 and len(cl) > 1000
    assert np.mean(y[ml[:, 0]] == y[ml[:, 1]]) > 0.95
    assert np.mean(y[cl[:, 0]] != y[cl[:, 1]]) > 0.95


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(kappa_ml=1.5), "^The 'kappa_ml' argument of impute_constraints must be a float in the range \\[0.0, 1.0\\]\\. Got 1.5 instead\\.$"),
        (dict(kappa_ml=0.5, kappa_cl=0.5), "^The 'kappa_cl' argument of impute_constraints must be below kappa_ml=0.5, got 0.5\\.$"),
    ],
)
def test_impute_constraints_rejects_bad_thresholds(kwargs, match):
    with pytest.raises(ValueError, match=match):
        impute_constraints(np.eye(3), **kwargs)


def test_impute_constraints_rejects_bad_matrices():
    with pytest.raises(ValueError, match="must be a square co-association matrix, got shape \\(2, 3\\)"):
        impute_constraints(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="co-association values in \\[0, 1\\], got values in \\[0, 2\\]"):
        impute_constraints(2 * np.eye(3))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_clusters=0), "^The 'n_clusters' argument of coassociation must be an int in the range \\[1, inf\\)\\. Got 0 instead"),
        (dict(n_clusters=241), "'n_clusters' argument of coassociation must be at most the number of samples, got n_clusters=241 for n_samples=240"),
        (dict(n_clusters=3, n_estimators=0), "'n_estimators' argument of coassociation must be an int in the range \\[1, inf\\)"),
        (dict(n_clusters=3, sample_fraction=0.0), "'sample_fraction' argument of coassociation must be a float in the range \\(0.0, 1.0\\]"),
    ],
)
def test_coassociation_rejects_bad_parameters(overlapping, kwargs, match):
    with pytest.raises(ValueError, match=match):
        coassociation(overlapping[0], **kwargs)


def test_coassociation_rejects_nan():
    X = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="NaN"):
        coassociation(X, 2)


@pytest.mark.parametrize("kappa", [0.5, 0.9, 0.98, 1.0])
def test_imputed_neighbourhoods_are_the_closure_of_imputed_must_links(runs, kappa, monkeypatch):
    codes, A = runs
    n = len(A)
    monkeypatch.setattr(ensemble, "_BLOCK", 7)  # many blocks: the running union must join across them
    flat, n_codes = flat_codes(codes)
    ml, _ = impute_constraints(A, kappa_ml=kappa)
    graph = coo_matrix((np.ones(len(ml)), (ml[:, 0], ml[:, 1])), shape=(n, n))
    expected = connected_components(graph, directed=False)[1]
    got = imputed_neighbourhoods(flat, n_codes, kappa)
    assert lw.metrics.ari(expected, got) == 1.0
    assert len(np.unique(got)) == len(np.unique(expected))


def test_agreement_is_mean_coassociation_with_a_group(runs):
    codes, A = runs
    flat, n_codes = flat_codes(codes)
    group = np.array([3, 17, 40, 41, 200])
    np.testing.assert_allclose(agreement(flat, n_codes, group) / (20 * group.size), A[:, group].mean(axis=1))
    rows = np.array([0, 5, 9])
    np.testing.assert_allclose(agreement(flat, n_codes, group, rows=rows), agreement(flat, n_codes, group)[rows])
