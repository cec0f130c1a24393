"""Every public callable has a complete numpydoc docstring, as numpydoc's own validation judges it.

Public: the names of ``linkwise.__all__`` and of each public sub-package's ``__all__`` that are classes or
functions, and the public methods and properties those classes define in linkwise (what they inherit from
scikit-learn is scikit-learn's to document). A method is checked once, under the class that defines it when that
class is public, else under its first public subclass.
"""

import inspect

import pytest

import linkwise as lw

validate = pytest.importorskip("numpydoc.validate").validate

# The checks not enforced, each for a reason a mature library accepts (scikit-learn skips the same three):
IGNORED = {
    "ES01",  # no extended summary: a one-line summary says enough for a short method
    "SA01",  # no See Also section: cross-references where they help, not on every object
    "EX01",  # no Examples section: required of the entry points only (ENTRY_POINTS), not of every method
}
# The entry points, which must show an example: every top-level name, and the modules a user calls directly.
ENTRY_MODULES = ("datasets", "metrics", "persist", "bench")

def _public_objects():
    """``{qualified name: object}`` of the public classes and functions, each under its shortest public name."""
    found = {}
    for name in lw.__all__:
        obj = getattr(lw, name)
        members = [(f"linkwise.{name}.{sub}", getattr(obj, sub)) for sub in obj.__all__] if inspect.ismodule(obj) \
            else [(f"linkwise.{name}", obj)]
        for qualified, member in members:
            if inspect.isclass(member) or inspect.isfunction(member):
                found.setdefault(id(member), (qualified, member))
    return dict(sorted(found.values(), key=lambda item: (item[0].count("."), item[0])))


def _methods(classes):
    """``{qualified name: public name of the class it was found on}`` of the public methods and properties defined
    in linkwise."""
    public_name = {id(cls): qualified for qualified, cls in classes.items()}
    seen, methods = set(), {}
    for qualified, cls in sorted(classes.items()):
        for name in sorted(attr for attr in dir(cls) if not attr.startswith("_")):
            owner = next(c for c in cls.__mro__ if name in vars(c))
            raw = vars(owner)[name]
            func = raw.fget if isinstance(raw, property) else getattr(raw, "__func__", raw)
            if not inspect.isfunction(func) or not func.__module__.startswith("linkwise") or func in seen:
                continue
            seen.add(func)
            methods[f"{public_name.get(id(owner), qualified)}.{name}"] = qualified
    return methods


OBJECTS = _public_objects()
METHODS = _methods({name: obj for name, obj in OBJECTS.items() if inspect.isclass(obj)})
ENTRY_POINTS = {name for name in OBJECTS if name.count(".") == 1 or name.split(".")[1] in ENTRY_MODULES}


def _errors(name):
    ignored = IGNORED - {"EX01"} if name in ENTRY_POINTS else IGNORED
    return [f"{code}: {message}" for code, message in validate(name)["errors"] if code not in ignored]


# numpydoc reads every attribute of a class, the deprecated ones anywidget's base class still has too
@pytest.mark.filterwarnings("ignore:Widget.* is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(OBJECTS) + sorted(METHODS))
def test_docstring_is_complete(name):
    errors = _errors(name)
    assert not errors, f"{name}:\n  " + "\n  ".join(errors)


def test_every_public_sub_package_and_its_methods_are_covered():
    """The collection is not vacuous: the estimators, their fit, and the sub-packages' functions are all in it."""
    assert {"linkwise.COBRAS", "linkwise.PCKMeans", "linkwise.metrics.ari", "linkwise.datasets.load"} <= set(OBJECTS)
    assert {"linkwise.ActiveEstimator.fit", "linkwise.ConstraintStore.add", "linkwise.LabelOracle.query"} <= set(METHODS)
    modules = {name.split(".")[1] for name in OBJECTS if name.count(".") == 2}
    assert {"active", "bayes", "bench", "cobra", "cobs", "graph", "metrics", "session"} <= modules


@pytest.mark.parametrize("margin", ["", "    "])
def test_shared_docstring_parts_read_the_same_with_or_without_the_docstrings_margin(margin):
    # Python 3.13 compiles a docstring without its common indentation, earlier versions keep it: the parts the
    # k-means family shares (one holding another) must land at their placeholder's indentation either way
    from numpydoc.docscrape import NumpyDocString

    from linkwise.cluster._base import KMeansFamily

    body = ("A k-means.\n\n{m}Parameters\n{m}----------\n{m}{{n_clusters}}\n{m}w : float\n{m}    A weight.\n"
            "{m}{{runs}}\n\n{m}Attributes\n{m}----------\n{m}{{labels}}\n{m}")
    family = type("Member", (KMeansFamily,), {"__doc__": body.format(m=margin)})
    doc = NumpyDocString(inspect.cleandoc(family.__doc__))
    assert [p.name for p in doc["Parameters"]] == ["n_clusters", "w", "n_init", "max_iter", "tol", "random_state"]
    assert [p.desc for p in doc["Parameters"]][1] == ["A weight."]
    assert [p.name for p in doc["Attributes"]] == ["labels_", "cluster_centers_"]
