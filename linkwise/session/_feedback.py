"""Feedback on whole clusters in a human session: see the clusters, mark one pure (and complete), move an item.

A person says far more per click about a whole cluster than "same / different"; the web page of COBRAS's authors
(COBRAS: Van Craenendonck, Dumančić, Van Wolputte, Blockeel, IDA 2018) offers "pure" and "pure and complete". Each
action here is stored in the session file as one action (one undo removes it) and applied through
:meth:`ActiveSession.mark` / :meth:`ActiveSession.inform`; a move the earlier answers contradict opens the session's
contradiction flow (where it can be withdrawn), a mark they contradict is refused naming two items. The clustering
a session reports honours this feedback even where its method does not (:func:`honour`).
"""

from itertools import groupby

import numpy as np

from linkwise._validation import InvalidParameterError, check_index_set
from linkwise.graph import relabel
from linkwise.session._store import Refused

__all__ = ["ClusterFeedback", "honour"]

_SAMPLE = 4096  # members a cluster's centre and representatives are computed from, on large clusters


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
    """:class:`HumanSession`'s actions on whole clusters (a mixin: it uses the session's lock, state and store)."""

    def _feedback_rows(self):
        return [row for row in self._used if row.kind in ("pure", "complete", "move")]

    def _features(self, rows):
        return self.data.X[rows].reshape(len(rows), -1)

    def _central(self, members):
        """``members`` (or an even sample of a large cluster) nearest its centre first; ties by row."""
        if len(members) > _SAMPLE:
            members = members[np.linspace(0, len(members) - 1, _SAMPLE).astype(np.intp)]
        X = self._features(members)
        distance = ((X - X.mean(axis=0)) ** 2).sum(axis=1)
        return members[np.lexsort((members, distance))]

    def _status(self, members, marks, components):
        """'pure' when the statements join all ``members`` (one must-link component) and a mark is among them,
        'complete' when a complete one is, else None: an item moved into a marked cluster keeps it marked."""
        if not marks or len(np.unique(components[members])) > 1:
            return None
        kinds = {row.kind for row, inside in zip(marks, np.isin([r.members[0] for r in marks], members)) if inside}
        return "complete" if "complete" in kinds else "pure" if kinds else None

    def _marks(self):
        """The applied marks and the must-link components (None without marks: a pass over every row)."""
        marks = [row for row in self._used if row.members is not None]
        return marks, self._session.constraints.component_labels() if marks else None

    def _groups(self):
        """The current clusters' members, by cluster number."""
        labels = self.labels()
        order = np.argsort(labels, kind="stable")
        return np.split(order, np.cumsum(np.bincount(labels))[:-1])

    def clusters(self, limit=30, per=4):
        """The current clusters, largest first, as strips: size, a few representative items, feedback given.

        Parameters
        ----------
        limit : int, default=30
            Strips returned (the rest are counted in ``n_more``).
        per : int, default=4
            Representatives per strip: the members nearest the cluster's
            centre in feature space.

        Returns
        -------
        clusters : dict
            ``position`` and ``revision`` (as :meth:`state`), ``strips``
            (each ``cluster`` number, ``size``, ``mark``: None, 'pure' or
            'complete', ``items`` as ``data.item`` gives them), ``n_more``
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
        >>> [s["size"] for s in strips], strips[0]["mark"], len(strips[0]["items"])
        ([147], None, 4)

        Feedback: the one cluster is pure (stored as such, one action for undo).

        >>> _ = session.mark(session.position, strips[0]["cluster"])
        >>> session.clusters()["strips"][0]["mark"], session.store.answers()[-1].kind
        ('pure', 'pure')
        >>> session.close()
        """
        for name, value in (("limit", limit), ("per", per)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidParameterError(f"The {name!r} argument of HumanSession.clusters must be a positive "
                                            f"int, got {value!r}.")
        with self._lock:
            groups, marks = self._groups(), self._marks()
            order = sorted(range(len(groups)), key=lambda c: (-len(groups[c]), c))
            strips = [{"cluster": c, "size": len(groups[c]), "mark": self._status(groups[c], *marks),
                       "items": [self.data.item(r) for r in self._central(groups[c])[:per]]} for c in order[:limit]]
            return {"position": self.position, "revision": self.revision, "strips": strips,
                    "n_more": max(len(groups) - limit, 0), "n_rows_more": int(sum(len(groups[c]) for c in order[limit:]))}

    def _open_for_feedback(self, position, annotator):
        self._expect(position, annotator)
        if self._conflict is not None:
            raise Refused("Resolve the contradiction first: say which answer was wrong.")

    def _cluster(self, groups, cluster, argument, owner):
        if not isinstance(cluster, (int, np.integer)) or isinstance(cluster, bool) or not 0 <= cluster < len(groups):
            raise InvalidParameterError(f"The {argument!r} argument of HumanSession.{owner} must be a cluster number "
                                        f"from 0 to {len(groups) - 1} (see clusters()), got {cluster!r}.")
        return groups[cluster]

    def mark(self, position, cluster, complete=False, annotator=None):
        """Say that a cluster is pure (its members all belong together), and with ``complete`` that nothing
        else belongs with them.

        Stored as one cluster feedback (kind 'pure' or 'complete', its members listed) and applied with
        :meth:`ActiveSession.mark`: COBRAS never splits a pure cluster again nor merges with a complete one.

        Parameters
        ----------
        position : str
            The ``position`` of the state the person saw.
        cluster : int or array-like of int
            A cluster number (as :meth:`clusters` gives it), or the rows the person found to be one group.
        complete : bool, default=False
        annotator : str, optional
            Who gave the feedback (a team's member; stored with it).

        Returns
        -------
        state : dict
            The new :meth:`state`.

        Raises
        ------
        Refused
            A stale position, an open contradiction, feedback already given,
            or feedback the earlier answers contradict (two items named;
            nothing is stored).

        Examples
        --------
        See :meth:`clusters`.
        """
        if not isinstance(complete, (bool, np.bool_)):
            raise InvalidParameterError(f"The 'complete' argument of HumanSession.mark must be True or False, "
                                        f"got {complete!r}.")
        with self._lock:
            self._open_for_feedback(position, annotator)
            if isinstance(cluster, (int, np.integer)):
                members = self._cluster(self._groups(), cluster, "cluster", "mark")
            else:
                members = check_index_set(cluster, self.data.n_rows, "cluster", "HumanSession.mark")
            status = self._status(members, *self._marks())
            if status == "complete" or (status == "pure" and not complete):
                raise Refused(f"Those items are already marked {'pure and complete' if status == 'complete' else 'pure'}.")
            self._check_mark(members, complete)
            return self._applied([self.store.add_mark(members, bool(complete), annotator=annotator)], annotator)

    def _check_mark(self, members, complete):
        """Refuse feedback the earlier statements contradict, naming two items (none of it is stored): a mark
        is many pairs at once, so there is no single answer to set against it in the contradiction flow."""
        conflict = self._session.constraints.group_conflict(members, complete)
        if conflict is None:
            return
        (a, b), together = self.data.ids.to_numpy()[list(conflict[:2])], conflict[2]
        if together:
            raise Refused(f"These items are not one group by your answers: {a} and {b} belong to different groups. "
                          "Move one of them out first, or undo that answer.")
        raise Refused(f"These items are not complete by your answers: {b}, not among them, belongs with {a}. Move it "
                      "in first, or mark them pure only.")

    def move(self, position, row, to, annotator=None):
        """Move item ``row`` to cluster ``to``: it belongs there, not with its current cluster.

        Stored as one action of two pair statements (kind 'move'): a must-link from ``row`` to a member of the
        target and a cannot-link to a member of its current cluster (none when it is alone there), each the
        member nearest its cluster's centre that the answers do not already contradict; applied with
        :meth:`ActiveSession.inform`.

        Parameters
        ----------
        position : str
        row : int
            The item's row number (``item["row"]``).
        to : int
            The target cluster's number (as :meth:`clusters` gives it).
        annotator : str, optional
            Who moved it (a team's member; stored with it).

        Returns
        -------
        state : dict
            The new :meth:`state`.

        Raises
        ------
        Refused
            A stale position or an open contradiction. A move the earlier
            answers contradict is stored and opens the contradiction.
        """
        n = self.data.n_rows
        if not isinstance(row, (int, np.integer)) or isinstance(row, bool) or not 0 <= row < n:
            raise InvalidParameterError(f"The 'row' argument of HumanSession.move must be a row number from 0 to "
                                        f"{n - 1}, got {row!r}.")
        row = int(row)
        with self._lock:
            self._open_for_feedback(position, annotator)
            groups = self._groups()
            target = self._cluster(groups, to, "to", "move")
            if row in target:
                raise InvalidParameterError(f"The 'to' argument of HumanSession.move names cluster {to}, where item "
                                            f"{self.data.item(row)['id']} already is; name another cluster.")
            source = groups[self.labels()[row]]
            relation = self._session.constraints.relation
            statements = [(row, self._partner(target, row, relation, False), True)]
            others = source[source != row]
            if len(others):
                statements.append((row, self._partner(others, row, relation, True), False))
            return self._applied(self.store.add_many(statements, kind="move", annotator=annotator), annotator)

    def _partner(self, members, row, relation, avoid):
        """The member nearest the centre whose relation to ``row`` is not known to be ``avoid`` (else the
        nearest: the statement then contradicts, and the contradiction is shown)."""
        central = self._central(members)
        return int(next((m for m in central if relation(row, int(m)) is not avoid), central[0]))
