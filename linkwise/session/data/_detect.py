"""Which columns of a person's table name the rows and which hold free text, decided from their values.

``linkwise cluster data.csv`` with no column options uses :func:`detect_columns`: a column of unique, non-numeric,
short strings names the rows (ids); a column of long, many-word strings is embedded as text. Every column gets a
reason, shown on one line, so the person sees what was chosen and why and can override it with an option.
:func:`describe` says in plain words what a loaded session clusters on (the page header), the technical details
apart (shown on hover).
"""

from typing import NamedTuple

import pandas as pd

from linkwise.intake import HUGE, huge_integers
from linkwise.session.data._data import _read_table

__all__ = ["Detected", "describe", "detect_columns", "detect_options"]

_ID_CHARS = 64  # an id is short: at most this many characters ...
_ID_WORDS = 3  # ... and at most this many words on average
_TEXT_WORDS = 4  # free text: at least this many words on average ...
_TEXT_CHARS = 20  # ... and this many characters


class Detected(NamedTuple):
    """What :func:`detect_columns` found: the id column and the text column (None: none), and why for each column."""

    id_column: str | None
    text_column: str | None
    reasons: dict

    @property
    def line(self):
        """One line for the person: what is used, what is not, and how to choose otherwise."""
        numbers = [c for c, why in self.reasons.items() if why == "numbers"]  # the features, without a text column
        used = [f"ids from {c!r} ({self.reasons[c]})" for c in (self.id_column,) if c is not None]
        if not used and self.text_column is None:
            return ""
        used += [f"clustering on the text of {c!r} ({self.reasons[c]})" for c in (self.text_column,) if c is not None]
        used += [f"clustering on the numbers of {', '.join(numbers)}"] if numbers else []
        rest = [f"{c} ({why})" for c, why in self.reasons.items()
                if c not in (self.id_column, self.text_column, *numbers)]
        return ("Detected: " + "; ".join(used) + (f"; not used: {', '.join(rest)}" if rest else "")
                + ". Options --id-column, --text-column and --features override this.")


_SAMPLE = 2000  # cells whose words are counted (every k-th): the averages, not the ids, need no more


def _numeric(values):
    """Whether every cell reads as a number (a few cells first: most columns of text fail at once)."""
    return bool(len(values)) and all(pd.to_numeric(v, errors="coerce").notna().all() for v in (values[:50], values))


