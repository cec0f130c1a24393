"""The import structure: every arrow downhill (LEVELS), no circle among linkwise's modules, no private reach across
packages.

Read from the source with ``ast`` (every ``import`` statement, also inside
functions, where an import hidden to dodge a circle would sit); the lazy
``importlib`` maps of the ``__init__`` modules are not imports of this kind.
Private reach is refused for imports and for attributes (``x._name``) alike.
"""

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# private top-level modules meant for every package: argument checks, the guard of optional imports, and the
# assembly of docstrings from shared parts
SHARED_PRIVATE = {"linkwise._validation", "linkwise._extras", "linkwise._docstrings"}
# the packages of active methods: none depends on another
METHOD_PACKAGES = {"linkwise.active", "linkwise.bayes", "linkwise.cobra", "linkwise.cobs"}
# what the methods share sits beside the loop, below every method package
SHARED_PARTS = {"linkwise.loop", "linkwise.committee", "linkwise.repair"}
# private names of scikit-learn's estimator protocol, which every estimator defines and its checks read
SKLEARN_PROTOCOL = {"_parameter_constraints"}
# Every package (see _unit) on one level, from the bottom up: a module imports only from its own level or below, so
# the core (up to the methods) never imports the session, the bench or the command line
LEVELS = [
    {"linkwise.exceptions"},
    {"linkwise._validation", "linkwise._extras", "linkwise._docstrings", "linkwise.resume"},  # shared by all
    {"linkwise.graph", "linkwise.series", "linkwise.images"},  # pairs, series, images as data
    # what the loop builds on: the answers, the oracles, scores, predict's rules, data (shipped, and tables as data),
    # the constrained clusterers, stability
    {"linkwise.constraints", "linkwise.oracle", "linkwise.metrics", "linkwise.prediction", "linkwise.datasets",
     "linkwise.intake", "linkwise.cluster", "linkwise.ensemble", "linkwise.stability"},
    {"linkwise.loop"},
    SHARED_PARTS - {"linkwise.loop"} | {"linkwise.estimator_checks"},  # beside the loop, below every method
    METHOD_PACKAGES,
    {"linkwise.auto"},  # the default, built of the methods
    {"linkwise.methods", "linkwise", "linkwise.persist"},  # every method declared once; public names; saved models
    {"linkwise.session", "linkwise.bench"},  # the extras: a person's session, the benchmark
    {"linkwise.cli", "linkwise.__main__"},
    {"benchmarks"},
]


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources():
    files = sorted((ROOT / "linkwise").rglob("*.py")) + sorted((ROOT / "benchmarks").glob("*.py"))
    return {_module_name(path): path for path in files}


MODULES = _sources()


def _imports(name):
    """(module imported, names taken from it) for every import statement of module ``name``."""
    tree = ast.parse(MODULES[name].read_text())
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(filter(None, [base, node.module]))
            yield module, tuple(alias.name for alias in node.names)


def _targets(module, names):
    """The linkwise modules an import statement runs: the module, or the submodules it names."""
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return subs if subs and len(subs) == len(names) else [module, *subs]


def _unit(module):
    """Who may use a private name of ``module``: its subpackage (``linkwise.bench``), or the top-level module itself."""
    return ".".join(module.split(".")[:2])


def _private(part):
    return part.startswith("_") and not part.startswith("__")


@pytest.mark.slow
def test_no_import_cycle():
    graph = {
        name: {t for module, names in _imports(name) for t in _targets(module, names) if t in MODULES and t != name}
        for name in MODULES
    }
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


def _level(unit):
    return next(k for k, units in enumerate(LEVELS) if unit in units)


def _here(name):
    return _unit(name) if name.startswith("linkwise") else "benchmarks"


def test_every_package_has_a_level():
    missing = sorted({_here(name) for name in MODULES} - set().union(*LEVELS))
    assert not missing, f"give each a level in LEVELS: {missing}"


@pytest.mark.parametrize("name", MODULES)
def test_every_import_runs_downhill(name):
    """No module imports (also inside a function) from a package on a higher level than its own."""
    here = _here(name)
    up = sorted({t for module, names in _imports(name) for t in _targets(module, names)
                 if t in MODULES and _level(_unit(t)) > _level(here)})
    assert not up, f"{name} (level {_level(here)}) imports from above: {up}"


def _private_reaches(name):
    """Private names or modules of another package (``SHARED_PRIVATE`` aside) that module ``name`` imports."""
    here = _unit(name) if name.startswith("linkwise") else "benchmarks"
    for module, names in _imports(name):
        if not module.startswith("linkwise"):
            continue
        parts = module.split(".")
        owner = next((".".join(parts[: i + 1]) for i, p in enumerate(parts) if _private(p)), None)
        if owner is not None and owner not in SHARED_PRIVATE and _unit(owner) != here:
            yield f"{name} imports {module}"
        else:
            yield from (f"{name} imports {module}.{n}" for n in names if _private(n) and _unit(module) != here)


