"""A session's results: its tables (labels, answers, constraints, agreement) as CSV, JSON or JSON Lines, for
``linkwise export`` and the page's downloads, and :class:`SessionResults`, the part of a
:class:`~linkwise.session.HumanSession` that makes them (the clustering as a table, every statement, the fitted method).

JSON is one array of records; JSON Lines one record per line. Both write an absent value as ``null`` and the
members of a cluster's feedback (the answers' ``members``) as a list of ids; CSV writes them as a JSON text in
one cell.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from linkwise._validation import StrOptions, check_value
from linkwise.session.core._import import constraints_frame
from linkwise.session.core._store import ANSWER_WORDS, Answer

__all__ = ["FORMATS", "MEDIA_TYPES", "TABLES", "SessionResults", "export_format", "format_table", "session_table"]

FORMATS = ("csv", "json", "jsonl")
TABLES = ("labels", "answers", "constraints", "agreement")
MEDIA_TYPES = {"csv": "text/csv", "json": "application/json", "jsonl": "application/jsonl"}


def export_format(path, given=None):
    """The format to write ``path`` in: ``given``, else its suffix's (``.json``, ``.jsonl``), else CSV."""
    if given is not None:
        return check_value(given, [StrOptions(set(FORMATS))], "format", "export")
    suffix = Path(str(path)).suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else "csv"


def session_table(session, table):
    """One of a session's :data:`TABLES` as a DataFrame: ``labels`` (id, cluster, name), ``answers`` (every
    statement, marks and moves with their kind), ``constraints`` (the pair relations held) or ``agreement``."""
    check_value(table, [StrOptions(set(TABLES))], "table", "export")
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
    check_value(fmt, [StrOptions(set(FORMATS))], "format", "export")
    if fmt == "csv":
        return frame.to_csv(index=False)
    if "members" in frame.columns:  # a JSON text in a CSV cell; a list of ids in JSON
        frame = frame.assign(members=[json.loads(m) if isinstance(m, str) else None for m in frame["members"]])
    text = frame.to_json(orient="records", lines=fmt == "jsonl", force_ascii=False, date_format="iso")
    return text if text.endswith("\n") or not text else text + "\n"


class SessionResults:
    """What a session gives back: the clustering as a table or a CSV file, every statement, the fitted method.

    The part of :class:`~linkwise.session.HumanSession` whose methods are its own (``labels_frame``,
    ``answers_frame``, ``statements``, ``write_labels``, ``model``); it reads the session's ``data``, ``store`` and
    ``replay`` under ``lock``, and the clusters' ``names`` (a callable: ``ClusterFeedback.names``).
    """

    def __init__(self, data, store, lock, replay, names):
        self._data, self._store, self._lock, self._replay, self._names = data, store, lock, replay, names

    def model(self):
        """Return the method fitted on the answers applied so far, to assign new items.

        The session goes on (its answers are replayed afresh).

        Returns
        -------
        ActiveEstimator
            Its ``labels_`` are the clustering shown (:meth:`~linkwise.session.HumanSession.labels`, cluster
            feedback honoured) and ``predict`` follows them
            (:mod:`linkwise.prediction`); save it with :func:`linkwise.persist.save`.
        """
        with self._lock:
            replay = self._replay
            fitted = replay.session.finish(labels=replay.labels())
            replay.rebuild()
            return fitted

    def labels_frame(self):
        """Return the current clustering as a table.

        Returns
        -------
        pandas.DataFrame
            One row per item, with columns ``id``, ``cluster`` (its stable
            number, see :meth:`~linkwise.session.HumanSession.numbers`) and ``name``
            (see :meth:`~linkwise.session.HumanSession.name`; empty for a cluster without).
        """
        with self._lock:
            numbers, names = self._replay.numbers(), self._names()
        return pd.DataFrame({"id": self._data.ids.to_numpy(), "cluster": numbers,
                             "name": [names.get(c, "") for c in numbers.tolist()]})

    def answers_frame(self):
        """Return every statement ever stored, live, undone or corrected, as a table.

        Returns
        -------
        pandas.DataFrame
            One row per statement, in order: the two ids (for feedback on a
            cluster, its first row's, and every member's id in ``members``),
            who gave it, its kind ('question', 'imported', 'pure', 'complete',
            'move'), its ``status`` and times; ``answer`` is same / different
            / don't know, empty for feedback on a cluster.
        """
        ids = self._data.ids.to_numpy()
        live = [{**a._asdict(), "status": "live", "retracted_at": None} for a in self._store.answers()]
        gone = [{**r, "status": r["reason"]} for r in self._store.retracted()]
        frame = pd.DataFrame(live + gone, columns=[*Answer._fields, "status", "retracted_at"])
        frame.insert(1, "id_a", ids[frame["i"].to_numpy(dtype=np.intp)])
        frame.insert(2, "id_b", ids[frame["j"].to_numpy(dtype=np.intp)])
        # a mark (feedback on a cluster) is no same/different answer: its answer is left empty, its kind says it
        frame["answer"] = [None if m is not None else ANSWER_WORDS[a] for a, m in zip(frame["answer"], frame["members"])]
        frame["members"] = [None if m is None else json.dumps(ids[list(m)].tolist()) for m in frame["members"]]
        return frame.drop(columns=["i", "j"]).sort_values(["seq", "answered_at"], kind="stable")

    def statements(self):
        """Return every pair relation stated and applied, in order.

        Returns
        -------
        list of (int, int, bool, Answer)
            ``(i, j, answer, row)``: the pair, its relation, and the stored
            statement that stated it (feedback on a cluster states several);
            "don't know" left out.
        """
        with self._lock:
            return self._replay.statements()

    def write_labels(self, path):
        """Write the current clustering as CSV (:meth:`labels_frame`).

        Parameters
        ----------
        path : str or Path
            The file to write (replaced if it exists).

        Returns
        -------
        int
            The number of clusters.
        """
        with self._lock:
            self.labels_frame().to_csv(path, index=False)
            return int(self._replay.labels().max()) + 1
