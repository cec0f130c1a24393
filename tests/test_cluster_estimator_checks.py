"""scikit-learn's estimator checks for every constrained clusterer, with no constraints."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from linkwise.bayes import BayesianClustering
from linkwise.cluster import COPKMeans, ConstrainedKMeans, MKMeans, MPCKMeans, PCKMeans, SeededKMeans
from linkwise.cobs import COBS

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
