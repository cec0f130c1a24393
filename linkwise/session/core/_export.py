"""A session's tables (labels, answers, constraints, agreement) as CSV, JSON or JSON Lines, for ``linkwise export``
and the page's downloads.

JSON is one array of records; JSON Lines one record per line. Both write an absent value as ``null`` and the
members of a cluster's feedback (the answers' ``members``) as a list of ids; CSV writes them as a JSON text in
one cell.
"""

import json
from pathlib import Path

from linkwise._validation import check_option
from linkwise.session.core._import import constraints_frame

__all__ = ["FORMATS", "MEDIA_TYPES", "TABLES", "export_format", "format_table", "session_table"]

FORMATS = ("csv", "json", "jsonl")
TABLES = ("labels", "answers", "constraints", "agreement")
MEDIA_TYPES = {"csv": "text/csv", "json": "application/json", "jsonl": "application/jsonl"}


def export_format(path, given=None):
    """The format to write ``path`` in: ``given``, else its suffix's (``.json``, ``.jsonl``), else CSV."""
    if given is not None:
        return check_option(given, "format", "export", FORMATS, role="argument")
    suffix = Path(str(path)).suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else "csv"


def session_table(session, table):
    """One of a session's :data:`TABLES` as a DataFrame: ``labels`` (id, cluster, name), ``answers`` (every
    statement, marks and moves with their kind), ``constraints`` (the pair relations held) or ``agreement``."""
    check_option(table, "table", "export", TABLES, role="argument")
    return constraints_frame(session) if table == "constraints" else getattr(session, f"{table}_frame")()


def format_table(frame, fmt):
    """``frame`` as the text of a CSV, JSON or JSON Lines file (see the module's docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> print(format_table(pd.DataFrame({"id": ["a", "b"], "cluster": [0, 1]}), "jsonl"), end="")
    {"id":"a","cluster":0}
    {"id":"b","cluster":1}
    """
    check_option(fmt, "format", "export", FORMATS, role="argument")
    if fmt == "csv":
        return frame.to_csv(index=False)
    if "members" in frame.columns:  # a JSON text in a CSV cell; a list of ids in JSON
        frame = frame.assign(members=[json.loads(m) if isinstance(m, str) else None for m in frame["members"]])
    text = frame.to_json(orient="records", lines=fmt == "jsonl", force_ascii=False, date_format="iso")
    return text if text.endswith("\n") or not text else text + "\n"
