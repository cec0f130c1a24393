"""Answers a person brings to a session: constraints and partial labels read from files, and a session's answers
written back as constraints in the same format (so an export imports again).

A *constraints file* (CSV or Parquet, with a header) holds one pair per row: ``id_a, id_b, answer`` (the data's
ids) or ``i, j, answer`` (row numbers, the first data row being 0). An answer is one of :data:`ANSWERS` (any case):
same/different, true/false, yes/no, 1/0, must-link/cannot-link (or ml/cl); anything else is refused, a blank too.
Other columns are ignored (``kind`` and ``annotator`` of :func:`constraints_frame` among them). A *labels file*
holds ``id, cluster``: rows with the same cluster belong together, rows of two clusters apart; a blank cluster
(or NA, n/a, nan, null, None) leaves its row out. Ids are text, read as written (``1`` and ``1.0`` are two ids). A session stores them once, at its start, as one action of 'imported' statements, so the
method never asks what they settle and a resumed session keeps them.
"""

from itertools import combinations
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from linkwise._validation import InvalidParameterError
from linkwise.constraints import ConstraintStore
from linkwise.exceptions import InconsistentConstraintError
from linkwise.graph import check_pair, pair_key
from linkwise.intake import blank
from linkwise.session.core._store import ANSWER_WORDS
from linkwise.session.data._data import _places, _read_table

__all__ = ["ANSWERS", "constraints_frame", "read_known"]

ANSWERS = {**dict.fromkeys(("same", "true", "yes", "1", "must-link", "must_link", "ml"), True),
           **dict.fromkeys(("different", "false", "no", "0", "cannot-link", "cannot_link", "cl"), False)}
_ACCEPTED = "same or different (or true/false, yes/no, 1/0, must-link/cannot-link)"
_MISSING = ("na", "n/a", "nan", "null", "none", "<na>", "#n/a")  # a blank answer or cluster, as spreadsheets write it


class _File:
    """One file the person gave (``option`` names it in messages): its table, columns named case-insensitively."""

    def __init__(self, option, path, data):
        self.option, self.path = option, Path(path)
        if not self.path.is_file():
            raise InvalidParameterError(f"The {option} file {self.path} does not exist.")
        self.table, self.encoding = _read_table(self.path, data.options.get("encoding"), f"{option} file", text=True)
        self.table.columns = [str(c).strip().lower() for c in self.table.columns]

    def need(self, *columns, alternative=""):
        missing = [c for c in columns if c not in self.table.columns]
        if missing:
            raise InvalidParameterError(f"The {self.option} file {self.path} has no column {', '.join(missing)}; it "
                                        f"needs {', '.join(columns)}{alternative} (it has: "
                                        f"{', '.join(self.table.columns)}).")

    def cells(self, column, missing=_MISSING):
        """The column's cells as stripped text, None for a blank one (or one of ``missing``, in any case)."""
        text = ["" if blank(v) else str(v).strip() for v in self.table[column].tolist()]
        return [None if not t or t.lower() in missing else t for t in text]

    def lines(self, records):
        """Where the file's data records are, as an editor shows them (line N of a CSV, row N of Parquet)."""
        return _places(self.path, self.encoding, list(records))

    def fail(self, records, problem, fix):
        """Refuse the file at the first of ``records`` (``problem``: what is wrong there), counting the rest."""
        more = f" (and {len(records) - 1} more rows)" if len(records) > 1 else ""
        raise InvalidParameterError(f"The {self.option} file {self.path}, {self.lines(records[:1])[records[0]]}: "
                                    f"{problem}{more}. {fix}")

    def rows_of(self, column, data, by_id=True):
        """The data rows the column names (ids, or row numbers from 0); refuses blank and unknown ones."""
        cells = self.cells(column, missing=())  # an id is as written: "NA" may be one
        blank = [k for k, c in enumerate(cells) if c is None]
        if blank:
            self.fail(blank, f"no {column}", "Fill it in or remove the row.")
        if by_id:
            lookup = {str(v): r for r, v in enumerate(data.ids.tolist())}
            rows = [lookup.get(c) for c in cells]
            unknown, fix = "is not an id of the data", (f"Use the ids of the data's {data.options['id_column']!r} "
                                                        "column" if data.options.get("id_column") else
                                                        "Without an id column the ids are the row numbers from 0")
        else:
            rows = [int(c) if c.isdecimal() and int(c) < data.n_rows else None for c in cells]
            unknown, fix = "is not a row number of the data", f"Row numbers run from 0 to {data.n_rows - 1}"
        bad = [k for k, r in enumerate(rows) if r is None]
        if bad:
            self.fail(bad, f"{column} {cells[bad[0]]!r} {unknown}", f"{fix}; correct or remove the row.")
        return rows


