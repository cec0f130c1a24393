"""linkwise: active semi-supervised clustering with pairwise constraints.

Find the grouping a person means by asking as few "do these two belong
together?" questions as possible.

Public names are loaded on first use (PEP 562), so ``import linkwise`` stays
cheap. The library needs only NumPy, SciPy, scikit-learn and joblib;
:mod:`linkwise.session` and :mod:`linkwise.bench` need their extras.

Examples
--------
>>> import linkwise as lw
>>> X, y = lw.datasets.load("iris", scale="minmax")
>>> oracle = lw.LabelOracle(y, random_state=0)
>>> oracle.query(0, 1)
True
"""

import importlib

from linkwise.methods import BUILTIN

__version__ = "0.1.0"

# public names by the module (under linkwise.) that defines them; the estimators are those of the methods' one
# declaration (linkwise.methods)
_OBJECTS = {
    name: f"linkwise.{module}"
    for module, names in {
        "constraints": "ConstraintStore",
        "exceptions": "InconsistentConstraintError",
        "oracle": "Oracle LabelOracle CallbackOracle",
        "loop": "ActiveSession ActiveEstimator",
        "stability": "StabilityMonitor Stability",
        "session": "widget",
    }.items()
    for name in names.split()
}
_OBJECTS.update(reversed(method.path.split(":")) for method in BUILTIN)
_SUBMODULES = set("""active bayes bench cluster cobra cobs committee constraints datasets ensemble exceptions graph images
    loop methods metrics oracle persist prediction repair series session stability""".split())

__all__ = sorted(_OBJECTS) + sorted(_SUBMODULES)


def __getattr__(name):
    if name in _OBJECTS:
        value = getattr(importlib.import_module(_OBJECTS[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"linkwise.{name}")
    else:
        raise AttributeError(f"module 'linkwise' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
