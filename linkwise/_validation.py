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
Public functions and methods declare their arguments the same way, in a table
given to the :func:`validate_args` decorator (scikit-learn's ``validate_params``
decorator), in the same format with "argument": ``The 'budgets' argument of run
must be an int in the range [0, inf). Got -1 instead.``; a value checked inside
a function (an entry of a dict) goes through the same :func:`check_value`.
"""

import functools
import inspect

import numpy as np
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, StrOptions, make_constraint
from sklearn.utils._param_validation import Interval as _SklearnInterval
from sklearn.utils.validation import validate_data

from linkwise.exceptions import InvalidParameterError

__all__ = ["HasMethods", "Interval", "StrOptions", "validate_params", "validate_args", "check_value",
           "check_n_clusters", "check_index_set", "check_y_ignored", "check_data",
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


def check_value(value, constraints, name, owner, *, role="argument"):
    """Check one ``value`` named ``name`` against ``constraints`` (a list of scikit-learn constraints, a value
    meeting one is valid) and return it; raise InvalidParameterError in the one format otherwise.

    For a value checked inside a function that is not one of its arguments
    (an entry of a dict, a parameter of a given estimator): ``role`` says
    what it is (``"argument"``, ``"parameter"``, ``"entry"``).

    Parameters
    ----------
    value : object
        The value to check.
    constraints : list
        Constraints as in ``_parameter_constraints``: :class:`Interval`,
        ``StrOptions``, ``"boolean"``, None, a type, ``"array-like"``, ...
    name : str
        The name in the message.
    owner : str, class or object
        The function, method or class named in the message (see :func:`owner_name`).
    role : str, default="argument"
        What ``name`` is to ``owner``.

    Returns
    -------
    object
        ``value``, unchanged.

    Raises
    ------
    InvalidParameterError
        If ``value`` meets none of ``constraints``.

    Examples
    --------
    >>> from numbers import Integral
    >>> check_value(0, [Interval(Integral, 1, None, closed="left"), None], "n_jobs", "run")
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: The 'n_jobs' argument of run must be an int in the range [1, inf) or None. Got 0 instead.
    """
    made = [make_constraint(constraint) for constraint in constraints]
    if not any(constraint.is_satisfied_by(value) for constraint in made):
        _refuse(value, made, name, owner, role)
    return value


def _refuse(value, made, name, owner, role):
    """Raise the one message: ``value`` meets none of the constraints ``made`` (by ``make_constraint``)."""
    shown = [str(constraint) for constraint in made if not constraint.hidden]
    wanted = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    raise InvalidParameterError(f"The '{name}' {role} of {owner_name(owner)} must be {wanted}. Got {_shown(value)} "
                                "instead.")


def _shown(value):
    """``value`` as a message shows it, in one line: its repr, or an array's shape and dtype, or the repr's start."""
    text = repr(value)
    if "\n" not in text and len(text) <= 100:
        return text
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return " ".join(text.split())[:96] + " ..."


def validate_params(estimator):
    """Check the constructor parameters of ``estimator`` against its ``_parameter_constraints`` table.

    What scikit-learn's ``BaseEstimator._validate_params`` does, raising
    linkwise's InvalidParameterError (:func:`check_value`, a parameter): the
    one check of every linkwise estimator's parameters, at the start of its
    ``fit``. A parameter without an entry, or with ``"no_validation"``, is
    not checked.
    """
    constraints = estimator._parameter_constraints
    for name, value in estimator.get_params(deep=False).items():
        if constraints.get(name, "no_validation") != "no_validation":
            check_value(value, constraints[name], name, estimator, role="parameter")


def validate_args(constraints, *, owner=None):
    """Decorator: check the arguments of a public function or method against ``constraints`` before it runs.

    What scikit-learn's ``sklearn.utils._param_validation.validate_params``
    does, raising linkwise's InvalidParameterError. Each argument named in
    ``constraints`` is found in the call as the function's signature places
    it (its default when not given; ``self`` and ``cls`` are not checked)
    and checked as :func:`check_value` does, a value meeting one of its
    constraints being valid:
    ``The 'window' argument of StabilityMonitor must be an int in the range
    [1, inf). Got 0 instead.`` The decorated function keeps its name,
    signature and docstring (``functools.wraps``); its table is
    ``_arg_constraints``, the function itself ``__wrapped__``. Values are not
    converted: a function that needs ``int(value)`` does it in its body.

    Parameters
    ----------
    constraints : dict
        ``{argument: [constraint, ...]}``, the vocabulary of
        ``_parameter_constraints`` (:class:`Interval`, ``StrOptions``,
        ``"boolean"``, None, types, ``"array-like"``, callable, ...).
    owner : str, optional
        The name in messages; by default the function's name, ``Class.method``
        for a method (the class of ``self``: a subclass's name for an
        inherited method), or the class for ``__init__``.

    Returns
    -------
    callable
        The decorator.

    Raises
    ------
    ValueError
        At decoration, if ``constraints`` names no argument of the function.

    Examples
    --------
    >>> from numbers import Integral
    >>> @validate_args({"k": [Interval(Integral, 1, None, closed="left")]})
    ... def top(values, k=1):
    ...     return sorted(values)[-int(k):]
    >>> top([3, 1, 2], k=2)
    [2, 3]
    >>> top([3, 1, 2], k=0)
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: The 'k' argument of top must be an int in the range [1, inf). Got 0 instead.
    """

    def decorate(func):
        slots, n_positional, bound_to = _argument_slots(func, constraints)

        @functools.wraps(func)
        def checked(*args, **kwargs):
            if n_positional is not None and len(args) > n_positional:
                return func(*args, **kwargs)  # too many arguments: Python's own message, from the call
            for name, position, default, made in slots:
                if position is not None and position < len(args):
                    if name in kwargs:
                        return func(*args, **kwargs)  # given twice: Python's message
                    value = args[position]
                elif name in kwargs:
                    value = kwargs[name]
                elif default is inspect.Parameter.empty:
                    continue  # missing: the call says so
                else:
                    value = default
                if not any(constraint.is_satisfied_by(value) for constraint in made):
                    instance = args[0] if bound_to and args else None
                    _refuse(value, made, name, owner or _callable_name(func, instance), "argument")
            return func(*args, **kwargs)

        checked._arg_constraints = constraints
        return checked

    return decorate


def _argument_slots(func, constraints):
    """Where :func:`validate_args` finds each checked argument of ``func``: ``(name, position or None, default,
    constraints made)`` for each, the number of positional arguments (None: ``*args``), and whether the first
    is a method's ``self`` or ``cls``."""
    params = list(inspect.signature(func).parameters.values())
    by_name = {p.name: p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    bound_to = bool(params) and params[0].name in ("self", "cls") and "." in func.__qualname__
    unknown = sorted(set(constraints) - set(by_name) | set(constraints) & {"self", "cls"})
    if unknown:
        raise ValueError(f"validate_args on {func.__qualname__}: no argument {', '.join(unknown)} to check.")
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    slots = [(name, positional.index(name) if name in positional else None, by_name[name].default,
              [make_constraint(constraint) for constraint in allowed]) for name, allowed in constraints.items()]
    starred = any(p.kind is p.VAR_POSITIONAL for p in params)
    return slots, None if starred else len(positional), bound_to


def _callable_name(func, instance=None):
    """``f``, ``Class.method`` (the class of ``instance``, a method's ``self`` or ``cls``, when given), or
    ``Class`` for ``Class.__init__``."""
    name = func.__qualname__.rpartition("<locals>.")[2]
    if instance is not None:
        name = f"{(instance if isinstance(instance, type) else type(instance)).__name__}.{func.__name__}"
    return name.removesuffix(".__init__")


def owner_name(owner):
    """Name used in messages: a string as is, a class by its name, else the type name."""
    return owner if isinstance(owner, str) else (owner if isinstance(owner, type) else type(owner)).__name__


def check_n_clusters(n_clusters, n_samples, owner, *, role="parameter"):
    """Refuse more clusters than rows of the data (for an estimator's ``_check_params_vs_input``; ``role``
    ``"argument"`` for a function's)."""
    if n_clusters > n_samples:
        raise InvalidParameterError(f"The 'n_clusters' {role} of {owner_name(owner)} must be at most the number of "
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
