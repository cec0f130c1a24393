"""Sphinx configuration of linkwise's documentation (`make docs` builds it into docs/_build/html).

The build runs offline and strict: `sphinx-build -W --keep-going -n` turns every warning, every unresolved reference
and every gallery example that raises into a failure. No inventory is fetched, so references to NumPy, SciPy,
scikit-learn and the other libraries linkwise uses are not links: `nitpick_ignore_regex` lets through those, and only
those.
"""

import importlib
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# document the linkwise of this checkout, whichever one the environment has installed
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

from sphinx.util.nodes import make_refnode  # noqa: E402

import linkwise  # noqa: E402

project = "linkwise"
author = "linkwise developers"
copyright = "linkwise developers, BSD-3-Clause"
version = release = linkwise.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build"]
root_doc = "index"
default_role = "literal"  # `x` in prose is code, never a silent cross-reference

# autosummary writes one page per public object into generated/ (git-ignored)
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types
add_module_names = False

# numpydoc renders the sections; the class template lists methods itself (numpydoc's own member tables would link
# every inherited scikit-learn helper)
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

# offline: no intersphinx, so a reference to another project's object (``sklearn.base.clone``) has no target. Those,
# and only those, are let through; a reference to anything of linkwise's own that does not resolve fails the build.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|scipy|sklearn|pandas|joblib|dask|distributed|aeon|skimage|matplotlib|starlette|uvicorn|"
               r"anywidget|ipywidgets|traitlets)\..+"),
]

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    # "Examples using X" on each API page
    "doc_module": ("linkwise",),
    "backreferences_dir": "generated/backreferences",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "write_computation_times": False,  # its page loads DataTables from a CDN
    # every build runs every example, so one that a change of linkwise broke cannot hide behind its cached output
    "run_stale_examples": True,
    # an example that raises fails the build (after the others ran), also without -W
    "only_warn_on_example_error": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"linkwise {version}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_show_sourcelink = False
html_copy_source = False


# whose inherited members a class page leaves out: scikit-learn's (get_params, set_fit_request...) and the notebook
# widget's base classes' (ipywidgets' Widget API, traitlets): their own pages document them
_FOREIGN = {"sklearn", "ipywidgets", "traitlets", "anywidget", "comm"}


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Leave out what linkwise's classes inherit from the libraries of ``_FOREIGN``."""
    owner = getattr(obj, "__module__", None) or getattr(getattr(obj, "fget", None), "__module__", None) or ""
    return True if owner.split(".")[0] in _FOREIGN else None


def _drop_type_docstrings(app, what, name, obj, options, lines):
    """A constant's page says what it is (api.rst), not what a tuple or a str is."""
    if what == "data" and [line.strip() for line in lines if line.strip()] == [
            line.strip() for line in (type(obj).__doc__ or "").splitlines() if line.strip()]:
        lines.clear()


def _locate(path):
    """The Python object a dotted name denotes, or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _resolve_aliases(app, env, node, contnode):
    """Resolve a reference to a public object by another of its public names.

    A class lives in its sub-package and at the top level (``linkwise.cobra.COBRAS`` is ``linkwise.COBRAS``) and is
    documented once, so ``:class:`COBRAS``` inside ``linkwise.cobra`` names the page of ``linkwise.COBRAS``. Only
    names that are the very same object as a documented one resolve; anything else still fails the build.
    """
    if node.get("refdomain") != "py":
        return None
    if not hasattr(app, "linkwise_documented"):  # every object documented, by identity (references resolve last)
        app.linkwise_documented = {}
        for name, entry in env.get_domain("py").objects.items():
            obj = _locate(name) if name.startswith("linkwise") else None
            if obj is not None and not isinstance(obj, (int, float, str, bytes, tuple, frozenset, type(None))):
                app.linkwise_documented.setdefault(id(obj), (name, entry))
    target = node["reftarget"].lstrip("~.")
    module, klass = node.get("py:module"), node.get("py:class")
    candidates = [f"{module}.{klass}.{target}" if module and klass else None,
                  f"{module}.{target}" if module else None, target, f"linkwise.{target}"]
    # names in a docstring are relative to the public package of the class it belongs to
    owner = _locate(f"{module}.{klass}") if module and klass else None
    if isinstance(owner, type):
        candidates.append(f"{owner.__module__.split('._')[0]}.{target}")
    for candidate in filter(None, candidates):
        obj = _locate(candidate) if candidate.startswith("linkwise") else None
        if obj is not None and id(obj) in app.linkwise_documented:
            name, entry = app.linkwise_documented[id(obj)]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, name)
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
    app.connect("autodoc-process-docstring", _drop_type_docstrings, priority=100)  # before numpydoc rewrites it
    app.connect("missing-reference", _resolve_aliases)
