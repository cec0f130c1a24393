import re

import numpy as np
import pytest

from linkwise._validation import check_index_set, check_option, check_scalar, magnitude_scale


@pytest.mark.parametrize(
    "kwargs, value, message",
    [
        (dict(kind="int", low=1), 0, "The 'k' parameter of Owner must be an int >= 1, got 0."),
        (dict(kind="int", low=1), 2.0, "must be an int >= 1, got 2.0"),
        (dict(kind="int", low=1), True, "must be an int >= 1, got True"),
        (dict(kind="float", low=0, high=1, include_low=False), 0.0, "a float in (0, 1], got 0.0"),
        (dict(kind="float"), float("nan"), "a float, got nan"),
        (dict(kind="bool"), 1, "a bool, got 1"),
        (dict(kind="int", high=3, none_ok=True), 4, "an int <= 3 or None, got 4"),
    ],
)
def test_scalar_messages(kwargs, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        check_scalar(value, "k", "Owner", **kwargs)


def test_scalar_accepts_numpy_types_and_none():
    assert check_scalar(np.int64(3), "k", "O", kind="int") == 3
    assert check_scalar(np.float32(0.5), "k", "O", kind="float") == 0.5
    assert check_scalar(None, "k", "O", kind="int", none_ok=True) is None


def test_option():
    with pytest.raises(ValueError, match="one of 'a', 'b', got 'c'"):
        check_option("c", "x", "O", ("a", "b"))
    with pytest.raises(TypeError):
        check_option(["a"], "x", "O", ("a", "b"))


def test_index_set():
    assert check_index_set(np.array([True, False, True]), 3, "q", "O").tolist() == [0, 2]
    with pytest.raises(ValueError, match="shape \\(3,\\)"):
        check_index_set(np.array([True]), 3, "q", "O")
    with pytest.raises(ValueError, match="empty"):
        check_index_set([], 3, "q", "O")
    with pytest.raises(ValueError, match="1-D"):
        check_index_set([[0]], 3, "q", "O")


@pytest.mark.parametrize("peak", [2.0**-100, 1e-20, 1.0, 3.7, 1e20, 2.0**100])
def test_magnitude_scale_leaves_ordinary_data_alone(peak):
    assert magnitude_scale(np.array([[peak, -peak / 3]])) == 1.0
    assert magnitude_scale(np.zeros((3, 2))) == 1.0


@pytest.mark.parametrize("peak", [2.0**101, 1e300, np.finfo(float).max, 2.0**-101, 1e-300, 5e-324])
def test_magnitude_scale_is_an_exact_power_of_two_bringing_the_peak_to_one(peak):
    X = np.array([[peak, -peak / 3], [0.0, peak / 7]])
    scale = magnitude_scale(X)
    assert np.isfinite(scale) and np.frexp(scale)[0] == 0.5  # a power of two
    assert 1.0 <= np.abs(X / scale).max() < 2.0
    np.testing.assert_array_equal((X / scale) * scale, X)  # nothing lost
