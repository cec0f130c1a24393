import subprocess
import sys

import pytest

import linkwise as lw


@pytest.mark.parametrize("name", lw.__all__)
def test_every_public_name_resolves(name):
    assert getattr(lw, name) is not None


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'KMeansPlusPlus'"):
        lw.KMeansPlusPlus


def test_import_is_cheap():
    """`import linkwise` must not pull in the web server, Dask or plotting."""
    code = "import sys, linkwise; print(sorted(m for m in ('starlette', 'dask', 'matplotlib', 'sklearn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
