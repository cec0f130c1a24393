"""Every active estimator in linkwise, found by discovery, keeps the contract of linkwise.estimator_checks."""

import inspect

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise.estimator_checks import active_estimator_checks, check_active_estimator
from linkwise.loop import ActiveEstimator
from tests.reference import SKIP, ClosestPairsFirst, active_estimator_classes, checked_classes, fast_instance

CLASSES = active_estimator_classes()
CHECKED = checked_classes()


ESTIMATORS = [fast_instance(cls) for cls in CHECKED] + [ClosestPairsFirst()]  # the loop's own reference method too


@pytest.mark.parametrize(
    "estimator, check",
    [(est, check) for est in ESTIMATORS for check in active_estimator_checks(est)],
    ids=lambda v: type(v).__name__ if isinstance(v, ActiveEstimator) else v.__name__,
)
def test_active_estimator_contract(estimator, check):
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

    def _questions(self, ctx):
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
