"""The one question loop shared by every active estimator.

An active method is written once, as a *question generator*: a method
``_questions(ctx)`` that yields a pair ``(i, j)`` and receives the answer
(True = must-link, False = cannot-link, None = don't know) as the value of the
``yield`` expression. It keeps its current clustering in ``ctx.labels``.

The loop owns everything else: the budget (``max_queries``), the answer log,
the :class:`~linkwise.ConstraintStore` of every answer as given, and the
skipping of pairs whose relation its *knowledge* already holds (such pairs are
answered from it at once: never asked, never charged). ``fit`` drives the
generator with an oracle; :class:`ActiveSession` lets a person drive it one
question at a time (``ask`` / ``tell``).

*Knowledge.* What the method may rely on is ``ctx.knowledge``, from the
estimator's ``_knowledge(ctx)`` hook: the store of answers by default;
:class:`~linkwise.cobra.NoisyAnswers` for answers that may be wrong. It has a
``store``, the :class:`~linkwise.ConstraintStore` of what it holds (a store is
its own; the loop skips the pairs it knows), and ``review(ctx,
answered=None)``, a generator the loop runs after each answer to the method's
questions (``answered = (i, j, answer)``, "don't know" excepted) and where the
method yields a :class:`Checkpoint` (``None``). A review records the answer,
may ask questions of its own (charged and logged; their answers are sent to
it; it yields :class:`Recheck` for pairs it knows) and returns whether it
revised its belief. A store's review asks nothing.

*Revision.* The method is resumed when the review is over; if the belief was
revised (an earlier answer is now believed wrong), ``ctx.revision`` has grown
by one. A method compares it across a ``yield`` and, when it changed, drops
what it inferred from earlier answers (COBRAS merges every super-instance
again).
"""

from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state

from linkwise._validation import InvalidParameterError, check_data, check_index_set, check_scalar, magnitude_scale
from linkwise.constraints import ConstraintStore
from linkwise.graph import pair_key

__all__ = ["ActiveEstimator", "ActiveSession", "Checkpoint", "QueryContext", "Recheck"]


class Recheck(NamedTuple):
    """Yield this instead of a plain pair to have a known pair asked again.

    For a method or a knowledge's review that doubts an earlier answer
    (wrong-answer repair): the loop asks it even though the knowledge already
    holds the relation, and charges it.
    """

    i: int
    j: int


class Checkpoint(NamedTuple):
    """Yield ``Checkpoint()`` where the method's clustering is complete (the end of a phase).

    The loop runs the knowledge's review there (which may check what the
    clustering rests on, see :mod:`linkwise.loop`) and resumes the method
    with None; ``ctx.revision`` tells whether the belief changed.
    """


class QueryContext:
    """What a question generator sees while it runs.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        The validated data (float64), divided by a power of two when its
        magnitude would overflow or underflow squared distances (see
        :func:`~linkwise._validation.magnitude_scale`; ordinary data is used
        as it is). Distances a method is given (``sigma``, ...) refer to it.
    queryable : ndarray of int
        Sorted rows that may appear in a question.
    queryable_mask : ndarray of bool
        The same as a mask over rows.
    constraints : ConstraintStore
        Every answer so far, as given, and what follows from them (read it, do not write).
    knowledge : ConstraintStore or NoisyAnswers
        What the method may rely on (see the module docstring); ``constraints`` by default.
    revision : int
        How many times the knowledge revised its belief so far.
    log : list of (int, int, bool or None)
        Questions asked and their answers, in order (read it, do not write).
    rng : numpy.random.RandomState
        The one random generator of this run, from the estimator's ``random_state``.
    labels : ndarray of int
        The method's current clustering of every row; the method keeps it up
        to date (it is what ``labels_`` reports at any moment).
    max_queries : int or None
        The budget (None: unlimited).
    n_queries : int
        Questions asked so far.
    """

    def __init__(self, X, queryable, constraints, rng, max_queries):
        self.X = X
        self.n_samples = X.shape[0]
        self.queryable = queryable
        self.queryable_mask = np.zeros(self.n_samples, dtype=bool)
        self.queryable_mask[queryable] = True
        self.constraints = self.knowledge = constraints
        self.revision = 0
        self.log = []
        self.rng = rng
        self.labels = np.zeros(self.n_samples, dtype=np.intp)
        self.max_queries = max_queries
        self.n_queries = 0


