"""The one question loop shared by every active estimator.

An active method is written once, as a *question generator*
``questions(ctx)`` that yields a pair ``(i, j)`` and receives the answer
(True = must-link, False = cannot-link, None = don't know) as the value of
the ``yield``; it keeps its current clustering in ``ctx.labels``. The loop
owns the rest: the budget (``max_queries``), the answer log, the
:class:`~linkwise.ConstraintStore` of every answer as given, and the skipping
of pairs whose relation its *knowledge* holds (answered from it: never asked,
never charged). ``fit`` drives the generator with an oracle,
:class:`ActiveSession` lets a person drive it (``ask`` / ``tell``).

*Knowledge* (``ctx.knowledge``, from the estimator's ``knowledge(ctx)``
hook): the store of answers by default, :class:`~linkwise.repair.NoisyAnswers`
for answers that may be wrong. Its ``store`` is the ConstraintStore of what
it holds; its ``weigh(ctx, answered=None)`` is a generator the loop runs
after each answer to the method's questions (``answered = (i, j, answer)``,
"don't know" excepted) and where the method yields a :class:`Checkpoint`
(``None``). Weighing records the answer, may ask questions of its own
(charged and logged; :class:`Recheck` for pairs it knows) and returns whether
it revised its belief; then ``ctx.revision`` grows by one, and a method that
compares it across a ``yield`` drops what it inferred from earlier answers
(COBRAS merges every super-instance again). A knowledge other than the store
is told the relations stated outside the questions: ``inform(i, j, answer)``,
and ``inform_group(rows, outside)`` for a mark (:meth:`ActiveSession.mark`).
"""

import functools
import pickle
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat
from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state

from linkwise._extras import requires
from linkwise._validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
    check_data,
    check_index_set,
    check_value,
    magnitude_scale,
    validate_args,
    validate_params,
)
from linkwise.constraints import ConstraintStore
from linkwise.graph import check_pair, pair_key
from linkwise.prediction import NearestPoints, check_new_data, fitted_rows
from linkwise.resume import ResumePoint, fingerprint
from linkwise.stability import StabilityMonitor, observe

__all__ = ["ActiveEstimator", "ActiveSession", "Checkpoint", "Mark", "QueryContext", "Recheck", "Rest", "ResumePoint",
           "session_data"]


class Recheck(NamedTuple):
    """A pair to ask (and charge) again although its answer is known: what wrong-answer repair yields.

    Parameters
    ----------
    i, j : int
        The two rows of the pair, as a plain pair would give them.
    """

    i: int
    j: int


class Checkpoint(NamedTuple):
    """Yield ``Checkpoint()`` where the method's clustering is complete (the end of a phase).

    The loop lets the knowledge weigh the answers there and resumes the method with
    None; ``ctx.revision`` tells whether the belief changed.
    """


class Rest(NamedTuple):
    """Yield ``Rest()`` where the method may be resumed from a copy of its state (a resume point).

    At a rest every part of the method's state lives in its attributes and in
    ``ctx`` (no local variable of the generator matters): ``questions(ctx)``,
    called again on copies of them with ``ctx.resumed`` True, goes on exactly as
    the method does from here. The loop sends back None. A session that keeps
    resume points (``ActiveSession(..., resume_points=True)``) copies its
    state at rests now and then; undoing or changing an answer then starts
    from the last copy before it instead of from the first question. A method
    that never rests is always replayed from the start.
    """


class Mark(NamedTuple):
    """A person's feedback on a whole cluster, as the loop records it in ``ctx.marks``.

    Parameters
    ----------
    rows : ndarray of int
        The members of the cluster (sorted): they belong together (the cluster is *pure*).
    complete : bool
        True: nothing else belongs with them either.
    start, stop : int, default=0
        The pairs the mark states are ``ctx.informed[start:stop]``.
    """

    rows: np.ndarray
    complete: bool
    start: int = 0
    stop: int = 0


