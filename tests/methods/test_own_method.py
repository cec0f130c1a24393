"""The example method of the user guide page "Write your own active method" keeps the active-estimator contract."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import linkwise as lw
from linkwise.estimator_checks import check_active_estimator

SOURCE = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "own_method.py"


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


class _WithFirst(lw.ActiveEstimator):
    """Asks whether each row goes with row 0; ``metric`` is its own parameter, no distance of predict's."""

    def __init__(self, max_queries=None, random_state=None, metric="cosine", n_groups=2):
        self.max_queries, self.random_state, self.metric, self.n_groups = max_queries, random_state, metric, n_groups

    def questions(self, ctx):
        ctx.labels[1:] = 1
        for j in range(1, ctx.n_samples):
            if (yield (0, j)):
                ctx.labels[j] = 0


class _Checked(_WithFirst):
    def check_params_vs_input(self, X):
        if self.n_groups > X.shape[0]:
            raise lw.exceptions.InvalidParameterError(f"n_groups={self.n_groups} is above the {X.shape[0]} rows.")


class _CheckedAsBefore(_WithFirst):
    """Written for the hook's former, private name: still checked."""

    def _check_params_vs_input(self, X):
        _Checked.check_params_vs_input(self, X)


@pytest.mark.parametrize("cls", [_Checked, _CheckedAsBefore])
@pytest.mark.parametrize("n_rows", [3, 10])
def test_the_check_against_the_data_runs_before_the_first_question(cls, n_rows):
    X = np.random.RandomState(n_rows).normal(size=(n_rows, 2))
    oracle = lw.LabelOracle(np.zeros(n_rows, dtype=int))
    with pytest.raises(lw.exceptions.InvalidParameterError, match=f"n_groups=11 is above the {n_rows} rows"):
        cls(n_groups=11).fit(X, oracle)
    with pytest.raises(lw.exceptions.InvalidParameterError, match="n_groups=11"):
        lw.ActiveSession(cls(n_groups=11), X)
    assert oracle.n_queries == 0
    assert cls(n_groups=n_rows).fit(X, oracle).n_queries_ == n_rows - 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_predict_measures_by_the_declared_prediction_metric_not_by_a_parameter_named_metric(seed):
    X, y = lw.datasets.load("iris", scale="minmax")
    est = _WithFirst(max_queries=30, random_state=seed).fit(X, lw.LabelOracle(y))
    assert est.prediction_metric() == {"metric": "euclidean", "window": 0.1, "series_shape": None}
    X_new = X + np.random.RandomState(seed).normal(scale=0.05, size=X.shape)
    nearest = np.argmin(((X_new[:, None] - X[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(est.predict(X_new), est.labels_[nearest])