class _Said(NamedTuple):
    """Where a pair came from, for messages: the file, its records, and the clusters that stated it (labels)."""

    file: _File
    records: tuple
    clusters: tuple = ()


def _read_constraints(path, data):
    file = _File("--constraints", path, data)
    if "status" in file.table.columns:  # every statement ever made, undone ones too, and feedback as members
        raise InvalidParameterError(f"The --constraints file {file.path} is an answer log (`linkwise export "
                                    "--answers`); write the constraints to import with `linkwise export "
                                    "--constraints` instead.")
    columns = [names for names in (("id_a", "id_b"), ("i", "j")) if set(names) <= set(file.table.columns)]
    if len(columns) == 2:
        raise InvalidParameterError(f"The --constraints file {file.path} has both id_a, id_b and i, j columns; keep "
                                    "one pair of them (ids of the data, or row numbers from 0).")
    file.need(*(columns[0] if columns else ("id_a", "id_b")), "answer",
              alternative="" if columns else " (the data's ids), or i, j, answer (row numbers from 0)")
    a, b = columns[0]
    ends = [file.rows_of(column, data, by_id=a == "id_a") for column in (a, b)]
    words = file.cells("answer")
    answers = [None if w is None else ANSWERS.get(w.lower()) for w in words]
    for bad, problem in (([k for k, w in enumerate(words) if w is None], lambda k: "no answer"),
                         ([k for k, x in enumerate(answers) if x is None],
                          lambda k: f"the answer {words[k]!r} is not one linkwise reads")):
        if bad:
            file.fail(bad, problem(bad[0]), f"Write {_ACCEPTED}; leave out pairs you do not know.")
    alone = [k for k, (i, j) in enumerate(zip(*ends)) if i == j]
    if alone:
        file.fail(alone, f"{a} and {b} name the same row", "A pair needs two different rows; remove the row.")
    return list(zip(*ends, answers)), [_Said(file, (k,)) for k in range(len(answers))]


def _read_labels(path, data):
    file = _File("--labels", path, data)
    file.need("id", "cluster")
    rows, clusters = file.rows_of("id", data), file.cells("cluster")
    members, seen = {}, {}  # cluster -> [(row, record)] in order of appearance; row -> (cluster, record)
    for k, (row, cluster) in enumerate(zip(rows, clusters)):
        if cluster is None:
            continue
        earlier, at = seen.setdefault(row, (cluster, k))
        if earlier != cluster:
            file.fail([k], f"id {str(data.ids.iat[row])!r} is in cluster {cluster!r}, but in {earlier!r} on "
                      f"{file.lines([at])[at]}", "Give every id one cluster.")
        if at == k:
            members.setdefault(cluster, []).append((row, k))
    # a star of must-links per cluster, and a cannot-link between the first members of every two clusters
    pairs, said = [], []
    for cluster, ((head, at), *rest) in members.items():
        pairs += [(head, row, True) for row, _ in rest]
        said += [_Said(file, (at, k), (cluster,)) for _, k in rest]
    for (ca, ((x, kx), *_)), (cb, ((y, ky), *_)) in combinations(members.items(), 2):
        pairs.append((x, y, False))
        said.append(_Said(file, (kx, ky), (ca, cb)))
    return pairs, said


