"""The example method of the user guide page "Write your own active method" keeps the active-estimator contract."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import linkwise as lw
from linkwise.estimator_checks import check_active_estimator

SOURCE = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "own_method.py"


@pytest.fixture(scope="module")
def FarthestFirst():
    spec = importlib.util.spec_from_file_location("own_method", SOURCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: a fitted estimator pickles by its module's name
    spec.loader.exec_module(module)
    yield module.FarthestFirst
    del sys.modules[spec.name]


def test_the_example_passes_the_active_estimator_checks(FarthestFirst):
    check_active_estimator(FarthestFirst(max_queries=6))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_without_a_budget_every_queryable_row_lands_in_its_class(FarthestFirst, seed):
    # true answers: a row joins a group only on a must-link, so the groups are the classes of the queryable rows
    X, y = lw.datasets.load("wine", scale="minmax")
    order = np.random.RandomState(seed).permutation(len(y))
    X, y = X[order], y[order]
    queryable = np.sort(np.random.RandomState(seed).choice(len(y), 60, replace=False))
    est = FarthestFirst(random_state=seed).fit(X, lw.LabelOracle(y), queryable=queryable)
    assert lw.metrics.ari(y[queryable], est.labels_[queryable]) == 1.0
    assert {i for i, j, _ in est.query_log_} | {j for i, j, _ in est.query_log_} <= set(queryable.tolist())
    assert est.n_queries_ <= 60 * 2  # at most one question per group (three classes) for each row, the last free
    assert est.labels_history_.shape == (est.n_queries_, len(y))