@dataclass(eq=False, slots=True)
class QueryContext:
    """What a question generator sees while it runs: every field is declared here (the loop refuses others).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The validated data (float64), divided by a power of two when its
        magnitude would overflow or underflow squared distances
        (``magnitude_scale`` in ``linkwise._validation``).
    queryable : ndarray of int
        Sorted rows that may appear in a question.
    constraints : ConstraintStore
        Every answer so far, as given, and what follows from them (read it, do not write).
    rng : numpy.random.RandomState
        The one random generator of this run, from the estimator's ``random_state``.
    max_queries : int or None
        The budget (None: unlimited).
    scale : float, default=1.0
        The power of two ``X`` was divided by (1.0 for most data); ``predict`` divides new items by it.
    revision : int, default=0
        How many times the knowledge revised its belief so far.
    n_queries : int, default=0
        The questions asked so far.
    log : list of (int, int, bool or None), optional
        Questions asked and their answers, in order (read it, do not write).
    informed : list of (int, int, bool), optional
        Relations stated outside the questions (:meth:`ActiveSession.inform`), in order; also in ``constraints``.
    marks : list of Mark, optional
        Feedback on whole clusters (:meth:`ActiveSession.mark`), in order; its pairs are in ``informed``.
    moved : set of int, optional
        Positions in ``informed`` of the pairs that are halves of a moved item (``inform(..., move=True)``).
    state : dict, optional
        What the methods of this fit compute once and keep for it (not on the fitted estimator), by name; a
        method that hands over to another (Auto to COBRAS) shares it.
    resumed : bool, default=False
        True while ``questions(ctx)`` is started again from a resume point (see :class:`Rest`): the method goes
        on from the rest its state records instead of starting over.

    Attributes
    ----------
    n_samples : int
        Rows of ``X``.
    queryable_mask : ndarray of bool of shape (n_samples,)
        ``queryable`` as a mask.
    knowledge : ConstraintStore or NoisyAnswers
        What the method may rely on (see the module docstring); ``constraints`` by default.
    labels : ndarray of int of shape (n_samples,)
        The method's current clustering of every row (what ``labels_`` reports), kept up to date by the method.
    """

    X: np.ndarray
    queryable: np.ndarray
    constraints: ConstraintStore
    rng: np.random.RandomState
    max_queries: int | None
    scale: float = 1.0
    n_samples: int = field(init=False)
    queryable_mask: np.ndarray = field(init=False)
    knowledge: object = field(init=False)
    revision: int = 0
    n_queries: int = 0
    log: list = field(default_factory=list)
    informed: list = field(default_factory=list)
    marks: list = field(default_factory=list)
    moved: set = field(default_factory=set)
    labels: np.ndarray = field(init=False)
    state: dict = field(default_factory=dict)
    resumed: bool = False

    def __post_init__(self):
        self.n_samples = self.X.shape[0]
        self.queryable_mask = np.zeros(self.n_samples, dtype=bool)
        self.queryable_mask[self.queryable] = True
        self.knowledge = self.constraints
        self.labels = np.zeros(self.n_samples, dtype=np.intp)

    def believed(self, relations):
        """Return ``relations`` ``(i, j, answer)`` as the knowledge believes them now, "don't know" left out.

        As given until the knowledge revises its belief (``revision`` > 0), then each pair's believed relation
        (what the belief no longer holds left out).

        Parameters
        ----------
        relations : iterable of (int, int, bool or None)
            Answers (``log``) or stated relations (``informed``).

        Returns
        -------
        list of (int, int, bool)
            Each pair and its relation: True (same cluster) or False.
        """
        if self.revision:
            relations = [(i, j, self.knowledge.store.relation(i, j)) for i, j, _ in relations]
        return [(i, j, bool(answer)) for i, j, answer in relations if answer is not None]


# How often a session copies its state at a rest (ActiveSession's resume_points): never, once the process worked four
# times as long as the last copy took (a fifth of its time at most), at every rest.
_SPACINGS = (None, "spaced", "every")
_SPACED = 4.0
_SAME = object()  # ActiveSession.resume's default budget: the point's
# What a resume point leaves out: what cannot be copied (the lock, the suspended generators) or is not the
# session's own (its DataFrame, shared), and the points themselves.
_NOT_COPIED = ("_lock", "_gen", "_weighing", "_point", "_rested", "data_")


def _locked(method):
    """``method`` run holding the session's lock: one call at a time drives the generator (it cannot be resumed
    from two threads at once)."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return run


def _frame_dataset(X, options):
    """``X`` to cluster and its Dataset: a DataFrame with loading options or a column that is not numeric is loaded
    as a data file is (Dataset, its X); any other ``X`` is clustered as it is (None, ``X``; a polars DataFrame as
    pandas, so that validation records its column names)."""
    given = [name for name, value in options.items() if value is not None]
    library = type(X).__module__.partition(".")[0]
    if library not in ("pandas", "polars") or not hasattr(X, "columns"):
        if given:
            raise InvalidParameterError(f"The {given[0]!r} argument of ActiveSession names columns of a DataFrame, "
                                        f"but X is a {type(X).__name__}; give X as a pandas or polars DataFrame.")
        return None, X
    with requires("session", "ActiveSession on a DataFrame"):
        from linkwise.intake import load_frame
        X = X.to_pandas() if library == "polars" else X
    if not given and all(getattr(t, "kind", "O") in "biuf" for t in X.dtypes):
        return None, X
    data = load_frame(X, **{name: value for name, value in options.items() if value is not None})
    return data, data.X


def _validated(estimator, X):
    """``X`` as the loop runs ``estimator`` on it, and the power of two it was divided by (see QueryContext)."""
    # validate_data records n_features_in_ (and feature_names_in_), which predict checks
    X = check_data(estimator.as_table(X), estimator, validate=True, ensure_min_samples=2)
    estimator.check_params_vs_input(X)
    return (X / scale, scale) if (scale := magnitude_scale(X)) != 1.0 else (X, scale)


def session_data(estimator, X):
    """The data a session of ``estimator`` runs on: ``X`` validated and scaled as :class:`ActiveSession` does.

    What :meth:`~linkwise.loop.ResumePoint.loads` is given to check that a point written by another process is of
    this data.

    Parameters
    ----------
    estimator : ActiveEstimator
        The session's method (a clone is validated).
    X : array-like of shape (n_samples, n_features)
        The data, as given to the session.

    Returns
    -------
    ndarray
        The session's ``ctx.X``.
    """
    return _validated(clone(estimator), X)[0]


def _answers_by_pair(answers):
    """``ActiveSession.replay``'s answers as ``{pair_key: answer}``, from a mapping or a query log of triples."""
    try:
        pairs = list(answers.items() if isinstance(answers, Mapping) else (((i, j), a) for i, j, a in answers))
    except (TypeError, ValueError):
        pairs = None
    if pairs is None or not all(_is_row(i) and _is_row(j) for (i, j), _ in pairs):
        raise InvalidParameterError(
            "The 'answers' argument of ActiveSession.replay must be a mapping {(i, j): answer} or a sequence of "
            f"(i, j, answer) like query_log, of int rows; got {type(answers).__name__} {str(answers)[:60]!r}.")
    return {pair_key(i, j): a for (i, j), a in pairs}


