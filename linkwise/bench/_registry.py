"""The named methods ``linkwise bench`` can run, with their default parameters.

An entry is a lazy factory: ``make(n_clusters, max_queries, random_state)``
returns a fresh estimator and imports its module only when called, so listing
the registry imports no method. The entries are K-means (the baseline) and the
:class:`~linkwise.methods.Bench` entries of every declared method
(:func:`linkwise.methods.declared`: linkwise's, those of entry points and of
:func:`linkwise.methods.register`), then those given to :func:`register`. How the
harness runs an entry follows from the estimator it makes (see :func:`method_kind`).
"""

import inspect
import os
import tempfile
from dataclasses import dataclass
from functools import partial
from typing import Callable

from linkwise._validation import InvalidParameterError, validate_args
from linkwise.methods import declared, load

__all__ = ["MethodSpec", "candidate_cache", "register", "registry", "get_methods", "method_kind"]


@dataclass(frozen=True)
class MethodSpec:
    """A benchmark method: a name and a factory of estimators.

    Parameters
    ----------
    name : str
        Name used on the command line and in reports.
    make : callable
        ``make(n_clusters, max_queries, random_state) -> estimator``: an
        :class:`~linkwise.ActiveEstimator` (asks the oracle itself), a
        constrained clusterer with ``fit(X, ml=, cl=)`` (given random
        questions about training rows), or a plain clusterer fitted on ``X``
        alone (a baseline). Must be picklable (a module-level function or a
        ``functools.partial`` of one) to run in worker processes.
    needs_k : bool
        Whether the method is given the true number of clusters.
    description : str
        One line: what it is and where it comes from.
    own_questions : bool, default=False
        The method decides how many questions it asks (COBRA): it runs once,
        with ``max_queries=None``, and every other method is also run at the
        number of questions it asked.
    nested : bool, default=False
        The questions an active method asks do not depend on its budget, so
        one run with the largest budget gives the clustering at every smaller
        one (as for anytime methods) instead of one run per budget.
    seed_per_repeat : bool, default=False
        The method's random choices go into unsupervised work on all rows
        (COBS generates its candidate clusterings once per dataset, as in the
        paper): every fold of a repeat gives it the same ``random_state``, so
        that work is done once and cached, not once per fold. The questions
        and the oracle's wrong answers still follow the fold's seed.
    series : bool, default=False
        The estimator takes series of shape (n, length, channels) itself;
        every other method gets each series flattened, channels side by side
        (the same Euclidean distances).

    Examples
    --------
    >>> from functools import lru_cache, partial
    >>> from sklearn.cluster import KMeans
    >>> spec = MethodSpec("kmeans-3", lambda k, b, rs: KMeans(3, random_state=rs), False, "K-means, K=3")
    >>> spec.make(5, 10, 0).n_clusters
    3
    """

    name: str
    make: Callable
    needs_k: bool
    description: str
    own_questions: bool = False
    nested: bool = False
    seed_per_repeat: bool = False
    series: bool = False

    def kind(self):
        """Tell how the harness runs this method.

        Returns
        -------
        str
            ``"own"`` for a method that chooses its own number of questions,
            ``"nested"`` for a budget method whose runs nest, else the kind
            of the estimator it makes (``"anytime"``, ``"budget"``,
            ``"constrained"`` or ``"baseline"``).
        """
        if self.own_questions:
            return "own"
        kind = method_kind(self.make(2, 1, 0))
        return "nested" if kind == "budget" and self.nested else kind


def candidate_cache():
    """Give the folder where COBS and active COBS keep their candidates in a benchmark.

    Returns
    -------
    str
        ``linkwise-bench-candidates`` in the temporary directory: hash-keyed
        files written atomically, shared by every worker and run.

    Examples
    --------
    >>> import os, tempfile
    >>> from linkwise.bench import candidate_cache
    >>> os.path.dirname(candidate_cache()) == tempfile.gettempdir()
    True
    """
    return os.path.join(tempfile.gettempdir(), "linkwise-bench-candidates")


def _method(n_clusters, max_queries, random_state, *, method, k=False, budget=True, cache=False, **params):
    """The estimator of class ``method`` (an import path, or the class) with the cell's settings.

    ``k``: given the true number of clusters; ``budget``: given the budget;
    ``cache``: keeps its candidate clusterings (or series distances) in :func:`candidate_cache`.
    """
    if k:
        params["n_clusters"] = n_clusters
    if budget:
        params["max_queries"] = max_queries
    if cache:
        params["cache"] = candidate_cache()
    return (load(method) if isinstance(method, str) else method)(random_state=random_state, **params)


