"""ruff finds nothing: no unused import or variable, undefined name, syntax error, unsorted import block, bugbear
finding or function over the complexity bound (pyproject.toml's [tool.ruff.lint])."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("ruff", path=str(Path(sys.executable).parent)) is None, reason="ruff (dev extra) missing")
def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    result = subprocess.run(
        [ruff, "check", "--no-cache", "linkwise", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
