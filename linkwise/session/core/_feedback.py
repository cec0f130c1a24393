"""Feedback on whole clusters in a human session: see the clusters, mark one pure (and complete), move an item.

A person says far more per click about a whole cluster than "same / different"; the web page of COBRAS's authors
(COBRAS: Van Craenendonck, Dumančić, Van Wolputte, Blockeel, IDA 2018) offers "pure" and "pure and complete". Each
action here is stored in the session file as one action (one undo removes it) and applied through
:meth:`ActiveSession.mark` / :meth:`ActiveSession.inform`; a move the earlier answers contradict opens the session's
contradiction flow (where it can be withdrawn), a mark they contradict is refused naming every item in its way
(:class:`~linkwise.session.MarkConflict`), so that one round of moves clears it. The clustering a session reports honours this
feedback even where its method does not (:func:`honour`).

A member is *atypical* by its distance to its cluster's centre (the mean of its members) in the feature space the
method clusters (``Dataset.X``: the scaled columns, the text embedding, or a time series' values): a strip shows
the members nearest the centre and those farthest from it, and :meth:`ClusterFeedback.members` lists every member
either way. "Pure" judged from a few typical members locks in whatever else is there, so a mark on a cluster of more
than ``CONFIRM_SIZE`` members whose ``CONFIRM_SEEN`` least typical members were not all shown to the person (in a
strip or a page of members, since the session opened) is refused with :class:`NeedsConfirmation`, naming them,
until confirmed. A confirmation is remembered for those very members: a mark undone and given again is not asked
about twice while the cluster is unchanged.
"""

import hashlib
from itertools import groupby
from numbers import Integral

import numpy as np

from linkwise._validation import Interval, InvalidParameterError, StrOptions, check_index_set, validate_args
from linkwise.graph import relabel
from linkwise.session.core._store import Refused

__all__ = ["ClusterFeedback", "MarkConflict", "NeedsConfirmation", "honour", "CONFIRM_SIZE", "CONFIRM_SEEN"]

_SAMPLE = 4096  # members a cluster's centre is computed from, on large clusters
NAME_LENGTH = 60  # characters of a cluster's name
CONFIRM_SIZE = 12  # a mark on a larger cluster needs ...
CONFIRM_SEEN = 12  # ... its this many least typical members shown to the person, or a confirmation
SORTS = ("typical", "atypical")
MAX_PAGE_SIZE = 200
NAMED_MAX = 100  # items a refused mark names at most (its message counts them all)
_PAIRS_NAMED = 3  # conflicting pairs a refusal's message spells out


class NeedsConfirmation(Refused):
    """A mark on a large cluster whose least typical members the person has not seen.

    The mark is stored when repeated with ``confirmed=True``.

    Parameters
    ----------
    message : str
        What to confirm, for the person.
    rows : iterable of int, optional
        The members not seen yet (row numbers), kept as ``rows``.
    """


class MarkConflict(Refused):
    """A mark the earlier statements contradict: every item in its way, so that one round of moves clears it.

    Parameters
    ----------
    message : str
        Why, naming the cluster and a few of the pairs, for the person.
    rows : iterable of int
        The items in the way (row numbers, at most ``NAMED_MAX``), kept as ``rows``.
    notes : dict of int to str
        For each of ``rows``, in a few words why it is in the way ("apart from a", "belongs with b").
    """

    def __init__(self, message, rows, notes):
        super().__init__(message, rows)
        self.notes = {int(r): notes[r] for r in self.rows}


def _listed(phrases, sep):
    """The first few ``phrases`` joined by ``sep``, and how many more there are."""
    more = f"{sep}{len(phrases) - _PAIRS_NAMED} more" if len(phrases) > _PAIRS_NAMED else ""
    return sep.join(phrases[:_PAIRS_NAMED]) + more


