"""The named methods ``linkwise bench`` can run, with their default parameters.

An entry is a lazy factory: ``make(n_clusters, max_queries, random_state)``
returns a fresh estimator and imports its module only when called, so listing
the registry imports no method. The active methods come from the one table of
:mod:`linkwise.methods` (``"cobras"`` there is ``linkwise.cobra:COBRAS``;
``"cobs"`` there is ActiveCOBS, the benchmark's ``active-cobs``). How the
harness runs an entry follows from the estimator it makes (see :func:`method_kind`).
"""

import inspect
import os
import tempfile
from dataclasses import dataclass
from functools import partial
from typing import Callable

from linkwise._validation import InvalidParameterError
from linkwise.methods import PARAMS, load

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
    """The estimator ``method`` names (see :func:`linkwise.methods.load`) with the cell's settings.

    ``k``: given the true number of clusters; ``budget``: given the budget;
    ``cache``: keeps its candidate clusterings (or series distances) in :func:`candidate_cache`.
    """
    if k:
        params["n_clusters"] = n_clusters
    if budget:
        params["max_queries"] = max_queries
    if cache:
        params["cache"] = candidate_cache()
    return load(method)(random_state=random_state, **PARAMS.get(method, {}), **params)


# COP-KMeans stops when a point fits no cluster; relaxed, it breaks the fewest cannot-links instead
_CLUSTERER_PARAMS = {"COPKMeans": {"on_infeasible": "relax"}}


def _active(n_clusters, max_queries, random_state, *, clusterer, strategy):
    params = _CLUSTERER_PARAMS.get(clusterer, {})
    return load("linkwise.active:ActiveClustering")(
        clusterer=load(f"linkwise.cluster:{clusterer}")(n_clusters=n_clusters, **params),
        strategy=load(f"linkwise.active:{strategy}")(),
        max_queries=max_queries,
        random_state=random_state,
    )


_PAPERS = {
    "Random": "random pairs of training rows",
    "ExploreConsolidate": "Explore & Consolidate (Basu et al., SDM 2004)",
    "MinMax": "MinMax (Mallapragada et al., ICPR 2008)",
    "NPU": "NPU (Xiong et al., IEEE TKDE 2014)",
    "Committee": "selection by committee (Greene & Cunningham, ECML 2007)",
}
_CLUSTERERS = {
    "COPKMeans": "COP-KMeans (Wagstaff et al., ICML 2001; on_infeasible='relax')",
    "PCKMeans": "PCKMeans (Basu et al., SDM 2004)",
    "MPCKMeans": "MPCKMeans (Bilenko et al., ICML 2004)",
}
_SHORT = {"Random": "random", "ExploreConsolidate": "explore", "MinMax": "minmax", "NPU": "npu"}


