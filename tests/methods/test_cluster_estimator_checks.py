"""scikit-learn's estimator checks for every constrained clusterer, with no constraints; linkwise's shapes,
kinds of data and pair arguments, with constraints."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.utils.estimator_checks import parametrize_with_checks

from linkwise.bayes import BayesianClustering
from linkwise.cluster import ConstrainedKMeans, COPKMeans, MKMeans, MPCKMeans, PCKMeans, SeededKMeans
from linkwise.cobs import COBS
from linkwise.estimator_checks import SHAPES, constrained_estimator_checks

# COBS's paper grid is 931 clusterings; a few of each family, with K and k small
# enough for the checks' smallest data, keep its checks quick
_TINY_GRID = {
    "kmeans": {"n_clusters": [2, 3], "n_seeds": 2},
    "dbscan": {"eps": 3, "min_samples": [2, 3]},
    "spectral": {"n_clusters": [2], "n_neighbors": [3], "sigma": [1.0]},
}

# The checks pass class labels as y. For SeededKMeans / ConstrainedKMeans y is
# the seed clustering, so labels outside [0, n_clusters) are rejected (with
# n_clusters=1 or 2 in these checks); every other check passes for them.
_SEED_LABELS = "the checks' y holds labels >= n_clusters, which are invalid seeds"
_SEEDED_FAILS = {
    name: _SEED_LABELS
    for name in (
        "check_dont_overwrite_parameters",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_fit2d_1sample",
        "check_fit2d_1feature",
        "check_fit2d_predict1d",
    )
}


def _expected_failures(estimator):
    return _SEEDED_FAILS if isinstance(estimator, SeededKMeans) else {}


@parametrize_with_checks(
    [
        PCKMeans(),
        MPCKMeans(),
        MPCKMeans(metric="full", shared_metric=False),
        COPKMeans(),
        MKMeans(),
        MKMeans(metric="full"),
        SeededKMeans(),
        ConstrainedKMeans(),
        COBS(grid=_TINY_GRID, random_state=0),
        BayesianClustering(n_particles=4, n_mcmc_steps=1, random_state=0),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# the full grid of shapes where a fit takes milliseconds; for the slowest a cover of it (as for the active ones)
_COVER = ((2, 65), (3, 500), (5, 1), (12, 64), (63, 65), (64, 63), (65, 2), (200, 2))
_CONSTRAINED = [
    (PCKMeans(n_clusters=3), SHAPES),
    (MPCKMeans(n_clusters=3), SHAPES),
    (COPKMeans(n_clusters=3), SHAPES),
    (MKMeans(n_clusters=3), _COVER),  # a metric of d x d entries learnt on 500 features
    (SeededKMeans(n_clusters=3), SHAPES),
    (ConstrainedKMeans(n_clusters=3), SHAPES),
    (COBS(grid=_TINY_GRID), _COVER),
    (BayesianClustering(n_clusters=3, n_particles=4, n_mcmc_steps=1), _COVER),
]
# the paper's grid (931 clusterings a fit: shapes only), on the small collections where K up to 10 and k up to
# 20 cannot hold
_DEFAULT_GRID = (COBS(), ((2, 65), (3, 1), (5, 2), (12, 65)))


@pytest.mark.parametrize(
    "estimator, check",
    [(est, check) for est, shapes in _CONSTRAINED for check in constrained_estimator_checks(est, shapes=shapes)]
    + [(est, check) for est, shapes in [_DEFAULT_GRID] for check in constrained_estimator_checks(est, shapes=shapes)
       if check.__name__ == "check_shapes"],
    ids=lambda v: type(v).__name__ if hasattr(v, "get_params") else v.__name__,
)
@pytest.mark.slow
def test_constrained_estimator_takes_every_shape_and_kind_of_data(estimator, check):
    check()


class _Projects(ClusterMixin, BaseEstimator):
    """K-means on 64 principal components above 64 features, pairs read with int(): the mistakes the checks catch."""

    def __init__(self, n_clusters=2, warn=False):
        self.n_clusters, self.warn = n_clusters, warn

    def fit(self, X, y=None, *, ml=None, cl=None):
        X = np.asarray(X, dtype=float)
        self.pairs_ = [(int(i), int(j)) for i, j in [*(ml or []), *(cl or [])]]  # 0.5 read as row 0
        for _ in range(len(X) if self.warn else 0):
            warnings.warn("one warning a row", UserWarning, stacklevel=2)
        Z = PCA(64).fit_transform(X) if X.shape[1] > 64 else X
        self.labels_ = KMeans(self.n_clusters, n_init=1, random_state=0).fit_predict(Z)
        return self


@pytest.mark.parametrize("estimator, shapes, check, broken", [
    (_Projects(), [(200, 2), (12, 65)], "check_shapes", "refused 12 rows x 65 features without naming a parameter"),
    (_Projects(), [(200, 2)], "check_pair_arguments", r"took ml=\[\(0.5, 3\)\]"),
    (_Projects(warn=True), [(200, 2)], "check_shapes", "200 warnings fitting 200 rows x 2 features"),
    (_Projects(n_clusters=250), [(200, 2)], "check_shapes", "refused 200 rows x 2 features"),
])
def test_a_broken_clusterer_fails_naming_itself_and_the_shape(estimator, shapes, check, broken):
    checks = {c.__name__: c for c in constrained_estimator_checks(estimator, shapes=shapes)}
    with pytest.raises(AssertionError, match=f"^_Projects: {broken}"):
        checks[check]()
