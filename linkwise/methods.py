"""Every method, declared once: its class, its short names, its benchmark entries and what its saved models hold.

A :class:`Method` is the one declaration of an estimator; everything that
lists methods derives from the declarations: ``linkwise cluster --method``
and session files (the short names, :data:`METHODS` and :data:`PARAMS`),
the benchmark (:func:`linkwise.bench.registry` builds an entry from each
:class:`Bench`), saved models (:data:`linkwise.persist.TRUSTED`: the class
and its ``parts``) and the estimators of ``import linkwise as lw``
(``lw.COBRAS``, loaded on first use). A class is named by its import path
(``"linkwise.cobra:COBRAS"``) and imported only when used, so listing the
methods imports none.

A method of another package is declared the same way and gets the same:
:func:`register` adds it in this process, and an installed distribution
declares it for every process with an entry point in the group
``linkwise.methods`` whose object is its :class:`Method`, loaded the first time
methods are listed (``import linkwise`` reads no entry point)::

    [project.entry-points."linkwise.methods"]
    farthest = "mypackage.linkwise_methods:FARTHEST"

Examples
--------
>>> from linkwise.methods import METHODS, PARAMS, load
>>> METHODS["cobras"], PARAMS["cobras-dtw"]
('linkwise.cobra:COBRAS', {'metric': 'dtw', 'window': 0.1})
>>> load("cobras").__name__
'COBRAS'
"""

import importlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Callable, Optional, Union

__all__ = ["BUILTIN", "Bench", "ENTRY_POINT_GROUP", "METHODS", "Method", "PARAMS", "declared", "load", "register"]

ENTRY_POINT_GROUP = "linkwise.methods"
# a short name: what --method takes (case-insensitively, so lowercase) and a session file stores; ":" marks an
# import path instead
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


@dataclass(frozen=True)
class Bench:
    """One entry of the benchmark (``linkwise bench --methods NAME``): a method with its benchmark settings.

    Parameters
    ----------
    name : str
        The entry's name in ``linkwise bench`` and its reports.
    description : str
        One line: what it is and where it comes from.
    needs_k : bool, default=False
        The method is given the true number of clusters (``n_clusters``).
    params : dict, optional
        Parameters set beyond ``random_state`` and the cell's ``max_queries`` / ``n_clusters``.
    budget : bool, default=True
        The method is given the budget (``max_queries``); False for one that
        asks as many questions as it needs, or none.
    cache : bool, default=False
        The method keeps its candidate clusterings or series distances in
        :func:`linkwise.bench.candidate_cache` (its ``cache`` parameter).
    own_questions, nested, seed_per_repeat, series : bool, default=False
        How the harness runs it (see :class:`linkwise.bench.MethodSpec`).
    make : callable, optional
        For an entry the settings above do not describe (an
        :class:`~linkwise.ActiveClustering` built of a clusterer and a
        strategy): a picklable ``make(n_clusters, max_queries, random_state)``
        returning the estimator.
    """

    name: str
    description: str
    needs_k: bool = False
    params: Mapping = field(default_factory=dict)
    budget: bool = True
    cache: bool = False
    own_questions: bool = False
    nested: bool = False
    seed_per_repeat: bool = False
    series: bool = False
    make: Optional[Callable] = None


@dataclass(frozen=True, eq=False)  # a declaration is itself: compared and hashed by identity
class Method:
    """The one declaration of a method.

    Parameters
    ----------
    estimator : str or type
        The estimator class, or its import path ``"module:Class"`` (imported
        when first used). A registered method is an
        :class:`~linkwise.ActiveEstimator`.
    names : tuple of str, default=()
        Its short names for ``linkwise cluster --method`` and session files
        (lowercase); none for a method that is not run by name.
    settings : dict, optional
        For a short name that stands for the class with other parameters than
        its defaults, those parameters: ``{"cobras-dtw": {"metric": "dtw", ...}}``.
    bench : tuple of Bench, default=()
        Its entries in the benchmark.
    parts : tuple of str or type, default=()
        The other types a fitted estimator of it holds, which a saved model
        (``.skops``) may contain: classes, their import paths
        ``"module:Class"``, or the dotted paths skops records
        (``"package._module.Class"``, where the class is defined; also an old
        place it is still importable from, for models saved there).

    Examples
    --------
    >>> from linkwise.methods import Bench, Method
    >>> method = Method("linkwise.cobra:COBRAS", names=("cobras",), bench=(Bench("cobras", "COBRAS"),))
    >>> method.path, method.load().__name__
    ('linkwise.cobra:COBRAS', 'COBRAS')
    """

    estimator: Union[str, type]
    names: tuple = ()
    settings: Mapping = field(default_factory=dict)
    bench: tuple = ()
    parts: tuple = ()

    @property
    def path(self):
        """The class's import path, ``"module:Class"``."""
        cls = self.estimator
        return cls if isinstance(cls, str) else f"{cls.__module__}:{cls.__qualname__}"

    def load(self):
        """Import the class.

        Returns
        -------
        type
            The estimator class.
        """
        return _import(self.estimator) if isinstance(self.estimator, str) else self.estimator

    def trusted(self):
        """List the dotted paths of the types a saved model of this method may hold.

        Returns
        -------
        set of str
            The class and its ``parts``, as skops records them.
        """
        return {_dotted(t) for t in (self.estimator, *self.parts)}


