"""Naming an active method and storing its parameters in a session file.

A session file must rebuild exactly the estimator that asked the questions, so
a method is stored as a spec (a short name such as ``cobras`` or an import path
``module:Class``) plus its ``get_params()`` as JSON. Nested estimators (a
clusterer inside ``ActiveClustering``) are stored the same way, recursively.
"""

import importlib
import json
import numbers

import numpy as np

from linkwise._validation import InvalidParameterError
from linkwise.loop import ActiveEstimator

__all__ = ["METHODS", "resolve_method", "encode_params", "build_estimator", "method_spec", "canonical"]

# short names accepted by --method; any other ActiveEstimator is named "module:Class"
METHODS = {
    "cobras": "linkwise.cobra:COBRAS",
    "cobra": "linkwise.cobra:COBRA",
    "robust-cobras": "linkwise.robust:NoiseRobustCOBRAS",
    "cobs": "linkwise.cobs:ActiveCOBS",
    "bayes": "linkwise.bayes:BayesianActiveClustering",
}

_ESTIMATOR_KEY = "__estimator__"


def _import(spec, base, what):
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise InvalidParameterError(
            f"The {what} {spec!r} is neither a known name ({', '.join(sorted(METHODS))}) "
            "nor an import path of the form 'module:Class'."
        )
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise InvalidParameterError(f"The {what} {spec!r} cannot be imported: {exc}.") from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise InvalidParameterError(f"The {what} {spec!r} is not a subclass of {base.__name__}.")
    return cls


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
    return _import(METHODS.get(spec.lower(), spec), ActiveEstimator, "method")


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
        module, attr = spec.split(":")
        if attr == cls.__name__ and getattr(importlib.import_module(module), attr, None) is cls:
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
        cls = type(value)
        return {
            _ESTIMATOR_KEY: f"{cls.__module__}:{cls.__qualname__}",
            "params": {k: _encode(v, f"{name}.{k}", owner) for k, v in value.get_params(deep=False).items()},
        }
    raise InvalidParameterError(
        f"The '{name}' parameter of {owner} is {value!r}; a session file stores only numbers, "
        "strings, lists, dicts and estimators. Pass a plain value (an int seed for random_state)."
    )


def encode_params(estimator):
    """``estimator.get_params(deep=False)`` as a JSON-compatible dict.

    Examples
    --------
    >>> import linkwise as lw
    >>> encode_params(lw.COBRAS(max_queries=5, random_state=0))
    {'max_queries': 5, 'random_state': 0}
    """
    owner = type(estimator).__name__
    return {k: _encode(v, k, owner) for k, v in estimator.get_params(deep=False).items()}


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if _ESTIMATOR_KEY in value:
            from sklearn.base import BaseEstimator

            cls = _import(value[_ESTIMATOR_KEY], BaseEstimator, "stored estimator")
            return cls(**{k: _decode(v) for k, v in value["params"].items()})
        return {k: _decode(v) for k, v in value.items()}
    return value


def build_estimator(spec, params):
    """Rebuild the estimator a session file describes (``params`` from :func:`encode_params`)."""
    return resolve_method(spec)(**{k: _decode(v) for k, v in params.items()})


def canonical(params):
    """A stable text form of encoded parameters, for comparing two sessions' methods."""
    return json.dumps(params, sort_keys=True)
