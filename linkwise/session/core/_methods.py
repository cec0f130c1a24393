"""Naming an active method and storing its parameters in a session file.

A session file must rebuild exactly the estimator that asked the questions: a method is stored as a spec (a short
name such as ``cobras``, or ``module:Class``) plus its ``get_params()`` as JSON, nested estimators (a clusterer
inside ``ActiveClustering``) recursively. A session file is data, not code: linkwise imports the specs it names only
when they are its own (or scikit-learn's, nested), or when the person names the same method (``--method``), since
importing a module runs it.
"""

import numbers

import numpy as np

from linkwise._validation import InvalidParameterError
from linkwise.loop import ActiveEstimator
from linkwise.methods import METHODS, load

__all__ = ["resolve_method", "make_method", "encode_params", "build_estimator", "method_spec", "same_method"]

# --method takes the short names of linkwise.methods.METHODS; any other ActiveEstimator is named "module:Class"
_ESTIMATOR_KEY = "__estimator__"


def _import(spec, base, what):
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise InvalidParameterError(f"The {what} {spec!r} is neither a known name ({', '.join(sorted(METHODS))}) "
                                    "nor an import path of the form 'module:Class'.")
    try:
        cls = load(spec)
    except (ImportError, AttributeError) as exc:
        raise InvalidParameterError(f"The {what} {spec!r} cannot be imported: {exc}.") from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise InvalidParameterError(f"The {what} {spec!r} is not a subclass of {base.__name__}.")
    return cls


def _full(spec):
    return METHODS.get(spec.lower(), spec) if isinstance(spec, str) else spec


def _package(spec):
    """The top-level package a spec imports from (``cobras`` -> ``linkwise``)."""
    return _full(spec).partition(":")[0].split(".")[0]


def same_method(a, b):
    """Whether two specs name the same method (``cobras`` is ``linkwise.cobra:COBRAS``).

    Examples
    --------
    >>> same_method("COBRAS", "linkwise.cobra:COBRAS"), same_method("cobras", "cobra")
    (True, False)
    """
    return _full(a) == _full(b)


def _check_trusted(spec, trusted, what, packages=("linkwise",)):
    """Refuse a spec read from a session file unless linkwise may import it (see the module's docstring)."""
    if not isinstance(spec, str):
        raise InvalidParameterError(f"The session file names its {what} as {spec!r}, not as a string.")
    if _package(spec) in packages or (trusted is not None and same_method(spec, trusted)):
        return
    if what != "method":
        raise InvalidParameterError(f"The session file names the {what} {spec!r}; inside a method of linkwise's, "
                                    f"linkwise imports only estimators of {' and '.join(packages)}.")
    raise InvalidParameterError(f"The session file names the method {spec!r}, which is not one of linkwise's; linkwise "
                                f"imports it only if you name it yourself: pass --method {spec} (estimator= or "
                                "trusted_method= in Python) if you trust the file.")


def make_method(cls, params):
    """``cls(**params)``, refusing a parameter ``cls`` does not take with the list of those it does.

    Examples
    --------
    >>> import linkwise as lw
    >>> make_method(lw.COBRAS, {"max_queries": 5})
    COBRAS(max_queries=5)
    >>> make_method(lw.COBRAS, {"bogus": 1})
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: COBRAS has no parameter 'bogus'; its parameters are: cache, max_queries, metric, random_state, window.
    """
    known = cls._get_param_names()
    if unknown := [name for name in params if name not in known]:
        raise InvalidParameterError(f"{cls.__name__} has no parameter {unknown[0]!r}; "
                                    f"its parameters are: {', '.join(known)}.")
    return cls(**params)


def resolve_method(spec):
    """The active estimator class named by ``spec`` (a short name or ``module:Class``).

    Examples
    --------
    >>> resolve_method("cobras").__name__
    'COBRAS'
    >>> resolve_method("linkwise.cobra:COBRA").__name__
    'COBRA'
    """
    if not isinstance(spec, str):
        raise InvalidParameterError(f"The method must be given as a string, got {spec!r}.")
    return _import(_full(spec), ActiveEstimator, "method")


def method_spec(estimator):
    """The spec that :func:`resolve_method` turns back into ``type(estimator)``.

    Examples
    --------
    >>> import linkwise as lw
    >>> method_spec(lw.COBRAS())
    'cobras'
    """
    cls = type(estimator)
    for short, spec in METHODS.items():
        if spec.endswith(f":{cls.__name__}") and load(short) is cls:
            return short
    return f"{cls.__module__}:{cls.__qualname__}"


def _encode(value, name, owner):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and np.isfinite(value):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_encode(v, name, owner) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _encode(v, name, owner) for k, v in value.items()}
    if hasattr(value, "get_params"):
        return {_ESTIMATOR_KEY: f"{type(value).__module__}:{type(value).__qualname__}",
                "params": {k: _encode(v, f"{name}.{k}", owner) for k, v in value.get_params(deep=False).items()}}
    raise InvalidParameterError(f"The '{name}' parameter of {owner} is {value!r}; a session file stores only "
                                "numbers, strings, lists, dicts and estimators. Pass a plain value (an int seed for "
                                "random_state).")


def encode_params(estimator):
    """``estimator.get_params(deep=False)`` as a JSON-compatible dict.

    Examples
    --------
    >>> import linkwise as lw
    >>> encode_params(lw.COBRAS(max_queries=5, random_state=0))
    {'cache': None, 'max_queries': 5, 'metric': 'euclidean', 'random_state': 0, 'window': 0.1}
    """
    owner = type(estimator).__name__
    return {k: _encode(v, k, owner) for k, v in estimator.get_params(deep=False).items()}


def _decode(value, vouched):
    if isinstance(value, list):
        return [_decode(v, vouched) for v in value]
    if isinstance(value, dict):
        if _ESTIMATOR_KEY in value:
            from sklearn.base import BaseEstimator

            spec, params = value[_ESTIMATOR_KEY], value.get("params")
            if not vouched:
                _check_trusted(spec, None, "estimator", ("linkwise", "sklearn"))
            if not isinstance(params, dict):
                raise InvalidParameterError(f"The session file stores the estimator {spec!r} without its parameters.")
            return make_method(_import(spec, BaseEstimator, "stored estimator"), _decode(params, vouched))
        return {k: _decode(v, vouched) for k, v in value.items()}
    return value


def build_estimator(spec, params, trusted=None):
    """Rebuild the estimator a session file describes (``params`` from :func:`encode_params`).

    ``spec`` must name one of linkwise's methods or the method ``trusted``
    names (the ``--method`` the person gave). The estimators nested in the
    parameters of linkwise's methods must be linkwise's or scikit-learn's;
    a method the person vouched for may nest any.

    Examples
    --------
    >>> build_estimator("cobras", {"max_queries": 5, "random_state": 0})
    COBRAS(max_queries=5, random_state=0)
    >>> build_estimator("os:system", {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: The session file names the method 'os:system', which is not ...
    """
    _check_trusted(spec, trusted, "method")
    if not isinstance(params, dict):
        raise InvalidParameterError(f"The session file stores the parameters of {spec!r} as {params!r}, not as a dict.")
    vouched = _package(spec) != "linkwise"  # the same test as _check_trusted's: linkwise's methods vouch for nothing
    return make_method(resolve_method(spec), {k: _decode(v, vouched) for k, v in params.items()})
