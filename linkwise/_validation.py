"""Argument checks shared by every linkwise estimator.

An estimator declares its constructor parameters once, in scikit-learn's
``_parameter_constraints`` table (``{name: [constraint, ...]}``, a value
meeting any one is valid: :class:`Interval`, ``StrOptions``, a type, None,
``"random_state"``, ...), and :func:`validate_params` checks them at the start
of ``fit`` (of the question loop for an active estimator). The message is
scikit-learn's, raised as linkwise's
:class:`~linkwise.exceptions.InvalidParameterError`: ``The 'n_clusters'
parameter of PCKMeans must be an int in the range [1, inf). Got 0 instead.``
What depends on the data (``n_clusters`` against the number of rows) is the
estimator's ``_check_params_vs_input``, as in scikit-learn's ``KMeans``.
Function arguments are checked by :func:`check_scalar` and its siblings, in
the same spirit: ``The 'budget' argument of run must be an int >= 0, got -1.``
"""

import numbers

import numpy as np
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, StrOptions, validate_parameter_constraints
from sklearn.utils._param_validation import Interval as _SklearnInterval
from sklearn.utils._param_validation import InvalidParameterError as _SklearnInvalidParameterError
from sklearn.utils.validation import validate_data

from linkwise.exceptions import InvalidParameterError

__all__ = ["HasMethods", "Interval", "StrOptions", "validate_params", "check_params", "check_scalar",
           "check_option", "check_n_clusters", "check_index_set", "check_y_ignored", "check_data",
           "check_numeric_columns", "check_table", "check_finite", "magnitude_scale", "minmax_scaling",
           "apply_scaling", "minmax", "owner_name", "holds_bool"]


class Interval(_SklearnInterval):
    """scikit-learn's ``Interval`` constraint that refuses bools: ``n_clusters=True`` is a mistake, not 1.

    Examples
    --------
    >>> from numbers import Integral
    >>> positive = Interval(Integral, 1, None, closed="left")
    >>> positive.is_satisfied_by(3), positive.is_satisfied_by(True), str(positive)
    (True, False, 'an int in the range [1, inf)')
    """

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


def check_params(constraints, params, owner):
    """Check ``params`` (name -> value) against ``constraints`` (name -> list of scikit-learn constraints, a
    value meeting one is valid; a name without an entry is not checked); raise InvalidParameterError on the
    first value that meets none.

    Examples
    --------
    >>> check_params({"n_jobs": [Interval(numbers.Integral, 1, None, closed="left"), None]}, {"n_jobs": 0}, "run")
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: The 'n_jobs' parameter of run must be an int in the range [1, inf) or None. Got 0 instead.
    """
    try:
        validate_parameter_constraints(constraints, params, caller_name=owner_name(owner))
    except _SklearnInvalidParameterError as error:  # scikit-learn's message, linkwise's class (a subclass)
        raise InvalidParameterError(str(error)) from None


def validate_params(estimator):
    """Check the constructor parameters of ``estimator`` against its ``_parameter_constraints`` table.

    What scikit-learn's ``BaseEstimator._validate_params`` does, raising
    linkwise's InvalidParameterError: the one check of every linkwise
    estimator's parameters, at the start of its ``fit``.
    """
    check_params(estimator._parameter_constraints, estimator.get_params(deep=False), estimator)


def owner_name(owner):
    """Name used in messages: a string as is, a class by its name, else the type name."""
    return owner if isinstance(owner, str) else (owner if isinstance(owner, type) else type(owner)).__name__


def _fail(name, owner, what, value, role="parameter"):
    raise InvalidParameterError(f"The '{name}' {role} of {owner_name(owner)} must be {what}, got {value!r}.")


def check_scalar(value, name, owner, *, kind, low=None, high=None, include_low=True, include_high=True, none_ok=False,
                 role="parameter"):
    """Check one int, float or bool ``value`` of parameter ``name`` of ``owner`` and return it.

    ``kind`` is ``"int"``, ``"float"`` (any finite real number, never a bool)
    or ``"bool"``; ``low`` and ``high`` are bounds, included unless
    ``include_low`` / ``include_high`` is False; ``none_ok`` accepts None;
    ``role`` is ``"parameter"`` (constructor) or ``"argument"`` (method).

    Examples
    --------
    >>> check_scalar(3, "n_clusters", "PCKMeans", kind="int", low=1)
    3
    """
    if value is None and none_ok:
        return None
    if kind == "bool":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        _fail(name, owner, "a bool" + (" or None" if none_ok else ""), value, role)
    what = {"int": "an int", "float": "a float"}[kind] + _bounds_text(low, high, include_low, include_high) + (
        " or None" if none_ok else "")
    types = numbers.Integral if kind == "int" else numbers.Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, types):
        _fail(name, owner, what, value, role)
    if (kind == "float" and not np.isfinite(value)) or _outside(value, low, high, include_low, include_high):
        _fail(name, owner, what, value, role)
    return int(value) if kind == "int" else float(value)