def _describe(data, pairs, said, ks):
    """How the person wrote pairs ``ks``: file, lines, and what they say there."""
    lines = {}
    for s in {said[k].file: None for k in ks}:  # one pass over each file
        lines[s] = s.lines(sorted({r for k in ks if said[k].file is s for r in said[k].records}))

    def text(k):
        (i, j, answer), (file, records, clusters) = pairs[k], said[k]
        a, b = (repr(str(data.ids.iat[r])) for r in (i, j))
        what = (f"{a}, {b}: {ANSWER_WORDS[answer]}" if not clusters else f"{a} and {b} both in cluster "
                f"{clusters[0]!r}" if answer else f"{a} in cluster {clusters[0]!r}, {b} in {clusters[1]!r}")
        return f"{file.option} {file.path.name} {' and '.join(lines[file][r] for r in records)} ({what})"

    return [text(k) for k in ks]


def _consistent(pairs, n, describe):
    """The pairs that add knowledge, in order; a contradiction raises, naming the pairs involved
    (``describe(ks)``: how pairs ``ks`` were given)."""
    store, first, kept = ConstraintStore(n), {}, []
    for k, (i, j, answer) in enumerate(pairs):
        try:
            added = store.add(i, j, answer)
        except InconsistentConstraintError:
            chain = [first[pair_key(c.i, c.j), c.must_link] for c in store.explain(i, j)]
            new, *old = describe([k, *chain])
            raise InvalidParameterError(
                f"The answers given contradict each other: {new} contradicts {'; '.join(old)}, which together say "
                f"{ANSWER_WORDS[not answer]}. Correct or remove one of these rows.") from None
        first.setdefault((pair_key(i, j), answer), k)
        if added:
            kept.append((i, j, answer))
    return kept


def read_known(data, constraints=None, labels=None):
    """The pairs a person knows before a session, read from a constraints file and/or a labels file.

    Parameters
    ----------
    data : Dataset
        The session's data (:func:`~linkwise.session.load_data`): ids are
        looked up in it; a CSV is read with its encoding.
    constraints : str or Path, optional
        ``id_a, id_b, answer`` or ``i, j, answer`` per pair (see the module
        docstring for the answers read); the format :func:`constraints_frame`
        writes.
    labels : str or Path, optional
        ``id, cluster`` per row, for some of the rows (a blank cluster: none).

    Returns
    -------
    list of (int, int, bool)
        Row numbers and True (same) / False (different), leaving out pairs
        the earlier ones imply. A labels file with k clusters gives a star of
        must-links in each and k (k - 1) / 2 cannot-links between them.

    Raises
    ------
    InvalidParameterError
        A missing column, a blank cell, an unknown id or row number, an
        answer not read, an id given two clusters, or answers that contradict
        each other (through other pairs, across both files too): the message
        names the file, its lines and the fix.

    Examples
    --------
    >>> import os, tempfile
    >>> from linkwise.session import load_data
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "d.csv"), "w").write("name,x\\na,1\\nb,2\\nc,8\\nd,9\\n")
    >>> _ = open(os.path.join(folder, "k.csv"), "w").write("id_a,id_b,answer\\na,b,same\\nb,c,different\\n")
    >>> _ = open(os.path.join(folder, "l.csv"), "w").write("id,cluster\\nc,1\\nd,1\\n")
    >>> data = load_data(os.path.join(folder, "d.csv"), id_column="name")
    >>> read_known(data, constraints=os.path.join(folder, "k.csv"), labels=os.path.join(folder, "l.csv"))
    [(0, 1, True), (1, 2, False), (2, 3, True)]
    """
    pairs, said = [], []
    for path, reader in ((constraints, _read_constraints), (labels, _read_labels)):
        if path is not None:
            more, where = reader(path, data)
            pairs, said = pairs + more, said + where
    return _consistent(pairs, data.n_rows, lambda ks: _describe(data, pairs, said, ks))


