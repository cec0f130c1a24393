"""Save a fitted estimator, or a finished session's, and load it to ``predict`` new items elsewhere.

:func:`save` writes the estimator's parameters, its fitted attributes and
the rule ``predict`` applies (:mod:`linkwise.prediction`), with the linkwise
version and the model format that wrote them. What only the question loop
used (its working state, e.g. the belief behind ``corrections_``) is left
out. Two formats, chosen by the file name:

- ``.skops`` (``pip install 'linkwise[models]'``): skops's safe format,
  which builds only types it is told to trust; :func:`load` trusts the
  linkwise types of :data:`TRUSTED` (and skops's defaults: NumPy, SciPy,
  scikit-learn), never anything else, so a file from anyone can be read.
- anything else: joblib's pickle, which can run code while loading: load
  only files you trust.

Examples
--------
>>> import os, tempfile
>>> import linkwise as lw
>>> X, y = lw.datasets.load("iris", scale="minmax")
>>> est = lw.COBRAS(max_queries=20, random_state=0).fit(X, lw.LabelOracle(y))
>>> path = os.path.join(tempfile.mkdtemp(), "cobras.joblib")
>>> lw.persist.save(est, path)
>>> again = lw.persist.load(path)
>>> bool((again.predict(X) == est.predict(X)).all())
True
"""

from collections.abc import Sequence
from pathlib import Path

import joblib
from sklearn.utils.validation import check_is_fitted

import linkwise
from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.constraints import Constraint, ConstraintStore
from linkwise.loop import ActiveEstimator
from linkwise.methods import declared
from linkwise.prediction import LogisticAssignment, NearestPoints

__all__ = ["save", "load", "TRUSTED", "FORMAT"]

# The layout of a saved model; a file of a later format is refused, one of this or an earlier one is read.
FORMAT = 1
# The private attributes an active estimator keeps (the others are the question loop's working state): predict's
# rule, the shape of series, the super-instances of the COBRA family.
_KEEP = frozenset({"_predictor", "_series_shape", "_tree"})
# what every fitted estimator may hold, whatever its method
_COMMON = (ConstraintStore, Constraint, NearestPoints, LogisticAssignment)




class _Trusted(Sequence):
    """The dotted paths of the linkwise types a .skops file may hold, sorted: those of the declared methods (each
    class and its parts) and :data:`_COMMON`; a read-only view, computed when read (the methods declared by then)."""

    def _paths(self):
        return sorted({f"{t.__module__}.{t.__qualname__}" for t in _COMMON}.union(
            *(method.trusted() for method in declared())))

    def __getitem__(self, k):
        return self._paths()[k]

    def __len__(self):
        return len(self._paths())

    def __iter__(self):
        return iter(self._paths())

    def __contains__(self, path):
        return path in self._paths()

    def __repr__(self):
        return repr(tuple(self._paths()))


TRUSTED = _Trusted()


def _skops(path):
    return Path(path).suffix == ".skops"


