"""Time series in a table, and the lines a chart draws of them.

Wide format: one series per row, its steps in columns (an inclusive range ``t0:t127`` or a comma list; one
such spec per channel). Long format: one row per time step, a series-id column, an optional time column
to order by (numbers or ISO dates; default: file order) and one value column per channel. Empty cells at the
end of a wide row, or fewer rows in the long format, make a shorter series; series of unequal length are
resampled linearly to the longest, since the COBRA family takes one array. A gap inside a series is refused.
The other columns are item information shown beside the chart (in the long format, from each series'
first row). Values are not scaled: k-Shape z-normalises each series itself.
"""

import difflib

import numpy as np
import pandas as pd

from linkwise._validation import InvalidParameterError
from linkwise.series import resample

__all__ = ["load_series", "chart_lines"]

_POINTS = 200  # points per line sent to the page: enough for a 300-pixel chart


def _listed(columns, k=8):
    return ", ".join(map(str, columns[:k])) + (f", ... ({len(columns)} in all)" if len(columns) > k else "")


def not_a_column(what, name, columns):
    """The message for ``name`` (given as ``what``), which is none of ``columns``: the likeliest column meant first,
    one the name begins or is misspelt from (difflib), ignoring case."""
    folded = {str(c).casefold(): str(c) for c in columns}
    key = str(name).casefold()
    close = [c for f, c in folded.items() if f and key and (f.startswith(key) or key.startswith(f))]
    close = close or [folded[f] for f in difflib.get_close_matches(key, folded, n=1)]
    guess = f" did you mean {close[0]!r}? The" if close else ""
    return f"{what}: {name!r} is not a column of the data;{guess} columns are: {_listed(list(columns))}."


def _names(table, text, what):
    """The columns ``text`` names: a comma list of names and inclusive ranges ``first:last`` (in table order)."""
    columns, names = list(table.columns), []
    for part in [text] if text in columns else text.split(","):
        part = part.strip()
        ends = [part] if part in columns or ":" not in part else [e.strip() for e in part.split(":", 1)]
        for end in ends:
            if end not in columns:
                raise InvalidParameterError(not_a_column(what, end, columns))
        first, last = columns.index(ends[0]), columns.index(ends[-1])
        if last < first:
            raise InvalidParameterError(f"{what} {part!r} is an empty range: {ends[1]!r} comes before "
                                        f"{ends[0]!r}; name the first column, then the last.")
        names += columns[first:last + 1]
    return names


def _numeric(table, columns, what, why):
    bad = [c for c in columns if not pd.api.types.is_numeric_dtype(table[c])]
    if bad:
        raise InvalidParameterError(f"{what}: the column {bad[0]!r} is not numeric: {why(bad[0])}; name columns of "
                                    "numbers.")
    return table[columns].to_numpy(np.float64)


def _wide(table, specs, place, why):
    channels = [_names(table, s, "series['columns']") for s in specs]
    if len({len(c) for c in channels}) > 1:
        raise InvalidParameterError(f"series['columns']: the channels have {', '.join(str(len(c)) for c in channels)} "
                                    "columns; give every channel the same number of time steps.")
    V = np.stack([_numeric(table, c, "series['columns']", why) for c in channels], axis=2)
    return table.drop(columns=[c for names in channels for c in names]), V, channels


def _times(table, column, place):
    """The time column as sortable numbers (numbers or ISO dates)."""
    values = table[column]
    numeric = pd.api.types.is_numeric_dtype(values)
    t = values if numeric else pd.to_datetime(values, errors="coerce", format="ISO8601")
    if t.isna().any():
        r = int(t.isna().to_numpy().argmax())
        raise InvalidParameterError(f"series['time']: the column {column!r} holds {values.iat[r]!r} at "
                                    f"{place([r])[r]}, not a number or an ISO date; fill it in.")
    return t.to_numpy(np.float64) if numeric else t.astype("int64").to_numpy()


