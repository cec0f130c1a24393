"""Every active estimator in linkwise, found by discovery, keeps the contract of linkwise.estimator_checks."""

import inspect

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise.estimator_checks import SHAPES, active_estimator_checks, check_active_estimator
from linkwise.loop import ActiveEstimator
from tests.reference import SKIP, ClosestPairsFirst, active_estimator_classes, checked_classes, fast_instance

CLASSES = active_estimator_classes()
CHECKED = checked_classes()


ESTIMATORS = [fast_instance(cls) for cls in CHECKED] + [ClosestPairsFirst()]  # the loop's own reference method too
DATA_CHECKS = ("check_shapes", "check_data_kinds")  # run below, on every method with settings for it


def _ids(value):
    if isinstance(value, ActiveEstimator):
        strategy = value.get_params(deep=False).get("strategy")
        return type(value).__name__ + (f"-{type(strategy).__name__}" if strategy is not None else "")
    return value.__name__


@pytest.mark.parametrize(
    "estimator, check",
    [(est, check) for est in ESTIMATORS for check in active_estimator_checks(est) if check.__name__ not in DATA_CHECKS],
    ids=_ids,
)
@pytest.mark.slow
def test_active_estimator_contract(estimator, check):
    check()


# Every shape of the grid where a fit takes milliseconds. The slowest methods (a second a fit: Auto generates
# 228 candidate clusterings; Bayesian active clustering grows with 2 d K particles) get a cover of it instead:
# every row count and every feature count once, few rows with many features among them (where projections fail).
COVER = ((2, 65), (3, 500), (5, 1), (12, 64), (63, 65), (64, 63), (65, 2), (200, 2))
# (parameters, shapes) for a method whose small instance is not small enough for the grid
SHAPE_SETTINGS = {
    lw.Auto: ({}, COVER),
    lw.BayesianActiveClustering: (dict(n_particles=4, n_mcmc_steps=1, candidate_pairs=200), COVER),
}
_TINY_GRID = {"kmeans": {"n_clusters": [2, 3], "n_seeds": 2}, "dbscan": {"eps": 3, "min_samples": [2, 3]},
              "spectral": {"n_clusters": [2], "n_neighbors": [3], "sigma": [1.0]}}


def _shape_cases():
    for est in map(fast_instance, CHECKED):
        params, shapes = SHAPE_SETTINGS.get(type(est), ({}, SHAPES))
        if isinstance(est, lw.ActiveCOBS):
            params = {"grid": _TINY_GRID}  # the paper's 931 clusterings a fit; the default grid is checked below
        yield est.set_params(**params), shapes, DATA_CHECKS
    # the other strategies (MinMax is the small instance's); those that cluster between questions on a cover
    for strategy, shapes in [(lw.active.Random(), SHAPES), (lw.active.ExploreConsolidate(), SHAPES),
                             (lw.active.NPU(n_trees=10), COVER), (lw.active.Committee(n_estimators=10), COVER)]:
        yield lw.ActiveClustering(lw.PCKMeans(3), strategy), shapes, DATA_CHECKS
    # the paper's grid (931 clusterings a fit: shapes only), on the small collections where K up to 10 and k up
    # to 20 cannot hold
    yield lw.ActiveCOBS(), ((2, 65), (3, 1), (5, 2), (12, 65)), ("check_shapes",)


@pytest.mark.parametrize(
    "estimator, check",
    [(est, check) for est, shapes, names in _shape_cases() for check in active_estimator_checks(est, shapes=shapes)
     if check.__name__ in names],
    ids=_ids,
)
@pytest.mark.slow
def test_active_estimator_takes_every_shape_and_kind_of_data(estimator, check):
    check()


def test_every_public_active_estimator_is_discovered():
    public = {getattr(lw, name) for name in lw.__all__}
    public = {obj for obj in public if inspect.isclass(obj) and issubclass(obj, ActiveEstimator)}
    public.discard(ActiveEstimator)
    missing = sorted(cls.__name__ for cls in public - set(CHECKED))
    assert not missing, f"public active estimators not discovered: {missing}"
    assert {lw.COBRAS, lw.ActiveClustering, lw.Auto} <= set(CHECKED)


def test_only_private_classes_are_skipped_and_each_skip_is_still_needed():
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in CLASSES}
    assert set(SKIP) <= names, f"stale entries in SKIP: {sorted(set(SKIP) - names)}"
    assert all(name.rsplit(".", 1)[1].startswith("_") for name in SKIP)


class Unseeded(ActiveEstimator):
    """Asks random pairs from an unseeded generator: breaks determinism."""

    def __init__(self, *, max_queries=None, random_state=None):
        self.max_queries = max_queries
        self.random_state = random_state

    def questions(self, ctx):
        rng = np.random.default_rng()  # the bug: not ctx.rng
        while True:
            yield tuple(int(v) for v in rng.choice(ctx.queryable, 2, replace=False))


def test_a_broken_estimator_fails_the_contract_naming_itself_and_the_promise():
    with pytest.raises(AssertionError, match="Unseeded: .* different questions"):
        check_active_estimator(Unseeded())


def test_the_checks_refuse_what_is_not_an_active_estimator():
    with pytest.raises(TypeError, match="needs an ActiveEstimator"):
        check_active_estimator(lw.PCKMeans(n_clusters=3))


def test_a_recheck_answered_dont_know_is_not_asked_again():
    X, y = make_blobs(n_samples=40, centers=4, n_features=3, cluster_std=1.5, random_state=0)
    checks = {check.__name__: check for check in active_estimator_checks(lw.NoiseRobustCOBRAS(), X, y, max_queries=40)}
    checks["check_dont_know"]()
