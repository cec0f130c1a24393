"""Bad input to the constrained k-means family (and the constraint convention every constrained
clusterer shares): a clear ValueError / TypeError naming the argument."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from linkwise.bayes import BayesianClustering
from linkwise.cluster import ConstrainedKMeans, COPKMeans, MKMeans, MPCKMeans, PCKMeans, SeededKMeans
from linkwise.cobs import COBS
from linkwise.exceptions import InvalidParameterError

PAIRWISE = [PCKMeans, MPCKMeans, COPKMeans, MKMeans]
ALL = PAIRWISE + [SeededKMeans, ConstrainedKMeans]
X = np.random.RandomState(0).normal(size=(20, 3))


def fit(model, X, **constraints):
    if isinstance(model, SeededKMeans):
        return model.fit(X, constraints.get("y"))
    return model.fit(X, **constraints)


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize(("value", "pattern"), [(np.nan, "NaN"), (np.inf, "infinity")])
def test_nan_or_inf_in_X(cls, value, pattern):
    bad = X.copy()
    bad[3, 1] = value
    with pytest.raises(ValueError, match=pattern):
        fit(cls(n_clusters=2), bad)


@pytest.mark.parametrize("cls", ALL)
def test_X_of_the_wrong_shape(cls):
    with pytest.raises(ValueError, match="Expected 2D array"):
        fit(cls(n_clusters=2), X[:, 0])
    with pytest.raises(ValueError, match="0 feature"):
        fit(cls(n_clusters=2), np.empty((5, 0)))


@pytest.mark.parametrize("cls", ALL)
def test_more_clusters_than_points(cls):
    expected = r"'n_clusters' .* at most the number of samples, got n_clusters=21 for n_samples=20"
    with pytest.raises(ValueError, match=expected):
        fit(cls(n_clusters=21), X)


@pytest.mark.parametrize("cls", PAIRWISE)
@pytest.mark.parametrize("arg", ["ml", "cl"])
@pytest.mark.parametrize(
    ("pairs", "pattern"),
    [
        ([(0, 20)], r"pair 0 = \(0, 20\) with an index out of range .* \[0, 19\]"),
        ([(1, 2), (-1, 3)], r"pair 1 = \(-1, 3\) with an index out of range"),
        ([(4, 4)], r"pair 0 = \(4, 4\): a point cannot be constrained with itself"),
        ([(0, 1, 2)], r"shape \(n_pairs, 2\), got shape \(1, 3\)"),
        ([0, 1], r"shape \(n_pairs, 2\), got shape \(2,\)"),
        ([(0, 1), (2,)], "ragged"),
        ([(0.5, 1.0)], "integer row indices"),
        ([("a", "b")], "integer row indices"),
    ],
)
def test_bad_constraint_pairs_name_the_argument(cls, arg, pairs, pattern):
    with pytest.raises(InvalidParameterError, match=rf"The '{arg}' argument of {cls.__name__}\.fit .*{pattern}"):
        cls(n_clusters=2).fit(X, **{arg: pairs})


@pytest.mark.parametrize("cls", PAIRWISE)
def test_integral_float_pairs_and_empty_lists_are_fine(cls):
    model = cls(n_clusters=2, random_state=0).fit(X, ml=np.array([[0.0, 1.0]]), cl=[])
    assert model.labels_[0] == model.labels_[1] or cls is not COPKMeans


@pytest.mark.parametrize("cls", PAIRWISE + [COBS, BayesianClustering])
def test_constraints_passed_positionally_are_refused(cls):
    """Every constrained clusterer has ``fit(X, y=None, *, ml=None, cl=None)``: pairs given where
    the ignored ``y`` goes are refused, not dropped; ``fit(X, ml, cl)`` is a TypeError."""
    with pytest.raises(TypeError, match=r"pass constraints by keyword: fit\(X, ml="):
        cls().fit(X, [(0, 1), (2, 3)])
    with pytest.raises(TypeError, match="positional"):
        cls().fit(X, [(0, 1)], [(2, 3)])
    with pytest.raises(TypeError, match="positional"):
        cls().fit(X, None, [(0, 1)])


@pytest.mark.parametrize("cls", [SeededKMeans, ConstrainedKMeans])
@pytest.mark.parametrize(
    ("y", "pattern"),
    [
        (np.zeros(19, dtype=int), r"one label per row of X \(20\), got shape \(19,\)"),
        (np.zeros((20, 1), dtype=int), r"1-D array .* got shape \(20, 1\)"),
        (np.r_[np.full(19, -1), 2], r"label 2 at row 19; labels must be -1 \(unlabeled\) or a cluster in \[0, 1\]"),
        (np.r_[np.full(19, -1), -2], "label -2 at row 19"),
        (np.full(20, 0.5), "integer cluster labels"),
        (np.array(["a"] * 20), "integer cluster labels"),
    ],
)
def test_bad_seed_labels(cls, y, pattern):
    with pytest.raises(InvalidParameterError, match=rf"The 'y' argument of {cls.__name__}\.fit .*{pattern}"):
        cls(n_clusters=2).fit(X, y)


@pytest.mark.parametrize("cls", ALL)
def test_predict_checks_fitted_and_features(cls):
    model = cls(n_clusters=2, random_state=0)
    with pytest.raises(NotFittedError):
        model.predict(X)
    fit(model, X)
    with pytest.raises(ValueError, match="3 features"):
        model.predict(X[:, :2])
