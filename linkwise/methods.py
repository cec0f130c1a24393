"""The active methods by short name: one table for ``linkwise cluster --method`` and ``linkwise bench``.

A name stands for the import path (``module:Class``) of its estimator, imported
only when used. Session files store these names, and the benchmark's entries
(:func:`linkwise.bench.registry`) build their estimators from them.
"""

import importlib

__all__ = ["METHODS", "load"]

METHODS = {
    "auto": "linkwise.auto:Auto",
    "cobras": "linkwise.cobra:COBRAS",
    "cobra": "linkwise.cobra:COBRA",
    "robust-cobras": "linkwise.cobra:NoiseRobustCOBRAS",
    "cobs": "linkwise.cobs:ActiveCOBS",
    "bayes": "linkwise.bayes:BayesianActiveClustering",
}


def load(spec):
    """The object a name of :data:`METHODS`, or an import path ``module:attr``, stands for.

    Examples
    --------
    >>> from linkwise.methods import load
    >>> load("cobras").__name__, load("sklearn.cluster:KMeans").__name__
    ('COBRAS', 'KMeans')
    """
    module, _, attr = METHODS.get(spec, spec).partition(":")
    return getattr(importlib.import_module(module), attr)
