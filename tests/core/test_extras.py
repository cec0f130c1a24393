"""`pip install linkwise` without extras: the library works, and each optional part names the extra it needs.

The dev environment has every extra installed, so each check runs in a fresh
interpreter whose import system refuses the optional packages, as a core-only
install would.
"""

import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from linkwise._extras import EXTRAS

ROOT = Path(__file__).resolve().parents[2]
OPTIONAL = sorted({module for modules in EXTRAS.values() for module in modules})

# installed first in the child: a finder that makes the named top-level packages look absent
BLOCK = """
import importlib.abc, sys

class _Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, _Absent())
"""


def run(code, blocked=OPTIONAL):
    """Run ``code`` in a new interpreter that cannot import ``blocked``; its stdout, or the failure."""
    script = f"BLOCKED = {set(blocked)!r}\n" + BLOCK + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_blocker_works():
    assert "ModuleNotFoundError" in run("""
        try:
            import pandas
        except ModuleNotFoundError as exc:
            print(type(exc).__name__)
    """)


@pytest.mark.slow
def test_core_library_without_any_extra():
    out = run("""
        import sys
        import linkwise as lw

        X, y = lw.datasets.load("iris", scale="minmax")
        ml, cl = [(0, 1), (60, 70)], [(0, 100), (50, 120)]
        for est in (lw.COBRAS(max_queries=15, random_state=0), lw.Auto(max_queries=15, random_state=0)):
            assert est.fit(X, lw.LabelOracle(y)).labels_.shape == (147,)
        grid = {"kmeans": {"n_clusters": [2, 3], "n_seeds": 2}}
        cobs = lw.COBS(algorithms=["kmeans"], grid=grid, random_state=0).fit(X, ml=ml, cl=cl)
        pck = lw.PCKMeans(n_clusters=3, random_state=0).fit(X, ml=ml, cl=cl)
        bc = lw.BayesianClustering(3, n_particles=4, random_state=0).fit(X, ml=ml, cl=cl)
        for est in (cobs, pck, bc):
            assert est.labels_.shape == (147,)
        print(repr(lw.cobs.generate(X, algorithms=["kmeans"], grid=grid, random_state=0)))
        print(round(lw.metrics.ari(y, pck.labels_), 2) > 0.5, lw.datasets.info("wine")["k"])
        print(sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED))
    """)
    assert out.splitlines() == ["Candidates(4 clusterings of 147 rows: kmeans 4)", "True 3", "[]"]


def _message(feature, extra, module):
    return f"{feature} needs the {extra!r} extra ({module} is not installed): pip install 'linkwise[{extra}]'"


# what the person runs -> the one line it must give, grouped by the packages missing (one child per group)
CASES = {
    tuple(OPTIONAL): {
        "import linkwise.session": _message("linkwise.session", "session", "pandas"),
        "import linkwise as lw; lw.bench": _message("linkwise.bench", "bench", "pandas"),
        "import linkwise as lw; X = lw.datasets.load('iris')[0]; "
        "lw.cobs.generate(X, algorithms=['kmeans'], grid={'kmeans': {'n_clusters': [2]}}).to_frame()":
            _message("Candidates.to_frame", "bench", "pandas"),
        "cli cluster x.csv": "Error: " + _message("linkwise cluster", "session", "pandas"),
        "cli cluster --help": "Error: " + _message("linkwise cluster", "session", "pandas"),
        "cli export s.linkwise --labels x.csv": "Error: " + _message("linkwise export", "session", "pandas"),
        "cli bench --datasets iris": "Error: " + _message("linkwise bench", "bench", "pandas"),
        "import linkwise as lw; lw.datasets.load('GunPoint')":
            _message("datasets.load('GunPoint')", "timeseries", "aeon"),
        "from linkwise._extras import requires\nwith requires('images', 'linkwise.images'): import skimage":
            _message("linkwise.images", "images", "skimage"),
        "cli demo": "Error: " + _message("linkwise demo", "bench", "pandas"),
        "import linkwise as lw; lw.widget": _message("linkwise.session", "session", "pandas"),
    },
    ("anywidget",): {
        "import linkwise as lw; lw.widget": _message("linkwise.widget", "notebook", "anywidget"),
        "from linkwise.session import HumanSession; HumanSession.widget(None)":
            _message("linkwise.widget", "notebook", "anywidget"),
    },
    ("starlette", "dask", "distributed", "matplotlib"): {
        "from linkwise.session import serve": _message("linkwise.session", "session", "starlette"),
        "import tempfile; from linkwise.bench import run; "
        "run(['iris'], ['kmeans'], [0], folds=2, out=tempfile.mkdtemp(), backend='dask')":
            _message("run(backend='dask')", "dask", "distributed"),
        "import pandas as pd, tempfile; from linkwise.bench._html import learning_curve; "
        "learning_curve(pd.DataFrame(), 'iris', 'ari', tempfile.mktemp(suffix='.png'))":
            _message("linkwise.bench plots", "bench", "matplotlib"),
    },
    ("rich",): {
        "from linkwise.session import run_terminal": _message("linkwise.session", "session", "rich"),
    },
}

# runs each case; an ImportError (MissingExtraError is one, so `except ImportError` still works) or a verb's output
TRY = """
import json
from click.testing import CliRunner
from linkwise.cli import main

for case in CASES:
    if case.startswith("cli "):
        result = CliRunner().invoke(main, case.split()[1:])
        print(json.dumps([case, result.exit_code, result.output]))
        continue
    try:
        exec(case, {})
    except ImportError as exc:
        print(json.dumps([case, type(exc).__name__, str(exc)]))
"""


@functools.cache
def outcomes(blocked):
    out = run(f"CASES = {list(CASES[blocked])!r}\n{TRY}", blocked)
    return {case: tuple(rest) for case, *rest in map(json.loads, out.splitlines())}


@pytest.mark.slow
@pytest.mark.parametrize("blocked, case", [pytest.param(blocked, case, id=case) for blocked in CASES for case in CASES[blocked]])
def test_a_missing_extra_is_one_line_naming_it(blocked, case):
    expected = CASES[blocked][case]
    if case.startswith("cli "):  # one Error: line and exit status 1 from the cli's funnel
        assert outcomes(blocked)[case] == (1, expected + "\n")
    else:
        assert outcomes(blocked)[case] == ("MissingExtraError", expected)


@pytest.mark.slow
def test_the_command_lists_verbs_and_datasets_without_any_extra():
    out = run("""
        from click.testing import CliRunner
        from linkwise.cli import main

        print(CliRunner().invoke(main, ["--help"]).output)
        print(CliRunner().invoke(main, ["datasets"]).output)
    """)
    assert "cluster   (needs the 'session' extra: pip install 'linkwise[session]')" in out
    assert "datasets  List the datasets" in out
    assert next(line for line in out.splitlines() if line.startswith("iris ")).split()[:4] == ["iris", "147", "4", "3"]
    assert "GunPoint" not in out  # the listing names what load can read: series need the 'timeseries' extra


def test_a_missing_module_outside_the_extra_stays_a_bug():
    out = run("""
        from linkwise._extras import requires
        try:
            with requires("session", "x"):
                import matplotlib  # the 'bench' extra's, not the 'session' one's
        except ImportError as exc:
            print(type(exc).__name__)
    """, ["matplotlib"])
    assert out == "ModuleNotFoundError\n"
