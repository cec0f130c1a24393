"""The active methods by short name: one table for ``linkwise cluster --method`` and ``linkwise bench``.

A name stands for the import path (``module:Class``) of its estimator, imported
only when used; :data:`PARAMS` holds the settings a name adds (``cobras-dtw``).
Session files store these names, and the benchmark's entries
(:func:`linkwise.bench.registry`) build their estimators from them.
"""

import importlib

__all__ = ["METHODS", "PARAMS", "load"]

METHODS = {
    "auto": "linkwise.auto:Auto",
    "cobras": "linkwise.cobra:COBRAS",
    "cobras-dtw": "linkwise.cobra:COBRAS",
    "cobras-kshape": "linkwise.cobra:COBRAS",
    "cobra": "linkwise.cobra:COBRA",
    "robust-cobras": "linkwise.cobra:NoiseRobustCOBRAS",
    "cobs": "linkwise.cobs:ActiveCOBS",
    "bayes": "linkwise.bayes:BayesianActiveClustering",
}

# names that stand for their class with other settings than its defaults: COBRAS-TS (Van Craenendonck et al.,
# Discovery Science 2018) splits super-instances on DTW or k-Shape instead of K-means
PARAMS = {"cobras-dtw": {"metric": "dtw", "window": 0.1}, "cobras-kshape": {"metric": "kshape"}}


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