def _bounds_text(low, high, include_low, include_high):
    """The bounds as a message says them: " >= 1", " < 2", " in [0, 1)", or ""."""
    if low is not None and high is not None:
        return f" in {'[' if include_low else '('}{low}, {high}{']' if include_high else ')'}"
    if low is not None:
        return f" {'>=' if include_low else '>'} {low}"
    return "" if high is None else f" {'<=' if include_high else '<'} {high}"


def _outside(value, low, high, include_low, include_high):
    """Whether the number ``value`` lies outside the bounds (None: none on that side)."""
    too_low = low is not None and (value < low if include_low else value <= low)
    return too_low or high is not None and (value > high if include_high else value >= high)


def check_option(value, name, owner, options, *, role="parameter"):
    """Check that ``value`` is one of ``options`` and return it.

    Examples
    --------
    >>> check_option("full", "metric", "MPCKMeans", ("diagonal", "full"))
    'full'
    """
    if not isinstance(value, (str, bool, type(None))) or value not in options:
        _fail(name, owner, f"one of {', '.join(map(repr, options))}", value, role)
    return value


def check_n_clusters(n_clusters, n_samples, owner):
    """Refuse more clusters than rows of the data (for an estimator's ``_check_params_vs_input``)."""
    if n_clusters > n_samples:
        raise InvalidParameterError(f"The 'n_clusters' parameter of {owner_name(owner)} must be at most the number of "
                                    f"samples, got n_clusters={n_clusters} for n_samples={n_samples}.")


def holds_bool(values, arr):
    """Whether ``values``, read by NumPy as the integer array ``arr``, held a bool (``[True, 2]`` reads as
    ``[1, 2]``: a row index taken from a bool is a mistake, not row 1).

    Examples
    --------
    >>> import numpy as np
    >>> holds_bool([True, 2], np.asarray([True, 2])), holds_bool([1, 2], np.asarray([1, 2]))
    (True, False)
    """
    if isinstance(values, np.ndarray) or arr.dtype.kind not in "iu":
        return False  # an integer array holds no bool; another dtype is refused as such
    return any(isinstance(v, (bool, np.bool_)) for v in np.asarray(values, dtype=object).ravel().tolist())


def check_index_set(indices, n_samples, name, owner, *, allow_empty=False):
    """Validate a set of row indices (or a boolean mask) and return sorted unique indices.

    Examples
    --------
    >>> check_index_set([4, 1, 1], 5, "queryable", "COBRAS.fit").tolist()
    [1, 4]
    """
    arr, the = np.asarray(indices), f"The '{name}' argument of {owner_name(owner)}"
    if arr.dtype == bool:
        if arr.shape != (n_samples,):
            raise InvalidParameterError(f"{the} is a boolean mask of shape {arr.shape}; it must have shape "
                                        f"({n_samples},), one entry per row of X.")
        arr = np.flatnonzero(arr)
    elif arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidParameterError(f"{the} must be a 1-D array of integer row indices or a boolean mask, got shape "
                                    f"{arr.shape} and dtype {arr.dtype}.")
    elif holds_bool(indices, arr):
        raise InvalidParameterError(f"{the} must hold integer row indices (or be a boolean mask of every row), got "
                                    "bools among them.")
    arr = np.unique(arr.astype(np.intp))
    if arr.size and (arr[0] < 0 or arr[-1] >= n_samples):
        wrong = arr[0] if arr[0] < 0 else arr[-1]
        raise InvalidParameterError(f"{the} holds index {wrong}, out of range for X with {n_samples} rows.")
    if arr.size == 0 and not allow_empty:
        raise InvalidParameterError(f"{the} is empty; give at least one row index.")
    return arr


