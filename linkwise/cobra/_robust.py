"""Noise-robust COBRAS: notice wrong answers, find them with a few extra questions, and repair.

People get a few percent of answers wrong, and one wrong must-link merges two
clusters for good. :class:`NoisyAnswers` is a belief about the answers that
any active estimator can use as its knowledge (see :mod:`linkwise.loop`).
"""

from numbers import Integral, Real

import numpy as np

from linkwise._validation import Interval
from linkwise.cobra._answers import AnswerGraph
from linkwise.cobra._cobras import COBRAS
from linkwise.graph import pair_key
from linkwise.loop import Recheck

__all__ = ["NoiseRobustCOBRAS", "NoisyAnswers", "RepairAttributes"]

# A contradiction is settled when the clustering of the representatives is this probable.
_SETTLED = 0.95


class RepairAttributes:
    """Wrong-answer repair for an active estimator with a ``noise_probability`` parameter.

    With ``noise_probability > 0`` its knowledge (see :mod:`linkwise.loop`)
    is :class:`NoisyAnswers` checking what ``focus()`` gives (by default
    ``_focus``: the representatives and the cluster of each), with the
    estimator's ``check_threshold`` and ``max_repair_questions`` if it has
    them; otherwise the answers as given. ``corrections_`` and
    ``n_extra_queries_`` report the repairs.
    """

    def _knowledge(self, ctx, focus=None):
        self._belief = ctx.constraints
        if self.noise_probability > 0:
            options = {k: getattr(self, k) for k in ("check_threshold", "max_repair_questions") if hasattr(self, k)}
            self._belief = NoisyAnswers(ctx, self.noise_probability, focus or self._focus, **options)
        return self._belief

    @property
    def corrections_(self):
        """Each answer believed wrong, as a :class:`~linkwise.cobra.Correction`; empty without repair."""
        return getattr(self._belief, "corrections", [])

    @property
    def n_extra_queries_(self):
        """Questions asked to check or repair answers (part of ``n_queries_``); 0 without repair."""
        return getattr(self._belief, "n_extra_queries", 0)


class NoiseRobustCOBRAS(RepairAttributes, COBRAS):
    """COBRAS that detects and repairs wrong answers.

    :class:`~linkwise.COBRAS` whose knowledge (see :mod:`linkwise.loop`) is
    a belief about the answers, :class:`~linkwise.cobra.NoisyAnswers`. A
    decision likely enough to be wrong is checked with one extra question
    across its two sides: a merge resting on one unconfirmed answer at once,
    the must-links holding a cluster together and the cannot-links keeping
    two apart when a merging phase ends. A contradiction (a cycle of answers
    with one cannot-link) is settled by the most probable explanation after
    a few questions that tell the explanations apart, and every
    super-instance is merged again from the repaired answers. With
    ``noise_probability=0`` it is plain COBRAS, question for question.

    Parameters
    ----------
    max_queries : int or None, default=None
        The budget (extra questions included).
    noise_probability : float in [0, 0.5), default=0.05
        Prior guess of the share of wrong answers, updated from the answers
        (:meth:`~linkwise.cobra.AnswerGraph.noise_rate`). 0 turns checks off.
    check_threshold : float in (0, 1], default=0.02
        A decision is checked with an extra question when its probability of
        being wrong is at least this. Lower: more checks, more robust.
    max_repair_questions : int, default=4
        Most extra questions asked to settle one contradiction (a cycle of
        ``L`` answers needs about ``log2(L)`` when they are answered right).
    metric : {"euclidean", "dtw", "kshape"}, default="euclidean"
        For time series, as for :class:`~linkwise.COBRAS`.
    window : float in [0, 1], default=0.1
        DTW's Sakoe-Chiba band, as a fraction of the series length.
    cache : str or Path, optional
        Folder keeping the series distance matrix for the next fit.
    random_state : int, RandomState instance or None, default=None
        Seeds every K-means split and the choice of half while descending.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The clustering.
    super_instances_ : ndarray of shape (n_samples,)
        Each point's super-instance.
    constraints_ : ConstraintStore
        Every answer as given, in a tolerant store (its ``conflicts`` lists
        the answers that contradicted earlier ones).
    believed_constraints_ : ConstraintStore
        The repaired answers: what the clustering is built on.
    corrections_ : list of Correction
        Each answer believed wrong, as ``(pair, given, believed, evidence)``,
        kept up to date while the estimator runs (a session shows it after
        every answer).
    n_extra_queries_ : int
        Questions asked to check or repair answers (part of ``n_queries_``).
    query_log_, n_queries_, labels_history_
        As in :class:`~linkwise.COBRAS`; extra questions are logged like any
        other (as a :class:`~linkwise.loop.Recheck` when the answers settle them).

    Notes
    -----
    Until an answer is known wrong, a check is a pair whose relation both
    the belief and the decision reversed settle, so that its answer confirms
    or contradicts (afterwards, a pair that only gathers evidence may be
    asked too); two one-super-instance clusters kept apart by one
    cannot-link offer no such pair until one is split. A pair is never asked
    twice: a person with a fixed misbelief would repeat the same answer, so
    a decision is re-examined through another pair across the same sides.

    The search over explanations is exact up to 4 changed answers and 2,000
    branches per contradiction; beyond that the approximate repair (the most
    certain, then the earliest, answers win) is used and a warning logged on
    ``linkwise.cobra._explain``. Unlike nCOBRAS, which reasons over possible
    worlds of all answers after every merging phase, the search starts from
    the current belief and branches only over the contradicting cycles, so
    its cost depends on the contradiction, not on the number of answers.

    References
    ----------
    J. Soenen, S. Dumančić, T. Van Craenendonck, H. Blockeel. Tackling Noise
    in Active Semi-Supervised Clustering. ECML PKDD 2020.

    T. Van Craenendonck, S. Dumančić, E. Van Wolputte, H. Blockeel. COBRAS:
    Interactive Clustering with Pairwise Queries. IDA 2018.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> oracle = lw.LabelOracle(y, noise=0.1, random_state=0)
    >>> est = lw.NoiseRobustCOBRAS(max_queries=60, random_state=0).fit(X, oracle)
    >>> est.n_queries_
    60
    >>> all(c.given != c.believed for c in est.corrections_)
    True
    """

    def __init__(self, *, max_queries=None, noise_probability=0.05, check_threshold=0.02, max_repair_questions=4,
                 metric="euclidean", window=0.1, cache=None, random_state=None):
        self.max_queries, self.noise_probability, self.random_state = max_queries, noise_probability, random_state
        self.check_threshold, self.max_repair_questions = check_threshold, max_repair_questions
        self.metric, self.window, self.cache = metric, window, cache

    _parameter_constraints = {
        **COBRAS._parameter_constraints,
        "noise_probability": [Interval(Real, 0, 0.5, closed="left")],
        "check_threshold": [Interval(Real, 0, 1, closed="right")],
        "max_repair_questions": [Interval(Integral, 0, None, closed="left")],
    }

    def _tolerant_constraints(self):
        return self.noise_probability > 0  # else plain COBRAS on the answers as given

    @property
    def believed_constraints_(self):
        """The repaired answers, a :class:`~linkwise.ConstraintStore`: what the clustering is built on."""
        return self._belief.store


