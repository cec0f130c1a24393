"""Active methods for tests: a naive reference method, and every linkwise active estimator made small.

:class:`ClosestPairsFirst` (ask the closest pairs first, COBRA paper, Fig. 1c)
exists only to prove the shared question loop; real methods live in the
package. :func:`active_estimator_classes` finds every concrete
:class:`~linkwise.ActiveEstimator` subclass in linkwise by importing every
module (:func:`checked_classes`: those the contract suite runs), and
:func:`fast_instance` makes one with small, fast parameters.
"""

import functools
import importlib
import inspect
import pkgutil

import numpy as np
from sklearn.metrics import pairwise_distances

import linkwise as lw
from linkwise.loop import ActiveEstimator


class ClosestPairsFirst(ActiveEstimator):
    """Ask every queryable pair in order of increasing distance; clusters are must-link components."""

    anytime = True

    def __init__(self, *, max_queries=None, random_state=None):
        self.max_queries = max_queries
        self.random_state = random_state

    def questions(self, ctx):
        q = ctx.queryable
        d = pairwise_distances(ctx.X[q])
        a, b = np.triu_indices(q.size, k=1)
        for k in np.argsort(d[a, b], kind="stable"):
            yield int(q[a[k]]), int(q[b[k]])
            ctx.labels = ctx.constraints.component_labels()


# Values for constructor parameters that are required or slow by default (a parameter whose default is None,
# such as Auto's n_clusters, means "find it" and is kept).
FAST = {
    "n_clusters": lambda: 3,
    "clusterer": lambda: lw.PCKMeans(n_clusters=3),
    "strategy": lambda: lw.active.MinMax(),
    "algorithms": lambda: ("kmeans",),
    "n_super_instances": lambda: 10,
}
# private classes the contract suite leaves out, each with the reason (none today: every active estimator is checked)
SKIP = {}


@functools.cache
def active_estimator_classes():
    """Every concrete ActiveEstimator subclass defined in linkwise (every module imported)."""
    for module in pkgutil.walk_packages(lw.__path__, "linkwise."):
        if not module.name.endswith(".__main__"):  # running the command line is no import
            importlib.import_module(module.name)  # a module that fails to import fails the suite here
    found, todo = set(), [ActiveEstimator]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("linkwise.") and sub.questions is not ActiveEstimator.questions:
                found.add(sub)
    return sorted(found, key=lambda cls: (cls.__module__, cls.__name__))


def fast_instance(cls):
    """``cls`` with small, fast parameters (see FAST)."""
    params = {}
    for name, parameter in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if name in FAST and parameter.default is not None:
            params[name] = FAST[name]()
        elif parameter.default is parameter.empty:
            raise AssertionError(f"{cls.__name__}({name}=...) is required: add a small value for it to FAST.")
    return cls(**params)


def checked_classes():
    """:func:`active_estimator_classes` but those in SKIP."""
    return [cls for cls in active_estimator_classes() if f"{cls.__module__}.{cls.__qualname__}" not in SKIP]
