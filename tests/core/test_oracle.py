import numpy as np
import pytest

import linkwise as lw


def test_label_oracle_answers_from_labels_and_counts():
    oracle = lw.LabelOracle([0, 0, 1, 1])
    assert oracle.query(0, 1) is True
    assert oracle.query(1, 2) is False
    assert oracle.n_queries == 2 and oracle.n_wrong == 0
    assert isinstance(oracle, lw.Oracle)


def test_noise_flips_about_the_stated_fraction_and_the_same_pair_always_alike():
    y = np.arange(400) % 4
    oracle = lw.LabelOracle(y, noise=0.2, random_state=3)
    rng = np.random.default_rng(0)
    pairs = [tuple(p) for p in rng.choice(400, size=(3000, 2)).tolist() if p[0] != p[1]]
    answers = [oracle.query(i, j) for i, j in pairs]
    wrong = np.mean([a != (y[i] == y[j]) for a, (i, j) in zip(answers, pairs)])
    assert 0.17 < wrong < 0.23
    assert oracle.n_wrong == sum(a != (y[i] == y[j]) for a, (i, j) in zip(answers, pairs))
    # same pair, either order, same answer; another oracle with the same seed agrees
    again = lw.LabelOracle(y, noise=0.2, random_state=3)
    assert all(again.query(j, i) == a for a, (i, j) in zip(answers, pairs))


def test_different_seeds_flip_different_pairs():
    y = np.zeros(200, dtype=int)
    a, b = lw.LabelOracle(y, noise=0.5, random_state=0), lw.LabelOracle(y, noise=0.5, random_state=1)
    pairs = [(i, i + 1) for i in range(199)]
    assert [a.is_flipped(*p) for p in pairs] != [b.is_flipped(*p) for p in pairs]


def test_callback_oracle_checks_answers():
    oracle = lw.CallbackOracle(lambda i, j: None if i == 0 else i < j)
    assert oracle.query(0, 1) is None and oracle.query(1, 2) is True
    assert oracle.n_queries == 2
    with pytest.raises(TypeError, match="must return True, False or None"):
        lw.CallbackOracle(lambda i, j: "same").query(0, 1)
    with pytest.raises(TypeError, match="'fn'"):
        lw.CallbackOracle(42)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: lw.LabelOracle([0, 1], noise=1.5), r"^The 'noise' argument of LabelOracle must be a float in the range \[0.0, 1.0\]\. Got 1.5 instead\.$"),
        (lambda: lw.LabelOracle([[0, 1]]), "'y' argument"),
        (lambda: lw.LabelOracle([0, 1]).query(0, 2), "'j' argument"),
        (lambda: lw.LabelOracle([0, 1]).query(1, 1), "two different points"),
    ],
)
def test_bad_input(make, match):
    with pytest.raises(ValueError, match=match):
        make()
