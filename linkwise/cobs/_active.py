"""Active COBS: ask the pairs on which a weighted committee of candidate clusterings disagrees most."""

import functools
from numbers import Integral, Real

import numpy as np

from linkwise._validation import Interval
from linkwise.cobs._generate import CANDIDATE_CONSTRAINTS, candidates_for, neighbours
from linkwise.cobs._grid import FAMILIES, GridSpec
from linkwise.cobs._select import _NEAR, TieBreak, committee_weights, exact_dot, satisfied
from linkwise.committee import committee_questions, sample_rows
from linkwise.loop import ActiveEstimator
from linkwise.repair import RepairAttributes

__all__ = ["ActiveCOBS"]


def nearest_rows(X, rows):
    """Find, for every row of ``X``, the position in ``rows`` of its nearest row.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    rows : ndarray of int
        The rows to choose from (a sample of ``X``'s rows), without repeats.

    Returns
    -------
    ndarray of int of shape (n_samples,)
        For each row, a position in ``rows``: a row of ``rows`` gets its own;
        ties go to the first.

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise.cobs import nearest_rows
    >>> X = np.array([[0.0], [0.2], [1.0], [0.9]])
    >>> nearest_rows(X, np.array([0, 2]))
    array([0, 0, 1, 1])
    """
    to_row = neighbours(X[rows], 1, X)[1][:, 0]
    to_row[rows] = np.arange(rows.size)
    return to_row