class ActiveSession:
    """Drive an active estimator one question at a time, for a person.

    The estimator is cloned (the object you pass is never modified); its
    question generator runs until it needs an answer that the constraint store
    does not know.

    Parameters
    ----------
    estimator : ActiveEstimator
        An unfitted active estimator (COBRAS, ActiveClustering, ...).
    X : array-like of shape (n_samples, n_features)
        The data.
    queryable : array-like of int or bool mask, optional
        Rows that may appear in a question (all rows by default). Labels still
        cover every row.

    Attributes
    ----------
    estimator_ : ActiveEstimator
        The clone being fitted; after :meth:`finish` it carries ``labels_``,
        ``constraints_``, ``query_log_``, ``n_queries_``.
    query_log : list of (int, int, bool or None)
        Questions asked and their answers, in order.
    error : Exception or None
        What the method raised while taking an answer, if it did: that
        answer is kept, :meth:`tell` re-raises the error, and the session is
        done (a failed method cannot go on).

    Notes
    -----
    A session holds the method's suspended question generator, so it cannot
    be pickled or copied. It is resumed by replay instead, as the session
    file does: keep ``query_log`` (or any record of the answers), and give
    them to :meth:`replay` of a new session with the same estimator
    parameters (a fixed ``random_state``) and data; it asks the same
    questions again and stops at the first one they do not answer.

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
    """

    def __init__(self, estimator, X, queryable=None):
        if not isinstance(estimator, ActiveEstimator):
            raise InvalidParameterError(
                "The 'estimator' argument of ActiveSession must be an active estimator "
                f"(COBRAS, COBRA, ActiveClustering, ...), got {type(estimator).__name__}."
            )
        self._start(clone(estimator), X, queryable)

    @classmethod
    def _fitting(cls, estimator, X, queryable):
        """A session that fits ``estimator`` itself (what ``fit`` uses)."""
        session = cls.__new__(cls)
        session._start(estimator, X, queryable)
        return session

    def _start(self, estimator, X, queryable):
        owner = f"{type(estimator).__name__}.fit"
        estimator._validate_params()
        # the loop owns the budget, so it alone checks it
        max_queries = check_scalar(
            getattr(estimator, "max_queries", None), "max_queries", estimator, kind="int", low=0, none_ok=True
        )
        X = check_data(estimator._as_table(X), estimator, ensure_min_samples=2)
        X = X / scale if (scale := magnitude_scale(X)) != 1.0 else X
        n = X.shape[0]
        queryable = np.arange(n) if queryable is None else check_index_set(queryable, n, "queryable", owner)
        store = ConstraintStore(n, tolerant=estimator._tolerant_constraints())
        rng = check_random_state(estimator.random_state)
        self.estimator_ = estimator
        ctx = self._ctx = QueryContext(X, queryable, store, rng, max_queries)
        ctx.knowledge = estimator._knowledge(ctx)
        self.query_log = ctx.log
        self.error = None
        self._history = []
        self._dont_know = set()
        self._pending = None
        self._review = self._held = None  # a running review, and the answer its method waits for
        self._gen = estimator._questions(ctx)
        self._advance(None)

    def __reduce__(self):
        raise TypeError(
            "An ActiveSession cannot be pickled or copied: it holds the method's suspended question "
            "generator. Save its answers instead (session.query_log) and resume with "
            "ActiveSession(estimator, X).replay({(i, j): answer for i, j, answer in query_log}), using "
            "the same data and estimator parameters with a fixed random_state (the session file does this)."
        )

    # -- driving the generator ---------------------------------------------
    def _checked(self, item):
        recheck = isinstance(item, Recheck)
        try:
            i, j = (int(v) for v in item)
        except (TypeError, ValueError):
            raise TypeError(
                f"{type(self.estimator_).__name__} yielded {item!r}; a question generator must yield (i, j) pairs."
            ) from None
        ctx = self._ctx
        if i == j or not (ctx.queryable_mask[i] and ctx.queryable_mask[j]):
            raise RuntimeError(
                f"{type(self.estimator_).__name__} asked about ({i}, {j}); questions must be about two "
                "different queryable rows. This is a bug in the method."
            )
        return i, j, recheck

    def _advance(self, answer):
        """Run the method, and the reviews of its answers, up to the next question to ask."""
        ctx = self._ctx
        while True:
            gen = self._gen if self._review is None else self._review
            try:
                item = gen.send(answer)
            except StopIteration as stop:
                if gen is self._gen:
                    self._pending = self._gen = None
                    return
                ctx.revision += bool(stop.value)
                self._review, answer = None, self._held
                continue
            if isinstance(item, Checkpoint):
                self._review, self._held, answer = ctx.knowledge.review(ctx), None, None
                continue
            i, j, recheck = self._checked(item)
            if not recheck and (known := ctx.knowledge.store.relation(i, j)) is not None:
                answer = known
                continue
            if pair_key(i, j) in self._dont_know:  # a recheck too: "don't know" would come again
                answer = None
                continue
            if ctx.max_queries is not None and ctx.n_queries >= ctx.max_queries:
                # budget spent: the generator stays suspended; its ctx.labels is the answer
                self._pending = None
                return
            self._pending = (i, j)
            return

    def ask(self):
        """The pair the method wants answered next, or None when it is done.

        None means the budget is spent or the method has nothing left to ask.
        Calling ``ask`` again before :meth:`tell` returns the same pair.
        """
        return self._pending

    def tell(self, pair, answer):
        """Answer the pending question.

        Parameters
        ----------
        pair : tuple of int
            The pair returned by :meth:`ask` (either order).
        answer : bool or None
            True (same cluster), False (different clusters) or None (don't
            know: stored as no constraint, and never asked again).
        """
        if self._pending is None:
            raise RuntimeError("No question is pending: ask() returned None, so the session is done.")
        try:
            same = pair_key(*pair) == pair_key(*self._pending)
        except (TypeError, ValueError):
            same = False
        if not same:
            raise InvalidParameterError(
                f"The 'pair' argument of ActiveSession.tell must be the pending question "
                f"{self._pending}, got {pair!r}."
            )
        if answer is not None and not isinstance(answer, (bool, np.bool_)):
            raise InvalidParameterError(
                "The 'answer' argument of ActiveSession.tell must be True (same cluster), "
                f"False (different clusters) or None (don't know), got {answer!r}."
            )
        i, j = self._pending
        answer = None if answer is None else bool(answer)
        ctx = self._ctx
        if answer is None:
            self._dont_know.add(pair_key(i, j))
        else:
            ctx.constraints.add(i, j, answer)  # a strict store may refuse: nothing else has changed yet
        ctx.n_queries += 1
        self.query_log.append((i, j, answer))
        if self._review is None and answer is not None:  # the method's question: its knowledge reviews the answer
            self._review, self._held, answer = ctx.knowledge.review(ctx, (i, j, answer)), answer, None
        try:
            self._advance(answer)
        except Exception as error:
            # a generator that raised cannot be resumed: keep the answer and end the session,
            # rather than leave the answered pair pending (answering it again would charge it twice)
            self._gen = self._review = self._pending = None
            self.error = error
            error.add_note(
                f"ActiveSession: the answer to {(i, j)} was kept (question {ctx.n_queries}), but "
                f"{type(self.estimator_).__name__} failed on it, so the session is done: every answer is "
                "kept (finish(), or constraints_ and query_log_ after fit). To go on without that answer, "
                "start a new session and replay() the others."
            )
            raise
        finally:
            if self.estimator_._anytime:
                self._history.append(self.estimator_._snapshot(ctx))

    def replay(self, answers):
        """Feed stored answers, as long as the method asks pairs they cover.

        Parameters
        ----------
        answers : mapping of (i, j) -> bool or None
            Answers by pair (either order of each pair is accepted).

        Returns
        -------
        n_replayed : int
            How many questions were answered from ``answers``. Stops at the
            first question ``answers`` does not cover (that is the next one
            to ask a person).
        """
        by_key = {pair_key(i, j): a for (i, j), a in answers.items()}
        n = 0
        while (pair := self.ask()) is not None and pair_key(*pair) in by_key:
            self.tell(pair, by_key[pair_key(*pair)])
            n += 1
        return n

    # -- results ------------------------------------------------------------
    @property
    def labels_(self):
        """The current clustering of every row."""
        return self.estimator_._current_labels(self._ctx)

    @property
    def n_queries(self):
        """Questions answered so far ("don't know" included)."""
        return self._ctx.n_queries

    @property
    def constraints(self):
        """The session's :class:`~linkwise.ConstraintStore`."""
        return self._ctx.constraints

    @property
    def done(self):
        """True when nothing is left to ask (budget spent or method finished)."""
        return self._pending is None

    def _keep_answers(self):
        """Set ``constraints_``, ``query_log_`` and ``n_queries_`` on the estimator."""
        est, ctx = self.estimator_, self._ctx
        est.constraints_ = ctx.constraints
        est.query_log_ = list(self.query_log)
        est.n_queries_ = ctx.n_queries

    def finish(self):
        """Stop asking and return the fitted estimator.

        Sets ``labels_``, ``constraints_``, ``query_log_``, ``n_queries_`` (and
        ``labels_history_`` for anytime methods) on :attr:`estimator_`.
        """
        est, ctx = self.estimator_, self._ctx
        est.labels_ = est._current_labels(ctx)
        for gen in (self._review, self._gen):
            if gen is not None:
                gen.close()
        self._gen = self._review = self._pending = None
        self._keep_answers()
        if est._anytime:
            est.labels_history_ = est._history_array(self._history)
        return est