def _defaults():
    specs = [
        MethodSpec(
            "kmeans",
            partial(_method, method="sklearn.cluster:KMeans", k=True, budget=False, n_init=10),
            True,
            "K-means without questions (scikit-learn, n_init=10): the baseline",
        ),
    ]
    specs += [
        MethodSpec(
            f"cobra-{n}",
            partial(_method, method="cobra", budget=False, n_super_instances=n),
            False,
            f"COBRA with {n} super-instances; asks as many questions as it needs "
            "(Van Craenendonck et al., IJCAI 2017)",
            own_questions=True,
        )
        for n in (25, 50, 100)
    ]
    specs.append(
        MethodSpec(
            "cobras",
            partial(_method, method="cobras"),
            False,
            "COBRAS, anytime super-instance refinement (Van Craenendonck et al., IDA 2018)",
        )
    )
    specs += [
        MethodSpec(
            name,
            partial(_method, method=name, cache=True),
            False,
            f"COBRAS-TS: COBRAS splitting super-instances with {how} (Van Craenendonck et al., DS 2018)",
            series=True,
        )
        for name, how in (("cobras-dtw", "spectral clustering on a DTW affinity (window: 10 % of the length)"),
                          ("cobras-kshape", "k-Shape (Paparrizos & Gravano, SIGMOD 2015)"))
    ]
    specs.append(
        MethodSpec(
            "cobras-robust",
            partial(_method, method="robust-cobras"),
            False,
            "COBRAS that detects and repairs wrong answers (Van Craenendonck et al., IDA 2018; "
            "repair: linkwise.cobra); for runs with --noise",
        )
    )
    combos = [
        ("COPKMeans", "Random"),
        ("PCKMeans", "Random"),
        ("MPCKMeans", "Random"),
        ("PCKMeans", "ExploreConsolidate"),
        ("PCKMeans", "MinMax"),
        ("PCKMeans", "NPU"),
        ("MPCKMeans", "ExploreConsolidate"),
        ("MPCKMeans", "MinMax"),
        ("MPCKMeans", "NPU"),
    ]
    specs += [
        MethodSpec(
            f"{clusterer.lower()}-{_SHORT[strategy]}",
            partial(_active, clusterer=clusterer, strategy=strategy),
            True,
            f"{_CLUSTERERS[clusterer]} with {_PAPERS[strategy]}",
            nested=True,
        )
        for clusterer, strategy in combos
    ]
    specs += [
        MethodSpec(
            "committee",
            partial(_active, clusterer="PCKMeans", strategy="Committee"),
            True,
            f"{_CLUSTERERS['PCKMeans']} with {_PAPERS['Committee']}",
            nested=True,
        ),
        MethodSpec(
            "cobs",
            partial(_method, method="linkwise.cobs:COBS", budget=False, cache=True),
            False,
            "COBS: picks among ~900 unsupervised clusterings the one that satisfies most random questions "
            "(Van Craenendonck & Blockeel, Machine Learning 2017)",
            seed_per_repeat=True,
        ),
        MethodSpec(
            "active-cobs",
            partial(_method, method="cobs", cache=True),
            False,
            "COBS with active pair selection (Van Craenendonck & Blockeel, Machine Learning 2017)",
            seed_per_repeat=True,
        ),
    ]
    specs += [
        MethodSpec(
            f"bac-{criterion}",
            partial(_method, method="bayes", k=True, criterion=criterion),
            True,
            f"Bayesian active clustering, {criterion} pair selection (Pei, Liu & Fern, ECML PKDD 2015)",
        )
        for criterion in ("info", "uncertain")
    ]
    specs += [
        MethodSpec(
            "auto" + ("-k" if k else ""),
            partial(_method, method="auto", k=k, cache=True),
            k,
            "Auto: Bayesian selection among unsupervised clusterings with committee questions, then COBRAS "
            "refinement (linkwise's default; COBS + COBRAS, Van Craenendonck et al. 2017, 2018)"
            + (", given the true K" if k else ""),
            seed_per_repeat=True,
        )
        for k in (False, True)
    ]
    return {spec.name: spec for spec in specs}


_REGISTRY = _defaults()


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
    return dict(_REGISTRY)


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
    if not isinstance(spec, MethodSpec):
        raise InvalidParameterError(f"The 'spec' argument of register must be a MethodSpec, got {type(spec).__name__}.")
    if spec.name in _REGISTRY and not replace:
        raise InvalidParameterError(
            f"A method named {spec.name!r} is already registered; pass replace=True to replace it."
        )
    _REGISTRY[spec.name] = spec


def get_methods(names=None):
    """The specs for ``names`` (None: every registered method), in the order given.

    Names may also be :class:`MethodSpec` objects, which are used as they are.
    """
    if names is None:
        return list(_REGISTRY.values())
    if isinstance(names, (str, MethodSpec)):
        names = [names]
    specs = []
    for name in names:
        if isinstance(name, MethodSpec):
            specs.append(name)
        elif name in _REGISTRY:
            specs.append(_REGISTRY[name])
        else:
            raise InvalidParameterError(
                f"Unknown method {name!r}. Registered: {', '.join(_REGISTRY)} (see `linkwise bench --list`)."
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
