"""One human session, what the web page and the terminal prompt talk to: an ActiveSession fed from a session file.

There is one current question, whoever looks at it: an answer names the question it answers (its *position*), and
one to a question no longer current is refused, so two browser tabs cannot answer twice. Opening a session replays
the stored answers *by pair* into a fresh :class:`~linkwise.ActiveSession` (the loop is deterministic: the same data,
seed and answers give the same questions) up to the first question the file does not answer; undo and corrections
edit the file and replay.

A session for a team (``annotators``) hands each annotator a question of their own, so nobody waits for another:
the method's pending question to one, the questions it would ask next to the others (see
:mod:`linkwise.session.core._team`). Their *position* is a ticket naming the pair and the annotator.

:class:`HumanSession` is composed of parts, each an object it holds and gives only what that part needs: the
replay of the file (:class:`~linkwise.session.core._replay.Replay`, which every other part reads), the feedback on whole
clusters (:class:`~linkwise.session.core._feedback.ClusterFeedback`), the team's desk
(:class:`~linkwise.session.core._desk.TeamDesk`), the review of answers
(:class:`~linkwise.session.core._review.AnswerReview`) and the results: tables, labels file, fitted method
(:class:`~linkwise.session.core._export.SessionResults`). Here: opening, the state, the actions on a question; the
parts' public methods are the session's (:func:`_part`).

The verbs, one meaning each in every layer (store, replay, session, page):

- *answer*: a person's same / different / don't know on a question (``HumanSession.answer``, ``/api/answer``);
  the method is *told* the answer to its own question (``ActiveSession.tell``) and *informed* of any other pair
  (``ActiveSession.inform``).
- *mark*: say a whole cluster is pure (and complete), the same in ``HumanSession.mark``, ``ActiveSession.mark``,
  ``/api/mark``; *move*: put one item in another cluster.
- *record*: write a statement to the session file (``SessionStore.record``, ``record_many``, ``record_mark``);
  *apply*: replay a recorded statement into the method (``Replay.apply``, ``Replay.commit`` for those just recorded).
- *retract*: take a recorded statement out of effect, keeping it in the file's ``retracted`` table with its reason
  (``SessionStore.retract``). A person *undoes* the latest answer (``HumanSession.undo``), *withdraws* or *changes*
  any one (``withdraw``, ``change``), or *resolves* a contradiction, which *corrects* (flips) the wrong answer.
- *review*: list the recorded statements for a person to check (``HumanSession.review``, ``/api/answers``).
"""

import dataclasses
import functools
import json
import numbers
import secrets
import threading

from sklearn.base import clone

from linkwise._validation import InvalidParameterError, check_value, validate_args
from linkwise.graph import pair_key
from linkwise.loop import ActiveEstimator
from linkwise.session.core._counts import count_statements
from linkwise.session.core._desk import TeamDesk
from linkwise.session.core._export import SessionResults
from linkwise.session.core._feedback import ClusterFeedback
from linkwise.session.core._import import _store_known
from linkwise.session.core._methods import build_estimator, encode_params, method_spec
from linkwise.session.core._replay import Replay
from linkwise.session.core._review import AnswerReview, described
from linkwise.session.core._state import Question, SessionState
from linkwise.session.core._store import ANSWER_WORDS, Refused, SessionFileError, SessionStore
from linkwise.session.core._team import check_team
from linkwise.session.data._data import Dataset

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
        return _stored_meta(store, path)


def _stored_meta(store, path):
    """The checked description of the session in the open ``store`` of ``path``; ``{}`` before its first start."""
    return _check_meta(store.meta, path) if store.meta else {}


