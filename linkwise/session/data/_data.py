"""A person's data file: reading it (CSV or Parquet, or a folder of images) into a Dataset (:mod:`linkwise.intake`).

A CSV is read as UTF-8 unless a byte-order mark names UTF-16 or UTF-32 or an
encoding is given, with the delimiter and decimal mark its first lines show
(:func:`_dialect`); a file that is not text, not Parquet, not in that encoding
or not complete is refused with one line naming the fix. Messages name a CSV's
rows by their lines (:func:`_places`) and show its cells as written. An image
column's paths must lie under the data file's folder (or ``image_root``).
"""

import codecs
import csv
import lzma
import re
import warnings
import zipfile
import zlib
from contextlib import contextmanager
from functools import cached_property
from itertools import islice
from pathlib import Path

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError, StrOptions, validate_args
from linkwise.images import IMAGE_TYPES
from linkwise.intake import Dataset, Source, UnsafePathError, as_pandas, load_table

with requires("session", "linkwise.session"):
    import pandas as pd

# besides load_data, what the session's other modules take from here: the types of the data, and of their images
__all__ = ["Dataset", "IMAGE_TYPES", "UnsafePathError", "as_pandas", "load_data"]

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))  # UTF-32 LE starts like UTF-16 LE
_HEAD = 8192  # bytes sniffed for a byte-order mark or binary content
# what a truncated or mislabelled compressed file raises; OSError also covers an unreadable file
_UNREADABLE = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
_FIX = "pass its encoding, e.g. encoding='latin-1' (Western European) or encoding='cp1252' (Windows)"
_SNIFFED = 30  # lines of a CSV read to tell its delimiter and decimal mark
_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "'|'"}


@contextmanager
def _long_fields():
    """Let the csv module read cells of any length (its default limit, 131,072 characters, refuses long texts)."""
    limit = csv.field_size_limit(2**31 - 1)  # the largest a C long holds on every platform
    try:
        yield
    finally:
        csv.field_size_limit(limit)


def _open(path, encoding=None, **kwargs):
    """The file, decompressed as pandas does (binary when ``encoding`` is None)."""
    from pandas.io.common import get_handle  # pandas' own opener: the same decompression as read_csv

    return get_handle(path, "r" if encoding else "rb", encoding=encoding, is_text=encoding is not None,
                      compression="infer", **kwargs)


def _csv_encoding(path, encoding, what="data file"):
    """The encoding to read a CSV with: the one given, else the one its byte-order mark names, else UTF-8."""
    with _open(path) as handles:
        head = handles.handle.read(_HEAD)
    marked = next((name for bom, name in _BOMS if head.startswith(bom)), None)
    encoding = encoding or marked or "utf-8"
    try:
        wide = codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))
    except LookupError:
        raise InvalidParameterError(
            f"The encoding {encoding!r} is unknown; name a Python codec such as utf-8, latin-1 or cp1252."
        ) from None
    if b"\x00" in head and not wide:  # no 8-bit text table holds a NUL byte
        if marked:
            raise InvalidParameterError(
                f"The {what} {path} starts with a {marked.upper()} byte-order mark; pass encoding='{marked}' "
                "or leave out the 'encoding' argument."
            )
        for order, chars, zeros in (("le", head[0::2], head[1::2]), ("be", head[1::2], head[0::2])):
            if zeros.count(0) > 0.9 * len(zeros) and chars.count(0) < 0.1 * len(chars):
                raise InvalidParameterError(
                    f"The {what} {path} looks like UTF-16 text without a byte-order mark; "
                    f"pass encoding='utf-16-{order}'."
                )
        raise InvalidParameterError(
            f"The {what} {path} is not a text table (it holds binary data); give a CSV or Parquet file."
        )
    return encoding


def _undecodable(path, encoding):
    """Where ``path`` first fails to decode: (line number, the bytes at fault)."""
    decoder, line = codecs.getincrementaldecoder(encoding)(), 1
    with _open(path) as handles:
        for chunk in handles.handle:  # binary lines, split at \n only: a file of old-Mac lines is one chunk
            try:
                line += _line_breaks(decoder.decode(chunk))
            except UnicodeDecodeError as exc:
                before = exc.object[:exc.start].decode(encoding, errors="replace")
                return line + _line_breaks(before), exc.object[exc.start:exc.end]
    return line, b""


def _line_breaks(text):
    """How many lines end in ``text``: at \\n, \\r\\n or a lone \\r (old Mac files), as pandas and csv read them."""
    return len(re.findall(r"\r\n?|\n", text))