def _checked(known, n):
    """``known`` as (int, int, bool) triples, or a clear error naming the bad one."""
    triples = []
    for k, row in enumerate(known):
        try:
            i, j, answer = row
        except (TypeError, ValueError):
            raise InvalidParameterError(f"The 'known' argument of HumanSession must hold (i, j, answer) triples; "
                                        f"known[{k}] is {row!r}.") from None
        if not isinstance(answer, (bool, np.bool_)):
            raise InvalidParameterError(f"The 'known' argument of HumanSession: the answer of known[{k}] must be True "
                                        f"(same) or False (different), got {answer!r}.")
        triples.append((*check_pair(i, j, n, f"HumanSession (known[{k}])"), bool(answer)))
    return triples


def _first_not_implied(pairs, by, n):
    """The first of ``pairs`` that the pairs ``by`` do not imply, or None."""
    store = ConstraintStore(n, tolerant=True)  # a hand-edited file may hold anything
    for i, j, answer in by:
        store.add(i, j, answer)
    return next(((i, j, a) for i, j, a in pairs if store.relation(i, j) != a), None)


def _store_known(store, data, known):
    """Store ``known`` as the session's imported pairs while nothing is stated yet (its start); later they must
    be what it began with (the same pairs, or ones implying the same). Returns the rows stored."""
    n = data.n_rows
    pairs = _checked(known, n)
    pairs = _consistent(pairs, n, lambda ks: [f"known[{k}] = {pairs[k]}" for k in ks])
    if not store.answers() and not store.retracted():
        return store.record_many(pairs, kind="imported") if pairs else []
    began = {}  # seq -> the pair as imported: its first retracted version (corrected, undone), else the live one
    for row in store.retracted():
        if row["kind"] == "imported":
            began.setdefault(row["seq"], (row["i"], row["j"], row["answer"]))
    began.update({a.seq: (a.i, a.j, a.answer) for a in store.answers() if a.kind == "imported" and a.seq not in began})
    began = [began[seq] for seq in sorted(began)]
    for pair, now in ((_first_not_implied(pairs, began, n), "given now but was not imported"),
                      (_first_not_implied(began, pairs, n), "not given now but was imported")):
        if pair is not None:
            i, j, answer = pair
            raise InvalidParameterError(
                f"The session {store.path} began with {'other' if began else 'no'} imported answers: the pair "
                f"{str(data.ids.iat[i])!r}, {str(data.ids.iat[j])!r} ({ANSWER_WORDS[answer]}) is {now}. Answers are "
                "imported at a session's start: give the same files again or none to continue it, or start a new "
                "session file.")
    return []


def constraints_frame(session):
    """A session's answers as constraints, in the format :func:`read_known` reads.

    Every pair relation the session holds as stated: answers to questions,
    imported pairs, and the pairs feedback on a cluster states ("don't know"
    left out). Columns ``id_a``, ``id_b``, ``answer`` (same / different),
    ``kind`` (what stated it: question, imported, pure, complete, move) and
    ``annotator`` (empty: the session's one person); the importer ignores
    the last two. While a contradiction is open, what waits behind it in
    the session file is left out.

    Parameters
    ----------
    session : HumanSession
        The session whose answers to export.

    Returns
    -------
    pandas.DataFrame
        One row per pair relation, in the order stated.

    Examples
    --------
    >>> import os, tempfile
    >>> import linkwise as lw
    >>> from linkwise.session import HumanSession, load_data
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "d.csv"), "w").write("name,x\\na,1\\nb,2\\nc,8\\nd,9\\n")
    >>> data = load_data(os.path.join(folder, "d.csv"), id_column="name")
    >>> session = HumanSession(os.path.join(folder, "s.db"), data, lw.COBRAS(random_state=0), known=[(0, 1, True)])
    >>> constraints_frame(session)
      id_a id_b answer      kind annotator
    0    a    b   same  imported      None
    >>> session.close()
    """
    ids, stated = session.data.ids.to_numpy(), session.statements()
    rows = np.array([(i, j) for i, j, _, _ in stated], dtype=np.intp).reshape(-1, 2)
    return pd.DataFrame({"id_a": ids[rows[:, 0]], "id_b": ids[rows[:, 1]],
                         "answer": [ANSWER_WORDS[a] for _, _, a, _ in stated],
                         "kind": [r.kind for *_, r in stated], "annotator": [r.annotator for *_, r in stated]})