class NoisyAnswers:
    """The knowledge (see :mod:`linkwise.loop`) of answers that may be wrong, keeping the module's policy.

    Parameters
    ----------
    ctx : QueryContext
        The run's data (distances inform the prior) and answers as given.
    noise_probability : float in (0, 0.5)
        Prior guess of the share of wrong answers.
    focus : callable
        ``focus()`` gives the method's representatives (what its checks are
        about) and the cluster of each.
    check_threshold : float in (0, 1], default=0.02
        As in :class:`~linkwise.NoiseRobustCOBRAS`.
    max_repair_questions : int, default=4
        As in :class:`~linkwise.NoiseRobustCOBRAS`.

    Attributes
    ----------
    graph : AnswerGraph
        Every answer and the belief (``store`` is the belief's ConstraintStore).
    corrections, n_extra_queries
        As ``corrections_`` and ``n_extra_queries_`` of NoiseRobustCOBRAS.

    Examples
    --------
    >>> import numpy as np
    >>> import linkwise as lw
    >>> from linkwise.loop import QueryContext
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0]])
    >>> ctx = QueryContext(X, np.arange(4), lw.ConstraintStore(4, tolerant=True), None, None)
    >>> belief = NoisyAnswers(ctx, 0.1, lambda: (np.arange(4), np.array([0, 0, 0, 1])))
    >>> list(belief.review(ctx, (0, 1, True))), list(belief.review(ctx, (0, 3, False)))
    ([], [])
    >>> belief.store.relation(1, 3)  # entailed: the loop would not ask it
    False
    >>> list(belief.review(ctx, (1, 3, True)))  # a contradiction, here settled without a question
    []
    >>> len(belief.corrections)
    1
    """

    def __init__(self, ctx, noise_probability, focus, *, check_threshold=0.02, max_repair_questions=4):
        self.graph = AnswerGraph(ctx.n_samples, noise_probability, X=ctx.X)
        self._X, self._given, self._focus = ctx.X, ctx.constraints, focus
        self.check_threshold, self.max_repair_questions = check_threshold, max_repair_questions
        self.corrections, self.n_extra_queries = [], 0
        self._unsettled = False  # a stated relation contradicted the belief: repair at the next review

    @property
    def store(self):
        """The belief's :class:`~linkwise.ConstraintStore`: the answers as repaired so far."""
        return self.graph.store

    def review(self, ctx, answered=None):
        """Record an answer and check it, or check the clustering at a checkpoint.

        A generator the loop drives (see :mod:`linkwise.loop`): a
        contradiction left by :meth:`inform` is repaired first; then the
        answer is recorded (and a contradiction it makes repaired), and a
        merge resting on it alone is checked at once if doubtful enough. At a
        checkpoint, the doubtful decisions of the finished clustering are
        checked instead.

        Parameters
        ----------
        ctx : QueryContext
            The run's context.
        answered : tuple of (int, int, bool), default=None
            The answer just given, as ``(i, j, answer)``; None at a
            checkpoint.

        Returns
        -------
        bool
            Whether the belief changed.

        Yields
        ------
        tuple of (int, int) or Recheck
            Each extra question: a :class:`~linkwise.loop.Recheck` for a pair
            whose relation is known already. The loop sends its answer back.
        """
        repaired = False
        if self._unsettled:
            self._unsettled = False
            repaired = yield from self._repair()
        if answered is None:
            return (yield from self._check_decisions()) or repaired
        i, j, answer = answered
        graph = self.graph
        if (yield from self._record(i, j, answer)):
            return True
        # a merge resting on this one answer matters at once: later merges build on it
        doubtful = answer and np.isin((i, j), self._focus()[0]).all() and graph.weak(i, j)
        if doubtful and graph.suspicion([(i, j)]) >= self.check_threshold:
            return (yield from self._verify([[(i, j)]]))[1] or repaired
        return repaired

    def inform(self, i, j, answer):
        """Record a relation stated outside the questions (see :meth:`linkwise.ActiveSession.inform`).

        One that contradicts the belief is settled at the next review, as a
        contradicting answer is.

        Parameters
        ----------
        i, j : int
            The pair.
        answer : bool
            True for a must-link, False for a cannot-link.
        """
        self._unsettled |= self.graph.add(i, j, answer)

    def inform_group(self, rows, outside):
        """Record the relations a mark states (see :meth:`linkwise.ActiveSession.mark`).

        As :meth:`inform` of each of them would: must-links ``rows[0]`` ->
        ``rows[1:]``, then cannot-links ``rows[0]`` -> ``outside``.

        Parameters
        ----------
        rows : ndarray of int
            The marked group, sorted.
        outside : ndarray of int
            The rows a complete mark cannot-links to the group (empty for a
            pure one), sorted.
        """
        self._unsettled |= self.graph.add_group(rows, outside)

    def _ask(self, pair):
        """Ask an extra question (a generator): a Recheck when the answers as given or the belief settle it."""
        self.n_extra_queries += 1
        known = self._given.relation(*pair) is not None or self.store.relation(*pair) is not None
        return (yield Recheck(*pair) if known else pair)

    def _record(self, i, j, answer):
        """Store an answer, and repair a contradiction (a generator); whether the belief changed."""
        return (yield from self._repair()) if self.graph.add(i, j, answer) else False

    def _verify(self, decisions):
        """Ask the question that best checks ``decisions`` (a generator); ``(asked, belief changed)``."""
        graph = self.graph
        # a question that cannot confirm a decision only gathers evidence: worth it once answers are known wrong
        # (the careless person is then the only hypothesis left)
        pair = graph.verification(decisions, self._focus()[0], X=self._X, decisive=not graph.contradicted)
        if pair is None:
            return False, False
        answer = yield from self._ask(pair)
        if answer is None:
            return False, False
        return True, (yield from self._record(*pair, answer))

    def _check_decisions(self):
        """Check the doubtful decisions of the finished clustering, one question for as many as it can (a generator):
        each weak must-link in a cluster, and the cannot-links between each two clusters. Whether the belief changed."""
        while decisions := self._doubtful():
            asked, changed = yield from self._verify(decisions)
            if changed or not asked:
                return changed
        return False

    def _doubtful(self):
        """The decisions of :meth:`_check_decisions` likely enough to be wrong."""
        graph, store = self.graph, self.graph.store
        reps, clusters = self._focus()
        cluster_of = {store.find(int(r)): c for r, c in zip(reps.tolist(), clusters.tolist())}
        holding, separating = [], {}
        for i, j in graph.pairs().tolist():
            ci, cj = cluster_of.get(store.find(i)), cluster_of.get(store.find(j))
            if ci is None or cj is None:
                continue
            if graph.believed(i, j):
                if graph.weak(i, j):
                    holding.append([(i, j)])
            elif ci != cj:
                separating.setdefault(pair_key(ci, cj), []).append((i, j))
        decisions = holding + list(separating.values())
        return [pairs for pairs in decisions if graph.suspicion(pairs) >= self.check_threshold]

    def _repair(self):
        """Resolve the contradiction in the answers (a generator); returns whether the belief changed."""
        graph = self.graph
        reps = self._focus()[0]
        for _ in range(self.max_repair_questions):
            explanations = graph.explain()
            if explanations.certainty(reps) >= _SETTLED:
                break
            disputed = (explanations.values != explanations.best).any(axis=0)  # the points of these, then reps
            pair = explanations.question(np.r_[graph.pairs()[disputed].ravel(), reps], reps, X=self._X)
            if pair is None:
                break
            answer = yield from self._ask(pair)
            if answer is not None:
                graph.add(*pair, answer)
        else:
            explanations = graph.explain()
        changed = graph.adopt(explanations)
        self.corrections = graph.corrections()
        return bool(changed)
