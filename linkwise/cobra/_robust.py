"""Noise-robust COBRAS: notice wrong answers, find them with a few extra questions, and repair.

People answering "same group?" get a few percent of answers wrong, and one
wrong must-link merges two clusters for good. :class:`NoiseRobustCOBRAS`
runs COBRAS on a *belief* about the answers rather than on the answers
themselves (:class:`~linkwise.cobra._answers.AnswerGraph`), and keeps that belief
honest:

- *doubtful decisions are checked once they matter*: a merge resting on one
  answer that nothing else confirms is checked at once, and when a merging
  phase ends, every decision the clustering rests on (a must-link holding a
  cluster together, the cannot-links keeping two clusters apart) whose
  probability of being wrong is at least ``check_threshold`` is checked,
  each with one question across the two sides (the pair that would
  contradict it if it were wrong);
- *a contradiction* (a cycle of answers with exactly one cannot-link) is
  explained by the most probable sets of wrong answers, and at most
  ``max_repair_questions`` more questions, each the one whose answer tells
  those explanations apart best, decide between them;
- *when the belief changes*, every super-instance is merged again from the
  repaired answers, as if the wrong answer had never been given.

The probability that an answer is wrong combines the answers around it, a
prior that a pair belongs together learned from the distances of the pairs
answered so far, and a noise rate estimated from the contradictions found
(``noise_probability`` is its prior mean, shared between a careful person
who makes no mistake and a careless one): while every check confirms, the
careful person becomes the likelier and the checks fade away; after a
contradiction they follow the careless rate. Every correction is listed in
``corrections_`` as it happens.
"""

from types import SimpleNamespace

import numpy as np

from linkwise.cobra._cobras import COBRAS
from linkwise.cobra._answers import AnswerGraph, Correction, Evidence
from linkwise._validation import check_scalar
from linkwise.loop import Recheck

__all__ = ["NoiseRobustCOBRAS", "Correction", "Evidence"]

# A contradiction is settled when the clustering of the representatives is this probable.
_SETTLED = 0.95