def _part(name, method):
    """A method of :class:`HumanSession` that calls ``method`` of its part ``name`` (with its docstring)."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        return method(getattr(self, name), *args, **kwargs)

    return call


class HumanSession:
    """A resumable session in which a person answers an active method's questions.

    Parameters
    ----------
    path : str or Path
        The session file (SQLite; created if missing).
    data : Dataset
        From :func:`~linkwise.session.load_data`. A session file refuses data
        with another fingerprint, and other feature options once it holds an
        answer (before, they replace the stored ones); a new session
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
        their own (``linkwise.session.core._team``); "open": people
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
    read_only : bool
        Whether the session was opened only to look at it.
    team : dict or None
        The team (``annotators``, ``overlap``, ``disagreement``, ``open``);
        None for the session's one person.

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
    >>> i, j = state.question.pair
    >>> session.answer(state.position, bool(y[i] == y[j])).n_answered
    1
    >>> session.close()
    >>> again = HumanSession(db, data)  # resumes after question 1
    >>> again.state().n_answered, again.estimator.random_state
    (1, 0)
    >>> again.close()

    A team: each annotator has a question of their own, and answers as themselves.

    >>> team = HumanSession(db + "-team", data, lw.COBRAS(random_state=0), annotators=["alice", "bob"])
    >>> alice, bob = team.state("alice"), team.state("bob")
    >>> alice.question.pair != bob.question.pair
    True
    >>> team.answer(bob.position, True, "bob").team.n_mine
    1
    >>> team.close()
    """

    def __init__(self, path, data, estimator=None, *, read_only=False, trusted_method=None, known=None,
                 annotators=None, overlap=0.0, disagreement="third"):
        # before the session file is made: wrong data leaves no file behind; a session resumes from its data file
        if not isinstance(data, Dataset) or data.path is None:
            got = "a Dataset of no file (load_frame)" if isinstance(data, Dataset) else f"a {type(data).__name__}"
            raise InvalidParameterError(f"The 'data' argument of HumanSession must be a Dataset read from a file "
                                        f"(load_data), got {got}; open_session(path, data) takes an array or a "
                                        "DataFrame and writes it beside the session file.")
        self.data = data
        self.store = SessionStore(path, create=not read_only, exclusive=not read_only, read_only=read_only)
        self.read_only, self._trusted, self._lock = read_only, trusted_method, threading.RLock()
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
            if team is not None and not created and not read_only and team != stored:
                self.store.write_meta({**self.store.meta, "team": team})  # a resumed session's team may change
            self._replay = Replay(self.store, data, self.estimator)
            self._desk = TeamDesk(team or stored, self._replay, self.store, self._lock, read_only)
            self._feedback = ClusterFeedback(data, self.store, self._lock, self._replay, read_only, self._guard,
                                             self._applied, self.state)
            self._review = AnswerReview(data, self.store, self._lock, self._replay, read_only, self.state)
            self._results = SessionResults(data, self.store, self._lock, self._replay, self._feedback.names)
            self._replay.rebuild()
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

    @property
    def team(self):
        """The team (annotators, overlap, disagreement, open) or None: the session's one person."""
        return self._desk.team

    # -- opening --------------------------------------------------------------
    @staticmethod
    def _adopt(estimator, seed):
        """A clone of ``estimator``, seeded with ``seed`` when its ``random_state`` is None."""
        check_value(estimator, [ActiveEstimator], "estimator", "HumanSession")
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
        if changed and (self.store.answers() or self.store.retracted()):
            raise SessionFileError(f"The session {path} was made with other feature options ({'; '.join(changed)}). "
                                   "Leave those options out to use the stored ones, or start a new session file.")
        if changed and not self.read_only:  # nothing answered yet: the person may still choose what to cluster on
            self.data.check_rows_differ()
            self.store.write_meta({**meta, "data_options": given, "text_embedding": self.data.embedding})
        if estimator is None:
            return build_estimator(meta["method"], meta["params"], self._trusted)
        estimator = self._adopt(estimator, meta["params"].get("random_state"))
        # the budget is the session's (raise_budget): a method given without one continues with the stored one
        if "max_queries" in estimator.get_params() and estimator.max_queries is None:
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
        budget = " (raise the budget on the page or with b in the terminal)" if "max_queries=" in differs else ""
        raise SessionFileError(f"The session {path} was made with {differs}. Leave the method out to continue with the "
                               f"stored one{budget}, or start a new session file.")

    # -- state ----------------------------------------------------------------
    @property
    def revision(self):
        """Changes with every change of state (for clients that poll)."""
        return self._replay.revision

    @property
    def position(self):
        """Names the current state: answers and undos must quote it, so a stale one is refused."""
        return self._replay.position

    def labels(self):
        """Return the current clustering of every row.

        Returns
        -------
        ndarray of int of shape (n_rows,)
            The method's clustering as the cluster feedback says, clusters
            numbered 0.. in order of first appearance.
        """
        with self._lock:
            return self._replay.labels()

    def numbers(self):
        """Return the current cluster of every row by its stable number.

        A cluster keeps its number while it exists (matched by overlap after
        every stored statement, see ``linkwise.session.core._numbers``) and a new
        one gets a number never used before. Replayed from the file, the
        numbers are the same when the session is opened again or exported,
        and an undo gives back the numbers before the undone answer. The
        page, the terminal and :meth:`labels_frame` show these numbers;
        :meth:`labels` numbers the same partition 0..k-1.

        Returns
        -------
        ndarray of int of shape (n_rows,)
            The number (1..) of each row's cluster.
        """
        with self._lock:
            return self._replay.numbers()

    def state(self, annotator=None):
        """Everything a client shows: the question (or contradiction), counts, clusters.

        Parameters
        ----------
        annotator : str, optional
            In a team's session: whose state (their question; None: nobody's).

        Returns
        -------
        SessionState
            The question (or open contradiction), the counts, the budget, the
            stability and what more answers are expected to change; in a team's
            session the annotator's view of the team (``n_answered`` then counts
            everyone's answers). The web page and the notebook widget read its
            :meth:`~SessionState.to_json`.
        """
        if annotator is not None:
            self._desk.check_annotator(annotator, "state")
        with self._lock:
            replay, desk, team = self._replay, self._desk, self.team
            session, conflict = replay.session, replay.conflict
            counts = count_statements(replay.rows)
            if team is None:
                pair = None if conflict is not None else session.ask()
                position, n, can_undo = replay.position, session.n_queries, bool(replay.used)
            else:
                pair, position = desk.question_for(annotator), desk.ticket(annotator)
                n, mine = counts.questions, desk.team_state(annotator)
                can_undo = mine.n_mine > 0
            question = None if pair is None else Question((int(pair[0]), int(pair[1])), n + 1,
                                                          (self.data.item(pair[0]), self.data.item(pair[1])),
                                                          self._check_reason(pair))
            budget, asked, done = self.budget, session.n_queries, conflict is None and pair is None and session.done
            return SessionState(
                position=position, revision=self.revision, question=question,
                conflict=None if conflict is None else replay.conflict_state(), done=done,
                done_reason=None if not done else "budget" if budget is not None and asked >= budget else "method",
                n_answered=n, budget=budget, n_asked=asked,
                outlook=replay.stability.estimate.outlook(None if budget is None else max(0, budget - asked)),
                n_clusters=int(self.labels().max()) + 1, can_undo=can_undo or conflict is not None,
                method=type(self.estimator).__name__, embedding=self.data.embedding, data=self.data.path.name,
                n_rows=self.data.n_rows, stability=replay.stability.estimate, notice=self.store.notice, counts=counts,
                team=None if team is None else mine)

    def _check_reason(self, pair):
        """Why a question the earlier answers settle is asked (one line for the person), or None for any other."""
        session = self._replay.session
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
        return self.estimator.max_queries  # every active estimator declares its budget (loop.ActiveEstimator)

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
        SessionState
            The new :meth:`state`: a session whose budget was spent asks again.

        Raises
        ------
        Refused
            The session has no budget, or was opened read-only.
        InvalidParameterError
            ``budget`` is not a whole number above the current budget.
        """
        current = self.budget
        if current is None:
            raise Refused("This session has no question budget: the method asks until it has nothing left to ask.")
        if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or budget <= current:
            raise InvalidParameterError("The 'budget' argument of HumanSession.raise_budget must be a whole number of "
                                        f"questions above the current budget ({current}), got {budget!r}.")
        self._desk.check_annotator(annotator, "raise_budget")
        with self._lock:
            if self.read_only:
                raise Refused("This session was opened read-only; nothing can be changed in it.")
            estimator = clone(self.estimator).set_params(max_queries=int(budget))
            self.store.write_meta({**self.store.meta, "params": encode_params(estimator)})
            self.estimator = self._replay.estimator = estimator
            self._replay.rebuild()  # the same answers replayed under the new budget
            return self.state(annotator)

    # -- actions --------------------------------------------------------------
    def _expect(self, position, annotator=None):
        """Refuse an action on a read-only session, or one that quotes a stale ``position`` (a team member's:
        ``annotator``'s, else the one its ticket names)."""
        if self.read_only:
            raise Refused("This session was opened read-only; nothing can be changed in it.")
        if self.team is not None and self._replay.conflict is None and "@" in position:  # a team member's ticket
            current = self._desk.ticket(annotator or position.rpartition("@")[2] or None)
        else:
            current = self.position
        if position != current:
            raise Refused("That question has already been answered (perhaps in another window); "
                          "the current question is shown now.")

    def _guard(self, position, annotator=None):
        """Refuse an action as :meth:`_expect` does, and while a contradiction is open."""
        self._expect(position, annotator)
        if self._replay.conflict is not None:
            raise Refused("Resolve the contradiction first: say which answer was wrong.")

    @validate_args({"answer": ["boolean", None]})
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
        SessionState
            The new :meth:`state`.

        Raises
        ------
        InvalidParameterError
            ``answer`` is not True, False or None.
        Refused
            The question is no longer current, a contradiction must be
            resolved first, or there is no question left.
        SessionWriteError
            The answer could not be written (disk full, ...): nothing
            changed, and the same answer may be given again.
        """
        self._desk.check_annotator(annotator, "answer")
        with self._lock:
            self._guard(position, annotator)
            if self.team is not None:
                self._desk.answer(annotator, answer)
                return self.state(annotator)
            pair = self._replay.session.ask()
            if pair is None:
                raise Refused("There is no question left; finish to save the labels.")
            return self._applied([self.store.record(pair[0], pair[1], answer, annotator=annotator)], annotator)

    def _applied(self, rows, annotator=None):
        """Apply statements just stored (committed before anything else happens); returns the new state (as
        ``annotator`` sees it)."""
        self._replay.commit(rows)
        return self.state(annotator)

    def undo(self, position, annotator=None):
        """Remove the answer to the previous question (or the contradicting one) and replay.

        The removed answer is kept in the file's ``retracted`` table. In a
        team's session it is ``annotator``'s own last answer, handed back to them.

        Parameters
        ----------
        position : str
            The ``position`` of the state the person saw.
        annotator : str, optional
            In a team's session, whose last answer to undo.

        Returns
        -------
        SessionState
            The new :meth:`state`, its ``undone`` saying what was removed, in words.

        Raises
        ------
        Refused
            The state is no longer current, the session is read-only, or there
            is no answer to undo.
        SessionWriteError
            The change could not be written: nothing changed.
        """
        if self.team is not None:
            self._desk.check_annotator(annotator, "undo")
        with self._lock:
            self._expect(position, annotator)
            replay = self._replay
            mine = [r for r in replay.rows if r.kind == "question" and r.annotator == annotator]
            last = replay.used[-1:] if self.team is None else mine[-1:]
            if replay.conflict is None and not last:
                raise Refused("There is no answer to undo.")
            row = last[0] if replay.conflict is None else replay.conflict[0]
            self.store.retract(row.seq)
            if replay.conflict is None and self.team is not None:
                self._desk.hand_back(annotator, last[0])
            replay.rebuild()
            return dataclasses.replace(self.state(annotator), undone=described(row, self.data.ids))

    def resolve(self, conflict_id, wrong_seq):
        """Settle a contradiction: the answer ``wrong_seq`` was wrong.

        Answers are same/different, so the wrong one is corrected (flipped)
        and the person keeps the other; the original stays in the file's
        ``retracted`` table and the session replays. Feedback on a cluster
        (or a move) cannot be flipped: it is withdrawn.

        Parameters
        ----------
        conflict_id : int
            The contradiction's id (the ``seq`` of the answer that made it,
            as :meth:`state` shows it).
        wrong_seq : int
            The stored number of the answer that was wrong: one of the
            contradiction's answers.

        Returns
        -------
        SessionState
            The new :meth:`state`.

        Raises
        ------
        Refused
            The contradiction is already resolved, ``wrong_seq`` is not part of
            it, or the session is read-only.
        SessionWriteError
            The change could not be written: nothing changed.
        """
        with self._lock:
            self._expect(self.position)  # a contradiction is named by its id instead
            conflict = self._replay.conflict
            if conflict is None or conflict[0].seq != conflict_id:
                raise Refused("That contradiction has already been resolved; the current state is shown now.")
            row, _, _, chain = conflict
            wrong = {r.seq: r for r in (row, *(r for _, r in chain))}.get(wrong_seq)
            if wrong is None:
                raise Refused(f"Answer #{wrong_seq} is not part of this contradiction.")
            if wrong.members is None and wrong.kind != "move":
                self.store.correct(wrong_seq)
            else:  # feedback on a cluster (or a move) cannot be flipped: it is withdrawn
                self.store.retract(wrong_seq)
            self._replay.rebuild()
            return self.state()

    def join(self, name):
        """Add an annotator to an open team (see ``annotators="open"``).

        Parameters
        ----------
        name : str
            The annotator's name; one already in the team is welcome back.

        Returns
        -------
        SessionState
            Their :meth:`state`.

        Raises
        ------
        Refused
            The session's team is not open, or the session is read-only.
        InvalidParameterError
            ``name`` is not a valid annotator name.
        """
        with self._lock:
            self._desk.join(name)
            return self.state(name)

    # -- the parts' methods ---------------------------------------------------
    clusters = _part("_feedback", ClusterFeedback.clusters)
    members = _part("_feedback", ClusterFeedback.members)
    names = _part("_feedback", ClusterFeedback.names)
    name = _part("_feedback", ClusterFeedback.name)
    mark = _part("_feedback", ClusterFeedback.mark)
    move = _part("_feedback", ClusterFeedback.move)
    review = _part("_review", AnswerReview.review)
    change = _part("_review", AnswerReview.change)
    withdraw = _part("_review", AnswerReview.withdraw)
    model = _part("_results", SessionResults.model)
    labels_frame = _part("_results", SessionResults.labels_frame)
    answers_frame = _part("_results", SessionResults.answers_frame)
    statements = _part("_results", SessionResults.statements)
    write_labels = _part("_results", SessionResults.write_labels)
    prepare = _part("_desk", TeamDesk.prepare)
    agreement_frame = _part("_desk", TeamDesk.agreement_frame)

    def widget(self, y=None):
        """Show this session in a notebook (needs the ``notebook`` extra): see :func:`linkwise.widget`.

        Parameters
        ----------
        y : array-like of shape (n_rows,), optional
            True labels, if known: the widget then shows the agreement (ARI) of the clustering with them.

        Returns
        -------
        SessionWidget
            The widget; display it as the notebook's last expression.

        Raises
        ------
        InvalidParameterError
            The session is read-only or a team's, or ``y`` is not one label per row.
        """
        from linkwise.session.front._widget import SessionWidget

        return SessionWidget(self, y)

    def close(self):
        """Close the session file (its newest resume point is written to the cache folder first)."""
        if not self.read_only:
            self._replay.points.write()
        self.store.close()
