"""The documentation site builds offline with no warning, and its build fails on what would make it rot.

`make docs` runs the same command; here the sources are copied to a temporary directory so that the build never
writes into the checkout (sphinx-gallery and autosummary generate pages beside the sources).
"""

import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("pydata_sphinx_theme")

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("_build", "generated", "auto_examples", "sg_execution_times.rst")


def _build(root):
    """Build root/docs as `make docs` does; the completed process, its stderr holding the warnings."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-n", "-b", "html", "-d",
         str(root / "doctrees"), str(root / "docs"), str(root / "html")],
        capture_output=True, text=True, env=env, cwd=root)


def _copy_docs(tmp_path, examples=True):
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns(*GENERATED))
    if examples:
        shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


@pytest.mark.slow
def test_the_site_builds_without_a_warning_and_runs_every_example(tmp_path):
    result = _build(_copy_docs(tmp_path))
    assert result.returncode == 0, result.stderr[-5000:]
    assert not re.search(r"WARNING|ERROR", result.stderr), result.stderr[-5000:]
    html = tmp_path / "html"
    for example in sorted((ROOT / "examples").glob("plot_*.py")):
        page = (html / "auto_examples" / f"{example.stem}.html").read_text()
        assert f"sphx_glr_{example.stem}_001.png" in page, f"{example.name} drew no figure"
    # every public name of linkwise is documented: its own page, or a description in a module's section; a name
    # public both at the top level and in its sub-package is documented once, at the top level
    import linkwise as lw

    documented = {ident for page in html.rglob("*.html") for ident in re.findall(r'id="(linkwise\.[\w.]+)"',
                                                                                page.read_text())}
    modules = [name for name in lw.__all__ if inspect.ismodule(getattr(lw, name))]
    missing = [f"linkwise.{name}" for name in lw.__all__
               if name not in modules and f"linkwise.{name}" not in documented]
    for module in modules:
        sub = getattr(lw, module)
        missing += [f"linkwise.{module}.{name}" for name in sub.__all__
                    if getattr(sub, name) is not getattr(lw, name, None)
                    and f"linkwise.{module}.{name}" not in documented]
    assert missing == [], f"public names missing from docs/api.rst: {missing}"
    for page in ["getting_started.html", "user_guide/index.html", "api.html", "auto_examples/index.html"]:
        assert (html / page).is_file()


def _minimal_site(tmp_path, index, example):
    """The real configuration with one page and one gallery example, to see what fails the build."""
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "docs" / "conf.py", tmp_path / "docs")
    shutil.copytree(ROOT / "docs" / "_templates", tmp_path / "docs" / "_templates")
    (tmp_path / "docs" / "index.rst").write_text(
        f"Site\n====\n\n{index}\n\n.. autofunction:: linkwise.metrics.ari\n\n.. toctree::\n\n   auto_examples/index\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "README.rst").write_text("Gallery\n=======\n")
    (tmp_path / "examples" / "plot_example.py").write_text(f'"""\nAn example\n==========\n"""\n\n{example}\n')
    return tmp_path


@pytest.mark.slow
def test_the_minimal_site_builds(tmp_path):
    # the two checks below fail for their own reason, not because a minimal site cannot build at all
    page = ":func:`linkwise.metrics.ari`, :ref:`sphx_glr_auto_examples_plot_example.py`."
    result = _build(_minimal_site(tmp_path, page, "import linkwise as lw\n\nprint(lw.datasets.names()[:3])"))
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.slow
def test_an_example_that_raises_fails_the_build(tmp_path):
    result = _build(_minimal_site(tmp_path, "A page.", "import linkwise as lw\n\nlw.datasets.load('no-such-set')"))
    assert result.returncode != 0
    assert "plot_example.py" in result.stderr and "no-such-set" in result.stderr


@pytest.mark.parametrize("reference", [":class:`linkwise.NoSuchEstimator`", ":func:`linkwise.metrics.no_such`",
                                       ":ref:`no-such-label`"])
@pytest.mark.slow
def test_a_broken_reference_fails_the_build(tmp_path, reference):
    result = _build(_minimal_site(tmp_path, f"See {reference}.", "print('fine')"))
    assert result.returncode != 0
    assert "reference target not found" in result.stderr or "undefined label" in result.stderr
