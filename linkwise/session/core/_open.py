"""Opening a session file: one way for ``linkwise cluster``, :func:`open_session` and the notebook widget.

``resolve_session`` decides, from the session file and what is given, everything the session is opened with:
the stored description (read once, with whether anything was answered), whether the columns are chosen afresh (a
new session, or one with nothing answered given other columns), the data (the stored options where none is given,
the id and text columns detected for a new session's data file, as ``linkwise cluster`` says in its "Detected:"
line). :func:`open_session` adds the method (``Auto`` for a new session, as the command line) and opens it; the
command line adds its own options (the metric of time series, a team, answers brought along).

Data given in memory is written once as Parquet next to the session file (``s.db`` -> ``s.parquet``): the same
session then resumes from the command line, the web page or a notebook. An existing data file there is used only
when it holds the same data; it is never overwritten.
"""

import os
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.session.core._controller import HumanSession, _stored_meta
from linkwise.session.core._store import SessionStore
from linkwise.session.data._data import as_pandas, load_data

with requires("session", "linkwise.session"):
    import pandas as pd

__all__ = ["Resolved", "open_session", "resolve_session"]


class Resolved(NamedTuple):
    """What ``resolve_session`` decided: the stored description (``{}``: a new session), whether the columns
    were chosen afresh, the data, and the line saying which columns were detected ("" when none was)."""

    stored: dict
    fresh: bool
    dataset: object
    detected: str


def _stored(path):
    """The checked description of the session in ``path`` ({} before its first start) and whether it holds an
    answer (or held one: an undone answer stays in it), from one opening of the file."""
    if not Path(path).exists():
        return {}, False
    with SessionStore(path, read_only=True) as store:
        return _stored_meta(store, path), bool(store.answers() or store.retracted())


def resolve_session(path, data=None, *, id_column=None, text_column=None, image_column=None, features=None,
                    encoding=None, series=None, image_root=None, scale=None):
    """Decide what the session file ``path`` opens with, on the data file ``data`` (None: the one it names).

    Parameters
    ----------
    path : str or Path
        The session file (it need not exist yet).
    data : str or Path, optional
        A data file as :func:`load_data` reads it; None: the stored one.
    id_column, text_column, image_column, features, encoding, series, image_root, scale : optional
        As :func:`load_data` takes them; None keeps the stored option. Given to a session with nothing
        answered, the column options choose its columns afresh (the others detected again).

    Returns
    -------
    Resolved
        The stored description, whether the columns were chosen afresh, the Dataset and the detection's line.

    Raises
    ------
    InvalidParameterError
        If there is no session in ``path`` and no ``data``.
    """
    stored, answered = _stored(path)
    if data is None:
        if not stored:
            raise InvalidParameterError(f"There is no session in {path} to resume; give the 'data' to start one.")
        data = stored["data_path"]
    chosen = {"id_column": id_column, "text_column": text_column, "image_column": image_column, "features": features,
              "series": series}
    fresh = not stored or any(v is not None for v in chosen.values()) and not answered
    kept = stored.get("data_options", {})
    if stored and fresh:  # nothing answered: the columns are chosen anew, the reading of the file is kept
        kept = {k: v for k, v in kept.items() if k in ("encoding", "scale")}
    detected = ""
    if fresh and Path(data).is_file() and image_column is None and series is None:  # see _detect
        from linkwise.session.data._detect import detect_options

        found = detect_options(data, encoding if encoding is not None else kept.get("encoding"), id_column=id_column,
                               text_column=text_column, features=features)
        chosen["id_column"], chosen["text_column"] = id_column or found.id_column, text_column or found.text_column
        detected = found.line
    options = {k: kept.get(k) if v is None else v for k, v in {**chosen, "encoding": encoding}.items()}
    root = image_root if image_root is not None else stored.get("image_root")
    dataset = load_data(data, image_root=root, scale=kept.get("scale", scale or "minmax"), **options)
    return Resolved(stored, fresh, dataset, detected)


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
    """Write ``frame`` to ``target`` as Parquet unless a file is there already; then the fingerprint of ``frame``'s
    data as read from Parquet, for the caller to compare with the file's (None: written now)."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".parquet", dir=target.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        frame.to_parquet(temporary, index=False)
        if not target.exists():
            os.replace(temporary, target)
            return None
        return load_data(temporary, **options).fingerprint
    finally:
        temporary.unlink(missing_ok=True)


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
        As :class:`HumanSession` takes it (default for a new session:
        ``Auto()``, as ``linkwise cluster``).
    id_column, text_column, image_column, features, scale : optional
        As :func:`load_data` takes them (image paths are relative to the
        data file's folder; for an existing session, None keeps the stored
        options). For a new session's data file the id and text columns
        not given are detected as ``linkwise cluster`` detects them
        (``session._open.resolve_session``).
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
    options = {"id_column": id_column, "text_column": text_column, "image_column": image_column,
               "features": features}
    given = None  # the fingerprint of data given in memory, when a file beside the session holds some already
    if data is not None and not isinstance(data, (str, os.PathLike)):
        frame, index = _frame(data)
        if index is not None and options["id_column"] is None:
            options["id_column"] = index
        target = path.resolve().with_suffix(".parquet")
        if target == path.resolve():
            raise InvalidParameterError(f"The session file {path} would be its own data file; name it .db.")
        given = _write_beside(frame, target, {**options, "scale": scale})
        data = target
    resolved = resolve_session(path, data, scale=scale, **options)
    if given is not None and given != resolved.dataset.fingerprint:  # the file there holds other data
        raise InvalidParameterError(
            f"The data file {data} beside the session file holds other data than the 'data' given; give the "
            "session file of this data (or a new one), or the data this session was started with.")
    if estimator is None and not resolved.stored:  # a new session's method: the command line's default
        from linkwise.auto import Auto

        estimator = Auto()
    return HumanSession(path, resolved.dataset, estimator, **kwargs)
