"""No function of linkwise is above the cyclomatic complexity (radon's measure) the README states: a longer chain
of decisions is split into named steps. The bound is read from the README, so the gate and the text are one."""

import re
from pathlib import Path

import pytest

cc_visit = pytest.importorskip("radon.complexity", reason="radon (dev extra) missing").cc_visit

ROOT = Path(__file__).resolve().parents[2]


def _bound():
    """The bound the README states ("a cyclomatic complexity (radon) of at most N")."""
    found = re.search(r"cyclomatic\s+complexity\s+\(radon\)\s+of\s+at\s+most\s+(\d+)", (ROOT / "README.md").read_text())
    assert found, "README.md no longer states the complexity bound that tests/project/test_complexity.py gates on"
    return int(found.group(1))


def _over(source, bound):
    """``(name, complexity)`` of every function and method in ``source`` above ``bound`` (radon lists a method
    beside its class; a class's own figure, the sum over its methods, is no function's)."""
    return [(b.fullname, b.complexity) for b in cc_visit(source) if hasattr(b, "closures") and b.complexity > bound]


def test_no_function_is_above_the_stated_complexity():
    bound = _bound()
    over = {f"{path.relative_to(ROOT)}:{name}": cc for path in sorted((ROOT / "linkwise").rglob("*.py"))
            for name, cc in _over(path.read_text(encoding="utf-8"), bound)}
    assert not over, f"split these into named steps (radon cyclomatic complexity > {bound}): {over}"


@pytest.mark.parametrize("branches", [3, 30])
def test_the_gate_finds_a_function_with_too_many_branches(branches):
    def body(indent):
        return "".join(f"{indent}if x == {k}:\n{indent}    return {k}\n" for k in range(branches))

    source = f"class C:\n    def m(self, x):\n{body(' ' * 8)}\n\ndef f(x):\n{body(' ' * 4)}"
    expected = [] if branches + 1 <= _bound() else [("C.m", branches + 1), ("f", branches + 1)]
    assert sorted(_over(source, _bound())) == expected
