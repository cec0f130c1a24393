"""The one declaration of every method (linkwise.methods): what lists methods derives from it, and a method of
another package, declared by a register call or by an entry point, gets --method, the benchmark and saved models."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import linkwise as lw
import linkwise.methods
from linkwise.cli import main
from linkwise.methods import Bench, Method, register

pytest.importorskip("skops")

# What listed the methods before they were declared once (commit c35bb8a), each listing as it was.
BEFORE = {
    "METHODS": {"auto": "linkwise.auto:Auto", "cobras": "linkwise.cobra:COBRAS", "cobras-dtw": "linkwise.cobra:COBRAS",
                "cobras-kshape": "linkwise.cobra:COBRAS", "cobra": "linkwise.cobra:COBRA",
                "robust-cobras": "linkwise.cobra:NoiseRobustCOBRAS", "cobs": "linkwise.cobs:ActiveCOBS",
                "bayes": "linkwise.bayes:BayesianActiveClustering"},
    "PARAMS": {"cobras-dtw": {"metric": "dtw", "window": 0.1}, "cobras-kshape": {"metric": "kshape"}},
    # the benchmark's entries in order, each with whether it is given K and how the harness runs it
    "bench": [["kmeans", True, "baseline"], ["cobra-25", False, "own"], ["cobra-50", False, "own"],
              ["cobra-100", False, "own"], ["cobras", False, "anytime"], ["cobras-dtw", False, "anytime"],
              ["cobras-kshape", False, "anytime"], ["cobras-robust", False, "anytime"],
              *([f"{c}-{s}", True, "nested"] for c, s in (
                  ("copkmeans", "random"), ("pckmeans", "random"), ("mpckmeans", "random"), ("pckmeans", "explore"),
                  ("pckmeans", "minmax"), ("pckmeans", "npu"), ("mpckmeans", "explore"), ("mpckmeans", "minmax"),
                  ("mpckmeans", "npu"))),
              ["committee", True, "nested"], ["cobs", False, "constrained"], ["active-cobs", False, "anytime"],
              ["bac-info", True, "anytime"], ["bac-uncertain", True, "anytime"], ["auto", False, "anytime"],
              ["auto-k", True, "anytime"]],
    "TRUSTED": [f"linkwise.{name}" for name in """active._committee.Committee active._explore.ExploreConsolidate
        active._explore.MinMax active._meta.ActiveClustering active._npu.NPU active._random.Random auto.Auto
        bayes._estimators.BayesianActiveClustering bayes._estimators.BayesianClustering
        bayes._estimators._ColumnMagnitude bayes._inputs.ModelInputs bayes._inputs._ColumnMagnitude
        cluster._copkmeans.COPKMeans cluster._mkmeans.MKMeans cluster._mpckmeans.MPCKMeans cluster._mpckmeans._Metrics
        cluster._pckmeans.PCKMeans cluster._seeded.ConstrainedKMeans cluster._seeded.SeededKMeans cobra._cobra.COBRA
        cobra._cobras.COBRAS cobra._robust.NoiseRobustCOBRAS cobra._superinstances.LabelsHistory
        cobra._superinstances.SuperInstanceTree cobs._active.ActiveCOBS cobs._generate.Candidates cobs._select.COBS
        constraints.Constraint constraints.ConstraintStore prediction.LogisticAssignment
        prediction.NearestPoints""".split()],
    # the top-level names (lw.COBRAS), by the module that defines them
    "objects": {name: f"linkwise.{module}" for module, names in (
        ("constraints", "ConstraintStore"), ("exceptions", "InconsistentConstraintError"),
        ("oracle", "Oracle LabelOracle CallbackOracle"), ("loop", "ActiveSession ActiveEstimator"), ("auto", "Auto"),
        ("cluster", "SeededKMeans ConstrainedKMeans COPKMeans PCKMeans MKMeans MPCKMeans"),
        ("active", "ActiveClustering"),
        ("cobra", "COBRA COBRAS NoiseRobustCOBRAS"), ("cobs", "COBS ActiveCOBS"),
        ("bayes", "BayesianActiveClustering BayesianClustering"), ("stability", "StabilityMonitor Stability"),
        ("session", "widget")) for name in names.split()},
}
LISTINGS = """
import json, sys
import linkwise as lw
from linkwise.bench import registry
from linkwise.methods import METHODS, PARAMS
from linkwise.persist import TRUSTED

