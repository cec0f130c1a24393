"""Bench report: statistics, files, and the ``linkwise bench`` command."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from linkwise.bench import report, run
from linkwise.bench._registry import _REGISTERED
from linkwise.bench._report import average_ranks, friedman_holm, wins_losses
from linkwise.cli import main
from tests.bench_reference import CLOSEST, FIRST, RANDOM

DATASETS = ["iris", "wine", "glass"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    rep = run(DATASETS, [CLOSEST, RANDOM, FIRST, "kmeans"], [0, 10, 30], folds=2, out=out)
    return out, rep


def test_ranks_friedman_and_holm_match_their_definitions():
    rng = np.random.RandomState(1)
    n, k = 12, 4
    matrix = pd.DataFrame(rng.rand(n, k) + np.array([0.3, 0.0, 0.1, 0.2]), columns=list("abcd"))
    ranks = average_ranks(matrix)
    per_row = np.array([stats.rankdata(-row) for row in matrix.to_numpy()])
    np.testing.assert_allclose(ranks.to_numpy(), per_row.mean(axis=0))
    (statistic, p_value), posthoc = friedman_holm(matrix)
    # no ties: the textbook statistic (Demšar 2006, eq. for chi2_F)
    expected = 12 * n / (k * (k + 1)) * (np.sum(ranks.to_numpy() ** 2) - k * (k + 1) ** 2 / 4)
    assert statistic == pytest.approx(expected)
    assert p_value == pytest.approx(stats.chi2.sf(expected, k - 1))
    control = ranks.idxmin()
    assert np.isnan(posthoc.loc[control, "p"])
    others = posthoc.drop(control).sort_values("p")
    se = np.sqrt(k * (k + 1) / (6 * n))
    np.testing.assert_allclose(others["z"], (others["rank"] - ranks[control]) / se)
    # Holm step-down, written out as a loop
    running = 0.0
    for i, (_method, row) in enumerate(others.iterrows()):
        running = max(running, min(1.0, (k - 1 - i) * row["p"]))
        assert row["p_holm"] == pytest.approx(running)
        assert row["significant"] == (running < 0.05)


def test_friedman_is_skipped_when_undefined():
    two_methods = pd.DataFrame({"a": [0.1, 0.2, 0.3], "b": [0.3, 0.1, 0.2]})
    (statistic, p_value), posthoc = friedman_holm(two_methods)
    assert np.isnan(statistic) and np.isnan(p_value)
    assert posthoc["rank"].tolist() == pytest.approx([4 / 3, 5 / 3])
    all_tied = pd.DataFrame({"a": [0.5, 0.2], "b": [0.5, 0.2], "c": [0.5, 0.2]})
    assert np.isnan(friedman_holm(all_tied)[0][0])


def test_wins_and_losses_are_antisymmetric():
    rng = np.random.RandomState(0)
    matrix = pd.DataFrame(rng.rand(6, 3).round(1), columns=["a", "b", "c"])
    wl = wins_losses(matrix).set_index(["method", "opponent"])
    for (a, b), row in wl.iterrows():
        assert row["wins"] == wl.loc[(b, a), "losses"]
        assert row["wins"] + row["losses"] + row["ties"] == 6
    assert wl.loc[("a", "b"), "wins"] == int((matrix["a"] > matrix["b"]).sum())


@pytest.mark.slow
def test_report_files_and_html(small_run):
    out, rep = small_run
    assert rep.errors == []
    for name in ("results.csv", "summary.csv", "ranks.csv", "tests.csv", "wins.csv", "report.md", "index.html"):
        assert (out / name).is_file(), name
    for dataset in DATASETS:
        png = out / "curves" / f"{dataset}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    page = rep.html.read_text()
    assert page.count("<img ") == 3 and 'src="curves/wine.png"' in page
    for text in ("10 questions", "as first-rows", "Friedman", "Holm", "average rank", "given the true K", "finds K"):
        assert text in page, text
    # settings: every grid budget, then the matched one
    assert rep.settings == ["0 questions", "10 questions", "30 questions", "as first-rows"]
    summary = pd.read_csv(out / "summary.csv")
    assert len(summary) == 3 * 3 * 3 + 3 * 4  # grid: 3 budgets x 3 datasets x 3 methods; matched: 3 x all 4
    assert set(summary.loc[summary["setting"] == "10 questions", "method"]) == {"closest", "random-pairs", "kmeans"}
    ranks = rep.ranks[rep.ranks["setting"] == "30 questions"]
    assert ranks["rank"].sum() == pytest.approx(1 + 2 + 3) and (ranks["n_datasets"] == 3).all()
    tests = rep.tests[rep.tests["setting"] == "30 questions"]
    assert tests["friedman_p"].notna().all()
    md = (out / "report.md").read_text()
    assert "![iris](curves/iris.png)" in md and "| dataset |" in md


@pytest.mark.slow
def test_report_command_rebuilds_the_same_tables(small_run, tmp_path):
    out, rep = small_run
    before = (out / "summary.csv").read_text()
    (out / "summary.csv").unlink()
    (out / "index.html").unlink()
    result = CliRunner().invoke(main, ["bench", "report", str(out)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert (out / "summary.csv").read_text() == before and (out / "index.html").is_file()
    assert "Report:" in result.output and "iris: mean ARI" in result.output
    nmi = report(out, metric="nmi", write=False)
    assert not np.allclose(nmi.summary["mean"], rep.summary["mean"])
    missing = CliRunner().invoke(main, ["bench", "report", str(tmp_path)])
    assert missing.exit_code != 0 and "holds no results.csv" in missing.output


@pytest.mark.slow
def test_bench_command_runs_lists_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setitem(_REGISTERED, "first-rows", FIRST)  # this process only, undone after the test
    out = tmp_path / "cli"
    args = ["bench", "--datasets", "iris,wine", "--methods", "kmeans,first-rows", "--budgets", "0,5", "--folds", "2"]
    result = CliRunner().invoke(main, [*args, "--out", str(out)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Given the true number of clusters: kmeans." in result.output
    assert f"Report: {out / 'index.html'}" in result.output
    assert "@" in result.output  # first-rows: score @ its own number of questions
    assert "cells 8/8" in result.stderr  # progress lines when the output is not a terminal
    first = pd.read_csv(out / "results.csv")
    # resume with no other option: the stored settings are used, nothing is left to run
    again = CliRunner().invoke(main, ["bench", "--out", str(out), "--resume"], terminal_width=200)
    assert again.exit_code == 0, again.output
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv"), first)
    refused = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert refused.exit_code != 0 and "--resume" in refused.output
    listed = CliRunner().invoke(main, ["bench", "--list"], terminal_width=200)
    assert listed.exit_code == 0
    for name in ("cobra-25", "cobras", "pckmeans-minmax", "mpckmeans-npu", "active-cobs", "bac-info", "kmeans"):
        assert name in listed.output
    assert "true K given" in listed.output and "finds K" in listed.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--datasets", "nope"], "Unknown dataset"),
        (["--methods", "nope"], "Unknown method 'nope'"),
        (["--budgets", "ten"], "comma-separated list"),
        (["--folds", "1"], "'folds' argument of run must be an int in the range [2, inf). Got 1 instead"),
        (["--backend", "spark"], "'spark' is not one of"),
    ],
)
def test_bench_command_reports_bad_options(tmp_path, args, message):
    base = ["bench", "--methods", "kmeans", "--datasets", "iris"]
    result = CliRunner().invoke(main, [*base, *args, "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert message in result.output
