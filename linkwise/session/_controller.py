"""One human session, what the web page and the terminal prompt talk to: an ActiveSession fed from a session file.

There is one current question, whoever looks at it: an answer names the question it answers (its *position*), and
one to a question no longer current is refused, so two browser tabs cannot answer twice. Opening a session replays
the stored answers *by pair* into a fresh :class:`~linkwise.ActiveSession` (the loop is deterministic: the same data,
seed and answers give the same questions) up to the first question the file does not answer; undo and corrections
edit the file and replay.

A session for a team (``annotators``) hands each annotator a question of their own, so nobody waits for another:
the method's pending question to one, the questions it would ask next to the others (see
:mod:`linkwise.session._team`). Their *position* is a ticket naming the pair and the annotator. The team's part of
the session is in :mod:`linkwise.session._desk`, the feedback on whole clusters in :mod:`linkwise.session._feedback`
(mixins :class:`HumanSession` inherits); here: opening, replay, state, the actions on a question, results.
"""

import json
import numbers
import secrets
import threading

import numpy as np
from sklearn.base import clone

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.exceptions import InconsistentConstraintError
from linkwise.graph import pair_key
from linkwise.loop import ActiveEstimator, ActiveSession
from linkwise.session._desk import TeamDesk, state_row
from linkwise.session._feedback import ClusterFeedback, honour
from linkwise.session._import import _store_known
from linkwise.session._methods import build_estimator, encode_params, method_spec
from linkwise.session._numbers import carry_numbers
from linkwise.session._review import AnswerReview
from linkwise.session._store import ANSWER_WORDS, Answer, Refused, SessionFileError, SessionStore
from linkwise.session._team import check_team, plan
from linkwise.stability import StabilityMonitor

with requires("session", "linkwise.session"):
    import pandas as pd

__all__ = ["HumanSession", "Refused", "ANSWER_WORDS", "read_meta"]


DEFAULT_BUDGET = 100  # questions of a new session whose method sets no max_queries; raised from the page or terminal
_OPTIONAL_TEXT = (str, type(None))
# what a session's meta must hold, by type: a damaged or hand-edited file is refused, not half-used
_META_TYPES = {"data_path": str, "data_fingerprint": str, "data_options": dict, "image_root": str, "method": str,
               "params": dict}
_OPTION_TYPES = {"id_column": _OPTIONAL_TEXT, "text_column": _OPTIONAL_TEXT, "image_column": _OPTIONAL_TEXT,
                 "features": (list, type(None)), "scale": str, "encoding": _OPTIONAL_TEXT,
                 "series": (dict, type(None))}


def _check_meta(meta, path):
    def damaged(what):
        return SessionFileError(f"The session file {path} is damaged: {what}. Start a new session file.")

    for key, kind in _META_TYPES.items():
        if key not in meta:
            raise damaged(f"its meta has no {key!r}")
        if not isinstance(meta[key], kind):
            raise damaged(f"its meta {key!r} is {meta[key]!r}, not a {kind.__name__}")
    names = meta.get("names", {})  # the clusters' names (HumanSession.name): number -> text
    if not isinstance(names, dict) or not all(k.isdigit() and isinstance(v, str) for k, v in names.items()):
        raise damaged(f"its meta 'names' is {names!r:.80}")
    for key, value in meta["data_options"].items():
        if key not in _OPTION_TYPES or not isinstance(value, _OPTION_TYPES[key]):
            raise damaged(f"its data option {key!r} is {value!r}")
    return meta


def read_meta(path):
    """The checked description of the session in ``path``, read without writing; ``{}`` before its first start.

    Raises :class:`SessionFileError` for a file that is not a session, or is damaged.
    """
    with SessionStore(path, read_only=True) as store:
        return _check_meta(store.meta, path) if store.meta else {}