json.dump({"METHODS": dict(METHODS), "PARAMS": {k: dict(v) for k, v in PARAMS.items()},
           "bench": [[name, spec.needs_k, spec.kind()] for name, spec in registry().items()],
           "TRUSTED": list(TRUSTED), "objects": lw._OBJECTS}, sys.stdout)
"""


@pytest.mark.slow
def test_every_listing_of_methods_lists_the_same_ones_as_before():
    """In a fresh process, so that no method another test declares is listed."""
    out = subprocess.run([sys.executable, "-c", LISTINGS], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == BEFORE


PLUGIN = '''
import numpy as np

import linkwise as lw
from linkwise.methods import Bench, Method


class WithFirst(lw.ActiveEstimator):
    """Asks whether each queryable row goes with the first: two clusters."""

    anytime = True

    def __init__(self, max_queries=None, random_state=None):
        self.max_queries, self.random_state = max_queries, random_state

    def questions(self, ctx):
        first = ctx.queryable[0]
        ctx.labels[:] = 1
        ctx.labels[first] = 0
        for j in ctx.queryable[1:]:
            if (yield (first, j)):
                ctx.labels[j] = 0


METHOD = Method("{module}:WithFirst", names=("{name}",), bench=(Bench("{name}", "with the first row or not"),))
'''


@pytest.fixture
def own_method(request, tmp_path, monkeypatch):
    """``(name, module)`` of a method of another package: a module on ``sys.path``, declared by a register call or
    by an entry point of a distribution installed there (a real dist-info), and forgotten afterwards."""
    how = request.param
    module, name = f"linkwise_plugin_{how.replace('-', '_')}", f"with-first-{how}"
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{module}.py").write_text(PLUGIN.replace("{module}", module).replace("{name}", name))
    if how == "entry-point":
        info = site / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[linkwise.methods]\n{name} = {module}:METHOD\n")
    monkeypatch.syspath_prepend(str(site))  # the entry points are read anew for this sys.path
    monkeypatch.setattr(linkwise.methods, "_REGISTERED", {})  # what the test registers is forgotten after it
    monkeypatch.delitem(sys.modules, module, raising=False)
    if how == "call":
        register(__import__(module).METHOD)
    yield name, module
    sys.modules.pop(module, None)


@pytest.mark.parametrize("own_method", ["call", "entry-point"], indirect=True)
def test_a_method_of_another_package_runs_in_the_bench_the_cli_and_saved_models(own_method, tmp_path, iris_file):
    name, module = own_method
    assert lw.methods.METHODS[name] == f"{module}:WithFirst" and lw.methods.load(name).__module__ == module
    # the benchmark harness
    rep = lw.bench.run(["iris"], [name], budgets=[0, 6], folds=2, out=tmp_path / "bench")
    assert rep.curves[["method", "budget", "queries"]].values.tolist() == [[name, 0, 0.0], [name, 6, 6.0]]
    assert lw.bench.registry()[name].kind() == "anytime"
    # the command line's method
    data_path, y = iris_file
    done = CliRunner().invoke(main, ["cluster", str(data_path), "--method", name, "--id-column", "name", "--ui",
                                     "terminal"], input="s\nd\nq\n")
    assert done.exit_code == 0, done.output
    from linkwise.session.core._controller import read_meta

    assert read_meta(tmp_path / "iris.linkwise.db")["method"] == name
    # a session file naming a method of another package reopens only when the person names it again
    refused = CliRunner().invoke(main, ["cluster", str(data_path), "--ui", "terminal"], input="q\n")
    assert refused.exit_code == 1 and f"pass --method {name}" in refused.output, refused.output
    again = CliRunner().invoke(main, ["cluster", str(data_path), "--method", name, "--ui", "terminal"], input="q\n")
    assert again.exit_code == 0 and "(2 questions answered so far)" in again.output, again.output
    # saved models, the safe format trusting it
    X, _ = lw.datasets.load("iris", scale="minmax")
    est = lw.methods.load(name)(max_queries=8, random_state=0).fit(X, lw.LabelOracle(y))
    assert f"{module}.WithFirst" in lw.persist.TRUSTED
    for suffix in (".skops", ".joblib"):
        lw.persist.save(est, tmp_path / f"model{suffix}")
        again = lw.persist.load(tmp_path / f"model{suffix}")
        assert type(again) is type(est)
        np.testing.assert_array_equal(again.predict(X), est.predict(X))


def test_entry_points_are_read_only_when_methods_are_listed(tmp_path):
    site = tmp_path / "site"
    (site / "lazy_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "lazy_plugin.py").write_text(PLUGIN.replace("{module}", "lazy_plugin").replace("{name}", "lazy"))
    (site / "lazy_plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[linkwise.methods]\nlazy = lazy_plugin:METHOD\n")
    code = ("import sys, linkwise as lw\nlw.COBRAS, lw.methods.BUILTIN\nprint('lazy_plugin' in sys.modules)\n"
            "print(lw.methods.METHODS['lazy'], 'lazy_plugin' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}).stdout
    assert out.split() == ["False", "lazy_plugin:WithFirst", "True"]


class NotActive:
    pass


@pytest.mark.parametrize("method, message", [
    (NotActive, r"^register must be a linkwise.methods.Method, got type.$"),
    (Method("sklearn.cluster:KMeans", names=("kmeans",)), r"^register: sklearn.cluster:KMeans is not a subclass of "
                                                         r"linkwise.ActiveEstimator; "),
    (Method("linkwise.nowhere:Thing"), r"^register: the class 'linkwise.nowhere:Thing' cannot be imported "),
    (Method(lw.COBRAS, names=("Mine",)), r"^register: the name 'Mine' of linkwise.cobra._cobras:COBRAS must be "
                                         r"lowercase"),
    (Method(lw.COBRAS, names=("cobras",)), r"^register: the name 'cobras' of linkwise.cobra._cobras:COBRAS is taken by "
                                           r"linkwise.cobra:COBRAS; declare the method under another name.$"),
    (Method(lw.COBRAS, bench=(Bench("active-cobs", "taken"),)),
     r"'active-cobs' .* is taken by linkwise.cobs:ActiveCOBS"),
])
def test_a_bad_registration_is_one_line(method, message, monkeypatch):
    monkeypatch.setattr(linkwise.methods, "_REGISTERED", {})
    with pytest.raises(lw.exceptions.InvalidParameterError, match=message) as error:
        register(method)
    assert "\n" not in str(error.value)
    assert linkwise.methods._REGISTERED == {}


def test_a_benchmark_entry_named_as_the_baseline_is_refused(monkeypatch):
    monkeypatch.setattr(linkwise.methods, "_REGISTERED", {})
    register(Method(lw.COBRAS, names=("cobras-again",), bench=(Bench("kmeans", "taken"),)))
    with pytest.raises(lw.exceptions.InvalidParameterError, match="^The benchmark entry 'kmeans' of "
                       "linkwise.cobra._cobras:COBRAS is taken by K-means without questions"):
        lw.bench.registry()


@pytest.mark.parametrize("content, message", [
    ("METHOD = 3\n", r"entry point bad = bad_plugin:METHOD of group linkwise.methods must be a "
                     r"linkwise.methods.Method, got int.$"),
    ("raise RuntimeError('broken')\n", r"entry point bad = bad_plugin:METHOD of group linkwise.methods cannot be "
                                       r"loaded \(RuntimeError: broken\).$"),
])
def test_a_bad_entry_point_is_one_line(content, message, tmp_path, monkeypatch):
    (tmp_path / "bad_plugin-1.0.dist-info").mkdir()
    (tmp_path / "bad_plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[linkwise.methods]\nbad = bad_plugin:METHOD\n")
    (tmp_path / "bad_plugin.py").write_text(content)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "bad_plugin", raising=False)
    with pytest.raises(lw.exceptions.InvalidParameterError, match=message) as error:
        dict(lw.methods.METHODS)
    assert "\n" not in str(error.value)
    sys.modules.pop("bad_plugin", None)


def test_the_declarations_name_importable_classes_and_parts():
    """Each built-in declaration's class and parts import (``trusted`` imports them), and its names are unique."""
    names = [name for method in lw.methods.BUILTIN for name in method.names]
    benches = [bench.name for method in lw.methods.BUILTIN for bench in method.bench]
    assert len(set(names)) == len(names) and len(set(benches)) == len(benches)
    for method in lw.methods.BUILTIN:
        assert isinstance(method.load(), type) and method.trusted()
        assert set(method.settings) <= set(method.names)
