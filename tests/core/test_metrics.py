import itertools

import numpy as np
import pytest

from linkwise import metrics


def brute_pairwise(y_true, y_pred):
    tp = fp = fn = 0
    for i, j in itertools.combinations(range(len(y_true)), 2):
        same_t, same_p = y_true[i] == y_true[j], y_pred[i] == y_pred[j]
        tp += same_t and same_p
        fp += same_p and not same_t
        fn += same_t and not same_p
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_pairwise_measures_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    y_true, y_pred = rng.integers(0, 3, 40), rng.integers(0, 4, 40)
    np.testing.assert_allclose(metrics.pairwise_precision_recall_f(y_true, y_pred), brute_pairwise(y_true, y_pred))
    assert metrics.pairwise_f_measure(y_true, y_pred) == pytest.approx(brute_pairwise(y_true, y_pred)[2])


def test_ari_nmi_invariant_to_renaming():
    y = [0, 0, 1, 1, 2, 2]
    assert metrics.ari(y, [5, 5, 3, 3, 9, 9]) == 1.0
    assert metrics.nmi(y, [5, 5, 3, 3, 9, 9]) == pytest.approx(1.0)
    assert metrics.ari(y, [0, 1, 0, 1, 0, 1]) < 0.1


def test_constraint_satisfaction_counts_both_kinds():
    labels = np.array([0, 0, 1, 1])
    assert metrics.constraint_satisfaction(labels) == 1.0
    assert metrics.constraint_satisfaction(labels, ml=[(0, 1), (1, 2)], cl=[(0, 3), (2, 3)]) == 0.5


def test_shape_errors_name_arguments():
    with pytest.raises(ValueError, match="'y_true' and 'y_pred'"):
        metrics.ari([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="'ml' argument"):
        metrics.constraint_satisfaction([0, 1], ml=[(0, 5)])