class ActiveEstimator(BaseEstimator):
    """Base class of estimators that ask an oracle (or a person) questions.

    Subclasses implement ``_questions(ctx)``, a generator (see
    :mod:`linkwise.loop`), and may override ``_validate_params``,
    ``_current_labels``, ``_tolerant_constraints`` and ``_knowledge``. Set
    ``_anytime = True`` when the clustering after every question is
    meaningful; ``fit`` then records ``labels_history_``.

    ``random_state`` and (optionally) ``max_queries`` are read by the loop.
    """

    _anytime = False

    def _validate_params(self):
        """Check constructor parameters; raise InvalidParameterError naming the bad one."""

    def _tolerant_constraints(self):
        """Whether contradicting answers are recorded (True) or refused (False)."""
        return False

    def _as_table(self, X):
        """``X`` as the 2-D table the loop validates (methods for other shapes of data override it)."""
        return X

    def _knowledge(self, ctx):
        """What the method relies on (see :mod:`linkwise.loop`); by default the answers as given."""
        return ctx.constraints

    def _current_labels(self, ctx):
        """The clustering to report now (default: what the generator keeps in ``ctx.labels``)."""
        return np.asarray(ctx.labels).copy()

    def _snapshot(self, ctx):
        """One ``labels_history_`` entry; override for a compact form on large data."""
        return self._current_labels(ctx).astype(np.int32)

    def _history_array(self, snapshots):
        """Turn the snapshots into ``labels_history_`` (default: ``(n_queries, n_samples)`` int32)."""
        if not snapshots:
            return np.empty((0, self.labels_.shape[0]), dtype=np.int32)
        return np.stack(snapshots)

    def _questions(self, ctx):
        raise NotImplementedError(f"{type(self).__name__} must implement _questions(ctx)")

    def fit(self, X, oracle, queryable=None):
        """Cluster ``X``, asking ``oracle`` about pairs within the budget.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        oracle : Oracle
            Anything with ``query(i, j) -> True | False | None``, e.g.
            :class:`~linkwise.LabelOracle`.
        queryable : array-like of int or bool mask, optional
            Rows that may appear in a question; labels still cover every row.

        Returns
        -------
        self

        Raises
        ------
        Exception
            Whatever the method or the oracle raises; ``constraints_``,
            ``query_log_`` and ``n_queries_`` then hold the answers so far.
        """
        if not callable(getattr(oracle, "query", None)):
            raise InvalidParameterError(
                f"The 'oracle' argument of {type(self).__name__}.fit must have a query(i, j) method "
                f"(e.g. linkwise.LabelOracle(y)), got {type(oracle).__name__}."
            )
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
        """Fit and return ``labels_``."""
        return self.fit(X, oracle, queryable).labels_
