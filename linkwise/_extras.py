"""Optional dependencies: which extra installs which package, and the one error a missing one raises.

``pip install linkwise`` gives the library (NumPy, SciPy, scikit-learn,
joblib, and click for the ``linkwise`` command); the web page, the terminal
prompt, the notebook widget, the benchmark harness, the Dask backend, time series and images are extras.
Every import of an optional package sits inside :func:`requires`, so a missing one is a single
line naming the extra to install, not a traceback from deep inside linkwise.
"""

import importlib.util
from contextlib import contextmanager

# extra -> the top-level modules it provides (pyproject.toml's optional-dependencies install them)
EXTRAS = {
    "session": ("pandas", "pyarrow", "rich", "starlette", "uvicorn"),
    "bench": ("pandas", "rich", "matplotlib"),
    "dask": ("dask", "distributed"),
    "timeseries": ("aeon",),
    "images": ("skimage",),
    "notebook": ("anywidget", "traitlets"),
    "models": ("skops",),
}


class MissingExtraError(ImportError):
    """An optional package is not installed; the message names the extra that installs it.

    An ImportError, so ``except ImportError`` still catches it; the command
    line prints it as one ``Error:`` line.

    Examples
    --------
    >>> print(MissingExtraError("session", "starlette", "linkwise cluster"))
    linkwise cluster needs the 'session' extra (starlette is not installed): pip install 'linkwise[session]'
    """

    def __init__(self, extra, missing, feature):
        self.extra, self.missing, self.feature = extra, missing, feature
        super().__init__(
            f"{feature} needs the {extra!r} extra ({missing} is not installed): pip install 'linkwise[{extra}]'",
            name=missing,
        )


@contextmanager
def requires(extra, feature):
    """Turn a missing package of ``extra`` imported in the block into :class:`MissingExtraError`.

    Only the packages :data:`EXTRAS` lists for ``extra`` are translated: any
    other missing module is a bug and keeps its own error.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.
    feature : str
        What needs it, as the person knows it (e.g. ``"linkwise.session"``).

    Examples
    --------
    >>> try:
    ...     with requires("session", "linkwise.session"):
    ...         raise ModuleNotFoundError("No module named 'starlette'", name="starlette")  # as a failed import does
    ... except MissingExtraError as exc:
    ...     print(exc)
    linkwise.session needs the 'session' extra (starlette is not installed): pip install 'linkwise[session]'
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        top = (exc.name or "").partition(".")[0]
        if top not in EXTRAS[extra]:
            raise
        raise MissingExtraError(extra, top, feature) from None


def installed(extra):
    """Whether every package of ``extra`` is installed (found, not imported: a hint costs no import).

    Examples
    --------
    >>> installed("session") in (True, False)
    True
    """
    return all(importlib.util.find_spec(module) is not None for module in EXTRAS[extra])