def honour(labels, rows):
    """``labels`` changed as the stored feedback ``rows`` say, in their order, then renumbered.

    A pure cluster's members share its first member's cluster; a complete one's other cluster-mates go to a new
    cluster; a moved item joins its must-link partner. A move is stored as that must-link then a cannot-link with
    its old cluster, so the moved item is the row the two share; out of a single-item cluster it is the must-link
    alone, and the item in the smaller cluster joins the other (both ways give one partition when both are single).

    Examples
    --------
    >>> from linkwise.session import Answer
    >>> move = [Answer(1, 2, 4, True, "", None, "move", None, 1), Answer(2, 0, 2, False, "", None, "move", None, 1)]
    >>> honour([0, 0, 0, 1, 1], move).tolist()
    [0, 0, 1, 1, 1]
    """
    labels = np.array(labels, dtype=np.intp)
    fresh = int(labels.max()) + 1 if labels.size else 0
    for _, action in groupby(rows, key=lambda row: row.action):
        action = list(action)
        first = action[0]
        if first.kind in ("pure", "complete"):
            members = np.asarray(first.members, dtype=np.intp)
            own = labels[members[0]]
            if first.kind == "complete":
                labels[labels == own] = fresh
                fresh += 1
            labels[members] = own
        elif first.kind == "move" and first.answer:
            pair = {first.i, first.j}
            if len(action) > 1:
                (moved,) = pair & {action[1].i, action[1].j}
            else:
                moved = min(pair, key=lambda r: ((labels == labels[r]).sum(), r))
            (partner,) = pair - {moved}
            labels[moved] = labels[partner]
    return relabel(labels)