class NoiseRobustCOBRAS(COBRAS):
    """COBRAS that detects and repairs wrong answers.

    COBRAS (see :class:`~linkwise.COBRAS`) whose answers are kept in an
    :class:`~linkwise.cobra._answers.AnswerGraph`: super-instances are merged on the
    *believed* answers; decisions that are likely enough to be wrong are
    checked with one extra question; contradictions are settled by the most
    probable explanation after a few questions chosen to tell the
    explanations apart, and the clustering is then rebuilt from the
    repaired answers. With ``noise_probability=0`` it is plain COBRAS,
    question for question.

    Parameters
    ----------
    max_queries : int or None, default=None
        The budget (extra questions included).
    noise_probability : float in [0, 0.5), default=0.05
        Prior guess of the share of wrong answers (prior odds 1:1 between a
        person who makes none and one who makes twice as many); the estimate
        is updated from the answers checked and the contradictions found
        (:meth:`~linkwise.cobra._answers.AnswerGraph.noise_rate`). 0 turns every
        check off.
    check_threshold : float in (0, 1], default=0.02
        A decision is checked with an extra question when its probability of
        being wrong is at least this. Lower: more checks, more robust.
    max_repair_questions : int, default=4
        Most extra questions asked to settle one contradiction, whatever
        their answers (the question that revealed it not counted). A
        contradiction along a cycle of ``L`` answers needs about
        ``log2(L)`` of them when they are answered right.
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
    on the ``linkwise.cobra._answers`` logger; the run never stops for it.

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
        random_state=None,
    ):
        self.max_queries = max_queries
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
        return self._robust

    @property
    def _robust(self):
        return self.noise_probability > 0

    # -- the COBRAS steps, driven by the belief -------------------------------
    def _questions(self, ctx):
        self.corrections_ = []
        self.n_extra_queries_ = 0
        if self._robust:
            self._graph = AnswerGraph(ctx.n_samples, self.noise_probability, X=ctx.X)
            self.believed_constraints_ = self._graph.store
        else:
            self.believed_constraints_ = ctx.constraints
        yield from super()._questions(ctx)

    def _split_level(self, ctx, sid):
        if not self._robust:
            return (yield from super()._split_level(ctx, sid))
        result, _ = yield from self._believing(ctx, super()._split_level(ctx, sid), check=False)
        return result

    def _merge_phase(self, ctx, new, *, live):
        if not self._robust:
            return (yield from super()._merge_phase(ctx, new, live=live))
        while True:
            _, repaired = yield from self._believing(ctx, super()._merge_phase(ctx, new, live=live), check=True)
            if not repaired:
                repaired = yield from self._check_decisions(ctx)
            if not repaired:
                return
            # the belief changed under this phase: merge every super-instance again from the repaired answers
            new = self._tree.leaves()

    def _known_relations(self, ctx, reps):
        if not self._robust:
            return super()._known_relations(ctx, reps)
        # the base reads ctx.constraints: give it the believed answers instead of the raw ones
        return super()._known_relations(SimpleNamespace(constraints=self._graph.store), reps)

    # -- asking through the belief ------------------------------------------------
    def _believing(self, ctx, inner, *, check):
        """Drive a base-class question generator with believed answers (a generator).

        Pairs the belief settles are answered without a question; a pair
        the raw answers settle but the belief does not (one of those answers
        was repaired) is asked again. With ``check``, every must-link answer
        is checked and contradictions repaired; if the belief changes, the
        inner generator is closed. Returns ``(inner's return value, repaired)``.
        """
        graph = self._graph
        answer, first = None, True
        while True:
            try:
                i, j = next(inner) if first else inner.send(answer)
            except StopIteration as stop:
                return stop.value, False
            first = False
            answer = graph.relation(i, j)
            if answer is not None:
                continue
            answer = yield self._pair(ctx, i, j)
            if answer is None:
                continue
            repaired = yield from self._record(ctx, i, j, answer)
            # a merge resting on this one answer matters at once: later merges build on it
            doubtful = check and answer and not repaired and graph.weak(i, j)
            if doubtful and graph.suspicion([(i, j)]) >= self.check_threshold:
                _, repaired = yield from self._verify(ctx, [[(i, j)]])
            if repaired:
                inner.close()
                return None, True
            answer = graph.relation(i, j)

    @staticmethod
    def _pair(ctx, i, j):
        """Yield-able question: a Recheck when the raw answers already settle the pair."""
        return Recheck(i, j) if ctx.constraints.relation(i, j) is not None else (i, j)

    def _reps(self):
        tree = self._tree
        return np.asarray(tree.rep, dtype=np.intp)[tree.leaves()]

    def _record(self, ctx, i, j, answer):
        """Store an answer; on a contradiction, ask and repair (a generator). Returns whether the belief changed."""
        if not self._graph.add(i, j, answer):
            return False
        return (yield from self._repair(ctx))

    def _verify(self, ctx, decisions):
        """Ask the question that best checks ``decisions`` (a generator; see :meth:`AnswerGraph.verification`).

        Returns ``(asked, changed)``: whether a question was answered, and
        whether the belief changed.
        """
        graph = self._graph
        # a question that cannot confirm a decision only gathers evidence: worth it once answers are known wrong,
        # for one decision or a group (the careless person is then the only hypothesis left)
        decisive = not graph.contradicted
        pair = graph.verification(decisions, self._reps(), X=ctx.X, decisive=decisive)
        if pair is None:
            return False, False
        self.n_extra_queries_ += 1
        answer = yield self._pair(ctx, *pair)
        if answer is None:
            return False, False
        return True, (yield from self._record(ctx, *pair, answer))

    def _check_decisions(self, ctx):
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
            asked, changed = yield from self._verify(ctx, decisions)
            if changed or not asked:
                return changed

    def _doubtful(self):
        """The decisions of :meth:`_check_decisions` whose probability of being wrong reaches the threshold."""
        graph, tree = self._graph, self._tree
        store = graph.store
        leaves = tree.leaves()
        cluster_of = {store.find(int(r)): c for r, c in zip(self._reps().tolist(), tree.cluster[leaves].tolist())}
        holding, separating = [], {}
        for i, j in graph.pairs().tolist():
            ci, cj = cluster_of.get(store.find(i)), cluster_of.get(store.find(j))
            if ci is None or cj is None:
                continue
            if graph.believed(i, j):
                if graph.weak(i, j):
                    holding.append([(i, j)])
            elif ci != cj:
                separating.setdefault((min(ci, cj), max(ci, cj)), []).append((i, j))
        decisions = holding + list(separating.values())
        return [pairs for pairs in decisions if graph.suspicion(pairs) >= self.check_threshold]

    def _repair(self, ctx):
        """Resolve the contradiction in the answers (a generator); returns whether the belief changed."""
        graph = self._graph
        reps = self._reps()
        for _ in range(self.max_repair_questions):
            explanations = graph.explain()
            if explanations.certainty(reps) >= _SETTLED:
                break
            pair = explanations.question(_around(graph, explanations, reps), reps, X=ctx.X)
            if pair is None:
                break
            self.n_extra_queries_ += 1
            answer = yield self._pair(ctx, *pair)
            if answer is not None:
                graph.add(*pair, answer)
        else:
            explanations = graph.explain()
        changed = graph.adopt(explanations)
        self.believed_constraints_ = graph.store
        self.corrections_ = graph.corrections()
        return bool(changed)


def _around(graph, explanations, reps):
    """Candidate points for a repair question: the points of disputed answers, then the representatives."""
    pairs = graph.pairs()
    disputed = (explanations.values != explanations.best).any(axis=0)
    return np.concatenate([pairs[disputed].ravel(), reps])
