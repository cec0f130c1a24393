"""The noisy-answer belief and the wrong-answer repair any active estimator can use.

People get a few percent of answers wrong, and one wrong must-link merges two
clusters for good. :class:`NoisyAnswers` is a belief about the answers that
any active estimator can use as its knowledge (see :mod:`linkwise.loop`);
:class:`RepairAttributes` gives an estimator with a ``noise_probability``
parameter that knowledge and reports its repairs.
"""

import numpy as np

from linkwise.graph import pair_key
from linkwise.loop import Recheck
from linkwise.repair._answers import AnswerGraph

__all__ = ["NoisyAnswers", "RepairAttributes"]

# A contradiction is settled when the clustering of the representatives is this probable.
_SETTLED = 0.95


class RepairAttributes:
    """Wrong-answer repair for an active estimator with a ``noise_probability`` parameter (a mixin).

    With ``noise_probability > 0`` its knowledge (see :mod:`linkwise.loop`)
    is :class:`NoisyAnswers`, checking the representatives and clusters
    that the estimator's ``focus()`` gives, with its ``check_threshold`` and
    ``max_repair_questions`` if it has them; otherwise the answers as given.
    ``corrections_`` and ``n_extra_queries_`` report the repairs.
    """

    def knowledge(self, ctx, focus=None):
        """Return the belief the method relies on.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit that is starting.
        focus : callable, optional
            What the belief checks (see :class:`~linkwise.repair.NoisyAnswers`); by default the estimator's ``focus``.

        Returns
        -------
        NoisyAnswers or ConstraintStore
            :class:`~linkwise.repair.NoisyAnswers` with ``noise_probability``
            above 0, else the answers as given (``ctx.constraints``).
        """
        self._belief = ctx.constraints
        if self.noise_probability > 0:
            options = {k: getattr(self, k) for k in ("check_threshold", "max_repair_questions") if hasattr(self, k)}
            self._belief = NoisyAnswers(ctx, self.noise_probability, focus or self.focus, **options)
        return self._belief

    @property
    def corrections_(self):
        """Each answer believed wrong, as a :class:`~linkwise.repair.Correction` (empty when answers are trusted)."""
        return getattr(self._belief, "corrections", [])

    @property
    def n_extra_queries_(self):
        """Questions asked to check or repair answers (part of ``n_queries_``)."""
        return getattr(self._belief, "n_extra_queries", 0)


class NoisyAnswers:
    """The knowledge (see :mod:`linkwise.loop`) of answers that may be wrong, keeping the module's policy.

    Parameters
    ----------
    ctx : QueryContext
        The run's data (distances inform the prior) and answers as given.
    noise_probability : float in (0, 0.5)
        Prior guess of the probability that an answer is wrong.
    focus : callable
        ``focus()`` gives the method's representatives (what its checks are
        about) and the cluster of each.
    check_threshold : float, default=0.02
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
    >>> list(belief.weigh(ctx, (0, 1, True))), list(belief.weigh(ctx, (0, 3, False)))
    ([], [])
    >>> belief.store.relation(1, 3)  # entailed: the loop would not ask it
    False
    >>> list(belief.weigh(ctx, (1, 3, True)))  # a contradiction, here settled without a question
    []
    >>> len(belief.corrections)
    1
    """

    def __init__(self, ctx, noise_probability, focus, *, check_threshold=0.02, max_repair_questions=4):
        self.graph = AnswerGraph(ctx.n_samples, noise_probability, X=ctx.X)
        self._X, self._given, self._focus = ctx.X, ctx.constraints, focus
        self.check_threshold, self.max_repair_questions = check_threshold, max_repair_questions
        self.corrections, self.n_extra_queries = [], 0
        self._unsettled = False  # a stated relation contradicted the belief: repair when it next weighs an answer

    @property
    def store(self):
        """The belief's :class:`~linkwise.ConstraintStore`: the answers as believed and their closure."""
        return self.graph.store

    def weigh(self, ctx, answered=None):
        """Record an answer and check it, or check the clustering at a checkpoint.

        A generator the loop drives (see :mod:`linkwise.loop`): a
        contradiction left by a stated relation is repaired first; then an
        answer that contradicts the belief is repaired, and a must-link
        between two representatives that nothing else confirms is checked
        when it is likely enough to be wrong; at a checkpoint, the doubtful
        decisions of the clustering are checked.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit.
        answered : tuple of (int, int, bool), optional
            The answer just given, ``(i, j, answer)``; None at a checkpoint.

        Returns
        -------
        bool
            Whether the belief changed (an answer is now believed otherwise).

        Yields
        ------
        tuple of (int, int) or Recheck
            An extra question (counted in ``n_extra_queries``); the loop
            sends back its answer.
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

        One that contradicts the belief is settled when it next weighs an answer, as a
        contradicting answer is.

        Parameters
        ----------
        i, j : int
            The two rows of the pair.
        answer : bool
            True (same cluster) or False (different clusters).
        """
        self._unsettled |= self.graph.add(i, j, answer)

    def inform_group(self, rows, outside):
        """Record the relations a mark states (:meth:`linkwise.ActiveSession.mark`), as :meth:`inform` of each would.

        Parameters
        ----------
        rows : ndarray of int
            The marked cluster, sorted: must-links ``rows[0]`` -> ``rows[1:]``.
        outside : ndarray of int
            The rows outside a complete mark, sorted (empty for a pure one):
            cannot-links ``rows[0]`` -> ``outside``.
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
