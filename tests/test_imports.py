"""The import structure: no circle among linkwise's modules, no private reach across packages.

Read from the source with ``ast`` (every ``import`` statement, also inside
functions, where an import hidden to dodge a circle would sit); the lazy
``importlib`` maps of the ``__init__`` modules are not imports of this kind.
"""

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# private top-level modules meant for every package: argument checks, and the guard of optional imports
SHARED_PRIVATE = {"linkwise._validation", "linkwise._extras"}


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
    checks, the missing-extra guard); what siblings share otherwise gets a public name.
    """
    offenders = list(_private_reaches(name))
    assert not offenders, "\n".join(offenders)