def save(estimator, path, *, metadata=None):
    """Write a fitted ``estimator`` (with ``labels_`` and ``predict``) to ``path``.

    Parameters
    ----------
    estimator : estimator
        A fitted estimator of linkwise, or of a method another package declares
        (:func:`linkwise.methods.register`), e.g. ``HumanSession.model()`` of a session.
    path : str or Path
        ``*.skops``: skops's safe format (the ``models`` extra); else joblib.
    metadata : dict, optional
        Plain values (str, numbers, lists, dicts, arrays) kept beside the
        estimator, e.g. how a session's table becomes ``X``.

    Raises
    ------
    NotFittedError
        If ``estimator`` has no ``labels_``.
    TypeError
        If ``estimator`` is neither linkwise's nor of a declared method, or has no ``predict``.

    Examples
    --------
    >>> import os, tempfile
    >>> import linkwise as lw
    >>> est = lw.PCKMeans(n_clusters=2, random_state=0).fit([[0.0], [0.1], [5.0], [5.1]], ml=[(0, 1)])
    >>> path = os.path.join(tempfile.mkdtemp(), "pckmeans.joblib")
    >>> lw.persist.save(est, path, metadata={"features": ["x"]})
    >>> lw.persist.load(path).predict([[0.2], [4.9]]).tolist() == est.predict([[0.2], [4.9]]).tolist()
    True
    """
    check_is_fitted(estimator, "labels_")
    cls = type(estimator)  # linkwise's, or the class of a method declared by another package (imported only then)
    if not callable(getattr(estimator, "predict", None)) or not (cls.__module__.startswith("linkwise.") or any(
            cls is method.load() for method in declared() if not method.path.startswith("linkwise."))):
        raise TypeError(f"The 'estimator' argument of save must be a fitted estimator with predict of linkwise or of a "
                        f"method declared to it (linkwise.methods.register), got {type(estimator).__name__}.")
    model = estimator.__new__(type(estimator))
    active = isinstance(estimator, ActiveEstimator)  # the others keep no question loop: all their state is model
    model.__dict__.update({k: v for k, v in vars(estimator).items() if not (active and k.startswith("_")) or k in _KEEP})
    payload = {"linkwise_version": linkwise.__version__, "format": FORMAT, "estimator": model,
               "metadata": dict(metadata or {})}
    if _skops(path):
        with requires("models", "a .skops model file"):
            import skops.io as sio
        sio.dump(payload, path)
    else:
        joblib.dump(payload, path)


def load(path, *, metadata=False):
    """Read a model written by :func:`save` and return the estimator.

    Parameters
    ----------
    path : str or Path
        A ``.skops`` file (read safely: only :data:`TRUSTED` linkwise types)
        or a joblib file (pickle: from a trusted source only).
    metadata : bool, default=False
        Return ``(estimator, metadata)``: the dict given to :func:`save` too.

    Returns
    -------
    estimator : estimator instance
        The fitted estimator saved.
    metadata : dict
        Only with ``metadata=True``: the dict given to :func:`save` (empty
        if none was).

    Raises
    ------
    InvalidParameterError
        A ValueError: the file is not a linkwise model, holds a type linkwise does not
        trust, or was written in a later model format.

    Examples
    --------
    >>> import os, tempfile
    >>> import linkwise as lw
    >>> est = lw.SeededKMeans(n_clusters=2, random_state=0).fit([[0.0], [0.1], [5.0], [5.1]])
    >>> path = os.path.join(tempfile.mkdtemp(), "seeded.joblib")
    >>> lw.persist.save(est, path, metadata={"features": ["x"]})
    >>> again, metadata = lw.persist.load(path, metadata=True)
    >>> type(again).__name__, metadata
    ('SeededKMeans', {'features': ['x']})
    """
    if not Path(path).is_file():
        raise InvalidParameterError(f"The model file {path} does not exist.")
    if _skops(path):
        with requires("models", "a .skops model file"):
            import skops.io as sio
        try:
            untrusted = sio.get_untrusted_types(file=path)
        except Exception as error:
            raise InvalidParameterError(f"The model file {path} is not a skops file ({error}).") from None
        trusted = set(TRUSTED)
        unknown = [t for t in untrusted if t not in trusted]
        if unknown:
            raise InvalidParameterError(f"The model file {path} holds types linkwise does not trust ({', '.join(unknown)}); it "
                             "was not written by linkwise.persist.save, so it is not loaded.")
        payload = sio.load(path, trusted=untrusted)
    else:
        payload = joblib.load(path)
    if not isinstance(payload, dict) or "format" not in payload or "estimator" not in payload:
        raise InvalidParameterError(f"The file {path} is not a linkwise model (write one with linkwise.persist.save).")
    if payload["format"] > FORMAT:
        raise InvalidParameterError(f"The model file {path} was written by linkwise {payload.get('linkwise_version')} in model "
                         f"format {payload['format']}; this linkwise ({linkwise.__version__}) reads format {FORMAT} "
                         "and earlier: upgrade linkwise.")
    return (payload["estimator"], payload.get("metadata", {})) if metadata else payload["estimator"]