def _import(path):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _dotted(t):
    """The dotted path skops records for a type given as a class, ``"module:Class"`` (imported: where the class is
    defined) or ``"module.Class"`` (as it is)."""
    if isinstance(t, str) and ":" not in t:
        return t
    cls = _import(t) if isinstance(t, str) else t
    return f"{cls.__module__}.{cls.__qualname__}"


def _active(n_clusters, max_queries, random_state, *, clusterer, strategy):
    """The benchmark's ActiveClustering of ``clusterer`` (given the true K) and ``strategy``, by their names."""
    from linkwise.active import ActiveClustering

    params = {"on_infeasible": "relax"} if clusterer == "COPKMeans" else {}  # breaks the fewest cannot-links
    return ActiveClustering(clusterer=_import(f"linkwise.cluster:{clusterer}")(n_clusters=n_clusters, **params),
                            strategy=_import(f"linkwise.active:{strategy}")(), max_queries=max_queries,
                            random_state=random_state)


def _combo(clusterer, strategy, name=None):
    """The benchmark entry of ActiveClustering with ``clusterer`` and ``strategy`` (named ``clusterer-strategy``
    in short unless ``name`` is given)."""
    short, paper = _STRATEGIES[strategy]
    return Bench(name or f"{clusterer.lower()}-{short}", f"{_CLUSTERERS[clusterer]} with {paper}", needs_k=True,
                 nested=True, make=partial(_active, clusterer=clusterer, strategy=strategy))


# COBRAS-TS (Van Craenendonck et al., Discovery Science 2018) splits super-instances on DTW or k-Shape, not K-means
_DTW, _KSHAPE = {"metric": "dtw", "window": 0.1}, {"metric": "kshape"}
_COBS_PAPER = "(Van Craenendonck & Blockeel, Machine Learning 2017)"
_STRATEGIES = {
    "Random": ("random", "random pairs of training rows"),
    "ExploreConsolidate": ("explore", "Explore & Consolidate (Basu et al., SDM 2004)"),
    "MinMax": ("minmax", "MinMax (Mallapragada et al., ICPR 2008)"),
    "NPU": ("npu", "NPU (Xiong et al., IEEE TKDE 2014)"),
    "Committee": ("committee", "selection by committee (Greene & Cunningham, ECML 2007)"),
}
_CLUSTERERS = {
    "COPKMeans": "COP-KMeans (Wagstaff et al., ICML 2001; on_infeasible='relax')",
    "PCKMeans": "PCKMeans (Basu et al., SDM 2004)",
    "MPCKMeans": "MPCKMeans (Bilenko et al., ICML 2004)",
}
_COMBOS = [("COPKMeans", "Random"), ("PCKMeans", "Random"), ("MPCKMeans", "Random"), ("PCKMeans", "ExploreConsolidate"),
           ("PCKMeans", "MinMax"), ("PCKMeans", "NPU"), ("MPCKMeans", "ExploreConsolidate"), ("MPCKMeans", "MinMax"),
           ("MPCKMeans", "NPU")]
_AUTO = ("Auto: Bayesian selection among unsupervised clusterings with committee questions, then COBRAS refinement "
         "(linkwise's default; COBS + COBRAS, Van Craenendonck et al. 2017, 2018)")
_TREE = ("linkwise.cobra._superinstances.SuperInstanceTree", "linkwise.cobra._superinstances.LabelsHistory")
# the scaler of the Bayesian model's inputs, also where models saved before it moved to _inputs name it
_MAGNITUDE = ("linkwise.bayes._inputs._ColumnMagnitude", "linkwise.bayes._estimators._ColumnMagnitude")