class ClusterFeedback:
    """The feedback part of a :class:`~linkwise.session.HumanSession`: its actions on whole clusters.

    Parameters
    ----------
    data : Dataset
    store : SessionStore
    lock : threading.RLock
        The session's lock.
    replay : Replay
        The session's replay (its clustering, numbers, constraints and applied rows).
    read_only : bool
    guard : callable
        ``guard(position, annotator)`` refuses an action on a stale position or while a contradiction is open.
    commit : callable
        ``commit(rows, annotator)`` applies rows just recorded and returns the new state (as ``annotator`` sees it).
    state : callable
        ``state()``: the session's state.
    """

    def __init__(self, data, store, lock, replay, read_only, guard, commit, state):
        self._data, self._store, self._lock, self._replay, self._read_only = data, store, lock, replay, read_only
        self._guard, self._commit, self._state = guard, commit, state
        self._seen = set()  # rows shown as members of a cluster: what a mark on a large cluster needs
        self._confirmed = set()  # digests of the member sets whose mark the person confirmed (see _check_seen)

    def _features(self, rows):
        return self._data.X[rows].reshape(len(rows), -1)

    def _central(self, members):
        """``members`` nearest their centre first (the centre of an even sample of a large cluster); ties by row."""
        sample = members
        if len(members) > _SAMPLE:
            sample = members[np.linspace(0, len(members) - 1, _SAMPLE).astype(np.intp)]
        X = self._features(members)
        distance = ((X - self._features(sample).mean(axis=0)) ** 2).sum(axis=1)
        return members[np.lexsort((members, distance))]

    def _shown(self, rows):
        """The items of ``rows``, noted as seen by the person (see :meth:`_check_seen`)."""
        self._seen.update(int(r) for r in rows)
        return [self._data.item(r) for r in rows]

    def _status(self, members, marks, components):
        """'pure' when the statements join all ``members`` (one must-link component) and a mark is among them,
        'complete' when a complete one is, else None: an item moved into a marked cluster keeps it marked."""
        if not marks or len(np.unique(components[members])) > 1:
            return None
        kinds = {row.kind for row, inside in zip(marks, np.isin([r.members[0] for r in marks], members)) if inside}
        return "complete" if "complete" in kinds else "pure" if kinds else None

    def _marks(self):
        """The applied marks and the must-link components (None without marks: a pass over every row)."""
        marks = [row for row in self._replay.used if row.members is not None]
        return marks, self._replay.session.constraints.component_labels() if marks else None

    def _groups(self):
        """The current clusters' members (row numbers in order), by stable cluster number (see ``numbers``)."""
        numbers = self._replay.numbers()
        order = np.argsort(numbers, kind="stable")
        values, starts = np.unique(numbers[order], return_index=True)
        return dict(zip(values.tolist(), np.split(order, starts[1:])))

    @validate_args({"limit": [Interval(Integral, 1, None, closed="left")], "per": [Interval(Integral, 1, None, closed="left")],
                    "doubtful": [Interval(Integral, 0, None, closed="left")]}, owner="HumanSession.clusters")
    def clusters(self, limit=30, per=3, doubtful=3):
        """The current clusters, largest first, as strips: size, typical and atypical items, feedback given.

        Parameters
        ----------
        limit : int, default=30
            Strips returned (the rest are counted in ``n_more``).
        per : int, default=3
            Typical members per strip: those nearest the cluster's centre
            in feature space.
        doubtful : int, default=3
            Atypical members per strip: those farthest from the centre
            (none shown twice; 0: none).

        Returns
        -------
        dict
            ``position`` and ``revision`` (as :meth:`state`), ``strips``
            (each ``cluster`` number, ``size``, ``mark``: None, 'pure' or
            'complete', ``items`` as ``data.item`` gives them, nearest the
            centre first, and ``doubtful``, farthest first), ``n_more``
            and ``n_rows_more`` (clusters and items not shown).

        Examples
        --------
        >>> import os, tempfile
        >>> import pandas as pd, linkwise as lw
        >>> from linkwise.session import HumanSession, load_data
        >>> folder = tempfile.mkdtemp()
        >>> pd.DataFrame(lw.datasets.load("iris")[0]).to_csv(os.path.join(folder, "iris.csv"), index=False)
        >>> session = HumanSession(os.path.join(folder, "s.db"), load_data(os.path.join(folder, "iris.csv")),
        ...                        lw.COBRAS(random_state=0))
        >>> strips = session.clusters()["strips"]
        >>> [s["size"] for s in strips], strips[0]["mark"], len(strips[0]["items"]), len(strips[0]["doubtful"])
        ([147], None, 3, 3)

        Feedback: the one cluster is pure (stored as such, one action for undo). It is large, and only 3 of its
        least typical members were shown: the mark asks to be confirmed, naming them.

        >>> session.mark(session.position, strips[0]["cluster"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        linkwise.session.core._feedback.NeedsConfirmation: Cluster 1 has 147 items, ...
        >>> _ = session.mark(session.position, strips[0]["cluster"], confirmed=True)
        >>> session.clusters()["strips"][0]["mark"], session.store.answers()[-1].kind
        ('pure', 'pure')
        >>> session.close()
        """
        with self._lock:
            groups, marks, names = self._groups(), self._marks(), self.names()
            order = sorted(groups, key=lambda c: (-len(groups[c]), c))
            strips = []
            for c in order[:limit]:
                ranked = self._central(groups[c])
                far = ranked[per:][::-1][:doubtful]
                strips.append({"cluster": c, "name": names.get(c), "size": len(groups[c]),
                               "mark": self._status(groups[c], *marks),
                               "items": self._shown(ranked[:per]), "doubtful": self._shown(far)})
            return {"position": self._replay.position, "revision": self._replay.revision, "strips": strips,
                    "n_more": max(len(groups) - limit, 0), "n_rows_more": int(sum(len(groups[c]) for c in order[limit:]))}

    @validate_args({"page": [Interval(Integral, 0, None, closed="left")],
                    "size": [Interval(Integral, 1, MAX_PAGE_SIZE, closed="both")],
                    "q": [str, None], "sort": [StrOptions(set(SORTS))]}, owner="HumanSession.members")
    def members(self, cluster, page=0, size=24, q=None, column=None, sort="typical"):
        """One page of a cluster's members: every member can be seen, searched, and its least typical ones first.

        Parameters
        ----------
        cluster : int
            A cluster number (as :meth:`clusters` gives it).
        page : int, default=0
            The page, from 0.
        size : int, default=24
            Members per page, from 1 to 200.
        q : str, optional
            Keep the members holding this text (ignoring case) in ``column``,
            or in any column.
        column : str, optional
            One of ``columns`` (the reply lists them): where ``q`` looks.
        sort : {"typical", "atypical"}, default="typical"
            Nearest the cluster's centre first, or farthest first (see the
            module's notes); ties by row.

        Returns
        -------
        dict
            ``cluster``, ``size`` (its members), ``n_matching`` (those ``q``
            keeps), ``page``, ``n_pages``, ``page_size``, ``sort``, ``q``,
            ``column``, ``columns``, ``revision``, ``mark`` (as a strip's) and
            ``items`` (as ``data.item`` gives them).

        Examples
        --------
        >>> import os, tempfile
        >>> import pandas as pd, linkwise as lw
        >>> from linkwise.session import HumanSession, load_data
        >>> folder = tempfile.mkdtemp()
        >>> pd.DataFrame(lw.datasets.load("iris")[0]).to_csv(os.path.join(folder, "iris.csv"), index=False)
        >>> session = HumanSession(os.path.join(folder, "s.db"), load_data(os.path.join(folder, "iris.csv")),
        ...                        lw.COBRAS(random_state=0))
        >>> view = session.members(1, size=10, sort="atypical")
        >>> view["size"], view["n_pages"], len(view["items"])
        (147, 15, 10)
        >>> session.members(1, q="5.1", column="0")["n_matching"]
        9
        >>> session.close()
        """
        columns = self._data.search_columns
        if column is not None and column not in columns:
            raise InvalidParameterError(f"The 'column' argument of HumanSession.members must be one of "
                                        f"{', '.join(columns)}, got {column!r}.")
        with self._lock:
            groups = self._groups()
            rows = self._central(self._cluster(groups, cluster, "cluster", "members"))
            if sort == "atypical":
                rows = rows[::-1]
            if q:
                rows = rows[self._data.matches(rows, q, column)]
            n_pages = max(-(-len(rows) // size), 1)
            if page >= n_pages:
                raise InvalidParameterError(f"The 'page' argument of HumanSession.members must be from 0 to "
                                            f"{n_pages - 1} (the matching members fill {n_pages}), got {page!r}.")
            return {"cluster": int(cluster), "name": self.names().get(int(cluster)), "size": len(groups[cluster]), "n_matching": len(rows), "page": int(page),
                    "n_pages": n_pages, "page_size": int(size), "sort": sort, "q": q, "column": column,
                    "columns": columns, "revision": self._replay.revision,
                    "mark": self._status(groups[cluster], *self._marks()),
                    "items": self._shown(rows[page * size:(page + 1) * size])}

    def names(self):
        """Return the names people gave clusters (see :meth:`name`).

        Returns
        -------
        dict of int to str
            The name of each named cluster, by cluster number.
        """
        return {int(c): text for c, text in self._store.meta.get("names", {}).items()}

    def name(self, cluster, text):
        """Name a cluster ("Garden"): the name stays with its number (see ``numbers``) while the cluster exists.

        Stored in the session file (its meta ``names``: a file without it has no names, and older linkwise ignores
        it, so the file format is unchanged); shown on the page, in the terminal and written by
        :meth:`labels_frame`. Naming changes no answer and is not undone with them.

        Parameters
        ----------
        cluster : int
            A cluster number (as :meth:`clusters` gives it).
        text : str
            The name, at most ``NAME_LENGTH`` (60) printable characters; "" removes it.

        Returns
        -------
        SessionState
            The new :meth:`state`.
        """
        if not isinstance(text, str) or len(text.strip()) > NAME_LENGTH or not text.isprintable():
            raise InvalidParameterError(f"The 'text' argument of HumanSession.name must be text of at most "
                                        f"{NAME_LENGTH} printable characters (\"\" removes the name), got {text!r:.80}.")
        with self._lock:
            if self._read_only:
                raise Refused("This session was opened read-only; nothing can be changed in it.")
            self._cluster(self._groups(), cluster, "cluster", "name")
            names = {str(c): t for c, t in self.names().items() if c != int(cluster)}
            if text.strip():
                names[str(int(cluster))] = text.strip()
            self._store.write_meta({**self._store.meta, "names": names})
            self._replay.touch()  # clients that poll show it
            return self._state()

    def _cluster(self, groups, cluster, argument, owner):
        if not isinstance(cluster, (int, np.integer)) or isinstance(cluster, bool) or int(cluster) not in groups:
            raise InvalidParameterError(f"The {argument!r} argument of HumanSession.{owner} must be a cluster number "
                                        f"(one that clusters() shows now), got {cluster!r}.")
        return groups[int(cluster)]

    @validate_args({"complete": ["boolean"], "confirmed": ["boolean"]}, owner="HumanSession.mark")
    def mark(self, position, cluster, complete=False, annotator=None, confirmed=False):
        """Say that a cluster is pure (its members all belong together), and perhaps complete.

        Stored as one cluster feedback (kind 'pure' or 'complete', its members listed) and applied with
        :meth:`ActiveSession.mark`: COBRAS never splits a pure cluster again nor merges with a complete one.

        Parameters
        ----------
        position : str
            The ``position`` of the state the person saw.
        cluster : int or array-like of int
            A cluster number (as :meth:`clusters` gives it), or the rows the person found to be one group.
        complete : bool, default=False
            True: nothing else belongs with them either.
        annotator : str, optional
            Who gave the feedback (a team's member; stored with it).
        confirmed : bool, default=False
            The person confirmed the mark after seeing the least typical
            members a :class:`NeedsConfirmation` named.

        Returns
        -------
        SessionState
            The new :meth:`state`.

        Raises
        ------
        Refused
            A stale position, an open contradiction, feedback already given,
            or feedback the earlier answers contradict (a :class:`~linkwise.session.MarkConflict`
            naming every item in its way; nothing is stored).
        NeedsConfirmation
            A cluster of more than ``CONFIRM_SIZE`` members whose
            ``CONFIRM_SEEN`` least typical members were not all shown (in
            :meth:`clusters` or :meth:`members`): its ``rows`` name them,
            farthest first; nothing is stored.

        Examples
        --------
        See :meth:`clusters`.
        """
        with self._lock:
            self._guard(position, annotator)
            if isinstance(cluster, (int, np.integer)):
                members = self._cluster(self._groups(), cluster, "cluster", "mark")
            else:
                members = check_index_set(cluster, self._data.n_rows, "cluster", "HumanSession.mark")
            status = self._status(members, *self._marks())
            if status == "complete" or (status == "pure" and not complete):
                raise Refused(f"Those items are already marked {'pure and complete' if status == 'complete' else 'pure'}.")
            what = f"Cluster {int(cluster)}" if isinstance(cluster, (int, np.integer)) else \
                f"The group of {len(members)} items"
            self._check_mark(members, complete, what)
            if confirmed:
                self._confirmed.add(self._digest(members))
            else:
                self._check_seen(members)
            return self._commit([self._store.record_mark(members, bool(complete), annotator=annotator)], annotator)

    def _check_mark(self, members, complete, what):
        """Refuse feedback the earlier statements contradict, naming every item in its way (none of it is stored):
        a mark is many pairs at once, so there is no single answer to set against it in the contradiction flow."""
        store = self._replay.session.constraints
        if store.group_conflict(members, complete) is None:
            return
        ids = self._data.ids.to_numpy()
        # members whose must-link component a cannot-link keeps apart from another member's
        component, apart = store.relations_among(members)
        first = dict(zip(component[::-1].tolist(), members[::-1].tolist()))  # each component's first member
        notes = {row: f"apart from {ids[first[int(np.argmax(apart[c]))]]}"
                 for row, c in zip(members.tolist(), component.tolist()) if apart[c].any()}
        pairs = [f"{ids[first[a]]} and {ids[first[b]]}" for a, b in zip(*np.nonzero(np.triu(apart)))]
        parts = [] if not notes else [
            f"{what} is not one group by your answers: {len(notes)} of its items belong to different groups "
            f"({_listed(pairs, '; ')}). Move one of each pair out first, or undo those answers."]
        if complete:  # rows outside the group that a must-link ties to a member
            labels = store.component_labels()
            partner = dict(zip(labels[members[::-1]].tolist(), members[::-1].tolist()))
            outside = np.setdiff1d(np.nonzero(np.isin(labels, labels[members]))[0], members)
            tied = {row: f"belongs with {ids[partner[labels[row]]]}" for row in outside.tolist()}
            if tied:
                n = len(tied)
                parts.append(f"{what} is not complete by your answers: {n} item{'s' * (n != 1)} outside it belong"
                             f"{'s' * (n == 1)} with its members "
                             f"({_listed([f'{ids[r]} {note}' for r, note in tied.items()], ', ')}). Move "
                             f"{'them' if n != 1 else 'it'} in first, or mark it pure only.")
                notes.update(tied)
        raise MarkConflict(" ".join(parts), list(notes)[:NAMED_MAX], notes)

    @staticmethod
    def _digest(members):
        """A member set, as a short key (a large cluster's rows are not kept twice)."""
        return hashlib.blake2b(np.sort(np.asarray(members, dtype=np.int64)).tobytes(), digest_size=16).digest()

    def _check_seen(self, members):
        """Refuse an unconfirmed mark on a large cluster whose least typical members were not all shown, unless
        the person confirmed a mark on these very members before (a mark undone, then given again)."""
        if len(members) <= CONFIRM_SIZE or self._digest(members) in self._confirmed:
            return
        doubtful = self._central(members)[::-1][:CONFIRM_SEEN]
        if self._seen.issuperset(doubtful.tolist()):
            return
        cluster = int(self._replay.numbers()[members[0]])
        raise NeedsConfirmation(
            f"Cluster {cluster} has {len(members)} items, more than you have seen: look at its {len(doubtful)} "
            "least typical members, then confirm that all of them belong together.", doubtful)

    def move(self, position, row, to, annotator=None):
        """Move item ``row`` to cluster ``to``: it belongs there, not with its current cluster.

        Stored as one action of two pair statements (kind 'move'): a must-link from ``row`` to a member of the
        target and a cannot-link to a member of its current cluster (none when it is alone there), each the
        member nearest its cluster's centre that the answers do not already contradict; applied with
        :meth:`ActiveSession.inform`.

        Parameters
        ----------
        position : str
            The ``position`` of the state the person saw.
        row : int
            The item's row number (``item["row"]``).
        to : int
            The target cluster's number (as :meth:`clusters` gives it).
        annotator : str, optional
            Who moved it (a team's member; stored with it).

        Returns
        -------
        SessionState
            The new :meth:`state`.

        Raises
        ------
        Refused
            A stale position or an open contradiction. A move the earlier
            answers contradict is stored and opens the contradiction.
        """
        n = self._data.n_rows
        if not isinstance(row, (int, np.integer)) or isinstance(row, bool) or not 0 <= row < n:
            raise InvalidParameterError(f"The 'row' argument of HumanSession.move must be a row number from 0 to "
                                        f"{n - 1}, got {row!r}.")
        row = int(row)
        with self._lock:
            self._guard(position, annotator)
            groups = self._groups()
            target = self._cluster(groups, to, "to", "move")
            if row in target:
                raise InvalidParameterError(f"The 'to' argument of HumanSession.move names cluster {to}, where item "
                                            f"{self._data.item(row)['id']} already is; name another cluster.")
            source = groups[int(self._replay.numbers()[row])]
            relation = self._replay.session.constraints.relation
            statements = [(row, self._partner(target, row, relation, False), True)]
            others = source[source != row]
            if len(others):
                statements.append((row, self._partner(others, row, relation, True), False))
            return self._commit(self._store.record_many(statements, kind="move", annotator=annotator), annotator)

    def _partner(self, members, row, relation, avoid):
        """The member nearest the centre whose relation to ``row`` is not known to be ``avoid`` (else the
        nearest: the statement then contradicts, and the contradiction is shown)."""
        central = self._central(members)
        return int(next((m for m in central if relation(row, int(m)) is not avoid), central[0]))
