"""``linkwise demo``: the plain-words demo (real runs, checked against the methods run apart), and ``--benchmark``, a
short run of the bench harness (reduced here through its options)."""

import itertools
import os
import re
import sysconfig
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits
from sklearn.metrics import adjusted_rand_score, rand_score

import linkwise as lw
from linkwise.bench import DEMO_METHODS, registry
from linkwise.bench._demo import agreement, tour
from linkwise.bench.command import _linkwise_command
from linkwise.cli import main


@pytest.fixture(scope="module")
def demo_output():
    result = CliRunner().invoke(main, ["demo"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def _flat(text):
    return " ".join(text.split())


@pytest.mark.slow
def test_demo_says_what_linkwise_did_on_digits_as_the_methods_do_apart(demo_output):
    text = _flat(demo_output)
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    auto = lw.Auto(max_queries=100, random_state=0).fit(X, lw.LabelOracle(y))
    kmeans = KMeans(n_clusters=10, n_init=10, random_state=0).fit(X).labels_
    assert auto.n_queries_ == 100
    assert "Digits: 1,797 handwritten digits" in text
    # the summary sentence and the table's last row give what Auto, run on its own, finds after 100 answers
    right = agreement(y, auto.labels_).items_right
    summary = (f"After 100 answers linkwise put {right:,} of 1,797 digits ({100 * right / 1797:.1f}%) in the group of "
               f"their own digit, with ARI {lw.metrics.ari(y, auto.labels_):.3f}")
    assert summary in text
    km_right = agreement(y, kmeans).items_right
    assert (f"K-means, told that there are 10 groups and asking nothing, {km_right:,} of 1,797 digits "
            f"({100 * km_right / 1797:.1f}%), ARI {lw.metrics.ari(y, kmeans):.3f}") in text
    rows = re.findall(r"^ +(\d+) +([01]\.\d{3}) +(\d+) +([\d,]+) of 1,797 digits", demo_output, flags=re.M)
    assert [int(r[0]) for r in rows] == [0, 10, 25, 50, 100]
    assert float(rows[-1][1]) == round(lw.metrics.ari(y, auto.labels_), 3)
    # the ARI explained through the pairs, with figures that give the ARI back
    pairs_right = rand_score(y, auto.labels_)
    assert f"of the 1,613,706 pairs of digits, {100 * pairs_right:.1f}% are right" in text


@pytest.mark.slow
def test_demo_covers_iris_explains_ari_and_ends_pointing_to_the_digits_session(demo_output):
    text = _flat(demo_output)
    assert "Iris: 147 iris flowers" in text and "flowers in the group of their own species" in text
    assert "nobody tells it how many groups there are" in text
    assert "ARI 0.9 is 90% of the way from chance to every pair right" in text
    assert re.search(r"Measured on this machine: [\d.]+ s to the first question", text)
    lines = demo_output.strip().splitlines()
    assert lines[-1].strip().endswith("cluster --demo digits") or lines[-2].strip().endswith("cluster --demo digits")
    assert "Traceback" not in demo_output and "estimate" not in demo_output


@pytest.mark.slow
def test_agreement_explains_the_ari_through_pairs_and_matched_items():
    rng = np.random.default_rng(0)
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n, k_true, k_pred = rng.integers(5, 60), rng.integers(1, 5), rng.integers(1, 5)
        y_true, y_pred = rng.integers(0, k_true, n), rng.integers(0, k_pred, n)
        y_pred[: n // 2] = y_true[: n // 2]  # half agree, so the scores spread
        a = agreement(y_true, y_pred)
        assert a.n_pairs == n * (n - 1) // 2
        assert a.ari == pytest.approx(adjusted_rand_score(y_true, y_pred))
        assert a.pairs_right == pytest.approx(rand_score(y_true, y_pred))
        if a.pairs_by_chance < 1:
            assert a.ari == pytest.approx((a.pairs_right - a.pairs_by_chance) / (1 - a.pairs_by_chance))
        # the expected share over random groupings of the same sizes: the mean over many shuffles approaches it
        shuffled = np.mean([rand_score(y_true, rng.permutation(y_pred)) for _ in range(400)])
        assert shuffled == pytest.approx(a.pairs_by_chance, abs=0.03)
        # the best one-to-one matching of found groups to true groups, by brute force
        found, kinds = np.unique(y_pred), np.unique(y_true)
        best = max(sum(int(np.sum((y_pred == f) & (y_true == t))) for f, t in zip(order, kinds))
                   for order in itertools.permutations(np.concatenate([found, [-1] * len(kinds)]), len(kinds)))
        assert a.items_right == best and a.n_groups == len(found)


@pytest.mark.slow
def test_tour_is_deterministic_and_scores_the_session_it_ran():
    first, second = tour("iris", budgets=[0, 10, 20]), tour("iris", budgets=[20, 10, 0])
    assert [n for n, _ in first.curve] == [0, 10, 20] and len(first.seconds_per_answer) == 20
    assert first.curve == second.curve and first.kmeans == second.kmeans
    X, y = lw.datasets.load("iris", scale="minmax")
    fitted = lw.Auto(max_queries=20, random_state=0).fit(X, lw.LabelOracle(y))
    assert first.curve[-1][1] == agreement(y, fitted.labels_)


def test_demo_options_of_the_benchmark_need_benchmark():
    for args, message in ((["--out", "x"], "--out applies to the benchmark report: add --benchmark"),
                          (["--folds", "2"], "--folds applies to the benchmark report"),
                          (["--datasets", "wine"], "'wine' is not one of digits, iris")):
        result = CliRunner().invoke(main, ["demo", *args])
        assert result.exit_code == 2 and message in _flat(result.output), result.output


def test_the_pointer_names_linkwise_as_it_can_be_typed_here(monkeypatch, tmp_path):
    script = Path(sysconfig.get_path("scripts")) / "linkwise"
    if not script.is_file():
        pytest.skip("linkwise is not installed as a script in this environment")
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert _linkwise_command() == "linkwise"
    monkeypatch.setenv("PATH", str(tmp_path))  # a venv not activated: its path, which runs it from here
    assert Path(_linkwise_command()).resolve() == script.resolve()


def test_demo_methods_are_registered_and_cover_the_main_families():
    assert set(DEMO_METHODS) <= set(registry())
    for name in ("kmeans", "copkmeans-random", "pckmeans-random", "mpckmeans-random", "cobras"):
        assert name in DEMO_METHODS


@pytest.mark.slow
def test_benchmark_demo_prints_the_curves_and_the_report_path(tmp_path):
    out = tmp_path / "demo"
    args = ["demo", "--benchmark", "--out", str(out), "--budgets", "0,10", "--folds", "2", "--n-jobs", "1"]
    result = CliRunner().invoke(main, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "wine: mean ARI on the test folds" in result.output
    for method in DEMO_METHODS:
        assert method in result.output
    assert f"Report: {out / 'index.html'}" in result.output
    assert (out / "curves" / "wine.png").is_file()
    assert "failed" not in result.output
    # running it again replaces the earlier demo instead of refusing the directory
    again = CliRunner().invoke(main, [*args, "--methods", "kmeans"], terminal_width=200)
    assert again.exit_code == 0, again.output
    assert "cobras" not in (out / "results.csv").read_text()


def test_benchmark_demo_reports_bad_options(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--benchmark", "--out", str(tmp_path), "--datasets", "nope"])
    assert result.exit_code != 0 and "Unknown dataset" in result.output


@pytest.mark.parametrize("found", ["results.csv", "run.json", "index.html"])
def test_benchmark_demo_never_replaces_another_benchmark(tmp_path, found):
    (tmp_path / found).write_text("somebody's benchmark\n")
    args = ["demo", "--benchmark", "--out", str(tmp_path), "--methods", "kmeans", "--budgets", "0", "--folds", "2",
            "--n-jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "did not write" in result.output and "Traceback" not in result.output
    assert (tmp_path / found).read_text() == "somebody's benchmark\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [found]


@pytest.mark.slow
def test_the_readme_quotes_the_demo_as_it_prints(demo_output):
    readme = _flat((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8"))
    quoted = re.search(r"after 100 answers ([\d,]+) of 1,797 digits are in the group of their own digit \(ARI "
                       r"([\d.]+)\), against ([\d,]+) for K-means told that there are 10 digits \(ARI ([\d.]+)\); "
                       r"after 10, 25 and 50 answers it is level with K-means \(ARI ([\d.]+)\)", readme)
    assert quoted, "the README no longer quotes the demo's digits"
    right, auto, km_right, km, early = quoted.groups()
    text = _flat(demo_output)
    assert f"After 100 answers linkwise put {right} of 1,797 digits" in text and f"ARI {auto};" in text
    assert f"asking nothing, {km_right} of 1,797 digits" in text and f"ARI {km}." in text
    rows = re.findall(r"^ +(10|25|50) +([01]\.\d{3}) +\d+ +[\d,]+ of 1,797 digits", demo_output, flags=re.M)
    assert [ari for _, ari in rows] == [early] * 3


def test_the_benchmark_progress_estimates_from_the_pace_after_start_up(monkeypatch, capsys):
    from linkwise.bench import _runner

    clock = iter([0.0, 100.0, *np.arange(101.0, 140.0)])  # start; 100 s of start-up to the first cell; 1 s a cell
    monkeypatch.setattr(_runner.time, "monotonic", lambda: next(clock))
    with _runner._Progress(True, 20, 0) as progress:
        for cell in range(20):
            progress.advance(f"cell {cell}")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "cells 1/20, 100 s elapsed, ETA after the next cell"
    # after the start-up the pace is 1 s a cell: the estimate is the cells left, not 100 s each
    assert lines[10] == "cells 11/20, 110 s elapsed, ETA 9 s" and lines[-1] == "cells 20/20, 119 s elapsed, ETA 0 s"