_BASELINE = MethodSpec("kmeans", partial(_method, method="sklearn.cluster:KMeans", k=True, budget=False, n_init=10),
                       True, "K-means without questions (scikit-learn, n_init=10): the baseline")
_REGISTERED = {}  # the entries given to register, by name


def _spec(method, bench):
    """The MethodSpec of ``bench``, an entry of ``method`` (see :class:`linkwise.methods.Bench`)."""
    make = bench.make or partial(_method, method=method.estimator, k=bench.needs_k, budget=bench.budget,
                                 cache=bench.cache, **bench.params)
    return MethodSpec(bench.name, make, bench.needs_k, bench.description, own_questions=bench.own_questions,
                      nested=bench.nested, seed_per_repeat=bench.seed_per_repeat, series=bench.series)


def _entries():
    """Every entry by name: the baseline, the declared methods' entries, then the registered ones."""
    entries = {_BASELINE.name: _BASELINE}
    for method in declared():
        for bench in method.bench:
            if bench.name in entries:  # only a method of another package can take the baseline's name
                raise InvalidParameterError(f"The benchmark entry {bench.name!r} of {method.path} is taken by "
                                            f"{entries[bench.name].description}; declare it under another name.")
            entries[bench.name] = _spec(method, bench)
    return {**entries, **_REGISTERED}


def registry():
    """List every registered method.

    Returns
    -------
    dict of str to MethodSpec
        The methods by name; a copy, so changing it changes nothing.

    Examples
    --------
    >>> from linkwise.bench import registry
    >>> registry()["cobras"].needs_k
    False
    """
    return _entries()


@validate_args({"spec": [MethodSpec]})
def register(spec, *, replace=False):
    """Add a method to the registry (for the library API and this process only).

    Parameters
    ----------
    spec : MethodSpec
        The method, registered under ``spec.name``.
    replace : bool, default=False
        Allow replacing an entry of the same name.

    Examples
    --------
    >>> def ward(k, budget, seed):  # the import inside: the entry outlives this example's namespace
    ...     from sklearn.cluster import AgglomerativeClustering
    ...     return AgglomerativeClustering(n_clusters=k)
    >>> register(MethodSpec("ward", ward, True, "Ward linkage, no questions"), replace=True)
    >>> "ward" in registry()
    True
    """
    if spec.name in _entries() and not replace:
        raise InvalidParameterError(
            f"A method named {spec.name!r} is already registered; pass replace=True to replace it."
        )
    _REGISTERED[spec.name] = spec


def get_methods(names=None):
    """The specs for ``names`` (None: every registered method), in the order given.

    Names may also be :class:`MethodSpec` objects, which are used as they are.
    """
    entries = _entries()
    if names is None:
        return list(entries.values())
    if isinstance(names, (str, MethodSpec)):
        names = [names]
    specs = []
    for name in names:
        if isinstance(name, MethodSpec):
            specs.append(name)
        elif name in entries:
            specs.append(entries[name])
        else:
            raise InvalidParameterError(
                f"Unknown method {name!r}. Registered: {', '.join(entries)} (see `linkwise bench --list`)."
            )
    if len({s.name for s in specs}) != len(specs):
        raise InvalidParameterError("The 'methods' argument names a method twice.")
    return specs


def method_kind(estimator):
    """How the harness runs an estimator that does not choose its own number of questions.

    Returns
    -------
    kind : {"anytime", "budget", "constrained", "baseline"}
        ``"anytime"``: an active estimator whose one run with the largest
        budget gives the whole curve; ``"budget"``: an active estimator run
        once per budget; ``"constrained"``: a constrained clusterer fitted on
        the answers to random questions about training rows, per budget;
        ``"baseline"``: a plain clusterer fitted on ``X`` alone.

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> import linkwise as lw
    >>> method_kind(KMeans(3)), method_kind(lw.PCKMeans(n_clusters=3))
    ('baseline', 'constrained')
    """
    from linkwise.loop import ActiveEstimator

    if isinstance(estimator, ActiveEstimator):
        return "anytime" if estimator.anytime else "budget"
    if "ml" in inspect.signature(estimator.fit).parameters:
        return "constrained"
    return "baseline"