def _dialect(path, encoding):
    """A CSV's delimiter and decimal mark, from its first lines.

    The delimiter is the first of comma, semicolon, tab and '|' (tab first in
    a .tsv) that splits the header into two or more fields and every other
    line read into as many; else a comma. Numbers are read with a decimal
    comma when semicolons separate and no cell holds a number written with a
    point but some hold one written with a comma (``1,5``), as spreadsheets
    of many locales write them.
    """
    with _open(path, encoding, errors="replace") as handles:
        lines = list(islice(handles.handle, _SNIFFED))
    order = sorted(_DELIMITERS, key=lambda d: d != "\t") if ".tsv" in path.name.lower() else list(_DELIMITERS)
    for delimiter in order:
        with _long_fields():
            records = [r for r in csv.reader(lines, delimiter=delimiter) if r]  # lines end at \n, \r\n or \r
        body = records[1:] if len(lines) < _SNIFFED else records[1:-1]  # the last may go on beyond the lines read
        if records and len(records[0]) >= 2 and all(len(r) == len(records[0]) for r in body):
            break
    else:
        delimiter = ","
    cells = [c.strip() for r in records[1:] for c in r] if delimiter == ";" else []
    comma = any(re.fullmatch(r"[-+]?\d*,\d+", c) for c in cells)
    point = any(re.fullmatch(r"[-+]?\d*\.\d+([eE][-+]?\d+)?", c) for c in cells)
    return delimiter, "," if comma and not point else "."


def _read_as(path, encoding):
    """How a CSV was read, for messages ("" for Parquet or a folder)."""
    if encoding is None:
        return ""
    delimiter, decimal = _dialect(path, encoding)
    return f"; read as {_DELIMITERS[delimiter]}-separated" + (" with decimal commas" if decimal == "," else "")


def _read_table(path, encoding, what="data file", text=False):
    """The table in ``path`` and the encoding it was read with (None for Parquet); ``text``: every CSV cell as
    written (an empty one as ""), Parquet's integers with their missing values."""
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        try:
            return pd.read_parquet(path, **({"dtype_backend": "numpy_nullable"} if text else {})), None
        except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
            detail = str(exc).splitlines()[0].rpartition(": ")[2]  # without pyarrow's repeat of the path
            raise InvalidParameterError(
                f"The {what} {path} could not be read as Parquet ({detail}); "
                "check that it is a Parquet file, or give a CSV."
            ) from None
    if not re.search(r"\.(csv|tsv|txt)(\.(gz|bz2|xz|zst|zip))?$", name):
        raise InvalidParameterError(
            f"The {what} {path} must be a CSV (.csv, .tsv, optionally compressed) or Parquet file."
        )
    try:
        encoding = _csv_encoding(path, encoding, what)
        delimiter, decimal = _dialect(path, encoding)
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)  # index_col=False: it warns of longer lines
            return pd.read_csv(path, sep=delimiter, decimal=decimal, encoding=encoding, index_col=False,
                               **({"dtype": str, "na_filter": False} if text else {})), encoding
    except InvalidParameterError:
        raise
    except pd.errors.ParserWarning:  # without index_col=False pandas takes the extra first field as the index
        raise InvalidParameterError(
            f"The {what} {path} has more fields on its lines than its header has names (read as "
            f"{_DELIMITERS[delimiter]}-separated); name every column in the header, or remove the separator that "
            "ends each line.") from None
    except UnicodeDecodeError:
        line, raw = _undecodable(path, encoding)
        named = "UTF-8" if encoding == "utf-8" else encoding
        raise InvalidParameterError(
            f"The {what} {path} is not {named} text (bytes {raw.hex(' ')} on line {line}); {_FIX}."
        ) from None
    except pd.errors.EmptyDataError:
        raise InvalidParameterError(f"The {what} {path} is empty.") from None
    except pd.errors.ParserError as exc:
        raise InvalidParameterError(f"The {what} {path} is not a readable table: {exc}".rstrip()) from None
    except (ValueError, ImportError, *_UNREADABLE) as exc:  # a cut-off .gz, a .zip of several files, no zstandard
        detail = getattr(exc, "strerror", None) or str(exc).splitlines()[0]
        raise InvalidParameterError(f"The {what} {path} could not be read: {detail.rstrip('.')}.") from None


def _places(path, encoding, rows):
    """Where the data rows ``rows`` (0-based) are in the file, as the person sees it: "line N" of a CSV
    (the header is line 1; blank lines and quoted line breaks count, as in an editor), "row N" of Parquet."""
    if encoding is None or not rows:
        return {r: f"row {r + 1}" for r in rows}
    wanted, found = set(rows), {}
    with _open(path, encoding, errors="replace") as handles, _long_fields():
        reader = csv.reader(handles.handle, delimiter=_dialect(path, encoding)[0])
        record, end = -1, 0  # the header is record -1
        for fields in reader:
            start, end = end + 1, reader.line_num
            if len(fields) <= 1 and not "".join(fields).strip():
                continue  # a blank line, which pandas skips
            if record in wanted:
                found[record] = f"line {start}"
                if len(found) == len(wanted):
                    break
            record += 1
    return {r: found.get(r, f"data row {r + 1}") for r in rows}


