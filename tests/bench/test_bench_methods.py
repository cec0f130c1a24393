"""Every registered method runs through the harness (tiny data, tiny budgets)."""

import gzip

import numpy as np
import pandas as pd
import pytest

import linkwise as lw
from linkwise.bench import registry
from linkwise.bench._runner import run_cell
from tests.bench_reference import make_task

BUDGETS = (0, 4)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """35 iris rows per class (enough for COBRA's 100 super-instances), as a dataset file of its own."""
    X, y = lw.datasets.load("iris")
    rows = np.concatenate([np.flatnonzero(y == c)[:35] for c in range(3)])
    frame = pd.DataFrame(X[rows], columns=[f"x{i}" for i in range(X.shape[1])]).assign(label=y[rows])
    directory = tmp_path_factory.mktemp("data")
    with gzip.open(directory / "tiny.csv.gz", "wt") as f:
        frame.to_csv(f, index=False)
    return directory


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(registry()))
def test_every_registered_method_runs(name, tiny):
    spec = registry()[name]
    kind = spec.kind()
    budgets = () if kind == "own" else BUDGETS
    result = run_cell(make_task(spec, kind, "tiny", budgets, folds=3, data_dir=str(tiny)))
    assert result["error"] is None, result["error"]
    rows = result["rows"]
    assert [r["budget"] for r in rows] == (list(budgets) or [None])
    for row in rows:
        assert all(np.isfinite(row[m]) and -1 <= row[m] <= 1 for m in ("ari", "nmi", "f"))
        if kind == "own":
            assert row["n_queries"] > 0
        else:
            assert 0 <= row["n_queries"] <= row["budget"]
    if kind == "baseline":
        assert {r["n_queries"] for r in rows} == {0}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, s in registry().items() if s.nested))
def test_nested_methods_ask_the_same_questions_whatever_the_budget(name, tiny):
    """One run read at a smaller budget (how the harness runs them) equals a run with that budget."""
    spec = registry()[name]
    one_run = run_cell(make_task(spec, "nested", "tiny", (3, 8), fold=1, folds=3, data_dir=str(tiny)))
    with_budget = run_cell(make_task(spec, "budget", "tiny", (3,), fold=1, folds=3, data_dir=str(tiny)))
    assert one_run["error"] is None and with_budget["error"] is None
    a, b = one_run["rows"][0], with_budget["rows"][0]
    assert (a["budget"], a["n_queries"], a["ari"], a["nmi"]) == (b["budget"], b["n_queries"], b["ari"], b["nmi"])


def test_active_methods_come_from_the_one_method_table():
    """The benchmark's COBRA-family, COBS, Bayesian and Auto entries build the classes ``--method`` names."""
    from linkwise.loop import ActiveEstimator
    from linkwise.methods import METHODS, load

    named = {load(name) for name in METHODS}
    for name, spec in registry().items():
        est = spec.make(3, 5, 0)
        if isinstance(est, ActiveEstimator) and not isinstance(est, lw.ActiveClustering):
            assert type(est) in named, name


def test_register_example_leaves_a_working_entry():
    """The doctest of ``register`` runs in the suite's processes and leaves its method registered: it must still build."""
    import doctest

    from linkwise.bench import _registry

    example = next(t for t in doctest.DocTestFinder().find(_registry) if t.name.endswith(".register"))
    assert doctest.DocTestRunner().run(example).failed == 0
    assert registry()["ward"].make(3, 5, 0).n_clusters == 3