def _long(table, spec, place, why):
    sid, time, values = spec["id"], spec.get("time"), list(spec["value"])
    named = (("series['id']", [sid]), ("series['time']", [time] if time else []), ("series['value']", values))
    for what, names in named:
        for name in names:
            _names(table, name, what)
    raw = _numeric(table, values, "series['value']", why)
    codes, uniques = pd.factorize(table[sid])
    bad = np.flatnonzero((codes < 0) | ~np.isfinite(raw).all(axis=1))
    if bad.size:
        r = int(bad[0])
        raise InvalidParameterError(f"series['id']/series['value']: an empty or infinite cell at {place([r])[r]}; "
                                    "fill it in or drop that row.")
    order = np.argsort(codes, kind="stable")
    if time:
        t = _times(table, time, place)
        order = np.lexsort((t, codes))
        twice = np.flatnonzero((np.diff(codes[order]) == 0) & (np.diff(t[order]) == 0))
        if twice.size:
            r = int(order[twice[0] + 1])
            raise InvalidParameterError(f"series['time']: series {uniques[codes[r]]!r} has two rows at time "
                                        f"{table[time].iat[r]} ({place([r])[r]}); keep one.")
    lengths = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    V = np.full((len(uniques), lengths.max(), len(values)), np.nan)
    V[codes[order], np.arange(len(order)) - starts[codes[order]]] = raw[order]
    info = table.drop(columns=[c for c in (time, *values) if c]).iloc[order[starts]].reset_index(drop=True)
    return info, V, None


def _equal_lengths(V, channels, places):
    """Series padded with NaN at their end, resampled linearly to the longest; a gap or infinity is refused."""
    present = np.isfinite(V).all(axis=2)
    lengths = present.sum(axis=1)
    bad = (present != (np.arange(V.shape[1]) < lengths[:, None])) | np.isinf(V).any(axis=2)
    bad[:, 0] |= lengths == 0
    if bad.any():  # only in the wide format: the long one is checked row by row
        r, t = np.argwhere(bad)[0]
        c = np.flatnonzero(~np.isfinite(V[r, t]))[0]
        raise InvalidParameterError(
            f"series['columns']: the column {channels[c][t]!r} has a missing or infinite value at "
            f"{places(r)} before its series ends; fill it in (only empty cells at the end make a shorter series).")
    length = lengths.max()
    X = V[:, :length].copy()
    for r in np.flatnonzero(lengths < length):
        X[r] = resample(V[r:r + 1, :lengths[r]], length)[0]
    return X[..., 0] if X.shape[2] == 1 else X


def load_series(table, spec, options, place, why):
    """The item information, the ids (None: from the id column) and the series ``X`` of a table of time series.

    ``spec`` and ``options``: see :func:`~linkwise.session.load_data`; ``place(rows)`` says where rows are in
    the file, ``why(column)`` why a column is not numeric.
    """
    wide = isinstance(spec, dict) and isinstance(spec.get("columns"), list) and len(spec) == 1
    if not (wide or isinstance(spec, dict) and {"id", "value"} <= set(spec) <= {"id", "time", "value"}):
        raise InvalidParameterError(f"The 'series' argument of load_data must be {{'columns': [spec, ...]}} or "
                                    f"{{'id': ..., 'time': ..., 'value': [...]}}, got {spec!r}.")
    if options["features"] is not None or options["text_column"] is not None:
        raise InvalidParameterError("Time series are clustered on their values: leave out the 'features' argument "
                                    "and the 'text_column' argument.")
    if not wide and options["id_column"] is not None:
        raise InvalidParameterError("In the long format series['id'] names the series; leave out the 'id_column' "
                                    "argument.")
    info, V, channels = (_wide if wide else _long)(table, spec["columns"] if wide else spec, place, why)
    X = _equal_lengths(V, channels, lambda r: place([r])[r])
    if len(X) < 2:
        raise InvalidParameterError(f"The data holds {len(X)} series; a session needs at least 2.")
    return info, None if wide else info.pop(spec["id"]), X


def chart_lines(X):
    """Every series at most ``_POINTS`` points long, each channel scaled to [0, 1] over all series (one scale
    for every chart), as an array of shape (n, points, channels)."""
    V = X.reshape(X.shape[0], X.shape[1], -1)
    V = V[:, np.linspace(0, V.shape[1] - 1, min(V.shape[1], _POINTS)).round().astype(int)]
    low, high = V.min(axis=(0, 1)), V.max(axis=(0, 1))
    return ((V - low) / np.where(high > low, high - low, 1)).round(3)

