"""A session file replayed: the :class:`~linkwise.ActiveSession` that its recorded statements give, and what a
person sees of it (the clustering with the cluster feedback honoured, stable cluster numbers, the open
contradiction, the position and revision that name the current state).

:class:`Replay` is the part of :class:`~linkwise.session.HumanSession` that every other part reads: the feedback on
clusters (:mod:`linkwise.session.core._feedback`), the team's desk (:mod:`linkwise.session.core._desk`) and the review of
answers (:mod:`linkwise.session.core._review`) are each given it. It knows nothing of people, pages or teams: a team's
desk tells it which rows to hold back (``planner``).
"""

import pickle
import secrets

import numpy as np

from linkwise.exceptions import InconsistentConstraintError
from linkwise.graph import pair_key
from linkwise.loop import ActiveSession
from linkwise.session.core._feedback import honour
from linkwise.session.core._numbers import carry_numbers
from linkwise.session.core._resume import ResumeCache
from linkwise.session.core._state import Contradiction, ContradictionAnswer
from linkwise.session.core._store import ANSWER_WORDS
from linkwise.stability import StabilityMonitor, observe

__all__ = ["Replay", "state_row"]

# What a resume point keeps of a replay, beside its ActiveSession's state (with the rows it covers).
_STATE = ("used", "_feedback", "_processed", "_source", "conflict", "_labels", "_numbered", "_fresh", "stability",
          "_unsure")
_FEEDBACK = ("pure", "complete", "move")  # the kinds of row that are feedback on clusters


def state_row(session, row, unsure):
    """State one recorded row to ``session``: told if it answers the pending question, else informed (a cluster's
    feedback: marked); "don't know" about a pair not pending is kept in ``unsure`` and told when it comes up.
    Returns False when that row said nothing now."""
    pending = session.ask()
    if row.members is not None:
        session.mark(row.members, complete=row.kind == "complete")
    elif row.kind == "question" and pending is not None and pair_key(*pending) == (row.i, row.j):
        session.tell(pending, row.answer)
    elif row.answer is not None:
        session.inform(row.i, row.j, row.answer, move=row.kind == "move")
    else:
        unsure.add((row.i, row.j))
        return False
    while (pending := session.ask()) is not None and pair_key(*pending) in unsure:
        session.tell(pending, None)
    return True