class HumanSession(ClusterFeedback, AnswerReview, TeamDesk):
    """A resumable session in which a person answers an active method's questions.

    Parameters
    ----------
    path : str or Path
        The session file (SQLite; created if missing).
    data : Dataset
        From :func:`~linkwise.session.load_data`. A session file refuses data
        with another fingerprint or other feature options; a new session
        refuses rows that are all the same in what is clustered.
    estimator : ActiveEstimator, optional
        The method for a new session (default: ``COBRAS()``); it is cloned.
        When ``random_state`` is None the session draws a seed and stores it,
        since replay needs the same questions for the same answers. For an
        existing session, None means the stored method; an estimator given
        must have the stored parameters (its ``random_state`` None adopts the
        stored seed).
    read_only : bool, default=False
        Open an existing session only to look at it (labels, answers): the
        file is not written and a running session is not disturbed; every
        action is refused.
    trusted_method : str, optional
        A method ``module:Class`` outside linkwise that the session file may
        name. A session file names its method, and linkwise imports only its
        own methods from a file unless the caller names the same method (the
        command line passes its ``--method``), since importing runs code.
    known : sequence of (int, int, bool), optional
        Pairs the person knew before (row numbers, True same / False
        different; e.g. from :func:`~linkwise.session.read_known`): stored as
        one action of 'imported' statements while the session has none yet,
        so they are never asked; an existing session must have begun with
        the same ones (or ones implying the same). Ignored read-only.
    annotators : list of str or "open", optional
        Serve the session to a team: each named annotator gets a question of
        their own (``linkwise.session._team``); "open": people
        :meth:`join` with a name. Stored in the file; None keeps the stored
        team (or the one person of a session without).
    overlap : float, default=0.0
        With ``annotators``: the share of answered pairs asked again of a
        second annotator, for agreement (Cohen's kappa).
    disagreement : {"third", "repair"}, default="third"
        With ``annotators``: where a disagreement goes, to a third annotator
        (the majority stands) or to the method as both answers (a tolerant
        method repairs; a strict one opens the contradiction).

    Attributes
    ----------
    store : SessionStore
        The session file.
    estimator : ActiveEstimator
        The (unfitted) method with its stored parameters.
    revision : str
        Changes with every change of state (for clients that poll).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd, linkwise as lw
    >>> from linkwise.session import HumanSession, load_data
    >>> X, y = lw.datasets.load("iris")
    >>> csv, db = (os.path.join(tempfile.mkdtemp(), name) for name in ("iris.csv", "iris.db"))
    >>> pd.DataFrame(X).to_csv(csv, index=False)
    >>> data = load_data(csv)
    >>> session = HumanSession(db, data, lw.COBRAS(random_state=0))
    >>> state = session.state()
    >>> i, j = state["question"]["pair"]
    >>> session.answer(state["position"], bool(y[i] == y[j]))["n_answered"]
    1
    >>> session.close()
    >>> again = HumanSession(db, data)  # resumes after question 1
    >>> again.state()["n_answered"], again.estimator.random_state
    (1, 0)
    >>> again.close()

    A team: each annotator has a question of their own, and answers as themselves.

    >>> team = HumanSession(db + "-team", data, lw.COBRAS(random_state=0), annotators=["alice", "bob"])
    >>> alice, bob = team.state("alice"), team.state("bob")
    >>> alice["question"]["pair"] != bob["question"]["pair"]
    True
    >>> team.answer(bob["position"], True, "bob")["team"]["n_mine"]
    1
    >>> team.close()
    """

    def __init__(self, path, data, estimator=None, *, read_only=False, trusted_method=None, known=None,
                 annotators=None, overlap=0.0, disagreement="third"):
        self.data = data
        self.store = SessionStore(path, create=not read_only, exclusive=not read_only, read_only=read_only)
        self._read_only, self._trusted, self._lock, self._changes = read_only, trusted_method, threading.RLock(), 0
        self._seen = set()  # rows shown as members of a cluster: what a mark on a large cluster needs (_feedback)
        # a fresh prefix per process: a page that polled an earlier server never mistakes a new state for its own
        self._boot = secrets.token_hex(4)
        # a team's: annotator -> the pair handed to them, the speculative questions, who answered what (per revision)
        # and the outdated shadow the next hand-out may still use (see TeamDesk.prepare)
        self._desk, self._shadow, self._stale, self._task_cache = {}, None, None, None
        try:
            team = None if annotators is None else check_team(annotators, overlap, disagreement)
            created = self.store.is_new
            if created and read_only:
                raise SessionFileError(f"The session file {path} holds no session yet.")
            if created:  # one already begun keeps its answers whatever its data
                data.check_rows_differ()
            self.estimator = self._new_method(estimator) if created else self._stored_method(estimator)
            stored = self.store.meta.get("team")
            if team is not None and team["open"] and stored:  # an open team keeps who joined
                team["annotators"] = list(dict.fromkeys(stored["annotators"]))
            self.team = team or stored
            if team is not None and not created and not read_only and team != self.store.meta.get("team"):
                self.store.write_meta({**self.store.meta, "team": team})  # a resumed session's team may change
            self._rebuild()
            if created:
                self.store.write_meta({
                    "data_path": str(data.path), "data_fingerprint": data.fingerprint, "data_options": data.options,
                    "image_root": str(data.image_root), "text_embedding": data.embedding, "n_rows": data.n_rows,
                    "method": method_spec(self.estimator), "params": encode_params(self.estimator),
                    **({} if team is None else {"team": team})})
            if known is not None and not read_only:
                self._applied(_store_known(self.store, data, known))
        except BaseException:
            self.store.discard()  # removes the file only if this very opening made it
            raise

    # -- opening --------------------------------------------------------------
    @staticmethod
    def _adopt(estimator, seed):
        """A clone of ``estimator``, seeded with ``seed`` when its ``random_state`` is None."""
        if not isinstance(estimator, ActiveEstimator):
            raise InvalidParameterError("The 'estimator' argument of HumanSession must be an active estimator "
                                        f"(COBRAS, COBRA, ...), got {type(estimator).__name__}.")
        estimator = clone(estimator)
        if estimator.random_state is None:
            estimator.set_params(random_state=seed)
        return estimator

    def _new_method(self, estimator):
        from linkwise.cobra import COBRAS

        estimator = self._adopt(COBRAS() if estimator is None else estimator, secrets.randbelow(2**31))
        if "max_queries" in estimator.get_params() and estimator.max_queries is None:  # "N of M"; M can be raised
            estimator.set_params(max_queries=DEFAULT_BUDGET)
        encode_params(estimator)  # refuse parameters the file cannot store, before anything is asked
        seed = estimator.random_state
        if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
            raise InvalidParameterError(f"The 'random_state' parameter of {type(estimator).__name__} must be an int "
                                        "seed in a session (replaying the answers needs the same questions), "
                                        f"got {seed!r}.")
        return estimator

    def _stored_method(self, estimator):
        meta, path = _check_meta(self.store.meta, self.store.path), self.store.path
        if meta["data_fingerprint"] != self.data.fingerprint:
            raise SessionFileError(f"The session {path} was made for other data: {meta['data_path']} (fingerprint "
                                   f"{meta['data_fingerprint'][:12]}), not {self.data.path} (fingerprint "
                                   f"{self.data.fingerprint[:12]}). Open it with the data it was made for, "
                                   "or start a new session with another session file.")
        stored, given = meta["data_options"], self.data.options
        # an option a file does not mention (added to linkwise later) has its default, None
        changed = [f"{k}: {stored.get(k)!r} -> {given.get(k)!r}"
                   for k in sorted(set(stored) | set(given)) if stored.get(k) != given.get(k)]
        if changed:
            raise SessionFileError(f"The session {path} was made with other feature options ({'; '.join(changed)}). "
                                   "Leave those options out to use the stored ones, or start a new session file.")
        if estimator is None:
            return build_estimator(meta["method"], meta["params"], self._trusted)
        estimator = self._adopt(estimator, meta["params"].get("random_state"))
        if "max_queries" in estimator.get_params():  # the budget is the session's (raise_budget), not the method's
            estimator.set_params(max_queries=meta["params"].get("max_queries"))
        wanted = encode_params(estimator)
        if method_spec(estimator) != meta["method"]:
            differs = f"method {meta['method']!r}, not {method_spec(estimator)!r}"
        # a parameter the file does not mention (added to linkwise later) had its default
        elif (json.dumps(wanted, sort_keys=True)
              != json.dumps(was := {**encode_params(type(estimator)()), **meta["params"]}, sort_keys=True)):
            differs = f"method {meta['method']!r} and " + ", ".join(
                f"{k}={was.get(k)!r} (asked: {v!r})" for k, v in wanted.items() if was.get(k) != v)
        else:
            return estimator
        raise SessionFileError(f"The session {path} was made with {differs}. Leave the method out to continue with the "
                               "stored one, or start a new session file.")

    # -- replay ---------------------------------------------------------------
    def _rebuild(self):
        """A fresh ActiveSession fed with every stored row, in stored order (see :meth:`_apply`)."""
        # stability of what the person sees (the feedback honoured), counting every annotator's answers
        self._session, self._stability = ActiveSession(self.estimator, self.data.X, stability=False), StabilityMonitor()
        self._used = []  # the stored rows applied in the current run, in order
        self._source = {}  # (pair, must-link) -> the stored row that stated it, for explaining a contradiction
        self._conflict = self._labels = None
        # the clustering last numbered (its labels, the numbers per row) and the next fresh number: numbered after
        # every stored row, so the numbers follow from the file alone (the export shows the page's; see numbers)
        self._numbered, self._fresh = (None, None), 1
        self._stability.update(self.labels(), answered=False)  # the clustering before any answer
        self.numbers()
        self._unsure = set()  # pairs answered "don't know" before the method asked them
        self._rows = self.store.answers()  # and team answers since: what hand-outs and agreement read
        self._skip, self._later = plan(self._rows, self._disagreement) if self.team else (set(), set())
        for row in self._rows:
            if self._conflict is not None:
                break
            if row.seq not in self._skip:
                self._apply(row)
        self._changed()

    def _apply(self, row):
        """Replay one stored row: the answer to the pending question is told; another pair (imported, moved, or
        asked of someone else) is informed; a cluster's feedback is marked. A contradiction opens a conflict."""
        session = self._session
        constraints, informed = session.constraints, len(session.informed)
        before = len(constraints.conflicts)
        try:
            if not state_row(session, row, self._unsure):
                return  # "don't know" about a pair not asked now says nothing
        except InconsistentConstraintError as exc:  # a strict store refused it: it waits until resolved
            # (a statement of several pairs may contradict itself through some of them: those are its own)
            pair, must_link, explained = exc.pair, exc.must_link, getattr(exc, "explanation", None)
        else:
            self._used.append(row)
            stated = [(row.i, row.j, row.answer)] if row.kind == "question" else session.informed[informed:]
            self._source.update({(pair_key(i, j), a): row for i, j, a in stated})
            self._labels = None
            self._stability.update(self.labels(), answered=row.kind == "question")
            self.numbers()
            # a second annotator's other answer: a tolerant method weighs both (repair), nobody is asked
            if len(constraints.conflicts) == before or row.seq in self._later:
                return
            conflict = constraints.conflicts[-1]
            pair, must_link, explained = (conflict.i, conflict.j), conflict.must_link, None
        # the earlier statements that imply the belief; with the contradicting one they form the cycle shown
        chain = [(c, self._source.get((pair_key(c.i, c.j), c.must_link), row))
                 for c in explained or constraints.explain(*pair)]
        self._conflict = (row, pair_key(*pair), not must_link, chain)

    def _changed(self):
        self._changes += 1
        self._labels = self._stale = None

    @property
    def revision(self):
        """Changes with every change of state (for clients that poll)."""
        return f"{self._boot}.{self._changes}"

    # -- state ----------------------------------------------------------------
    @property
    def position(self):
        """Names the current state: answers and undos must quote it, so a stale one is refused."""
        n = len(self._used)  # every stored statement applied: an imported one or a cluster's feedback too
        if self._conflict is not None:
            return f"{n}.conflict-{self._conflict[0].seq}"
        pair = self._session.ask()
        return f"{n}.end" if pair is None else f"{n}.{pair[0]}-{pair[1]}"

    def labels(self):
        """The current clustering of every row (the method's, as the cluster feedback says), numbered 0.. in order
        of first appearance."""
        with self._lock:
            if self._labels is None:
                self._labels = honour(self._session.labels_, self._feedback_rows())
            return self._labels

    def numbers(self):
        """The current cluster of every row by its stable number (1..): a cluster keeps its number while it
        exists (matched by overlap after every stored statement, see ``linkwise.session._numbers``) and a new one
        gets a number never used before. Replayed from the file, the numbers are the same when the session is
        opened again or exported, and an undo gives back the numbers before the undone answer. The page, the
        terminal and :meth:`labels_frame` show these numbers; :meth:`labels` numbers the same partition 0..k-1."""
        with self._lock:
            labels, (seen, numbers) = self.labels(), self._numbered
            if seen is not labels:
                numbers, self._fresh = carry_numbers(labels, numbers, self._fresh)
                self._numbered = (labels, numbers)
            return numbers

    def _conflict_state(self):
        row, (i, j), believed, chain = self._conflict
        item = self.data.item

        def described(r, a, b, answer, new):
            return {"seq": r.seq, "rows": [a, b], "ids": [item(a)["id"], item(b)["id"]], "kind": r.kind,
                    "by": r.annotator, "answer": ANSWER_WORDS[answer], "answered_at": r.answered_at, "new": new}

        labels = self.labels()
        return {"id": row.seq, "pair": [i, j], "items": [item(i), item(j)],
                "believed": ANSWER_WORDS[believed], "clustering": ANSWER_WORDS[bool(labels[i] == labels[j])],
                "answers": [described(r, c.i, c.j, c.must_link, False) for c, r in chain]
                + [described(row, i, j, not believed, True)]}

    def state(self, annotator=None):
        """Everything a client shows: the question (or contradiction), counts, clusters.

        Parameters
        ----------
        annotator : str, optional
            In a team's session: whose state (their question; None: nobody's).

        Returns
        -------
        state : dict
            ``position``, ``revision``, ``question`` (``pair``, ``items``,
            ``number``; None when done or while a contradiction is open),
            ``conflict`` (the contradicting answers, what the earlier ones
            imply, and whether the current clustering puts the pair
            together; or None), ``done``, ``n_answered``, ``n_clusters``,
            ``can_undo``, ``method``, ``embedding``, ``data``, ``n_rows``,
            ``stability`` (the fields of :attr:`ActiveSession.stability_ <linkwise.ActiveSession>`),
            ``budget`` (the method's ``max_queries``, None: no limit) and
            ``n_asked`` (the method's questions answered so far, what the
            budget counts), ``outlook`` (what more answers are expected to
            change), ``done_reason`` ("budget" when the budget is spent,
            "method" when the method has nothing left to ask, else None),
            ``notice`` (``SessionStore.notice``: the session file was
            deleted or moved and the session went on in a recovery file; else
            None); in a team's session ``team`` (who, the team, the
            agreement), and ``n_answered`` counts everyone's answers.
        """
        if annotator is not None:
            self._check_annotator(annotator, "state")
        with self._lock:
            session, team = self._session, self.team
            if team is None:
                pair = None if self._conflict is not None else session.ask()
                position, n, can_undo = self.position, session.n_queries, bool(self._used)
            else:
                pair, position = self._question_for(annotator), self._ticket(annotator)
                n, mine = sum(r.kind == "question" for r in self._rows), self._team_state(annotator)
                can_undo = mine["n_mine"] > 0
            question = None if pair is None else {"pair": [int(pair[0]), int(pair[1])], "number": n + 1,
                                                  "items": [self.data.item(pair[0]), self.data.item(pair[1])],
                                                  "check": self._check_reason(pair)}
            budget, asked, done = self.budget, session.n_queries, self._conflict is None and pair is None and session.done
            return {
                "position": position, "revision": self.revision, "question": question,
                "conflict": None if self._conflict is None else self._conflict_state(),
                "done": done, "n_answered": n, "budget": budget, "n_asked": asked,
                "done_reason": None if not done else "budget" if budget is not None and asked >= budget else "method",
                "outlook": self._stability.estimate.outlook(None if budget is None else max(0, budget - asked)),
                "n_clusters": int(self.labels().max()) + 1, "can_undo": can_undo or self._conflict is not None,
                "method": type(self.estimator).__name__, "embedding": self.data.embedding,
                "data": self.data.path.name, "n_rows": self.data.n_rows,
                "stability": self._stability.estimate._asdict(), "notice": self.store.notice,
                **({} if team is None else {"team": mine}),
            }

    def _check_reason(self, pair):
        """Why a question the earlier answers settle is asked (one line for the person), or None for any other."""
        session = self._session
        pending = session.ask()
        if not session.checking or pending is None or pair_key(*pending) != pair_key(*pair):
            return None
        implied = session.constraints.relation(*pair)
        if implied is None:  # settled by what the method believes of the answers, not by the answers as given
            return "A check of your earlier answers: the method asks this pair to catch a wrong one."
        return f"A check: your earlier answers imply {'same group' if implied else 'different groups'}."

    @property
    def budget(self):
        """The most questions the method asks (its ``max_queries``; None: no limit). :meth:`raise_budget` raises it."""
        return getattr(self.estimator, "max_queries", None)

    def raise_budget(self, budget, annotator=None):
        """Let the method ask up to ``budget`` questions in all; kept in the session file.

        The budget is the session's: a new session whose method sets no ``max_queries`` gets
        ``DEFAULT_BUDGET`` (100), and a resumed one keeps its stored budget whatever its method is given.

        Parameters
        ----------
        budget : int
            The new budget, more than the current one.
        annotator : str, optional
            Whose :meth:`state` to return (a team's session).

        Returns
        -------
        state : dict
            The new :meth:`state`: a session whose budget was spent asks again.
        """
        current = self.budget
        if current is None:
            raise Refused("This session has no question budget: the method asks until it has nothing left to ask.")
        if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or budget <= current:
            raise InvalidParameterError("The 'budget' argument of HumanSession.raise_budget must be a whole number of "
                                        f"questions above the current budget ({current}), got {budget!r}.")
        self._check_annotator(annotator, "raise_budget")
        with self._lock:
            if self._read_only:
                raise Refused("This session was opened read-only; nothing can be changed in it.")
            estimator = clone(self.estimator).set_params(max_queries=int(budget))
            self.store.write_meta({**self.store.meta, "params": encode_params(estimator)})
            self.estimator = estimator
            self._rebuild()  # the same answers replayed under the new budget
            return self.state(annotator)

    # -- actions --------------------------------------------------------------
    def _expect(self, position, annotator=None):
        """Refuse an action on a read-only session, or one that quotes a stale ``position`` (a team member's:
        ``annotator``'s, else the one its ticket names)."""
        if self._read_only:
            raise Refused("This session was opened read-only; nothing can be changed in it.")
        if self.team is not None and self._conflict is None and "@" in position:  # a team member's ticket
            current = self._ticket(annotator or position.rpartition("@")[2] or None)
        else:
            current = self.position
        if position != current:
            raise Refused("That question has already been answered (perhaps in another window); "
                          "the current question is shown now.")

    def answer(self, position, answer, annotator=None):
        """Store the answer to the current question, then move on.

        Parameters
        ----------
        position : str
            The ``position`` of the state the person answered.
        answer : bool or None
            True (same group), False (different groups), None (don't know).
        annotator : str, optional
            Who answered (stored with the answer); None: the session's one
            person. In a team's session, one of its ``annotators``, answering
            the question handed to them.

        Returns
        -------
        state : dict
            The new :meth:`state`.

        Raises
        ------
        Refused
            The question is no longer current, a contradiction must be
            resolved first, or there is no question left.
        SessionWriteError
            The answer could not be written (disk full, ...): nothing
            changed, and the same answer may be given again.
        """
        if answer is not None and not isinstance(answer, (bool, np.bool_)):
            raise InvalidParameterError(f"The 'answer' argument of HumanSession.answer must be True, False or None, "
                                        f"got {answer!r}.")
        self._check_annotator(annotator, "answer")
        with self._lock:
            self._expect(position, annotator)
            if self._conflict is not None:
                raise Refused("Resolve the contradiction first: say which answer was wrong.")
            if self.team is not None:
                return self._team_answer(annotator, answer)
            pair = self._session.ask()
            if pair is None:
                raise Refused("There is no question left; finish to save the labels.")
            return self._applied([self.store.add(pair[0], pair[1], answer, annotator=annotator)], annotator)

    def _applied(self, rows, annotator=None):
        """Apply statements just stored (committed before anything else happens); returns the new state (as
        ``annotator`` sees it)."""
        for row in rows:
            if self._conflict is None:  # the rest waits in the file until the contradiction is resolved
                self._apply(row)
        self._changed()
        return self.state(annotator)

    def undo(self, position, annotator=None):
        """Remove the answer to the previous question (or the contradicting one) and replay.

        The removed answer is kept in the file's ``retracted`` table. In a
        team's session it is ``annotator``'s own last answer, handed back to them.
        Returns the new :meth:`state` with ``undone``: what was removed, in words.
        """
        if self.team is not None:
            self._check_annotator(annotator, "undo")
        with self._lock:
            self._expect(position, annotator)
            mine = [r for r in self._rows if r.kind == "question" and r.annotator == annotator]
            last = self._used[-1:] if self.team is None else mine[-1:]
            if self._conflict is None and not last:
                raise Refused("There is no answer to undo.")
            row = last[0] if self._conflict is None else self._conflict[0]
            self.store.undo(row.seq)
            if self._conflict is None and self.team is not None:
                self._desk[annotator] = (last[0].i, last[0].j)
            self._rebuild()
            return {**self.state(annotator), "undone": self._described(row)}

    def _described(self, row):
        """A stored action in a few words ("a and b same group", "12 items marked pure", "a moved")."""
        ids = self.data.ids
        if row.members is not None:
            return f"{len(row.members)} items marked {'pure and complete' if row.kind == 'complete' else 'pure'}"
        if row.kind == "move":
            return f"{ids.iat[row.i]} moved"
        words = {True: "same group", False: "different groups", None: "don't know"}
        return f"{ids.iat[row.i]} and {ids.iat[row.j]} {words[row.answer]}"

    def resolve(self, conflict_id, wrong_seq):
        """Settle a contradiction: the answer ``wrong_seq`` was wrong.

        Answers are same/different, so the wrong one is corrected (flipped)
        and the person keeps the other; the original stays in the file's
        ``retracted`` table and the session replays.
        """
        with self._lock:
            self._expect(self.position)  # a contradiction is named by its id instead
            if self._conflict is None or self._conflict[0].seq != conflict_id:
                raise Refused("That contradiction has already been resolved; the current state is shown now.")
            row, _, _, chain = self._conflict
            wrong = {r.seq: r for r in (row, *(r for _, r in chain))}.get(wrong_seq)
            if wrong is None:
                raise Refused(f"Answer #{wrong_seq} is not part of this contradiction.")
            if wrong.members is None and wrong.kind != "move":
                self.store.correct(wrong_seq)
            else:  # feedback on a cluster (or a move) cannot be flipped: it is withdrawn
                self.store.undo(wrong_seq)
            self._rebuild()
            return self.state()

    # -- results --------------------------------------------------------------
    def model(self):
        """The method fitted on the answers applied so far, to assign new items.

        Its ``labels_`` are the clustering shown (:meth:`labels`, cluster
        feedback honoured) and ``predict`` follows them
        (:mod:`linkwise.prediction`); save it with :func:`linkwise.persist.save`.
        The session goes on (its answers are replayed afresh).
        """
        with self._lock:
            fitted = self._session.finish(labels=self.labels())
            self._rebuild()
            return fitted

    def labels_frame(self):
        """The current clustering as a DataFrame with columns ``id``, ``cluster`` (its stable number, see
        :meth:`numbers`) and ``name`` (see :meth:`name`; empty for a cluster without)."""
        numbers, names = self.numbers(), self.names()
        return pd.DataFrame({"id": self.data.ids.to_numpy(), "cluster": numbers,
                             "name": [names.get(c, "") for c in numbers.tolist()]})

    def answers_frame(self):
        """Every statement ever stored (live, undone or corrected) with the two ids (a cluster's feedback: its
        first row's, and every member's id in ``members``), who gave it, its kind ('question', 'imported',
        'pure', 'complete', 'move') and times; ``answer`` is same / different / don't know, empty for a mark."""
        ids = self.data.ids.to_numpy()
        live = [{**a._asdict(), "status": "live", "retracted_at": None} for a in self.store.answers()]
        gone = [{**r, "status": r["reason"]} for r in self.store.retracted()]
        frame = pd.DataFrame(live + gone, columns=[*Answer._fields, "status", "retracted_at"])
        frame.insert(1, "id_a", ids[frame["i"].to_numpy(dtype=np.intp)])
        frame.insert(2, "id_b", ids[frame["j"].to_numpy(dtype=np.intp)])
        # a mark (feedback on a cluster) is no same/different answer: its answer is left empty, its kind says it
        frame["answer"] = [None if m is not None else ANSWER_WORDS[a] for a, m in zip(frame["answer"], frame["members"])]
        frame["members"] = [None if m is None else json.dumps(ids[list(m)].tolist()) for m in frame["members"]]
        return frame.drop(columns=["i", "j"]).sort_values(["seq", "answered_at"], kind="stable")

    def statements(self):
        """Every pair relation stated and applied, in order, with the stored row that stated it (a cluster's
        feedback states several): ``(i, j, answer, row)``; "don't know" left out."""
        with self._lock:
            held = None if self._conflict is None else self._conflict[0].seq  # a tolerant store's contradiction
            return [(i, j, a, row) for ((i, j), a), row in self._source.items() if a is not None and row.seq != held]

    def write_labels(self, path):
        """Write the current clustering as CSV (:meth:`labels_frame`); returns the number of clusters."""
        with self._lock:
            self.labels_frame().to_csv(path, index=False)
            return int(self.labels().max()) + 1

    def widget(self, y=None):
        """This session in a notebook (needs the ``notebook`` extra): see :func:`linkwise.widget`."""
        from linkwise.session._widget import SessionWidget

        return SessionWidget(self, y)

    def close(self):
        """Close the session file."""
        self.store.close()