class ActiveCOBS(RepairAttributes, ActiveEstimator):
    """Active constraint-based selection (COBS with active constraint selection).

    The candidate clusterings of :class:`~linkwise.COBS` form a committee,
    each with a weight, 1 at first. From a random sample of ``sample_size``
    queryable pairs (a new one, of pairs not sampled before, when it is used
    up), the method asks the pair with the lowest weighted agreement ``|sum
    of weights of clusterings that put the pair together - sum of weights of
    those that separate it|``; clusterings that predicted the answer have
    their weight multiplied by ``update_factor``, the others divided by it.
    After every answer the clustering is the candidate satisfying the most
    answers (ties: see :class:`~linkwise.COBS`), so the method is anytime
    (``labels_history_``). Pairs whose answer follows from earlier ones are
    answered by the constraint store for free and count like asked ones.
    Contradicting answers (a noisy person) are simply counted, unless
    ``noise_probability`` is above 0 (wrong-answer repair, below).

    Parameters
    ----------
    algorithms, grid, dbscan_noise : optional
        The candidate generation, as for :class:`~linkwise.COBS`.
    update_factor : float >= 1, default=2.0
        The weight update factor m (the paper's choice: 2).
    sample_size : int, default=200
        Pairs in the random sample the next question is chosen from (the
        paper's choice: 200).
    max_queries : int, optional
        The question budget (None: until no unseen pair is left).
    max_samples : int, default=1000
        With more rows than this, candidates are generated on a random
        sample of this many rows (queryable rows first, as many as fit) and
        questions are about sampled rows; every other row takes the label of
        its nearest sampled row (``labels_`` and ``labels_history_``). The
        generation's time grows faster than the rows (about 9 CPU seconds at
        1,000 rows, 38 at 2,086, about 200 at 4,096: benchmarks/results/cobs.md,
        sections 6 and 8, with the accuracy this costs). ``max_samples=20000``, the
        former default, generates on every row up to 20,000.
    n_jobs, cache : optional
        The parallelism and cache of the candidate generation, as for :class:`~linkwise.COBS`.
    noise_probability : float in [0, 0.5), default=0.0
        Prior guess of the share of wrong answers. 0: every answer is
        trusted. Above 0: the answers are those of a belief
        (:class:`~linkwise.repair.NoisyAnswers`, the wrong-answer repair of
        :class:`~linkwise.NoiseRobustCOBRAS`): a must-link answer that
        nothing else confirms is checked with an extra question that closes a
        cycle with it, a contradiction is settled with a few more, and when
        an answer is believed wrong, weights and scores are computed again
        from every answer as believed (right answers: 0's questions, plus checks).
    random_state : int, RandomState instance or None
        Seeds the generation and the pair samples.

    Attributes
    ----------
    labels_, labels_history_ : ndarray of shape (n_samples,), (n_queries, n_samples)
        The selected clustering after the last answer, and after each question.
    best_, best_index_ : dict, int
        Parameters and index of the selected candidate.
    scores_ : ndarray of shape (n_candidates,)
        Answers each candidate agrees with.
    weights_ : ndarray of shape (n_candidates,)
        Committee weights, scaled so that the largest is 1.
    candidates_ : Candidates
        The generated clusterings and their parameters.
    sample_indices_ : ndarray or None
        Rows the candidates were generated on (None: all rows).
    corrections_ : list of Correction
        Each answer believed wrong (see :class:`~linkwise.NoiseRobustCOBRAS`;
        empty with ``noise_probability=0``).
    n_extra_queries_ : int
        Questions asked to repair answers (part of ``n_queries_``).
    constraints_, query_log_, n_queries_
        As for every active estimator.

    References
    ----------
    Van Craenendonck, T. and Blockeel, H. (2017). Constraint-based clustering
    selection. Machine Learning, 106(9-10), 1497-1521 (Algorithm 2).

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> grid = {"kmeans": {"n_clusters": [2, 3, 4], "n_seeds": 3},
    ...         "dbscan": {"eps": 8, "min_samples": [3, 6]}}
    >>> est = lw.ActiveCOBS(algorithms=["kmeans", "dbscan"], grid=grid, max_queries=10, random_state=0)
    >>> est = est.fit(X, lw.LabelOracle(y))
    >>> est.n_queries_, est.labels_history_.shape
    (10, (10, 147))
    >>> round(lw.metrics.ari(y, est.labels_), 2)
    0.72
    """

    anytime = True

    def __init__(self, *, algorithms=FAMILIES, grid=None, dbscan_noise="singletons", update_factor=2.0,
                 sample_size=200, max_queries=None, max_samples=1000, n_jobs=None, cache=None,
                 noise_probability=0.0, random_state=None):
        self.algorithms, self.grid, self.dbscan_noise = algorithms, grid, dbscan_noise
        self.update_factor, self.sample_size, self.max_queries = update_factor, sample_size, max_queries
        self.max_samples, self.n_jobs, self.cache = max_samples, n_jobs, cache
        self.noise_probability, self.random_state = noise_probability, random_state

    _parameter_constraints = {
        **ActiveEstimator._parameter_constraints,
        **CANDIDATE_CONSTRAINTS,
        "update_factor": [Interval(Real, 1, None, closed="left")],
        "sample_size": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "noise_probability": [Interval(Real, 0, 0.5, closed="left")],
    }

    def tolerates_contradictions(self):
        """Record every answer, one that contradicts earlier ones too.

        Returns
        -------
        bool
            Always True: the selection counts the answers each candidate
            satisfies, so a contradiction is no reason to stop.
        """
        return True  # selection counts answers, so a contradiction is no reason to stop

    def knowledge(self, ctx):
        """Return the belief the committee relies on, which checks every answered row.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit that is starting.

        Returns
        -------
        NoisyAnswers or ConstraintStore
            A belief that repairs wrong answers with ``noise_probability``
            above 0, else the answers as given.
        """
        return super().knowledge(ctx, lambda: _answered(self._belief, ctx))

    def questions(self, ctx):
        """Generate the candidates, then ask the sampled pair the weighted committee agrees on least.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this fit.

        Yields
        ------
        tuple of (int, int) or Rest
            The next question; the loop sends back its answer, which updates
            the weights, the scores and the selected clustering.
        """
        if not (ctx.resumed and "committee" in ctx.state):  # resumed: at the committee's rest, the candidates made
            owner = type(self).__name__
            spec = GridSpec(self.algorithms, self.grid, owner)
            rows, self._to_row = None, None
            if ctx.n_samples > self.max_samples:
                rows = sample_rows(ctx.n_samples, ctx.queryable, self.max_samples, ctx.rng)
                self._to_row = nearest_rows(ctx.X, rows)
            data = ctx.X if rows is None else ctx.X[rows]
            cands = candidates_for(data, spec, self.dbscan_noise, self.n_jobs, self.cache, ctx.rng, owner)
            self._global_row = np.arange(ctx.n_samples) if rows is None else rows
            self.candidates_, self.sample_indices_ = cands, rows
            self._ties, self._net = TieBreak(cands.labels), np.zeros(len(cands), dtype=np.intp)
            self.scores_ = np.zeros(len(cands), dtype=np.intp)
            self._select(ctx)
            self._answered = []  # sample positions of the pairs answered
        yield from committee_questions(ctx, self.candidates_.labels, self._global_row, self.sample_size,
                                       self._least_agreed, functools.partial(self._learn, ctx))

    def _learn(self, ctx, pair, together, answer, revised):
        """Take in the answer to the committee's question ``pair`` (sample positions) whose column is ``together``."""
        if answer is not None:
            self._answered.append(pair)
        if revised:  # an earlier answer is now believed wrong: score them all again
            self._net = self._rescore(ctx, self._answered, self._global_row)
        elif answer is not None:
            right = together == answer
            self._net += np.where(right, 1, -1)
            self.scores_ += right
        else:
            return
        self._select(ctx)

    def _least_agreed(self, together, unasked):
        """The weight rule: the unasked pair of the pool with the least weighted agreement ``|weights @ sign|``."""
        # +1 where a clustering puts the pair together, -1 where it separates it
        sign = np.where(together, 1.0, -1.0)
        agreement = np.abs(self.weights_ @ sign)
        agreement[~unasked] = np.inf
        # the product's rounding hangs on the BLAS and the threads: the pairs within rounding of the least
        # agreement are compared exactly, and the first of the exactly least is asked
        near = np.flatnonzero(agreement <= agreement.min() + _NEAR * self.weights_.sum())
        if near.size > 1:
            near = near[[np.argmin(np.abs(exact_dot(sign[:, near].T, self.weights_)))]]
        return int(near[0])

    def _rescore(self, ctx, answered, global_row):
        """Scores and right-minus-wrong counts from every answered pair (sample positions) as now believed."""
        believed = [ctx.knowledge.store.relation(int(global_row[i]), int(global_row[j])) for i, j in answered]
        ml, cl = (np.array([p for p, b in zip(answered, believed) if b is kind], dtype=np.intp).reshape(-1, 2)
                  for kind in (True, False))
        self.scores_ = satisfied(self.candidates_.labels, ml, cl)
        return 2 * self.scores_ - len(ml) - len(cl)

    def _select(self, ctx):
        self.weights_ = committee_weights(self._net, self.update_factor)
        self.best_index_ = self._ties.best(self.scores_, self.weights_)
        self.best_ = dict(self.candidates_.params[self.best_index_])
        labels = self.candidates_.labels[self.best_index_]
        ctx.labels = labels if self._to_row is None else labels[self._to_row]


def _answered(belief, ctx):
    """The representatives a noisy-answer belief checks: every answered row, with its current cluster.

    Every answer counts in the scores, so every answered row matters; rows
    no one asked about cannot close a cycle, so a check or repair question
    could not be about them anyway.
    """
    rows = np.unique(belief.graph.pairs())
    return rows, np.asarray(ctx.labels)[rows]
