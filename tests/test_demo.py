"""``linkwise demo``: a short run of the bench harness (reduced here through its options)."""

import pytest
from click.testing import CliRunner

from linkwise.bench import DEMO_METHODS, registry
from linkwise.cli import main


def test_demo_methods_are_registered_and_cover_the_main_families():
    assert set(DEMO_METHODS) <= set(registry())
    for name in ("kmeans", "copkmeans-random", "pckmeans-random", "mpckmeans-random", "cobras"):
        assert name in DEMO_METHODS


@pytest.mark.slow
def test_demo_prints_the_curves_and_the_report_path(tmp_path):
    out = tmp_path / "demo"
    args = ["demo", "--out", str(out), "--budgets", "0,10", "--folds", "2", "--n-jobs", "1"]
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


def test_demo_reports_bad_options(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path), "--datasets", "nope"])
    assert result.exit_code != 0 and "Unknown dataset" in result.output


@pytest.mark.parametrize("found", ["results.csv", "run.json", "index.html"])
def test_demo_never_replaces_another_benchmark(tmp_path, found):
    (tmp_path / found).write_text("somebody's benchmark\n")
    args = ["demo", "--out", str(tmp_path), "--methods", "kmeans", "--budgets", "0", "--folds", "2", "--n-jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "did not write" in result.output and "Traceback" not in result.output
    assert (tmp_path / found).read_text() == "somebody's benchmark\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [found]