class _FileSource(Source):
    """A data file's table, read with the encoding ``read_as`` (None for Parquet or a folder): its rows named by
    their lines in a CSV, its cells as written."""

    def __init__(self, table, path, read_as):
        super().__init__(table, path, f"data file {path}")
        self.read_as = read_as

    def places(self, rows):
        """Where the rows are in the file (see :func:`_places`)."""
        return _places(self.path, self.read_as, rows)

    def text(self, column):
        """The cells of ``column`` as the file writes them, stripped ("" for an empty one): where pandas reads 1
        and 1.0 as one number, 007 as 7 and NA as a missing value, a CSV's id is text as written."""
        values = self.table[column]
        if self.read_as is None or all(isinstance(v, str) for v in values.tolist()):
            return super().text(column)  # Parquet: the values it stores
        position = list(self.table.columns).index(column)
        cells = pd.read_csv(self.path, sep=_dialect(self.path, self.read_as)[0], encoding=self.read_as,
                            usecols=[position], dtype=str, na_filter=False).iloc[:, 0]
        return cells.str.strip().set_axis(values.index)

    @cached_property
    def how(self):
        """How a CSV was read, for messages (see :func:`_read_as`)."""
        return _read_as(self.path, self.read_as)


@validate_args({"scale": [StrOptions({"minmax", "none"})]})
def load_data(path, *, id_column=None, text_column=None, image_column=None, features=None, image_root=None,
              scale="minmax", encoding=None, series=None):
    """Read a CSV or Parquet file for a human session.

    Parameters
    ----------
    path : str or Path
        ``.csv`` / ``.tsv`` (optionally compressed) or ``.parquet``, or a
        folder of images: one row per image file (``file``, ``size``),
        clustered on the images (see :func:`linkwise.images.image_files`).
    id_column : str, optional
        A column of unique row ids, read as text (``1`` and ``1.0`` are two
        ids; default: the row number).
    text_column : str, optional
        A column of text to embed (see :func:`embed_text`).
    image_column : str, optional
        A column of image paths, relative to ``image_root``.
    features : list of str, optional
        Numeric columns, or Parquet columns of number lists, to cluster on
        (``"first:last"`` names the columns from first to last, e.g.
        ``"emb_0:emb_511"``); the image column
        among them clusters on the images (:func:`linkwise.images.image_features`).
        Default: every numeric column except the id column, else the image
        column; none when a text column is given.
    image_root : str or Path, optional
        Folder that image paths must lie under (default: the data file's folder).
    scale : {"minmax", "none"}, default="minmax"
        Scaling of numeric features. Min-max scaling divides each column by
        a power of two first, so values near ±1e308 scale without overflow.
    encoding : str, optional
        The text encoding of a CSV, e.g. ``"latin-1"``. Default: UTF-8, or
        UTF-16 / UTF-32 when the file starts with their byte-order mark.
        Kept in ``Dataset.options`` (None: detected).
    series : dict, optional
        Time series instead of features (see ``linkwise.session.data._series``):
        ``{"columns": ["t0:t127", ...]}`` (wide: one series per row, one
        column range or comma list per channel) or ``{"id": "id", "time":
        "t", "value": ["v", ...]}`` (long: one row per time step; ``time``
        may be None). ``X`` is then of shape (n_series, length) or
        (n_series, length, channels), unscaled.

    Returns
    -------
    Dataset
        The table, its features ``X`` and what the person sees of each row.

    Raises
    ------
    InvalidParameterError
        With one line naming the file and the fix: a missing, empty,
        binary or undecodable file, a Parquet file that is not Parquet, a
        CSV with more fields on its lines than names in its header, a bad
        column name, a non-numeric feature column, a missing value or a
        blank or repeated id (at its line in a CSV, counting the header as
        line 1).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("name,a,b\\nx,1,2\\ny,3,4\\nz,5,0\\n")
    >>> data = load_data(path, id_column="name")
    >>> data.X.shape, data.item(1)["id"]
    ((3, 2), 'y')
    """
    path = Path(path).resolve()
    if not path.exists():
        raise InvalidParameterError(f"The data file {path} does not exist.")
    if path.is_dir():
        from linkwise.session.data._images import FILE, folder_table

        table, read_as = folder_table(path), None
        id_column, image_column, features = id_column or FILE, image_column or FILE, features or [FILE]
        image_root = image_root or path
    else:
        table, read_as = _read_table(path, encoding)
    root = Path(image_root).resolve() if image_root is not None else path.parent
    return load_table(_FileSource(table, path, read_as), root, id_column=id_column, text_column=text_column,
                      image_column=image_column, features=features, scale=scale, encoding=encoding, series=series)