def _is_row(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class ActiveSession:
    """Drive an active estimator one question at a time, for a person.

    The estimator is cloned (the object you pass is never modified); its
    question generator runs until it needs an answer that the constraint store
    does not know.

    Parameters
    ----------
    estimator : ActiveEstimator
        An unfitted active estimator (COBRAS, ActiveClustering, ...).
    X : array-like of shape (n_samples, n_features) or DataFrame
        The items to cluster: a numeric array, or a pandas or polars DataFrame (see ``id_column``).
    queryable : array-like of int or bool mask, optional
        Rows that may appear in a question (default: all); labels cover every row.
    stability : bool, default=True
        Keep :attr:`stability_` up to date by the estimator's
        :meth:`~linkwise.ActiveEstimator.stop_rule` (one comparison of clusterings on
        at most 2,000 rows per answer); False for a session no person reads.
    resume_points : {None, "spaced", "every"}, default=None
        Copy the session's state where the method rests (:class:`~linkwise.loop.Rest`), so
        that :meth:`resume` can go on from there (:meth:`resume_point`):
        ``"spaced"`` once the process has worked four times as long as the
        last copy took since then (a fifth of its time at most; replaying
        from a copy costs no more than that), ``"every"`` at every rest;
        None keeps none.
    id_column, text_column, image_column, features, series, image_root, scale : optional
        For ``X`` a pandas or polars DataFrame: load it as ``linkwise
        cluster`` loads a data file (:func:`linkwise.session.load_frame`:
        text embedded, images to features, ids as text; needs the
        ``session`` extra; ``scale`` defaults to ``"minmax"`` there). A
        DataFrame with a column that is not numeric is loaded so without them
        too; a numeric one without them is clustered as it is
        (``feature_names_in_`` records its columns).

    Attributes
    ----------
    data_ : Dataset or None
        The loaded DataFrame (its ``X`` is what is clustered, ``ids`` and
        ``item(row)`` show a row); None when ``X`` was clustered as given.
    estimator_ : ActiveEstimator
        The clone being fitted; after :meth:`finish` it carries ``labels_``,
        ``constraints_``, ``query_log_``, ``n_queries_``.
    query_log : list of (int, int, bool or None)
        Questions asked and their answers, in order.
    error : Exception or None
        What the method raised while taking an answer, if it did: that answer
        is kept, :meth:`tell` re-raises the error, and the session is done.

    Notes
    -----
    A session holds the method's suspended question generator, so it cannot
    be pickled or copied; :meth:`replay` of its answers in a new session
    (same data and parameters, a fixed ``random_state``) resumes it.

    Several threads may share a session (two people answering): each call
    runs alone, so an answer to a question that another thread answered
    first is refused (the pending question has changed) and the session
    goes on.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> session = lw.ActiveSession(lw.COBRAS(max_queries=5, random_state=0), X)
    >>> while (pair := session.ask()) is not None:
    ...     session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    >>> session.n_queries
    5
    >>> session.labels_.shape
    (147,)
    >>> session.stability_.n_answers
    5
    """

    @validate_args({"resume_points": [StrOptions(set(_SPACINGS) - {None}), None]})
    def __init__(self, estimator, X, queryable=None, *, stability=True, resume_points=None, id_column=None,
                 text_column=None, image_column=None, features=None, series=None, image_root=None, scale=None):
        check_value(estimator, [ActiveEstimator], "estimator", "ActiveSession")  # a class defined below: not in the table
        options = {"id_column": id_column, "text_column": text_column, "image_column": image_column,
                   "features": features, "series": series, "image_root": image_root, "scale": scale}
        self.data_, X = _frame_dataset(X, options)
        self._start(clone(estimator), X, queryable, resume_points)
        if stability:  # a person's session only: fit skips the per-answer comparison
            self._monitor = StabilityMonitor(**self.estimator_.stop_rule())
            self._observe(answered=False)
        self._seal()

    @classmethod
    def _fitting(cls, estimator, X, queryable):
        """A session that fits ``estimator`` itself (what ``fit`` uses)."""
        session = cls.__new__(cls)
        session.data_ = None
        session._start(estimator, X, queryable, None)
        return session

    def _start(self, estimator, X, queryable, resume_points):
        owner = f"{type(estimator).__name__}.fit"
        self._lock = threading.RLock()  # reentrant: replay tells, inform may answer the pending question
        validate_params(estimator)
        max_queries = estimator.max_queries  # checked with the other parameters: the budget is part of the protocol
        X, scale = _validated(estimator, X)
        n = X.shape[0]
        queryable = np.arange(n) if queryable is None else check_index_set(queryable, n, "queryable", owner)
        store = ConstraintStore(n, tolerant=estimator.tolerates_contradictions())
        self.estimator_ = estimator
        ctx = self._ctx = QueryContext(X, queryable, store, check_random_state(estimator.random_state), max_queries,
                                       scale)
        ctx.knowledge = estimator.knowledge(ctx)
        self.query_log, self.error, self._history, self._dont_know, self._pending = ctx.log, None, [], set(), None
        self._recheck, self._monitor = False, None
        self._weighing = self._held = None  # the knowledge weighing an answer, and the answer its method waits for
        self._labels = None  # the clustering reported since the method last moved (see _reported)
        self._spacing, self._point, self._rested, self._data_print = resume_points, None, None, None
        self._calls = 0  # calls that changed the state (a resume point records how many came before it)
        self._gen = estimator.questions(ctx)
        self._advance(None)

    def __reduce__(self):
        raise TypeError("An ActiveSession cannot be pickled or copied: it holds the method's suspended question "
                        "generator. Save its answers instead (session.query_log) and resume with "
                        "ActiveSession(estimator, X).replay({(i, j): answer for i, j, answer in query_log}), using "
                        "the same data and estimator parameters with a fixed random_state (the session file does "
                        "this).")

    # -- driving the generator ---------------------------------------------
    def _checked(self, item):
        try:
            i, j = (int(v) for v in item)
        except (TypeError, ValueError):
            raise TypeError(f"{type(self.estimator_).__name__} yielded {item!r}; a question generator must yield (i, "
                            "j) pairs.") from None
        if i == j or not (self._ctx.queryable_mask[i] and self._ctx.queryable_mask[j]):
            raise RuntimeError(f"{type(self.estimator_).__name__} asked about ({i}, {j}); questions must be about two "
                               "different queryable rows. This is a bug in the method.")
        return i, j, isinstance(item, Recheck)

    def _advance(self, answer):
        """Run the method, and the knowledge weighing its answers, up to the next question to ask."""
        self._labels = None
        self._run(answer)

    def _run(self, answer):
        ctx = self._ctx
        while True:
            gen = self._gen if self._weighing is None else self._weighing
            try:
                item = gen.send(answer)
            except StopIteration as stop:
                if gen is self._gen:
                    self._pending = self._gen = None
                    return
                ctx.revision += bool(stop.value)
                self._weighing, answer = None, self._held
                continue
            ctx.resumed = False  # the method has gone on from its rest (see resume)
            if isinstance(item, Rest):
                self._rest()
                answer = None
                continue
            if isinstance(item, Checkpoint):
                self._weighing, self._held, answer = ctx.knowledge.weigh(ctx), None, None
                continue
            i, j, recheck = self._checked(item)
            known = None if recheck else ctx.knowledge.store.relation(i, j)
            if known is not None or pair_key(i, j) in self._dont_know:  # a recheck too: "don't know" would come again
                answer = known
                continue
            # with the budget spent the generator stays suspended; its ctx.labels is the answer
            self._pending = None if ctx.max_queries is not None and ctx.n_queries >= ctx.max_queries else (i, j)
            self._recheck = recheck
            return

    @_locked
    def ask(self):
        """Return the pair the method wants answered next.

        Returns
        -------
        tuple of (int, int) or None
            The pending question (the same until :meth:`tell` answers it), or
            None when the budget is spent or the method has nothing left to ask.
        """
        return self._pending

    @_locked
    @validate_args({"answer": ["boolean", None]})
    def tell(self, pair, answer):
        """Answer the pending question.

        Parameters
        ----------
        pair : tuple of int
            The pair returned by :meth:`ask` (either order): two ints or NumPy
            integers (a float, a bool or a string is refused, not rounded).
        answer : bool or None
            True (same cluster), False (different clusters) or None (don't
            know: stored as no constraint, and never asked again).
        """
        try:
            rows = tuple(pair) if len(pair) == 2 and all(map(_is_row, pair)) else None
        except TypeError:  # no sequence
            rows = None
        if rows is None:
            raise InvalidParameterError(f"The 'pair' argument of ActiveSession.tell must be two int row indices (i, j), "
                                        f"got {pair!r}.")
        if self._pending is None:
            raise RuntimeError("No question is pending: ask() returned None, so the session is done.")
        if pair_key(*rows) != pair_key(*self._pending):
            raise InvalidParameterError(f"The 'pair' argument of ActiveSession.tell must be the pending question "
                                        f"{self._pending}, got {pair!r}.")
        (i, j), ctx = self._pending, self._ctx
        answer = None if answer is None else bool(answer)
        contradicted = self._monitor is not None and self._monitor.contradicts((i, j), answer)  # before it learns
        if answer is None:
            self._dont_know.add(pair_key(i, j))
        else:
            ctx.constraints.add(i, j, answer)  # a strict store may refuse: nothing else has changed yet
        ctx.n_queries += 1
        self.query_log.append((i, j, answer))
        if self._weighing is None and answer is not None:  # the method's question: its knowledge weighs the answer
            self._weighing, self._held, answer = ctx.knowledge.weigh(ctx, (i, j, answer)), answer, None
        try:
            self._advance(answer)
        except Exception as error:
            # a generator that raised cannot be resumed: keep the answer and end the session,
            # rather than leave the answered pair pending (answering it again would charge it twice)
            self._gen = self._weighing = self._pending = None
            self.error = error
            error.add_note(f"ActiveSession: the answer to {(i, j)} was kept (question {ctx.n_queries}), but "
                           f"{type(self.estimator_).__name__} failed on it, so the session is done: every answer is "
                           "kept (finish(), or constraints_ and query_log_ after fit). To go on without that answer, "
                           "start a new session and replay() the others.")
            raise
        finally:
            if self.estimator_.anytime:
                self._history.append(self._snapshot())
        self._observe(contradicted=contradicted)
        self._seal()

    @_locked
    def replay(self, answers):
        """Feed stored answers, as long as the method asks pairs they cover.

        Parameters
        ----------
        answers : mapping of (i, j) -> bool or None, or sequence of (i, j, answer)
            Answers by pair (either order), or a ``query_log`` of them.

        Returns
        -------
        int
            How many questions were answered from ``answers``, up to the first
            one they do not cover (the next one to ask a person).

        Raises
        ------
        InvalidParameterError
            ``answers`` is neither: nothing has been told.
        """
        by_key, n = _answers_by_pair(answers), 0
        while (pair := self.ask()) is not None and pair_key(*pair) in by_key:
            self.tell(pair, by_key[pair_key(*pair)])
            n += 1
        return n

    @_locked
    @validate_args({"answer": ["boolean"], "move": ["boolean"]})
    def inform(self, i, j, answer, *, move=False):
        """Add a relation the person stated outside the pending question.

        An imported constraint, another annotator's answer, or one implied by
        feedback on a cluster: it is not charged nor logged as a question, and
        the method never asks a pair it implies (a pending question it settles
        is answered from it, and the session moves on).

        Parameters
        ----------
        i, j : int
            Two different rows (any rows, queryable or not).
        answer : bool
            True (same cluster) or False (different clusters).
        move : bool, default=False
            The pair is half of an item moved to another cluster: a must-link
            to a row of its new cluster and a cannot-link to a row of its old
            one, informed one after the other (methods that use cluster
            feedback move the item at once, ``linkwise.cobra._feedback``).

        Raises
        ------
        InconsistentConstraintError
            The estimator refuses contradicting answers and this one
            contradicts what is known; nothing has changed.
        """
        ctx = self._ctx
        i, j = check_pair(i, j, ctx.n_samples, "ActiveSession.inform")
        ctx.constraints.add(i, j, bool(answer))
        if ctx.knowledge is not ctx.constraints:
            ctx.knowledge.inform(i, j, bool(answer))
        if move:
            ctx.moved.add(len(ctx.informed))
        self._stated([(i, j, bool(answer))])

    @_locked
    @validate_args({"complete": ["boolean"]})
    def mark(self, rows, complete=False):
        """Feedback on a whole cluster: its ``rows`` belong together; ``complete``: and nothing else does.

        Stated as must-links from the first row to every other one and, when
        complete, cannot-links from it to every row outside (all at once: a
        contradiction adds none of them); methods that can use the cluster as
        such read ``ctx.marks`` (COBRAS never splits a pure cluster again and
        never merges with a complete one).

        Parameters
        ----------
        rows : array-like of int
            The members of the cluster, as shown to the person.
        complete : bool, default=False
            True: no row outside ``rows`` belongs with them.

        Raises
        ------
        InconsistentConstraintError
            The estimator refuses contradicting answers and a pair of the mark
            contradicts what is known (``explanation``: the chain of answers
            and of the mark's pairs that implies the opposite); nothing has changed.
        """
        ctx = self._ctx
        rows = check_index_set(rows, ctx.n_samples, "rows", "ActiveSession.mark")
        ctx.constraints.add_group(rows, bool(complete))  # all or none: a strict store refuses a contradiction whole
        outside = np.setdiff1d(np.arange(ctx.n_samples), rows) if complete else rows[:0]
        if ctx.knowledge is not ctx.constraints:
            ctx.knowledge.inform_group(rows, outside)
        first = int(rows[0])
        pairs = [*zip(repeat(first), rows[1:].tolist(), repeat(True)), *zip(repeat(first), outside.tolist(), repeat(False))]
        self._stated(pairs, Mark(rows, bool(complete)))

    def _stated(self, pairs, mark=None):
        """Record ``pairs`` (told to the constraints and the knowledge already) and the ``mark`` they make, and
        answer the pending question if they settle it."""
        ctx, start = self._ctx, len(self._ctx.informed)
        ctx.informed += pairs
        self._labels = None
        if mark is not None:  # before the method resumes below: it sees the mark with its pairs
            ctx.marks.append(mark._replace(start=start, stop=len(ctx.informed)))
        pending = self._pending
        if pending is not None and not self._recheck:
            known = ctx.knowledge.store.relation(*pending)
            if known is not None:
                self._advance(known)
        self._observe(answered=False)
        self._seal()

    # -- resume points -------------------------------------------------------
    def _rest(self):
        """The method rests: copy the session's state if one is due (see ``resume_points``)."""
        if self._spacing is None:
            return
        # spaced: once the process worked four times as long as the last point took (replaying from it costs that)
        if self._spacing == "spaced" and self._point is not None and \
                time.process_time() - self._point.taken_at < _SPACED * self._point.seconds:
            return
        if self._data_print is None:
            self._data_print = fingerprint(self._ctx.X)
        ctx = self._ctx
        state = {k: v for k, v in self.__dict__.items() if k not in _NOT_COPIED}
        try:
            point = ResumePoint.take(state, ctx.X, self._data_print, (ctx.n_queries, len(ctx.informed), len(ctx.marks)))
        except (pickle.PicklingError, TypeError, AttributeError):  # a method whose state cannot be copied: no points
            self._spacing = None
            return
        point.dataset = self.data_
        self._rested = (point, len(self._history))

    def _seal(self):
        """At the end of a call in which the method rested: what the call did after the rest completes the point."""
        self._calls += 1
        if self._rested is not None:
            point, n_history = self._rested
            point.tail = (self._history[n_history:], None if self._monitor is None else pickle.dumps(self._monitor))
            point.calls, self._point, self._rested = self._calls, point, None

    @_locked
    def resume_point(self, current=False):
        """The session's state where its method last rested, as of the end of the call that made it.

        Parameters
        ----------
        current : bool, default=False
            Only a point of the session's state now: None if a call
            (:meth:`tell`, :meth:`inform`, :meth:`mark`) changed it since.

        Returns
        -------
        ResumePoint or None
            None when no point was kept: the session was made without
            ``resume_points`` or its method has not rested (see :class:`~linkwise.loop.Rest`).
        """
        if current and self._point is not None and self._point.calls != self._calls:
            return None
        return self._point

    @classmethod
    @validate_args({"point": [ResumePoint]})
    def resume(cls, point, *, max_queries=_SAME):
        """A session in the state of ``point``: the method goes on from its rest, as the session it was taken from.

        Parameters
        ----------
        point : ResumePoint
            From :meth:`resume_point` (or :meth:`~linkwise.loop.ResumePoint.loads`).
        max_queries : int or None, optional
            Another budget from here on (a person raised it): the loop owns
            the budget, so the method's questions do not depend on it.
            By default the point's.

        Returns
        -------
        ActiveSession
            The session after the call that made the point: the same question
            pending, the same clustering, history and answers. It keeps
            resume points as the original did.

        Examples
        --------
        >>> import linkwise as lw
        >>> X, y = lw.datasets.load("iris", scale="minmax")
        >>> session = lw.ActiveSession(lw.COBRAS(max_queries=8, random_state=0), X, resume_points="every")
        >>> for _ in range(5):
        ...     pair = session.ask()
        ...     session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        >>> again = lw.ActiveSession.resume(session.resume_point())
        >>> again.n_queries <= session.n_queries
        True
        """
        session = cls.__new__(cls)
        session.__dict__.update(point.state())
        session.data_, session._lock = point.dataset, threading.RLock()
        session._point, session._rested, session._weighing = point, None, None
        spacing, session._spacing = session._spacing, None  # the catch-up below goes where the original went
        if max_queries is not _SAME:
            validate_params(session.estimator_.set_params(max_queries=max_queries))
            session._ctx.max_queries = max_queries
        session._ctx.resumed = True
        session._gen = session.estimator_.questions(session._ctx)
        session._advance(None)
        history, monitor = point.tail
        session._history += history
        session._monitor = None if monitor is None else pickle.loads(monitor)
        session._spacing, session._calls = spacing, point.calls
        point.taken_at = time.process_time()  # the next point after as much work as if it had just been taken
        return session

    def _observe(self, answered=True, contradicted=False):
        if self._monitor is not None:
            observe(self._monitor, self.estimator_, self._reported(), self._ctx.X, self.query_log, answered,
                    contradicted)

    def _reported(self):
        """The method's ``current_labels``, computed once per state: the history, the monitor and ``labels_`` read it
        after every answer (on a million rows each computation costs milliseconds)."""
        if self._labels is None:
            self._labels = self.estimator_.current_labels(self._ctx)
        return self._labels

    def _snapshot(self):
        """The history's entry after an answer: the reported labels, unless the method keeps a form of its own."""
        estimator = self.estimator_
        entry = self._reported().astype(np.int32) if type(estimator).snapshot is ActiveEstimator.snapshot else \
            estimator.snapshot(self._ctx)
        if isinstance(entry, np.ndarray):
            entry.flags.writeable = False  # history entries never change: resume points share them
        return entry

    # -- results ------------------------------------------------------------
    @property
    @_locked
    def labels_(self):
        """The current clustering of every row (a fresh array: changing it changes nothing in the session)."""
        return self._reported().copy()

    @_locked
    def labels(self):
        """Return the current clustering of every row, read-only and shared.

        The same array object for as long as the method's clustering object
        is unchanged, so a caller that reads it after every answer can tell
        "nothing moved" by identity instead of comparing every row (a
        million rows cost milliseconds a copy). :attr:`labels_` is a fresh
        copy of it.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            A label per row; not writeable.
        """
        labels = self._reported()
        if labels.flags.writeable:  # the method's own array, which it may change: a read-only copy, once per state
            labels = self._labels = labels.copy()
            labels.flags.writeable = False
        return labels

    @property
    @_locked
    def stability_(self):
        """How long the clustering has held: a :class:`~linkwise.Stability` (its ``message`` says when to stop).

        By the rule of the estimator's :meth:`~linkwise.ActiveEstimator.stop_rule`.
        """
        if self._monitor is None:
            raise AttributeError("stability_ is not kept: this session was made with stability=False.")
        return self._monitor.estimate

    @property
    def n_queries(self):
        """Questions answered so far ("don't know" included)."""
        return self._ctx.n_queries

    @property
    def checking(self):
        """True when the pending question is a check of earlier answers.

        A method that allows for wrong answers (Auto, NoiseRobustCOBRAS) asks
        a pair they already settle, to catch a wrong one (a recheck, or a pair
        whose settling answer it no longer believes). No other question is
        ever one the answers settle.
        """
        pending = self._pending
        return pending is not None and (self._recheck or self._ctx.constraints.relation(*pending) is not None)

    @property
    def constraints(self):
        """The session's :class:`~linkwise.ConstraintStore`."""
        return self._ctx.constraints

    @property
    def informed(self):
        """Relations stated outside the questions (:meth:`inform`, :meth:`mark`), in order: (i, j, answer)."""
        return self._ctx.informed

    @property
    def done(self):
        """True when nothing is left to ask (budget spent or method finished)."""
        return self._pending is None

    def _keep_answers(self):
        """Set ``constraints_``, ``query_log_`` and ``n_queries_`` on the estimator."""
        est, ctx = self.estimator_, self._ctx
        est.constraints_, est.query_log_, est.n_queries_ = ctx.constraints, list(self.query_log), ctx.n_queries

    @_locked
    def finish(self, *, labels=None):
        """Stop asking and return the fitted estimator.

        Parameters
        ----------
        labels : array-like of int of shape (n_samples,), optional
            The clustering to report instead of the method's (a person's
            cluster feedback applied to it); ``predict`` follows it.

        Returns
        -------
        ActiveEstimator
            ``estimator_``, with ``labels_``, ``constraints_``,
            ``query_log_``, ``n_queries_`` and, for an anytime method,
            ``labels_history_``.

        Raises
        ------
        InvalidParameterError
            ``labels`` is not one integer label per row.
        """
        est, n = self.estimator_, self._ctx.n_samples
        if labels is not None and (np.shape(labels) != (n,) or not np.issubdtype(np.asarray(labels).dtype, np.integer)):
            raise InvalidParameterError(f"The 'labels' argument of ActiveSession.finish must be {n} integer labels, one "
                                        f"per row, got shape {np.shape(labels)}.")
        est.labels_ = self._reported().copy() if labels is None else np.array(labels, dtype=np.intp)
        est._predictor = est.make_predictor(self._ctx)
        for gen in filter(None, (self._weighing, self._gen)):
            gen.close()
        self._gen = self._weighing = self._pending = None
        self._keep_answers()
        if est.anytime:
            est.labels_history_ = est.history_array(self._history)
        return est


class ActiveEstimator(BaseEstimator):
    """Base class of estimators that ask an oracle (or a person) questions.

    The method protocol: a subclass implements :meth:`questions`, a
    generator the loop drives (see :mod:`linkwise.loop`), and may override
    the other public hooks below; the loop calls nothing else of it. Its
    constructor takes ``random_state`` and, for a method with a budget,
    ``max_queries``. The user guide page "Write your own active method"
    walks through one.

    Attributes
    ----------
    max_queries : int or None
        The budget every active estimator has: the loop asks at most this
        many questions (None: until the method stops). A method with a
        budget takes it as a constructor parameter; one that stops by itself
        (:class:`~linkwise.COBRA`) keeps this class default, None.
    anytime : bool
        Class attribute: whether the clustering after every question is
        meaningful; ``fit`` then records ``labels_history_``.

    Examples
    --------
    A method that asks whether each row goes with row 0, and clusters the
    rows in two by the answers:

    >>> import linkwise as lw
    >>> class WithFirst(lw.ActiveEstimator):
    ...     def __init__(self, max_queries=None, random_state=None):
    ...         self.max_queries, self.random_state = max_queries, random_state
    ...     def questions(self, ctx):
    ...         ctx.labels[1:] = 1
    ...         for j in range(1, ctx.n_samples):
    ...             if (yield (0, j)):
    ...                 ctx.labels[j] = 0
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> est = WithFirst(max_queries=20).fit(X, lw.LabelOracle(y))
    >>> est.n_queries_
    20
    >>> est.labels_.shape
    (147,)
    """

    max_queries = None
    anytime = False
    # scikit-learn's table of the constructor parameters, checked before the first question; a subclass
    # extends it with its own ({**ActiveEstimator._parameter_constraints, "n_clusters": [...]})
    _parameter_constraints = {"max_queries": [Interval(Integral, 0, None, closed="left"), None],
                              "random_state": ["random_state"]}

    def check_params_vs_input(self, X):
        """Check the parameters against the data, before the first question.

        The parameters alone are checked first, against ``_parameter_constraints``;
        what depends on the data (``n_clusters`` above the number of rows, say)
        is checked here, as scikit-learn's ``KMeans`` checks it in its
        ``_check_params_vs_input``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            The data, validated (a table: series flattened by :meth:`as_table`).

        Raises
        ------
        InvalidParameterError
            A parameter does not fit the data: the message names it and the fix.
        """
        self._check_params_vs_input(X)

    def _check_params_vs_input(self, X):
        """The former, private name of :meth:`check_params_vs_input`, which the default calls: a method written for
        it is still checked (BayesianActiveClustering shares it with BayesianClustering, which calls it itself)."""

    def questions(self, ctx):
        """The method's questions: a generator the loop drives (the one hook every method implements).

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this fit.

        Yields
        ------
        pair : (int, int) or Recheck or Checkpoint
            Two different queryable rows to ask about; the loop sends back
            the answer (True: same cluster, False: different clusters, None:
            don't know) as the value of the ``yield``. A pair whose relation
            the knowledge holds is answered from it, unasked. The method keeps
            its current clustering in ``ctx.labels``; it stops by returning,
            or the loop stops driving it when the budget is spent.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement questions(ctx)")

    def tolerates_contradictions(self):
        """Whether an answer that contradicts earlier ones is recorded.

        Returns
        -------
        bool
            True: the constraint store records it (a method that counts or
            repairs answers); False (default): the loop refuses it with
            :class:`~linkwise.InconsistentConstraintError`.
        """
        return False

    def stop_rule(self):
        """The rule of "you can stop" that sessions of this method follow (:attr:`~linkwise.ActiveSession.stability_`).

        Each rule is calibrated on the method's own runs of the benchmark
        (``benchmarks/results/stability.md``); this default, the rule chosen
        on Auto and COBRAS together, is that of every method without runs of
        its own.

        Returns
        -------
        dict
            Keyword arguments of :class:`~linkwise.StabilityMonitor`: by
            default its defaults (80 answers that moved the clustering by at
            most 0.2, or the early signal after 15 for a method with a
            :meth:`doubt`, sure of 95 % of the probe pairs to 0.02).
        """
        return {"window": 80, "share": 0.0, "max_drift": 0.2, "count_contradicted": False, "max_misplaced": 1.0,
                "early_window": 15, "early_max_misplaced": 0.1, "early_max_doubt": 0.02, "doubt_quantile": 0.95}

    def doubt(self, pairs):
        """How unsure the method is of its own clustering, asked on some pairs of rows.

        A method that keeps a belief over several clusterings (a committee, a
        posterior) says how much of it goes against its majority on each
        pair. The stop signal reads it (:class:`~linkwise.StabilityMonitor`'s
        early signal, a quantile over its ``probe_pairs``); a method that
        keeps no such belief returns None (the default), and its sessions
        get no early signal.

        Parameters
        ----------
        pairs : ndarray of int of shape (n_pairs, 2)
            Row indices of the data being clustered.

        Returns
        -------
        ndarray of float in [0, 0.5] of shape (n_pairs,) or None
            The share of the belief against its majority on each pair (0:
            sure of it), or None.
        """
        return None

    def as_table(self, X):
        """The 2-D table the loop validates, for data of another shape (series) given to ``fit``.

        Parameters
        ----------
        X : array-like
            What ``fit`` was given.

        Returns
        -------
        array-like of shape (n_samples, n_features)
            By default ``X`` itself.
        """
        return X

    def knowledge(self, ctx):
        """What the method relies on: the answers as given (default) or a belief that repairs wrong ones.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit that is starting.

        Returns
        -------
        ConstraintStore or NoisyAnswers
            By default ``ctx.constraints`` (see :mod:`linkwise.loop`).
        """
        return ctx.constraints

    def current_labels(self, ctx):
        """The clustering to report now (``labels_``, and the session's ``labels_`` at any moment).

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit or session.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            By default a copy of ``ctx.labels``.
        """
        return np.asarray(ctx.labels).copy()

    def snapshot(self, ctx):
        """One entry of ``labels_history_`` (for an anytime method), taken after each answer.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit, just after an answer.

        Returns
        -------
        object
            By default ``current_labels(ctx)`` as int32 (the loop then takes the labels it reports after the
            answer, computed once); override for a compact form on large data.
        """
        return self.current_labels(ctx).astype(np.int32)

    def history_array(self, snapshots):
        """Turn the snapshots into ``labels_history_``.

        Parameters
        ----------
        snapshots : list
            What ``snapshot(ctx)`` returned after each answer.

        Returns
        -------
        ndarray of shape (n_queries, n_samples)
            By default the snapshots stacked (int32).
        """
        return np.stack(snapshots) if snapshots else np.empty((0, self.labels_.shape[0]), dtype=np.int32)

    def make_predictor(self, ctx):
        """The rule ``predict`` applies, fitted on the final clustering (``labels_`` is set).

        Parameters
        ----------
        ctx : QueryContext
            The context of the finished fit.

        Returns
        -------
        object with ``predict(X)`` and ``rows``
            By default the label of the nearest fitted row
            (:class:`~linkwise.prediction.NearestPoints`), under
            :meth:`prediction_metric`.
        """
        rows = fitted_rows(ctx.n_samples)
        return NearestPoints(ctx.X[rows], self.labels_[rows], rows, **self.prediction_metric(), scale=ctx.scale)

    def prediction_metric(self):
        """How ``predict`` compares a new item with the fitted ones (the nearest-point rule of :meth:`make_predictor`).

        Returns
        -------
        dict
            Keyword arguments of :class:`~linkwise.prediction.NearestPoints`:
            ``metric`` (default ``"euclidean"``; ``"dtw"`` or ``"kshape"`` for
            series), ``window`` (DTW's band, default 0.1) and ``series_shape``
            (the fitted series' ``(length, channels)``; default None: a table).
        """
        return {"metric": "euclidean", "window": 0.1, "series_shape": None}

    @property
    def predictor_(self):
        """The fitted rule ``predict`` applies (from ``make_predictor(ctx)``).

        Its ``rows`` are the fitted rows whose labels it keeps as they are.
        """
        return self._predictor

    @validate_args({"oracle": [HasMethods(["query"])]})
    def fit(self, X, oracle, queryable=None):
        """Cluster ``X``, asking ``oracle`` about pairs within the budget.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The items to cluster (series for a method with a series metric).
        oracle : Oracle
            Anything with ``query(i, j) -> True | False | None``, e.g.
            :class:`~linkwise.LabelOracle`.
        queryable : array-like of int or bool mask, optional
            Rows that may appear in a question; labels still cover every row.

        Returns
        -------
        self
            The fitted estimator, with ``labels_``, ``constraints_``,
            ``query_log_`` and ``n_queries_``.

        Raises
        ------
        InvalidParameterError
            ``oracle`` has no ``query`` method, or a parameter or ``X`` is invalid.
        Exception
            Whatever the method or the oracle raises; ``constraints_``,
            ``query_log_`` and ``n_queries_`` keep the answers so far.
        """
        session = ActiveSession._fitting(self, X, queryable)
        try:
            while (pair := session.ask()) is not None:
                session.tell(pair, oracle.query(*pair))
        except Exception:
            session._keep_answers()  # the answers cost the oracle: keep them on a failure too
            raise
        session.finish()
        return self

    def fit_predict(self, X, oracle, queryable=None):
        """Fit and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The items to cluster, as for :meth:`fit`.
        oracle : Oracle
            Anything with ``query(i, j) -> True | False | None``.
        queryable : array-like of int or bool mask, optional
            Rows that may appear in a question; labels still cover every row.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            The clustering of every row.
        """
        return self.fit(X, oracle, queryable).labels_

    def predict(self, X):
        """The cluster of each new item, by the method's rule (:mod:`linkwise.prediction`).

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            New items with the features of the fitted data (series of its
            length and channels for a series metric); they carry no answers.

        Returns
        -------
        ndarray of shape (n_new,)
            Values of ``labels_``.
        """
        X = check_new_data(self, X)  # first: it refuses an unfitted estimator
        return self._predictor.predict(X)
