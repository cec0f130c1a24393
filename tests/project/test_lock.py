"""The development lock (requirements/dev.lock) pins every dependency pyproject.toml names, inside its range.

`make test` installs through the lock, so a lock that misses a package, or pins it outside the range the library
declares, would test something users cannot install. Regenerate it with `make lock` after changing pyproject.toml.
"""

import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _pins():
    """name -> version of every pin that applies to this interpreter (the lock is universal: pins carry markers)."""
    pins = {}
    for line in (ROOT / "requirements" / "dev.lock").read_text().splitlines():
        if line and not line.startswith((" ", "#")):
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate(default_environment()):
                (spec,) = req.specifier
                pins[canonicalize_name(req.name)] = spec.version
    return pins


def _declared():
    """Every requirement of the library and of the extras the lock is made for ([dev] and what it includes)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras, todo, reqs = project["optional-dependencies"], ["dev"], list(map(Requirement, project["dependencies"]))
    while todo:
        for text in extras[todo.pop()]:
            req = Requirement(text)
            if canonicalize_name(req.name) == "linkwise":
                todo.extend(req.extras)
            else:
                reqs.append(req)
    return reqs


def test_the_lock_pins_every_declared_dependency_inside_its_range():
    pins, declared = _pins(), _declared()
    assert len(declared) > 10
    for req in declared:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in requirements/dev.lock: run `make lock`"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"requirements/dev.lock pins {req.name}=={pins[name]} outside pyproject.toml's {req}: run `make lock`")


def test_the_library_itself_declares_ranges_not_pins():
    # the lock pins the development environment; users' installs must stay free to take newer releases
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    every = project["dependencies"] + [r for reqs in project["optional-dependencies"].values() for r in reqs]
    pinned = [r for r in every if any(s.operator in ("==", "===") for s in Requirement(r).specifier)]
    assert pinned == []