def check_y_ignored(y, owner):
    """Refuse a constraint list passed positionally to ``fit(X, y=None, *, ml=None, cl=None)``.

    ``y`` is there for scikit-learn and ignored, so ``fit(X, pairs)`` would
    silently drop the pairs: a 2-D ``y`` is taken for that mistake.

    Examples
    --------
    >>> check_y_ignored([(0, 1), (2, 3)], "PCKMeans")
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: PCKMeans.fit got a 2-D 'y'; pass constraints by keyword: fit(X, ml=[(i, j), ...], cl=[(i, j), ...]). 'y' is ignored.
    """
    if y is not None and np.ndim(y) == 2:
        raise InvalidParameterError(f"{owner_name(owner)}.fit got a 2-D 'y'; pass constraints by keyword: "
                                    "fit(X, ml=[(i, j), ...], cl=[(i, j), ...]). 'y' is ignored.")


def check_data(X, owner, *, validate=False, **kwargs):
    """``X`` as float64 through ``check_array`` (or ``validate_data`` on the estimator ``owner`` if ``validate``,
    to record or check ``n_features_in_``) with ``kwargs``, NaN and infinity refused by :func:`check_finite`, a
    DataFrame's column that is not numbers by :func:`check_numeric_columns`, 1-D or complex data by
    :func:`check_table` (scikit-learn's messages for those run over lines and hold the whole array)."""
    check_numeric_columns(X, owner)
    check_table(X, owner)
    if validate:
        return check_finite(validate_data(owner, X, dtype=np.float64, ensure_all_finite=False, **kwargs), owner)
    kwargs.update(input_name="X", estimator=owner_name(owner))
    return check_finite(check_array(X, dtype=np.float64, ensure_all_finite=False, **kwargs), owner)


def check_table(X, owner):
    """Refuse data that is not a table (fewer than 2 dimensions) or holds complex numbers, in one line naming the
    fix; ragged lists and more than 2 dimensions are left to ``check_array``, which says so in one line.

    Examples
    --------
    >>> import numpy as np
    >>> check_table(np.arange(5.0), "PCKMeans")
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: Expected 2D array as X given to PCKMeans (a row per item, a column per feature), got an array of shape (5,). Reshape your data: X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a single item.
    """
    read = _shape_and_complex(X)
    if read is None:
        return
    (shape, complex_dtype), name = read, f"X given to {owner_name(owner)}"
    # the messages open as scikit-learn's do ("Expected 2D array", "Reshape your data", "Complex data not
    # supported"): its estimator checks match them
    if len(shape) < 2:
        got = f"an array of shape {shape}" if shape else "a single value"
        raise InvalidParameterError(f"Expected 2D array as {name} (a row per item, a column per feature), got {got}. "
                                    "Reshape your data: X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for "
                                    "a single item.")
    if complex_dtype is not None:
        raise InvalidParameterError(f"Complex data not supported: {name} holds {complex_dtype}; give the real parts "
                                    "(X.real), the magnitudes (np.abs(X)) or both as columns.")


def _shape_and_complex(X):
    """The shape of ``X`` as NumPy reads it and its complex dtype (None: real), or None for ragged lists."""
    if hasattr(X, "dtypes") and not hasattr(X, "dtype"):  # a DataFrame (pandas, polars): a dtype per column
        return X.shape, next((d for d in X.dtypes if getattr(d, "kind", "") == "c"), None)
    if not (hasattr(X, "ndim") and hasattr(X, "dtype")):  # a list
        try:
            X = np.asarray(X)
        except (TypeError, ValueError):  # ragged rows: check_array names them
            return None
    return X.shape, X.dtype if X.dtype.kind == "c" else None


def check_numeric_columns(X, owner):
    """Refuse a DataFrame column that is not numbers in one line that points to the loader of text, images and
    series (NumPy's "could not convert string to float" names neither the column nor what to do).

    Examples
    --------
    >>> import pandas as pd
    >>> check_numeric_columns(pd.DataFrame({"size": [1.0, 2.0], "note": ["red fox", "blue sky"]}), "COBRAS")
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: Column 'note' of the X given to COBRAS is not numbers ('red fox' at row 0, counting from 0); estimators cluster numbers: load text, image or series columns as linkwise cluster does with linkwise.session.load_frame(X, text_column=...) and use its .X, or give the DataFrame to ActiveSession, which loads it so.
    """
    if type(X).__module__.partition(".")[0] not in ("pandas", "polars") or not hasattr(X, "columns"):
        return
    for name in X.columns:
        column = X[name]
        # pandas' nullable dtypes (Int64 with NA) are numbers, and their NA is refused later as NaN
        if str(getattr(column.dtype, "kind", "")) in tuple("biufc"):
            continue
        values = np.asarray(column)
        if values.dtype.kind in "biufc":
            continue
        for row, value in enumerate(values):
            try:
                float(value)
            except (TypeError, ValueError):
                raise InvalidParameterError(
                    f"Column {name!r} of the X given to {owner_name(owner)} is not numbers ({value!r} at row {row}, "
                    "counting from 0); estimators cluster numbers: load text, image or series columns as linkwise "
                    "cluster does with linkwise.session.load_frame(X, text_column=...) and use its .X, or give the "
                    "DataFrame to ActiveSession, which loads it so.") from None