class Replay:
    """The statements recorded in ``store`` applied, in order, to a fresh ActiveSession of ``estimator`` on ``data``
    (from the first :meth:`rebuild` on).

    Attributes
    ----------
    session : ActiveSession
        Fed with every applied row.
    used : list of Answer
        The rows applied in the current run, in order.
    rows : list of Answer
        Every recorded row: those read at the last :meth:`rebuild` and those committed since.
    conflict : tuple or None
        ``(row, pair, believed, chain)``: the row whose statement the earlier ones contradict, the pair, what the
        earlier ones imply, and those (constraint, row) that imply it; rows after it wait until it is resolved.
    skip, later : set of int
        A team's rows held back (a tie, an answer agreeing with the one applied) and those applied without opening
        a contradiction (a second annotator's other answer), as ``planner`` says.
    changes : int
        Counts every change of state (see :attr:`revision`).
    """

    def __init__(self, store, data, estimator, planner=None):
        self.store, self.data, self.estimator, self.planner = store, data, estimator, planner
        self.changes = 0
        # a fresh prefix per process: a page that polled an earlier server never mistakes a new state for its own
        self._boot = secrets.token_hex(4)
        self.points = ResumeCache(store, data)
        # the method's clustering, the feedback and the clustering shown from them, last computed: honour is a
        # function of the first two alone, so this outlives a rebuild (and is no part of a resume point)
        self._honoured = None

    def rebuild(self):
        """Replay every recorded row, in recorded order (see :meth:`apply`): from the latest resume point whose
        rows are the first ones recorded now (an undo, a changed answer or a reopened file starts there), else
        afresh."""
        self.rows = self.store.answers()
        self.skip, self.later = self.planner(self.rows) if self.planner else (set(), set())
        todo = [row for row in self.rows if row.seq not in self.skip]
        resumed = self.points.resume(self.estimator, todo)
        if resumed is None:
            self._start()
        else:
            self.session, state = resumed
            self.__dict__.update(state)
        for row in todo[len(self._processed):]:
            if self.conflict is not None:
                break
            self.apply(row)
        self.changed()

    def _start(self):
        """A fresh ActiveSession and what the person sees before any row is applied."""
        self.session = ActiveSession(self.estimator, self.data.X, stability=False, resume_points="spaced")
        # stability of what the person sees (the feedback honoured), counting every annotator's answers
        self.stability = StabilityMonitor(**self.estimator.stop_rule())
        self.used, self._processed = [], []
        self._feedback = []  # the rows of used that are feedback on clusters (see feedback_rows)
        self._source = {}  # (pair, must-link) -> the recorded row that stated it, for explaining a contradiction
        self.conflict = self._labels = None
        # the clustering last numbered (its labels, the numbers per row) and the next fresh number: numbered after
        # every recorded row, so the numbers follow from the file alone (the export shows the page's; see numbers)
        self._numbered, self._fresh = (None, None), 1
        self._observe(answered=False)  # the clustering before any answer
        self.numbers()
        self._unsure = set()  # pairs answered "don't know" before the method asked them

    def _observe(self, answered=True, contradicted=False):
        session = self.session
        observe(self.stability, session.estimator_, self.labels(), self.data.X, session.query_log, answered,
                contradicted)

    def apply(self, row):
        """Replay one recorded row: the answer to the pending question is told; another pair (imported, moved, or
        asked of someone else) is informed; a cluster's feedback is marked. A contradiction opens a conflict.
        Where the method rested in the row's last step, the state after it is kept as a resume point."""
        self._apply(row)
        self._processed.append(row)
        if self.conflict is None and (point := self.session.resume_point(current=True)) is not None:
            state = {name: getattr(self, name) for name in _STATE}
            self.points.keep(self.estimator, self._processed, point, pickle.dumps(state, protocol=5))

    def _apply(self, row):
        session = self.session
        constraints, informed = session.constraints, len(session.informed)
        before = len(constraints.conflicts)
        try:
            if not state_row(session, row, self._unsure):
                return  # "don't know" about a pair not asked now says nothing
        except InconsistentConstraintError as exc:  # a strict store refused it: it waits until resolved
            # (a statement of several pairs may contradict itself through some of them: those are its own)
            pair, must_link, explained = exc.pair, exc.must_link, getattr(exc, "explanation", None)
        else:
            self.used.append(row)
            if row.kind in _FEEDBACK:
                self._feedback.append(row)
            stated = [(row.i, row.j, row.answer)] if row.kind == "question" else session.informed[informed:]
            self._source.update({(pair_key(i, j), a): row for i, j, a in stated})
            self._labels = None
            answered = row.kind == "question"  # told to the clustering shown when the row was stated: the monitor's
            contradicted = answered and self.stability.contradicts((row.i, row.j), row.answer)
            self._observe(answered, contradicted)
            self.numbers()
            # a second annotator's other answer: a tolerant method weighs both (repair), nobody is asked
            if len(constraints.conflicts) == before or row.seq in self.later:
                return
            conflict = constraints.conflicts[-1]
            pair, must_link, explained = (conflict.i, conflict.j), conflict.must_link, None
        # the earlier statements that imply the belief; with the contradicting one they form the cycle shown
        chain = [(c, self._source.get((pair_key(c.i, c.j), c.must_link), row))
                 for c in explained or constraints.explain(*pair)]
        self.conflict = (row, pair_key(*pair), not must_link, chain)

    def commit(self, rows):
        """Apply rows just recorded (the rest waits in the file while a contradiction is open)."""
        newest = self.rows[-1].seq if self.rows else -1  # a team's desk has added its answer already
        self.rows.extend(row for row in rows if row.seq > newest)
        for row in rows:
            if self.conflict is None:
                self.apply(row)
        self.changed()

    def changed(self):
        """Note a change of state: the clustering shown is computed again."""
        self.changes += 1
        self._labels = None

    def touch(self):
        """Note a change that leaves the clustering as it is (a cluster's name): clients that poll show it."""
        self.changes += 1

    @property
    def revision(self):
        """Changes with every change of state (for clients that poll)."""
        return f"{self._boot}.{self.changes}"

    @property
    def position(self):
        """Names the current state: answers and undos must quote it, so a stale one is refused."""
        n = len(self.used)  # every recorded statement applied: an imported one or a cluster's feedback too
        if self.conflict is not None:
            return f"{n}.conflict-{self.conflict[0].seq}"
        pair = self.session.ask()
        return f"{n}.end" if pair is None else f"{n}.{pair[0]}-{pair[1]}"

    def feedback_rows(self):
        """The applied rows of feedback on clusters: marks and moves (a copy: the list grows as rows are applied)."""
        return list(self._feedback)

    def labels(self):
        """The current clustering (the method's, as the cluster feedback says), numbered 0.. in order of first
        appearance.

        Most answers leave the method's clustering as it was: then the clustering shown is the same object as
        before, so nothing after it (the numbers, the export) is computed again for every row.
        """
        if self._labels is None:
            method, feedback = self.session.labels(), self.feedback_rows()
            kept = self._honoured
            if kept is not None and kept[1] == feedback and (kept[0] is method or np.array_equal(kept[0], method)):
                self._labels = kept[2]
            else:
                self._labels = honour(method, feedback)
                self._labels.flags.writeable = False  # shared by the numbers, the monitor and the views
            self._honoured = (method, feedback, self._labels)
        return self._labels

    def numbers(self):
        """The current cluster of every row by its stable number (see ``HumanSession.numbers``)."""
        labels, (seen, numbers) = self.labels(), self._numbered
        if seen is not labels:
            if seen is None or not np.array_equal(seen, labels):  # the same partition keeps its numbers
                numbers, self._fresh = carry_numbers(labels, numbers, self._fresh)
            self._numbered = (labels, numbers)
        return numbers

    def statements(self):
        """Every pair relation stated and applied, with the recorded row that stated it: ``(i, j, answer, row)``."""
        held = None if self.conflict is None else self.conflict[0].seq  # a tolerant store's contradiction
        return [(i, j, a, row) for ((i, j), a), row in self._source.items() if a is not None and row.seq != held]

    def conflict_state(self):
        """The open contradiction as a client shows it (a :class:`~linkwise.session.core._state.Contradiction`)."""
        row, (i, j), believed, chain = self.conflict
        item = self.data.item

        def described(r, a, b, answer, new):
            return ContradictionAnswer(r.seq, (a, b), (item(a)["id"], item(b)["id"]), r.kind, r.annotator,
                                       ANSWER_WORDS[answer], r.answered_at, new)

        labels = self.labels()
        return Contradiction(row.seq, (i, j), (item(i), item(j)), ANSWER_WORDS[believed],
                             ANSWER_WORDS[bool(labels[i] == labels[j])],
                             tuple(described(r, c.i, c.j, c.must_link, False) for c, r in chain)
                             + (described(row, i, j, not believed, True),))
