"""Noise-robust COBRAS: notice wrong answers, find them with a few extra questions, and repair.

People answering "same group?" get a few percent of answers wrong, and one
wrong must-link merges two clusters for good. :class:`NoiseRobustCOBRAS` is
COBRAS on :class:`NoisyAnswers`, a belief about the answers that any active
estimator can use as its knowledge (see :mod:`linkwise.loop`).
"""

import numpy as np

from linkwise.cobra._cobras import COBRAS
from linkwise.cobra._answers import AnswerGraph
from linkwise._validation import check_scalar
from linkwise.graph import pair_key
from linkwise.loop import Recheck

__all__ = ["NoiseRobustCOBRAS", "NoisyAnswers", "RepairAttributes"]

# A contradiction is settled when the clustering of the representatives is this probable.
_SETTLED = 0.95


class RepairAttributes:
    """``corrections_`` and ``n_extra_queries_`` of an estimator whose knowledge ``_belief`` may be NoisyAnswers."""

    @property
    def corrections_(self):
        return getattr(self._belief, "corrections", [])

    @property
    def n_extra_queries_(self):
        return getattr(self._belief, "n_extra_queries", 0)


class NoiseRobustCOBRAS(RepairAttributes, COBRAS):
    """COBRAS that detects and repairs wrong answers.

    COBRAS (see :class:`~linkwise.COBRAS`) whose knowledge (see
    :mod:`linkwise.loop`) is a belief about the answers,
    :class:`~linkwise.cobra.NoisyAnswers`: super-instances are merged on the
    *believed* answers. A decision likely enough to be wrong is checked with
    one extra question across its two sides: a merge resting on one answer
    that nothing else confirms at once (later merges build on it), the
    must-links holding a cluster together and the cannot-links keeping two
    clusters apart when a merging phase ends. A contradiction (a cycle of
    answers with one cannot-link) is settled by the most probable
    explanation after a few questions chosen to tell the explanations
    apart, and every super-instance is then merged again from the repaired
    answers, as if the wrong answer had never been given. How likely an
    answer is wrong is :class:`~linkwise.cobra.AnswerGraph`'s noise model.
    With ``noise_probability=0`` it is plain COBRAS, question for question.

    Parameters
    ----------
    max_queries : int or None, default=None
        The budget (extra questions included).
    noise_probability : float in [0, 0.5), default=0.05
        Prior guess of the share of wrong answers (prior odds 1:1 between a
        person who makes none and one who makes twice as many); the estimate
        is updated from the answers checked and the contradictions found
        (:meth:`~linkwise.cobra.AnswerGraph.noise_rate`). 0 turns every
        check off.
    check_threshold : float in (0, 1], default=0.02
        A decision is checked with an extra question when its probability of
        being wrong is at least this. Lower: more checks, more robust.
    max_repair_questions : int, default=4
        Most extra questions asked to settle one contradiction, whatever
        their answers (the question that revealed it not counted). A
        contradiction along a cycle of ``L`` answers needs about
        ``log2(L)`` of them when they are answered right.
    metric, window, cache
        Time series distance, as for :class:`~linkwise.COBRAS`.
    random_state : int, RandomState instance or None, default=None
        Seeds every K-means split and the choice of half while descending.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    super_instances_ : ndarray of shape (n_samples,)
    constraints_ : ConstraintStore
        Every answer as given, in a tolerant store (its ``conflicts`` lists
        the answers that contradicted earlier ones).
    believed_constraints_ : ConstraintStore
        The repaired answers: what the clustering is built on.
    corrections_ : list of Correction
        Each answer believed wrong, as ``(pair, given, believed, evidence)``:
        ``evidence.answers`` are the answers that contradict the given one
        and ``evidence.probability`` is the posterior of the believed value.
        Kept up to date while the estimator runs, so a person's session can
        show it after every answer (``session.estimator_.corrections_``).
    n_extra_queries_ : int
        Questions asked to check or repair answers (part of ``n_queries_``).
    query_log_, n_queries_, labels_history_
        As in :class:`~linkwise.COBRAS`. Extra questions about a pair the
        raw answers already settle are asked again through the loop
        (:class:`~linkwise.loop.Recheck`) and logged like any other.

    Notes
    -----
    Only decisions that can be checked are: until an answer is known wrong,
    a check is a pair whose relation both the belief and the decision
    reversed settle, so that its answer confirms or contradicts (afterwards,
    a pair that only gathers evidence may be asked too); two clusters of one
    super-instance each, kept apart by a cannot-link between their only
    representatives, offer no such pair until one of them is split.
    A pair is never asked twice: a person (or :class:`~linkwise.LabelOracle`)
    with a fixed misbelief would repeat the same answer, so a decision is
    re-examined through a different pair across the same two sides.

    The search over explanations is exact up to 4 changed answers and 2,000
    branches per contradiction; beyond that an approximate repair (the most
    certain, then the earliest, answers win) is used and a warning is logged
    on the ``linkwise.cobra._explain`` logger; the run never stops for it.

    Unlike nCOBRAS, which reasons over possible worlds of all answers after
    every merging phase, the search here starts from the current belief and
    only branches over the edges of the contradicting cycles, so its cost
    depends on the contradiction, not on the number of answers.

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

    def __init__(
        self,
        *,
        max_queries=None,
        noise_probability=0.05,
        check_threshold=0.02,
        max_repair_questions=4,
        metric="euclidean",
        window=0.1,
        cache=None,
        random_state=None,
    ):
        self.max_queries = max_queries
        self.metric, self.window, self.cache = metric, window, cache
        self.noise_probability = noise_probability
        self.check_threshold = check_threshold
        self.max_repair_questions = max_repair_questions
        self.random_state = random_state

    def _validate_params(self):
        super()._validate_params()
        check_scalar(
            self.noise_probability, "noise_probability", self, kind="float", low=0.0, high=0.5, include_high=False
        )
        check_scalar(self.check_threshold, "check_threshold", self, kind="float", low=0.0, high=1.0, include_low=False)
        check_scalar(self.max_repair_questions, "max_repair_questions", self, kind="int", low=0)

    def _tolerant_constraints(self):
        return self.noise_probability > 0

    def _knowledge(self, ctx):
        self._belief = ctx.constraints  # noise_probability=0: the answers as given, plain COBRAS
        if self._tolerant_constraints():
            self._belief = NoisyAnswers(
                ctx, self.noise_probability, self._focus,
                check_threshold=self.check_threshold, max_repair_questions=self.max_repair_questions,
            )
        return self._belief

    @property
    def believed_constraints_(self):
        return self._belief.store


class NoisyAnswers:
    """The knowledge (see :mod:`linkwise.loop`) of answers that may be wrong, keeping the module's policy.

    Parameters
    ----------
    ctx : QueryContext
        The run's data (distances inform the prior) and answers as given.
    noise_probability : float in (0, 0.5)
    focus : callable
        ``focus()`` gives the method's representatives (what its checks are
        about) and the cluster of each.
    check_threshold, max_repair_questions
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

    @property
    def store(self):
        return self.graph.store

    def review(self, ctx, answered=None):
        """Record an answer and check it, or check the clustering at a checkpoint (a generator; see loop)."""
        if answered is None:
            return (yield from self._check_decisions())
        i, j, answer = answered
        graph = self.graph
        if (yield from self._record(i, j, answer)):
            return True
        # a merge resting on this one answer matters at once: later merges build on it
        doubtful = answer and np.isin((i, j), self._focus()[0]).all() and graph.weak(i, j)
        if doubtful and graph.suspicion([(i, j)]) >= self.check_threshold:
            return (yield from self._verify([[(i, j)]]))[1]
        return False

    def _ask(self, pair):
        """Yield-able question: a Recheck when the answers as given or the belief already settle the pair."""
        known = self._given.relation(*pair) is not None or self.store.relation(*pair) is not None
        return Recheck(*pair) if known else pair

    def _record(self, i, j, answer):
        """Store an answer; on a contradiction, ask and repair (a generator). Returns whether the belief changed."""
        if not self.graph.add(i, j, answer):
            return False
        return (yield from self._repair())

    def _verify(self, decisions):
        """Ask the question that best checks ``decisions`` (a generator; see :meth:`AnswerGraph.verification`).

        Returns ``(asked, changed)``: whether a question was answered, and
        whether the belief changed.
        """
        graph = self.graph
        # a question that cannot confirm a decision only gathers evidence: worth it once answers are known wrong,
        # for one decision or a group (the careless person is then the only hypothesis left)
        decisive = not graph.contradicted
        pair = graph.verification(decisions, self._focus()[0], X=self._X, decisive=decisive)
        if pair is None:
            return False, False
        self.n_extra_queries += 1
        answer = yield self._ask(pair)
        if answer is None:
            return False, False
        return True, (yield from self._record(*pair, answer))

    def _check_decisions(self):
        """Check the doubtful decisions the finished clustering rests on (a generator).

        The decisions are each weak must-link inside a cluster (if wrong, the
        cluster falls in two) and, for each pair of clusters, the
        cannot-links between them (if all wrong, they are one cluster).
        While some are likely enough to be wrong, one question checks as
        many of them as it can at once (a confirmed must-link is no longer
        weak, and each cannot-link confirmed makes a separation less
        doubtful). Returns whether the belief changed.
        """
        while True:
            decisions = self._doubtful()
            if not decisions:
                return False
            asked, changed = yield from self._verify(decisions)
            if changed or not asked:
                return changed

    def _doubtful(self):
        """The decisions of :meth:`_check_decisions` whose probability of being wrong reaches the threshold."""
        graph = self.graph
        store = graph.store
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
            pair = explanations.question(_around(graph, explanations, reps), reps, X=self._X)
            if pair is None:
                break
            self.n_extra_queries += 1
            answer = yield self._ask(pair)
            if answer is not None:
                graph.add(*pair, answer)
        else:
            explanations = graph.explain()
        changed = graph.adopt(explanations)
        self.corrections = graph.corrections()
        return bool(changed)


def _around(graph, explanations, reps):
    """Candidate points for a repair question: the points of disputed answers, then the representatives."""
    pairs = graph.pairs()
    disputed = (explanations.values != explanations.best).any(axis=0)
    return np.concatenate([pairs[disputed].ravel(), reps])
