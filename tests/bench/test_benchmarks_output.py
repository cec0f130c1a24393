"""Quick benchmark runs (``make bench``) never overwrite the committed full-size results.

Every ``benchmarks/bench_*.py`` gets its output paths from ``benchmarks/_results.py``:
full runs write to ``benchmarks/results/``, ``--quick`` runs to ``benchmarks/results/quick/``.
No benchmark is measured here except one quick run of the cheapest script (about 2 s).
"""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import _results

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
SCRIPTS = sorted(BENCH.glob("bench_*.py"))
# calls that write a file, whatever the script calls its paths
WRITES = {"write_text", "write_bytes", "to_csv", "to_json", "to_parquet", "dump", "savefig", "mkdir", "open"}


def test_full_runs_write_to_results_and_quick_runs_to_results_quick(tmp_path, monkeypatch):
    assert _results.RESULTS == Path(_results.__file__).parent / "results"
    assert _results.QUICK == _results.RESULTS / "quick"
    monkeypatch.setattr(_results, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(_results, "QUICK", tmp_path / "results" / "quick")
    assert _results.results_path("cobra.md", quick=False) == tmp_path / "results" / "cobra.md"
    assert _results.results_path("cobra.md", quick=True) == tmp_path / "results" / "quick" / "cobra.md"
    assert (tmp_path / "results" / "quick").is_dir()  # created on demand


def test_quick_results_are_ignored_by_git():
    ignored = subprocess.run(["git", "check-ignore", "-q", "benchmarks/results/quick/cobra.md"], cwd=ROOT)
    assert ignored.returncode == 0, "add benchmarks/results/quick/ to .gitignore"


def _results_paths(tree):
    """String constants of a module that spell a path into a ``results`` folder: a path literal
    (``"benchmarks/results/x.md"``), or ``"results"`` joined to a path (``HERE / "results"``,
    ``Path("results")``, ``os.path.join(HERE, "results")``). Docstrings, prose and keys such as
    ``saved["results"]`` are not paths."""
    joined = {id(n) for node in ast.walk(tree) for n in
              ([node.left, node.right] if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) else
               node.args if isinstance(node, ast.Call) else [])}  # fmt: skip
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parts = node.value.replace("\\", "/").split("/")
            if "results" in parts and (id(node) in joined or len(parts) > 1 and " " not in node.value):
                found.append(node.value)
    return found


def _calls(tree):
    return {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            for n in ast.walk(tree) if isinstance(n, ast.Call)}  # fmt: skip


def _from_helper(tree):
    """What a module takes from the helper (``import _results`` counts as taking all of it)."""
    return [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "_results"
            for a in n.names] + [a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                                 for a in n.names if a.name == "_results"]  # fmt: skip


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_reach_the_results_folders_only_through_the_helper(script):
    """The guard: a path into ``results`` spelled out in a script (``HERE / "results" / "x.md"``,
    ``"benchmarks/results/x.md"``) or built on the helper's folders (``RESULTS / "x.md"``) would bypass
    the quick/full split, so it fails here; a script that writes files takes its paths from ``results_path``."""
    tree = ast.parse(script.read_text())
    literal = _results_paths(tree)
    assert not literal, f"{script.name} names the results folder itself: {literal}; use _results.results_path"
    taken = _from_helper(tree)
    # write_section writes to a path it is given (from results_path): it picks no folder
    assert set(taken) <= {"results_path", "write_section"}, \
        f"{script.name} takes {taken} from _results: only results_path picks the mode"
    if _calls(tree) & WRITES:
        assert taken, f"{script.name} writes files: take their paths from _results.results_path"


@pytest.mark.slow
def test_a_quick_run_leaves_the_committed_results_untouched(tmp_path):
    """bench_constraints.py --quick (about 2 s), run in a copy of benchmarks/ holding the committed report."""
    committed = BENCH / "results" / "constraints.md"
    before = committed.read_bytes()
    copy = tmp_path / "benchmarks"
    (copy / "results").mkdir(parents=True)
    for name in ("bench_constraints.py", "_results.py", "results/constraints.md"):
        shutil.copy(BENCH / name, copy / name)
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(copy / "bench_constraints.py"), "--quick"], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (copy / "results" / "constraints.md").read_bytes() == before
    quick = copy / "results" / "quick" / "constraints.md"
    assert "Mode: quick." in quick.read_text()
    assert f"wrote {quick}" in done.stdout
    assert committed.read_bytes() == before