def _column_kind(cells, n):
    """``(kind, reason, mean_words)`` of a column of ``n`` cells not of a numeric dtype: kind "number", "id", "text" or
    "other", why, and
    the mean words per cell of a text column (else None); see :func:`detect_columns`."""
    present = cells[cells.notna()]
    if huge_integers(present).any():  # as load_data leaves them out
        return "other", HUGE, None
    if _numeric(present.astype(str).str.strip()):
        return "number", "numbers", None
    if not all(isinstance(v, str) for v in present.tolist()):  # lists, dates, mixed objects
        return "other", f"cells of type {cells.dtype}, not text", None
    text = present.str.strip()
    text = text[text != ""]
    if text.empty:
        return "other", "empty", None
    sample = text.iloc[::-(-len(text) // _SAMPLE)]
    mean_words, mean_chars = float(sample.str.split().str.len().mean()), float(text.str.len().mean())
    distinct = text.nunique()
    if len(text) == n and distinct == n and text.str.len().max() <= _ID_CHARS and mean_words <= _ID_WORDS:
        return "id", f"{n} different short texts", None
    if mean_words >= _TEXT_WORDS and mean_chars >= _TEXT_CHARS:
        return "text", f"sentences of {mean_words:.0f} words on average", mean_words
    return "other", (f"{distinct} different values" if distinct < len(text) else "short texts, not all filled"
                     if len(text) < n else f"short texts of {mean_words:.0f} words, not sentences"), None


def detect_columns(table, find_text=True):
    """Detect the id column and the free-text column of ``table`` from the values of its columns.

    A column of text (not numbers) whose every cell is filled and different, at most 64 characters and 3 words
    on average, is an id column (the first such one is used). A column whose cells average at least 4 words and
    20 characters is free text (the one with the most words is used). Numbers are features unless a text column
    is found: then they are left out, as :func:`~linkwise.session.load_data` leaves them out beside a text column.

    Parameters
    ----------
    table : pandas.DataFrame
        The rows as read (any cell types).
    find_text : bool, default=True
        Whether to look for a text column (False: an option names the features).

    Returns
    -------
    Detected
        ``id_column`` and ``text_column`` (None when there is none) and ``reasons``: every column with why it
        is, or is not, used.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"sku": ["A-1", "B-2", "C-3"], "price": [1.5, 2.0, 9.9],
    ...                       "note": ["a red garden chair of teak", "a blue kitchen mug, large",
    ...                                "two garden chairs, folding, steel"]})
    >>> found = detect_columns(table)
    >>> found.id_column, found.text_column
    ('sku', 'note')
    >>> found.reasons["price"]
    'numbers, left out beside the text: add them with --features'
    """
    kinds, reasons, words = {}, {}, {}
    numbers = {c for c, dtype in table.dtypes.items() if pd.api.types.is_numeric_dtype(dtype)}  # a table may be wide
    for column in table.columns:
        name = str(column)
        kinds[name], reasons[name], mean_words = (("number", "numbers", None) if column in numbers
                                                  else _column_kind(table[column], table.shape[0]))
        if kinds[name] == "text":
            words[name] = mean_words
    id_column = next((c for c, k in kinds.items() if k == "id"), None)
    text_column = max(words, key=words.get) if words and find_text else None
    for column, kind in kinds.items():
        if kind == "text" and text_column is not None and column != text_column:
            reasons[column] += f", fewer words than {text_column!r}: name it with --text-column to use it instead"
        elif kind == "number" and text_column is not None:
            reasons[column] = "numbers, left out beside the text: add them with --features"
        elif kind == "id" and column != id_column:
            reasons[column] += f", after {id_column!r}"
    return Detected(id_column, text_column, reasons)


def detect_options(path, encoding, *, id_column, text_column, features):
    """The id and text columns of a new session's data file where the person named none (see :func:`detect_columns`).

    An id column is detected unless ``id_column`` is given; a text column unless ``text_column`` or ``features``
    is given (both name what to cluster on).

    Returns
    -------
    found : Detected
        The columns detected (None where an option decides) with their reasons, and those of the columns left
        out when no option names what to cluster on (else the options say it).
    """
    chosen = text_column is not None or features is not None
    found = detect_columns(_read_table(path, encoding)[0], find_text=not chosen)
    id_found = found.id_column if id_column is None else None
    reasons = {c: why for c, why in found.reasons.items() if not chosen and c != id_column or c == id_found}
    return Detected(id_found, found.text_column, reasons)


def describe(data, method):
    """The page header's plain words about a loaded session's data, and its technical details (shown on hover).

    Parameters
    ----------
    data : Dataset
    method : str
        The method's class name.

    Returns
    -------
    dict
        ``text``: e.g. "products.csv · 300 items named by sku · grouped by the words of description";
        ``details``: the id and text columns' reasons, the embedding, the features and the method.
    """
    options = data.options
    name = f"{data.n_rows} items" if data.path is None else f"{data.path.name} · {data.n_rows} items"
    parts = [f"{name} named by {options['id_column']}" if options["id_column"] else name]
    if options["text_column"] is not None:
        parts.append(f"grouped by the words of {options['text_column']}")
    elif options.get("series") is not None:
        parts.append("grouped by the shape of their series")
    elif options["image_column"] is not None and not data.feature_columns:
        parts.append("grouped by their images")
    else:
        parts.append(f"grouped by {len(data.feature_columns or [])} measured columns")
    found = detect_columns(data.table) if data.path is not None else Detected(None, None, {})
    details = [f"{c}: {found.reasons[c]}" for c in (options["id_column"], options["text_column"])
               if c in found.reasons]
    details += [f"text embedded with {data.embedding}" if data.embedding else "",
                f"clustered on {data.clustered_on}", f"method {method}"]
    return {"text": " · ".join(parts), "details": "; ".join(filter(None, details))}
