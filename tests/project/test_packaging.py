"""What a wheel of linkwise holds, read from pyproject.toml's package data: every file the code reads beside its
modules; only the datasets' table leaves files out (tests/core/test_datasets.py checks that those are the tables
of GPL-licensed packages)."""

import fnmatch
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _matches(table, path):
    """Whether a pattern of ``table`` (package -> patterns relative to it) names the file ``path``."""
    return any(fnmatch.fnmatch(path, f"{package.replace('.', '/')}/{pattern}")
               for package, patterns in table.items() for pattern in patterns)


def test_every_file_beside_the_modules_goes_in_the_wheel_but_gpl_data():
    files = subprocess.run(["git", "ls-files", "linkwise"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    data = [f for f in files if not f.endswith(".py")]
    assert any("session/front/static/" in f for f in data) and any("datasets/data/" in f for f in data)
    assert [f for f in data if not _matches(SETUPTOOLS["package-data"], f)] == []  # the page's static files too
    assert list(SETUPTOOLS["exclude-package-data"]) == ["linkwise.datasets"]
    assert any(_matches(SETUPTOOLS["exclude-package-data"], f) for f in data)  # the GPL tables are left out
