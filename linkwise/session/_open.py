"""A human session from Python data: an array or a DataFrame becomes a data file beside the session file.

``linkwise cluster`` and ``linkwise export`` read the data from a file, so data given in memory is written once as
Parquet next to the session file (``s.db`` -> ``s.parquet``): the same session then resumes from the command line,
the web page or a notebook. An existing data file there is used only when it holds the same data; it is never
overwritten.
"""

import os
import tempfile
from pathlib import Path

import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.session._controller import HumanSession, read_meta
from linkwise.session._data import as_pandas, load_data

with requires("session", "linkwise.session"):
    import pandas as pd

__all__ = ["open_session"]


def _frame(data):
    """``data`` as a table with text column names, and the column holding a DataFrame's own index (else None)."""
    data = as_pandas(data)
    if isinstance(data, pd.DataFrame):
        frame = data.copy()
        index = None
        if not isinstance(frame.index, pd.RangeIndex) or not frame.index.equals(pd.RangeIndex(len(frame))):
            index = str(frame.index.name or "id")
            if index in map(str, frame.columns):
                raise InvalidParameterError(f"The 'data' argument of open_session has an index named {index!r} and "
                                            f"a column of that name; rename one, or reset_index() first.")
            frame = frame.reset_index(names=index)
        frame.columns = [str(c) for c in frame.columns]
        if frame.columns.duplicated().any():
            twice = frame.columns[frame.columns.duplicated()][0]
            raise InvalidParameterError(f"The 'data' argument of open_session has two columns named {twice!r}; "
                                        "give every column its own name.")
        return frame, index
    X = np.asarray(data)
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise InvalidParameterError("The 'data' argument of open_session must be a 2-D numeric array, a DataFrame "
                                    f"or the path of a data file, got an array of shape {X.shape} and dtype {X.dtype}.")
    return pd.DataFrame(X, columns=[f"x{k}" for k in range(X.shape[1])]), None


def _write_beside(frame, target, options):
    """The Dataset of ``frame`` read from ``target`` (a Parquet file written now, or one holding the same data)."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".parquet", dir=target.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        frame.to_parquet(temporary, index=False)
        fresh = load_data(temporary, **options)
        if not target.exists():
            os.replace(temporary, target)
            return load_data(target, **options)
        kept = load_data(target, **options)
    finally:
        temporary.unlink(missing_ok=True)
    if kept.fingerprint != fresh.fingerprint:
        raise InvalidParameterError(
            f"The data file {target} beside the session file holds other data than the 'data' given; give the "
            "session file of this data (or a new one), or the data this session was started with.")
    return kept


def open_session(path, data=None, estimator=None, *, id_column=None, text_column=None, image_column=None, features=None,
                 scale="minmax", **kwargs):
    """Start or resume a human session on the session file ``path``, from Python data.

    Parameters
    ----------
    path : str or Path
        The session file (SQLite; created if missing, resumed if not).
    data : array-like of shape (n_rows, n_features), DataFrame, str or Path, optional
        The rows to cluster. An array or a DataFrame is written once as
        Parquet beside the session file (``s.db`` -> ``s.parquet``), so that
        ``linkwise cluster s.parquet --session s.db`` resumes the same
        session in the web page (a polars DataFrame as pandas); a DataFrame's own index (when it is not
        0..n-1) becomes its id column. A path is a data file as
        :func:`load_data` reads it. None: resume the session in ``path``
        with the data file it names.
    estimator : ActiveEstimator, optional
        As :class:`HumanSession` takes it (default for a new session: COBRAS).
    id_column, text_column, image_column, features, scale : optional
        As :func:`load_data` takes them (image paths are relative to the
        data file's folder; for an existing session, None keeps the stored
        options).
    **kwargs
        Passed to :class:`HumanSession` (``known``, ``annotators``, ...).

    Returns
    -------
    HumanSession
        Close it (``session.close()``) to open the file elsewhere.

    Examples
    --------
    >>> import os, tempfile
    >>> import linkwise as lw
    >>> from linkwise.session import open_session
    >>> X, y = lw.datasets.load("iris")
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.db")
    >>> session = open_session(path, X, lw.COBRAS(random_state=0))
    >>> session.data.path.name, session.data.X.shape
    ('iris.parquet', (147, 4))
    >>> session.close()
    >>> again = open_session(path)  # the stored data file and method
    >>> again.estimator.random_state
    0
    >>> again.close()
    """
    path = Path(path)
    stored = read_meta(path) if path.exists() else {}
    chosen = {"id_column": id_column, "text_column": text_column, "image_column": image_column, "features": features}
    options = {**{k: stored.get("data_options", {}).get(k) if v is None else v for k, v in chosen.items()},
               "scale": stored.get("data_options", {}).get("scale", scale)}
    if data is None:
        if not stored:
            raise InvalidParameterError(f"There is no session in {path} to resume; give the 'data' to start one.")
        dataset = load_data(stored["data_path"], image_root=stored.get("image_root"),
                            **{**{k: v for k, v in stored["data_options"].items() if k != "scale"}, **options})
    elif isinstance(data, (str, os.PathLike)):
        dataset = load_data(data, **options)
    else:
        frame, index = _frame(data)
        if index is not None and options["id_column"] is None:
            options["id_column"] = index
        target = path.resolve().with_suffix(".parquet")
        if target == path.resolve():
            raise InvalidParameterError(f"The session file {path} would be its own data file; name it .db.")
        dataset = _write_beside(frame, target, options)
    return HumanSession(path, dataset, estimator, **kwargs)