# linkwise's methods, in the order they are listed (the benchmark's entries, --method's names)
BUILTIN = (
    Method("linkwise.cobra:COBRA", names=("cobra",), bench=tuple(
        Bench(f"cobra-{n}", f"COBRA with {n} super-instances; asks as many questions as it needs "
              "(Van Craenendonck et al., IJCAI 2017)", params={"n_super_instances": n}, budget=False,
              own_questions=True) for n in (25, 50, 100))),
    Method("linkwise.cobra:COBRAS", names=("cobras", "cobras-dtw", "cobras-kshape"),
           settings={"cobras-dtw": _DTW, "cobras-kshape": _KSHAPE}, parts=_TREE, bench=(
               Bench("cobras", "COBRAS, anytime super-instance refinement (Van Craenendonck et al., IDA 2018)"),
               Bench("cobras-dtw", "COBRAS-TS: COBRAS splitting super-instances with spectral clustering on a DTW "
                     "affinity (window: 10 % of the length) (Van Craenendonck et al., DS 2018)", params=_DTW,
                     cache=True, series=True),
               Bench("cobras-kshape", "COBRAS-TS: COBRAS splitting super-instances with k-Shape (Paparrizos & "
                     "Gravano, SIGMOD 2015) (Van Craenendonck et al., DS 2018)", params=_KSHAPE, cache=True,
                     series=True))),
    Method("linkwise.cobra:NoiseRobustCOBRAS", names=("robust-cobras",), bench=(
        Bench("cobras-robust", "COBRAS that detects and repairs wrong answers (Van Craenendonck et al., IDA 2018; "
              "repair: linkwise.cobra); for runs with --noise"),)),
    Method("linkwise.active:ActiveClustering", parts=tuple(f"linkwise.active:{s}" for s in _STRATEGIES), bench=(
        *(_combo(clusterer, strategy) for clusterer, strategy in _COMBOS),
        _combo("PCKMeans", "Committee", "committee"))),
    Method("linkwise.cobs:COBS", bench=(
        Bench("cobs", "COBS: picks among ~900 unsupervised clusterings the one that satisfies most random questions "
              f"{_COBS_PAPER}", budget=False, cache=True, seed_per_repeat=True),)),
    Method("linkwise.cobs:ActiveCOBS", names=("cobs",), parts=("linkwise.cobs:Candidates",), bench=(
        Bench("active-cobs", f"COBS with active pair selection {_COBS_PAPER}", cache=True, seed_per_repeat=True),)),
    Method("linkwise.bayes:BayesianActiveClustering", names=("bayes",),
           parts=("linkwise.bayes:ModelInputs", *_MAGNITUDE), bench=tuple(
               Bench(f"bac-{criterion}", f"Bayesian active clustering, {criterion} pair selection (Pei, Liu & Fern, "
                     "ECML PKDD 2015)", needs_k=True, params={"criterion": criterion})
               for criterion in ("info", "uncertain"))),
    Method("linkwise.auto:Auto", names=("auto",), bench=tuple(
        Bench("auto" + ("-k" if k else ""), _AUTO + (", given the true K" if k else ""), needs_k=k, cache=True,
              seed_per_repeat=True) for k in (False, True))),
    Method("linkwise.bayes:BayesianClustering"),
    *(Method(f"linkwise.cluster:{name}") for name in ("SeededKMeans", "ConstrainedKMeans", "COPKMeans", "PCKMeans",
                                                       "MKMeans")),
    Method("linkwise.cluster:MPCKMeans", parts=("linkwise.cluster._mpckmeans._Metrics",)),
)

_REGISTERED = {}  # short name or benchmark name -> Method, of register calls


def _names(method):
    return (*method.names, *(b.name for b in method.bench))


def _checked(method, where, others):
    """``method``, if it is a valid declaration of a method of another package whose names no method of ``others``
    has; else one line naming ``where`` it came from and what is wrong."""
    from linkwise._validation import InvalidParameterError
    from linkwise.loop import ActiveEstimator

    if not isinstance(method, Method):
        raise InvalidParameterError(f"{where} must be a linkwise.methods.Method, got {type(method).__name__}.")
    try:
        cls = method.load()
    except (ImportError, AttributeError) as error:
        raise InvalidParameterError(f"{where}: the class {method.path!r} cannot be imported ({error}).") from None
    if not (isinstance(cls, type) and issubclass(cls, ActiveEstimator)):
        raise InvalidParameterError(f"{where}: {method.path} is not a subclass of linkwise.ActiveEstimator; a method "
                                    "asks its questions through its protocol (see 'Write your own active method').")
    if bad := [name for name in _names(method) if not (isinstance(name, str) and _NAME.fullmatch(name))]:
        raise InvalidParameterError(f"{where}: the name {bad[0]!r} of {method.path} must be lowercase letters, digits, "
                                    "'-', '_' or '.', beginning with a letter or digit.")
    owners = {name: other for other in others if other is not method for name in _names(other)}
    if taken := [name for name in _names(method) if name in owners]:
        raise InvalidParameterError(f"{where}: the name {taken[0]!r} of {method.path} is taken by "
                                    f"{owners[taken[0]].path}; declare the method under another name.")
    return method