def check_finite(X, owner, name="X"):
    """Refuse NaN or infinite values in one line that names the first offending cell (scikit-learn's runs
    over several lines of advice).

    Examples
    --------
    >>> import numpy as np
    >>> check_finite(np.array([[1.0, 2.0], [3.0, np.nan]]), "PCKMeans")
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: Input X of PCKMeans contains NaN (first at row 1, column 1, counting from 0); drop those rows or impute them (sklearn.impute.SimpleImputer).
    """
    bad = ~np.isfinite(X)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        kind = "NaN" if np.isnan(X[where]) else "infinity"
        place = ", ".join(f"{axis} {i}" for axis, i in zip(("row", "column", "channel"), where))
        raise InvalidParameterError(f"Input {name} of {owner_name(owner)} contains {kind} (first at {place}, counting "
                                    "from 0); drop those rows or impute them (sklearn.impute.SimpleImputer).")
    return X


# squared distances of data within [2**-100, 2**100] in magnitude stay far from float64's overflow and underflow
_MAGNITUDE_EXPONENT = 100


def minmax_scaling(X, axis=0):
    """The min-max scaling of ``X`` along ``axis`` (default: of each column), for :func:`apply_scaling`.

    Returns ``(exponent, low, span)``: each column is divided by a power of two first (exact), so that values near
    ±1e308 scale without overflow; a constant column has span 1. With ``axis=0`` each part has one value per
    column, else the dimensions of ``X`` (``axis`` of length 1).

    Examples
    --------
    >>> import numpy as np
    >>> minmax(np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 5.0]])).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.5, 0.0]]
    >>> big = np.finfo(np.float64).max
    >>> minmax(np.array([[big], [-big]])).ravel().tolist()
    [1.0, 0.0]
    """
    _, exponent = np.frexp(np.abs(X).max(axis=axis, keepdims=True))
    X = np.ldexp(X, -exponent)
    low = X.min(axis=axis, keepdims=True)
    span = X.max(axis=axis, keepdims=True) - low
    scaling = exponent, low, np.where(span > 0, span, 1.0)
    return tuple(part.squeeze(0) for part in scaling) if axis == 0 else scaling


def apply_scaling(X, scaling):
    """``X`` scaled as the data :func:`minmax_scaling` was computed on (new rows may fall outside [0, 1])."""
    exponent, low, span = scaling
    return (np.ldexp(X, -exponent) - low) / span


def minmax(X, axis=0):
    """``X`` min-max scaled to [0, 1] along ``axis`` (see :func:`minmax_scaling`)."""
    return apply_scaling(X, minmax_scaling(X, axis))


def magnitude_scale(X):
    """The power of two to divide ``X`` by so that squared distances neither overflow nor underflow.

    1.0 (use ``X`` as it is) for data whose largest absolute value lies
    within ``[2**-100, 2**100]``. Beyond (``X * 1e300``, ``X * 1e-300``),
    squared distances would be infinite or zero; the power of two returned
    (a finite float64) brings the largest magnitude into ``[1, 2)``. Dividing
    by it is exact (above the smallest normal number), so a method that does
    not depend on the data's units gives the same result as on ``X`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> magnitude_scale(np.array([[3.0, -40.0]]))
    1.0
    >>> X = np.array([[3e300, -4e300]])
    >>> magnitude_scale(X) == 2.0**998
    True
    >>> float(np.abs(X / magnitude_scale(X)).max())  # 4e300 / 2**998
    1.4932217896051503
    """
    peak = max(float(X.max()), -float(X.min())) if X.size else 0.0  # no |X| copy
    if peak == 0.0 or 2.0**-_MAGNITUDE_EXPONENT <= peak <= 2.0**_MAGNITUDE_EXPONENT:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(peak)[1]) - 1))