@pytest.mark.parametrize("name", MODULES)
def test_no_private_reach_across_packages(name):
    """No module imports a private name (``_x``) or a private module (``pkg._mod``) of another package.

    A package here is a subpackage of linkwise (``linkwise.bench`` with all
    its modules) or a top-level module (``linkwise.ensemble``); benchmarks/
    counts as one more. Inside a package anything goes. The only private
    modules every package may import are ``SHARED_PRIVATE`` (argument
    checks, the missing-extra guard, shared docstring parts); what siblings share otherwise gets a public name.
    """
    offenders = list(_private_reaches(name))
    assert not offenders, "\n".join(offenders)


def _package_imports(name):
    """The units (``_unit``) of the linkwise modules that module ``name`` imports."""
    return {_unit(t) for module, names in _imports(name) for t in _targets(module, names) if t in MODULES}


@pytest.mark.parametrize("name", [name for name in MODULES if _unit(name) in METHOD_PACKAGES | SHARED_PARTS])
def test_method_packages_share_only_what_sits_beside_the_loop(name):
    """No method package imports another (ActiveCOBS and Auto find the committee engine and the wrong-answer
    repair beside the loop, not in cobra/), and the shared parts import no method package."""
    here = _unit(name)
    allowed = set() if here in SHARED_PARTS else {here}
    reached = sorted(_package_imports(name) & METHOD_PACKAGES - allowed)
    assert not reached, f"{name} imports {reached}"


def _defined_private_names():
    """For each private name, the units where it is defined: a ``def`` or ``class``, or an assignment to it (a
    variable, or an attribute of any object)."""
    defined = {}
    for name, path in MODULES.items():
        unit = _unit(name) if name.startswith("linkwise") else "benchmarks"
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found = node.name
            elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                found = node.id if isinstance(node, ast.Name) else node.attr
            else:
                continue
            if _private(found):
                defined.setdefault(found, set()).add(unit)
    return defined


DEFINED = _defined_private_names()


def _own(value):
    """Whether ``value`` is the object itself: ``self``, ``cls`` or ``super()``."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id == "super" and not value.args
    return isinstance(value, ast.Name) and value.id in ("self", "cls")


def _private_attribute_reaches(name):
    """Private attributes (``x._name``, not on ``self``, ``cls`` or ``super()``) that module ``name`` reads or
    calls although only other packages define that name."""
    here = _unit(name)
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Attribute) and _private(node.attr) and not _own(node.value) \
                and node.attr not in SKLEARN_PROTOCOL:
            owners = DEFINED.get(node.attr, set())
            if owners and here not in owners:
                yield f"{name}:{node.lineno} reaches {ast.unparse(node)} (defined in {', '.join(sorted(owners))})"


@pytest.mark.parametrize("name", [name for name in MODULES if name.startswith("linkwise")])
def test_no_private_attribute_reach_across_packages(name):
    """No module reads or calls a private attribute of an object of another package (``store._join()`` outside constraints.py).

    Decided by name, so it never refuses what is legal: ``obj._x`` on
    another object than ``self`` is refused when ``_x`` is defined (a
    ``def``, a class, an assignment) in some package but not in the one of
    the module; a name its own package also defines may be its own (an
    override, an object of its own class), so it passes. The public
    protocol of a hook (``estimator.questions(ctx)``) is how packages call
    each other's objects.
    """
    offenders = list(_private_attribute_reaches(name))
    assert not offenders, "\n".join(offenders)


# The layers of linkwise.session, from the bottom up: what is clustered, the session itself, what the person sees;
# the package's own modules (its public names, the command-line verbs) on top
SESSION_LAYERS = ["linkwise.session.data", "linkwise.session.core", "linkwise.session.front", "linkwise.session"]
# HumanSession.widget() hands the session to the notebook front end: the one arrow up, inside that method
SESSION_UP = {("linkwise.session.core._controller", "linkwise.session.front._widget")}


def _session_layer(name):
    return next(k for k, layer in enumerate(SESSION_LAYERS) if name == layer or name.startswith(layer + ".")
                and (layer != "linkwise.session" or name.count(".") == 2))


@pytest.mark.parametrize("name", [name for name in MODULES if name.startswith("linkwise.session")])
def test_the_session_s_layers_import_only_downhill(name):
    """A module of a layer of linkwise.session imports none of a higher layer (SESSION_UP aside)."""
    up = sorted({t for module, names in _imports(name) for t in _targets(module, names)
                 if t.startswith("linkwise.session.") and t in MODULES
                 and _session_layer(t) > _session_layer(name) and (name, t) not in SESSION_UP})
    assert not up, f"{name} ({SESSION_LAYERS[_session_layer(name)]}) imports from above: {up}"


def test_each_session_layer_says_what_it_may_import():
    for layer in SESSION_LAYERS[:-1]:
        doc = ast.get_docstring(ast.parse(MODULES[layer].read_text()))
        assert doc and "may import" in doc, f"{layer}/__init__.py: say what the layer may import"