@lru_cache(maxsize=None)
def _entry_point_methods(path):
    """The methods the installed distributions declare in :data:`ENTRY_POINT_GROUP`, read once per ``sys.path``
    (``path``, its copy as a tuple)."""
    import importlib.metadata

    found = []
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        where = f"The entry point {point.name} = {point.value} of group {ENTRY_POINT_GROUP}"
        try:
            method = point.load()
        except Exception as error:  # the package's own code: whatever it raises, named here in one line
            from linkwise._validation import InvalidParameterError  # scikit-learn's: imported only then

            raise InvalidParameterError(f"{where} cannot be loaded ({type(error).__name__}: {error}).") from None
        found.append(_checked(method, where, [*BUILTIN, *found, *_REGISTERED.values()]))
    return tuple(found)


def declared(*, entry_points=True):
    """List every declared method: linkwise's, those of entry points, and those registered in this process.

    Parameters
    ----------
    entry_points : bool, default=True
        Include the methods the installed distributions declare (read the
        first time, and again when ``sys.path`` changes).

    Returns
    -------
    list of Method
        In the order they are listed (linkwise's first).

    Raises
    ------
    InvalidParameterError
        An entry point cannot be loaded, is not a :class:`Method` of an
        active estimator, or takes a name already taken.

    Examples
    --------
    >>> from linkwise.methods import declared
    >>> [m.path for m in declared()][:2]
    ['linkwise.cobra:COBRA', 'linkwise.cobra:COBRAS']
    """
    plugins = _entry_point_methods(tuple(sys.path)) if entry_points else ()
    return [*BUILTIN, *plugins, *dict.fromkeys(_REGISTERED.values())]


def register(method):
    """Declare a method of another package in this process: it gets ``--method``, the benchmark and saved models.

    Parameters
    ----------
    method : Method
        Its declaration: an :class:`~linkwise.ActiveEstimator` class, its
        short names, benchmark entries and parts.

    Raises
    ------
    InvalidParameterError
        ``method`` is not a :class:`Method`, its class is not an active
        estimator, or one of its names is taken.

    Examples
    --------
    >>> import linkwise as lw
    >>> from linkwise.methods import Bench, Method, METHODS, register
    >>> class FirstRow(lw.ActiveEstimator):  # asks whether each row goes with row 0
    ...     def __init__(self, max_queries=None, random_state=None):
    ...         self.max_queries, self.random_state = max_queries, random_state
    ...     def questions(self, ctx):
    ...         for j in range(1, ctx.n_samples):
    ...             ctx.labels[j] = 0 if (yield (0, j)) else 1
    >>> register(Method(FirstRow, names=("first-row",), bench=(Bench("first-row", "with row 0 or not"),)))
    >>> METHODS["first-row"].endswith(":FirstRow")
    True
    >>> register(Method(FirstRow, names=("cobras",)))
    Traceback (most recent call last):
    ...
    linkwise.exceptions.InvalidParameterError: register: the name 'cobras' of ... is taken by linkwise.cobra:COBRAS; ...
    """
    _checked(method, "register", declared())
    _REGISTERED.update(dict.fromkeys(_names(method), method))


class _Names(Mapping):
    """A read-only view of the declared short names: ``value(method, name)`` for each (see :data:`METHODS`)."""

    def __init__(self, value):
        self._value = value

    def _items(self):
        return {name: v for method in declared() for name in method.names
                if (v := self._value(method, name)) is not None}

    def __getitem__(self, name):
        return self._items()[name]

    def __iter__(self):
        return iter(self._items())

    def __len__(self):
        return len(self._items())

    def __repr__(self):
        return repr(self._items())


# short name -> "module:Class" of its estimator, of every declared method: the names --method takes
METHODS = _Names(lambda method, name: method.path)
# short name -> the parameters it sets beyond its class's defaults, for the names that set some
PARAMS = _Names(lambda method, name: dict(method.settings[name]) if name in method.settings else None)


def load(spec):
    """The object a short name of :data:`METHODS`, or an import path ``module:attr``, stands for.

    Parameters
    ----------
    spec : str
        A short name (``"cobras"``) or an import path.

    Returns
    -------
    object
        The class (or any attribute the import path names); the class of a
        declared method even where its path cannot be imported (a class
        registered from ``__main__``).

    Examples
    --------
    >>> from linkwise.methods import load
    >>> load("cobras").__name__, load("sklearn.cluster:KMeans").__name__
    ('COBRAS', 'KMeans')
    """
    method = next((m for m in declared() if spec in m.names or spec == m.path), None)
    return _import(spec) if method is None else method.load()
