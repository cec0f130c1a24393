"""Benchmark datasets of the active-clustering literature, shipped with linkwise.

Each dataset is a gzip-compressed CSV with numeric feature columns and an
integer ``label`` column (0..k-1); ``MANIFEST.csv`` gives its source, licence
terms and cleaning notes (see ``data/ATTRIBUTION.md``). Values are raw: pass
``scale="minmax"`` (to [0, 1], as COBRA and COBS do) or ``scale="standard"``
(z-scores) to :func:`load`.

Three digit subsets exist because the papers used three: ``optdigits389``
(UCI optdigits training file; COBRA, COBS), ``digits389`` (the optdigits test
file, = scikit-learn's ``load_digits``; Švehla 2018) and ``pendigits389`` (pen
digits; Pei et al. 2015).

Examples
--------
>>> from linkwise import datasets
>>> X, y = datasets.load("wine", scale="standard")
>>> X.shape, int(y.max()) + 1
((178, 13), 3)
>>> "iris" in datasets.names()
True
"""

import csv
import gzip
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from linkwise._validation import InvalidParameterError, check_option

__all__ = ["load", "names", "info", "DATA_DIR"]

DATA_DIR = Path(__file__).parent / "data"
_SUFFIX = ".csv.gz"


def _search_dirs(data_dir):
    dirs = []
    if data_dir is not None:
        if not Path(data_dir).is_dir():
            raise InvalidParameterError(f"The 'data_dir' argument names {str(data_dir)!r}, which is not a directory.")
        dirs.append(Path(data_dir))
    env = os.environ.get("LINKWISE_DATA")
    if env:
        dirs.extend(Path(p) for p in env.split(os.pathsep) if p)
    dirs.append(DATA_DIR)
    return dirs


def names(data_dir=None):
    """Sorted names of the datasets that :func:`load` can read.

    Parameters
    ----------
    data_dir : str or Path, optional
        An extra directory of ``<name>.csv.gz`` files (``LINKWISE_DATA`` is
        also searched, as a path list).
    """
    found = set()
    for d in _search_dirs(data_dir):
        if d.is_dir():
            found.update(p.name[: -len(_SUFFIX)] for p in d.glob(f"*{_SUFFIX}"))
    return sorted(found)


def _path(name, data_dir):
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise InvalidParameterError(f"The 'name' argument of load must be a dataset name, got {name!r}.")
    for d in _search_dirs(data_dir):
        path = d / f"{name}{_SUFFIX}"
        if path.is_file():
            return path
    raise InvalidParameterError(
        f"Unknown dataset {name!r}. Known: {', '.join(names(data_dir))}. "
        "Pass data_dir= (or set LINKWISE_DATA) to read <name>.csv.gz from another directory."
    )


@lru_cache(maxsize=64)
def _read(path):
    form = "the format is a gzip-compressed UTF-8 CSV of numeric features and an integer 'label' column"
    try:
        with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
            header, *rows = csv.reader(f)
    except (OSError, EOFError, UnicodeError, csv.Error, ValueError) as exc:  # not gzip, truncated, not UTF-8, empty
        raise InvalidParameterError(f"{path} cannot be read ({type(exc).__name__}: {exc}); {form}.") from None
    if "label" not in header:
        raise InvalidParameterError(f"{path} has no 'label' column; {form}.")
    ragged = next((i for i, row in enumerate(rows, start=2) if len(row) != len(header)), None)
    if ragged is not None:
        raise InvalidParameterError(f"{path} row {ragged} has not the {len(header)} fields of its header; {form}.")
    try:  # numpy parses decimal text exactly as pandas' reader did (same arrays, bit for bit, on the shipped data)
        table = np.array(rows, dtype=str).reshape(len(rows), len(header)).astype(np.float64)
    except ValueError as exc:
        raise InvalidParameterError(f"{path} holds a value that is not a number ({exc}); {form}.") from None
    at = header.index("label")
    X, labels = np.delete(table, at, axis=1), table[:, at]
    if not np.all(np.isfinite(labels) & (labels == np.round(labels))):
        raise InvalidParameterError(f"{path} has a 'label' that is not a number or not an integer; {form}.")
    y = labels.astype(np.intp)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load(name, scale=None, data_dir=None):
    """Load a dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        A name from :func:`names`.
    scale : {None, "minmax", "standard"}, default=None
        None: raw values. ``"minmax"``: each feature to [0, 1]. ``"standard"``:
        zero mean, unit variance. Constant features become 0 in both.
    data_dir : str or Path, optional
        Directory searched before ``LINKWISE_DATA`` and the shipped data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int
    """
    check_option(scale, "scale", "load", (None, "minmax", "standard"), role="argument")
    X, y = _read(_path(name, data_dir))
    X = X.copy()
    if scale == "minmax":
        span = X.max(axis=0) - X.min(axis=0)
        X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
    elif scale == "standard":
        std = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    return X, y.copy()


@lru_cache(maxsize=1)
def _manifest():
    with open(DATA_DIR / "MANIFEST.csv", newline="") as f:
        return {row["name"]: row for row in csv.DictReader(f)}


def info(name, data_dir=None):
    """Size, source and terms of a dataset.

    Returns
    -------
    info : dict
        ``name``, ``n``, ``d``, ``k``, and for shipped datasets ``source``,
        ``license`` and ``notes`` (from MANIFEST.csv; None for a user's file).

    Examples
    --------
    >>> info("iris")["k"]
    3
    """
    X, y = _read(_path(name, data_dir))
    row = _manifest().get(name, {})
    source = f"{row['source_repo']} {row['source_path']}" if row else None
    return {
        "name": name,
        "n": X.shape[0],
        "d": X.shape[1],
        "k": int(np.unique(y).size),
        "source": source,
        "license": row.get("license"),
        "notes": row.get("notes"),
    }
