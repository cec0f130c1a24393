import inspect
import subprocess
import sys

import pytest

import linkwise as lw


@pytest.mark.parametrize("name", lw.__all__)
def test_every_public_name_resolves(name):
    assert getattr(lw, name) is not None


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'KMeansPlusPlus'"):
        _ = lw.KMeansPlusPlus


def test_import_is_cheap():
    """`import linkwise` must not pull in the web server, Dask or plotting, nor listing the methods any method."""
    code = ("import sys, linkwise; dict(linkwise.methods.METHODS), dict(linkwise.methods.PARAMS)\n"
            "print(sorted(m for m in ('starlette', 'dask', 'matplotlib', 'sklearn', 'linkwise.cobra') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_invalid_parameter_error_is_public():
    """Parameter errors are caught by their public name, in a fresh process (no submodule imported yet)."""
    code = (
        "import linkwise as lw\n"
        "try:\n"
        "    lw.PCKMeans(n_clusters=0).fit([[0.0], [1.0]])\n"
        "except lw.exceptions.InvalidParameterError as exc:\n"
        "    print(type(exc).__module__, isinstance(exc, ValueError), isinstance(exc, TypeError))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["linkwise.exceptions", "True", "True"]


def _constrained_clusterers():
    """Public classes whose fit takes must-links: found, so that a new one cannot slip past."""
    classes = [getattr(lw, name) for name in lw.__all__ if isinstance(getattr(lw, name), type)]
    return [c for c in classes if "ml" in inspect.signature(getattr(c, "fit", lambda: None)).parameters]


def test_every_constrained_clusterer_is_found():
    names = {c.__name__ for c in _constrained_clusterers()}
    assert {"PCKMeans", "MPCKMeans", "COPKMeans", "MKMeans", "COBS", "BayesianClustering"} <= names


@pytest.mark.parametrize("cls", _constrained_clusterers(), ids=lambda c: c.__name__)
def test_constrained_clusterers_share_one_fit(cls):
    assert str(inspect.signature(cls.fit)) == "(self, X, y=None, *, ml=None, cl=None)"
