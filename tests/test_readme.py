"""Every Python snippet of the README runs, in order, as a reader would paste them into one interpreter.

A snippet that calls a name the library does not have (or has renamed) fails here, not in a user's notebook.
"""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_readme_has_python_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.slow
def test_every_readme_python_snippet_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # snippets may write caches (cache="lw-cache") into the working directory
    namespace = {}
    for number, code in enumerate(SNIPPETS, 1):
        try:
            exec(compile(code, f"README.md python snippet {number}", "exec"), namespace)
        except Exception as error:  # noqa: BLE001 - report which snippet broke
            pytest.fail(f"README python snippet {number} raised {type(error).__name__}: {error}\n{code}")
