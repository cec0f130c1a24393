"""Auto: the default active clusterer, good at every budget without knowing K.

It chooses among unsupervised clusterings while few answers are in, then
refines with COBRAS, and reports whichever clustering the answers support
best, a linear model fitted to them when no clustering does (see :class:`Auto`).
"""

import os
import numpy as np
from scipy.spatial.distance import cdist, pdist, squareform
from sklearn.metrics import silhouette_score

from linkwise._validation import InvalidParameterError, check_scalar
from linkwise.bayes import design_matrix, refit_labels
from linkwise.cobra import COBRAS, RepairAttributes, SeriesMetric
from linkwise.cobs import FAMILIES, agreement_matrix, candidates_for, check_common, draw_pairs, nearest_rows
from linkwise._experts import PrequentialRecord
from linkwise.loop import ActiveEstimator, Checkpoint

__all__ = ["Auto"]

# Rows the silhouette prior is computed on (a fixed-seed subsample of the generation rows).
_PRIOR_ROWS = 500
# A cluster of the chosen candidate seeds a COBRAS super-instance if it holds this share of the rows
# (and at most this many of the largest do); the rows of the others join the nearest seed.
_SEED_SHARE = 0.02
_MAX_SEEDS = 20
# Each committee question is the most doubted pair of a fresh random pool of this many pairs. Measured
# (benchmarks/results/auto.md): 100 did better than 50, 150, 200 and 1,000 pairs on the tuning datasets.
_POOL = 100
# Prior weight of the silhouette, in units of (log-odds of a right answer) per unit of silhouette.
_PRIOR_WEIGHT = 5.0
# Prior weight of having the given number of clusters, in the same units.
_K_WEIGHT = 0.5
# The fallback's logistic model sees at most this many principal components of the features (its fit time grows
# with their number: text or image embeddings of hundreds would make a person wait). Public: the benchmark uses it.
FALLBACK_DIMS = 64
# Sigmas of the Gaussian spectral kernels, as fractions of the median pairwise distance.
_SIGMA_FRACTIONS = (0.1, 0.25, 0.5, 1.0)


def _grid(data, n_clusters):
    """A compact version of the COBS grid (Van Craenendonck & Blockeel, 2017): 228 clusterings (K in 2..10)."""
    n = data.shape[0]  # small data: only what it can hold (K and kNN below n)
    ks = sorted(k for k in set(range(2, 11)) | ({n_clusters} if n_clusters else set()) if k < n) or [1]
    median = float(np.median(pdist(data[:_PRIOR_ROWS]))) or 1.0
    return {
        "kmeans": {"n_clusters": ks, "n_seeds": 5},
        "dbscan": {"eps": 20, "min_samples": [2, 3, 5, 8, 12, 20]},
        "spectral": {
            "n_clusters": ks,
            "n_neighbors": [k for k in (5, 10, 20) if k < n],
            "sigma": [round(median * f, 10) for f in _SIGMA_FRACTIONS],
        },
    }


def _silhouettes(data, labels, rng):
    """Silhouette of every candidate on a subsample (0 where it has one cluster or one per row)."""
    rows = rng.choice(data.shape[0], min(_PRIOR_ROWS, data.shape[0]), replace=False)
    dist = squareform(pdist(data[rows]))
    out = np.zeros(labels.shape[0])
    for c, lab in enumerate(labels[:, rows]):
        n_found = np.unique(lab).size
        if 1 < n_found < rows.size:
            out[c] = silhouette_score(dist, lab, metric="precomputed")
    return out


def _best_kmeans(data, cands, k):
    """Index of the K-means candidate with ``k`` clusters and the least inertia (K-means's own choice)."""
    runs = [c for c, p in enumerate(cands.params) if p["algorithm"] == "kmeans" and p["n_clusters"] == k]
    inertia = []
    for c in runs:
        labels = cands.labels[c]
        counts = np.bincount(labels).astype(float)
        sums = np.stack([np.bincount(labels, weights=col) for col in data.T], axis=1)
        inertia.append(np.sum(data**2) - np.sum(sums**2 / np.maximum(counts, 1)[:, None]))
    return runs[int(np.argmin(inertia))]


def _large_clusters(labels):
    """``np.unique(labels)``, each row's position in it, and the positions of the clusters holding enough rows
    to seed COBRAS (largest first, at most ``_MAX_SEEDS``)."""
    ids, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    big = np.argsort(-counts, kind="stable")[:_MAX_SEEDS]
    return ids, inverse, big[counts[big] >= max(2, _SEED_SHARE * labels.size)]


def _step(generator, value):
    """The next item of a question generator sent ``value``, or None when it is done."""
    try:
        return generator.send(value)
    except StopIteration:
        return None


def _mostly_singletons(labels):
    """Whether more than half the rows are alone in their cluster."""
    counts = np.unique(labels, return_inverse=True, return_counts=True)
    return np.count_nonzero(counts[2][counts[1]] == 1) > labels.size / 2


def _seeds(X, labels):
    """``labels`` with only the clusters holding enough rows; the other rows join the nearest of those."""
    ids, inverse, big = _large_clusters(labels)
    if big.size < 2:
        return None
    means = np.stack([X[inverse == c].mean(axis=0) for c in big])
    seed_of = np.full(ids.size, -1)
    seed_of[big] = np.arange(big.size)
    out = seed_of[inverse]
    lost = out < 0
    if lost.any():
        out[lost] = np.argmin(cdist(X[lost], means), axis=1)
    return out


class Auto(RepairAttributes, SeriesMetric, ActiveEstimator):
    """The default active clusterer: a good clustering after any number of answers.

    Auto needs neither the number of clusters nor a choice of method. It
    combines three published ideas in one question loop:

    1. *Selection among unsupervised clusterings* (COBS, Van Craenendonck &
       Blockeel 2017). Before the first question, K-means, DBSCAN and
       spectral clustering run over a compact grid of their parameters (228
       clusterings, K from 2 to 10). Each candidate is scored by a Bayesian
       posterior rather than a raw count, so that a large pool does not
       overfit a handful of answers: a prior from its silhouette, plus
       ``log(1 - noise)`` for each answer it agrees with and ``log(noise)``
       for each it contradicts. The candidate reported (and handed to COBRAS)
       is the one of highest posterior plus *consensus*: its mean agreement
       with the other candidates (the tie-break of :class:`~linkwise.COBS`,
       on the same scale as the silhouette), which keeps a degenerate
       partition that the silhouette favours (one large cluster beside a few
       tiny ones) from being chosen. The consensus does not weight the
       committee's questions, which would count its majority twice. With no
       answer this choice is the 0-question guard, and it stays the answer
       until answers outweigh it. With ``n_clusters`` given, K-means with
       that K is the 0-question answer instead.
    2. *Questions on which the committee disagrees* (active COBS): among a
       random sample of 100 pairs, the one whose answer the posterior-weighted
       candidates are least sure of.
    3. *Refinement by COBRAS* (Van Craenendonck et al. 2018) once the
       evidence says selection has done its work: the committee agrees on
       every pair of the sample, or the best candidate contradicts more
       answers than wrong answers would explain. COBRAS then starts from the
       chosen candidate (its large clusters are the first super-instances,
       every earlier answer is known) and splits and merges them further,
       with the wrong-answer repair of :class:`~linkwise.NoiseRobustCOBRAS`.
       Its clustering is reported unless the best candidate contradicts
       fewer answers.
    4. *A linear fallback* for data whose classes are no clustering of the
       features: while the clustering reported (the candidate, or COBRAS's
       when it does no better) contradicts a quarter of the answers or more
       (at least 3), the logistic model of Bayesian active clustering (Pei,
       Liu & Fern 2015) is fitted to the answers by MAP, started from the
       candidate's largest clusters (K = ``n_clusters``, else the candidate's
       clusters holding 2 % of the rows), and reported if it contradicts
       fewer. It only changes what is reported, never the questions.

    Every answer goes to a belief (:class:`~linkwise.cobra.NoisyAnswers`)
    from the first question. Selection checks none (a clean run selects
    question for question as with trusted answers); under COBRAS, doubtful
    decisions are checked and contradictions repaired, and whenever an
    answer is then believed wrong, the candidates are scored again on the
    answers as believed (which also decides between COBRAS's clustering and
    the best candidate). ``noise_probability=0`` trusts every answer.

    Upfront work before the first question: the candidates are generated on
    at most ``max_samples`` rows (a few seconds on one core at 1,000 rows);
    between questions the work is a few vector operations over the
    candidates and a COBRAS step.

    Parameters
    ----------
    max_queries : int or None, default=None
        The budget.
    n_clusters : int or None, default=None
        The number of clusters, if known: K-means with that K (the run of
        least inertia) is the answer before any question, and K-cluster
        candidates keep a prior advantage (answers can still overrule it).
    noise : float in (0, 0.5), default=0.1
        The share of wrong answers the posterior allows for.
    noise_probability : float in [0, 0.5), default=0.05
        Prior guess of the share of wrong answers for the wrong-answer repair
        (see :class:`~linkwise.NoiseRobustCOBRAS`); 0 trusts every answer:
        no repair, no check, COBRAS plain.
    max_samples : int, default=1000
        Candidates are generated on at most this many rows (a random sample;
        every other row takes the label of its nearest sampled row), which
        bounds the work before the first question.
    n_jobs : int, optional
        joblib parallelism of the candidate generation.
    metric : {"euclidean", "dtw", "kshape"}, default="euclidean"
        For time series (see :class:`~linkwise.COBRAS`): COBRAS refines under
        this distance, and the candidates are generated on a 16-dimensional
        embedding of it (classical MDS of the distance matrix).
    window : float in [0, 1], default=0.1
        DTW's band, as a fraction of the series length.
    cache : str or path, optional
        Directory where generated candidates (and series distance matrices)
        are stored and found again.
    random_state : int, RandomState instance or None, default=None
        Seeds the generation, the pair samples and COBRAS.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    labels_history_ : ndarray of shape (n_queries_, n_samples)
        The clustering after each question.
    candidates_ : Candidates
        The generated clusterings.
    log_posterior_ : ndarray of shape (n_candidates,)
        Unnormalised log posterior of each candidate.
    switched_at_ : int or None
        Questions asked when COBRAS took over (None: it never did).
    corrections_ : list of Correction
        Each answer believed wrong (see :class:`~linkwise.NoiseRobustCOBRAS`).
    n_extra_queries_ : int
        Questions asked to check or repair answers (part of ``n_queries_``).
    constraints_, query_log_, n_queries_
        As for every active estimator.

    References
    ----------
    Van Craenendonck, T. and Blockeel, H. (2017). Constraint-based clustering
    selection. Machine Learning, 106(9-10), 1497-1521.

    Van Craenendonck, T., Dumančić, S., Van Wolputte, E. and Blockeel, H.
    (2018). COBRAS: Interactive clustering with pairwise queries.
    Intelligent Data Analysis (IDA), LNCS 11191, 353-366.

    Pei, Y., Liu, L.-P. and Fern, X. Z. (2015). Bayesian active clustering
    with pairwise constraints. ECML PKDD 2015, LNAI 9284, 235-250.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> est = lw.Auto(max_queries=10, random_state=0).fit(X, lw.LabelOracle(y))
    >>> est.n_queries_, est.labels_history_.shape
    (10, (10, 147))
    >>> lw.metrics.ari(y, est.labels_) > 0.5
    True
    """

    _anytime = True

    def __init__(
        self,
        *,
        max_queries=None,
        n_clusters=None,
        noise=0.1,
        noise_probability=0.05,
        max_samples=1000,
        n_jobs=None,
        metric="euclidean",
        window=0.1,
        cache=None,
        random_state=None,
    ):
        self.max_queries = max_queries
        self.n_clusters = n_clusters
        self.noise = noise
        self.noise_probability = noise_probability
        self.max_samples = max_samples
        self.n_jobs = n_jobs
        self.metric, self.window, self.cache = metric, window, cache
        self.random_state = random_state

    def _validate_params(self):
        super()._validate_params()
        check_scalar(self.n_clusters, "n_clusters", self, kind="int", low=1, none_ok=True)
        check_scalar(self.noise, "noise", self, kind="float", low=0.0, high=0.5, include_low=False, include_high=False)
        check_scalar(self.max_samples, "max_samples", self, kind="int", low=2)
        check_scalar(
            self.noise_probability, "noise_probability", self, kind="float", low=0.0, high=0.5, include_high=False
        )

    @property
    def evidence_(self):
        """Log evidence of each expert: the sum of the log probabilities it gave to the answers before them."""
        return dict(self._record.log_evidence)

    def _tolerant_constraints(self):
        return True  # answers are counted, so a contradiction (a wrong answer) is no reason to stop

    def _focus(self):
        """What the belief checks: nothing before COBRAS runs and some answer is known wrong (every answer is
        recorded from the first; a clean run asks no check question)."""
        none = np.empty(0, dtype=np.intp)
        if self._cobras is None or not getattr(self._belief, "graph", None) or not self._belief.graph.contradicted:
            return none, none
        return self._cobras._focus()

    # -- the question generator ---------------------------------------------------
    def _questions(self, ctx):
        self._pairs, self._answers, self._n_seen, self._revision = [], [], 0, 0
        self._cobras, self.switched_at_, self._pool, self._logistic = None, None, None, None
        self._generate(ctx)
        names = ("cobras", "candidate") + (("kmeans",) if self._guard is not None else ()) + (
            ("logistic",) if self.metric == "euclidean" else ())
        self._record = PrequentialRecord(names)
        cobras, pending = None, None  # COBRAS's generator and the item it yielded last (not yet asked)
        self._own_same = np.zeros(2)  # answers "same" to COBRAS's questions, and their number
        while True:
            self._score(ctx)
            self._refit(ctx)
            pair = None
            V = os.environ.get("LW_V")
            if V == "4":
                if cobras is None and not ctx.informed and not self._old_rejected():
                    pair = self._committee_question(ctx)
            elif not ctx.informed and (V != "3" and self._leader(ctx)[0] in ("candidate", "kmeans") or V == "3"):
                pair = self._committee_question(ctx)  # None: the candidates agree on every pair sampled
            if pair is None:
                if cobras is None:  # COBRAS starts from the candidate stood by (its large clusters), knowing every answer
                    self.switched_at_ = ctx.n_queries
                    self._cobras = COBRAS(metric=self.metric, window=self.window, cache=self.cache)
                    cobras = self._cobras._questions(ctx, seeds=_seeds(ctx.X, self._cand_full(self._best())))
                if pending is None:
                    pending = _step(cobras, None)
                if pending is None:  # COBRAS has nothing left to ask
                    if (pair := self._committee_question(ctx)) is None:
                        return
                elif isinstance(pending, Checkpoint):
                    pending = _step(cobras, (yield pending))
                    continue
            asked = pair is None
            i, j = pending if asked else pair
            predictions = self._predict(ctx, i, j, asked)
            n_log = len(ctx.log)
            answer = yield (i, j)
            if asked:
                pending = _step(cobras, answer)
            if len(ctx.log) > n_log and ctx.log[n_log][2] is not None:  # charged, not known already: evidence
                self._record.observe(predictions, ctx.log[n_log][2])
                self._own_same += asked * np.array([ctx.log[n_log][2], 1])

    def _score(self, ctx):
        """Score the candidates on the answers given since the last call (``ctx.log``).

        When the belief has been revised since (an earlier answer is now
        believed wrong), every answer is scored again, as now believed.
        """
        if ctx.revision != self._revision:
            self._revision, self._n_seen = ctx.revision, 0
            self._pairs, self._answers, self.log_posterior_ = [], [], self._prior.copy()
        for i, j, answer in ctx.log[self._n_seen :]:
            if answer is not None:
                if self._revision:  # a belief that has revised answers: each as believed now
                    answer = ctx.knowledge.store.relation(i, j)
                self._pairs.append((i, j))
                self._answers.append(answer)
                agree = (self._cand[:, self._to_gen[i]] == self._cand[:, self._to_gen[j]]) == answer
                self.log_posterior_ += np.where(agree, self._log_right, self._log_wrong)
        self._n_seen = len(ctx.log)

    def _committee_question(self, ctx):
        """The pair of the sampled pool whose answer the posterior-weighted candidates doubt most, or None when fewer
        than ``noise`` of the weight dissents on every pair of it and of a fresh pool: an answer against the
        majority would then as likely be a wrong answer as evidence."""
        rows = self._gen_rows
        queryable = np.flatnonzero(ctx.queryable_mask[rows])  # positions within the generation rows
        n_code = int(queryable.max()) + 1 if queryable.size else 1
        for fresh in (False, True):
            if fresh or self._pool is None or not self._pool[2].any():
                codes = draw_pairs(ctx.rng, queryable, n_code, _POOL, self._seen)
                if not codes.size:
                    return None
                self._seen.update(codes.tolist())
                self._pool = (codes // n_code, codes % n_code, np.ones(codes.size, dtype=bool))
            a, b, unasked = self._pool
            doubt = self._vote(a, b)
            doubt = np.minimum(doubt, 1 - doubt)
            doubt[~unasked] = -1.0
            k = int(np.argmax(doubt))
            if doubt[k] >= (0.05 if os.environ.get("LW_V") == "4" else self.noise):
                unasked[k] = False
                return int(rows[a[k]]), int(rows[b[k]])
        return None

    def _old_rejected(self):
        if not self._answers:
            return False
        labels = self._cand_full(self._best())
        pairs = np.asarray(self._pairs)
        wrong = np.count_nonzero((labels[pairs[:, 0]] == labels[pairs[:, 1]]) != np.asarray(self._answers))
        return wrong > max(3, 0.25 * len(self._answers))

    def _vote(self, a, b):
        """The posterior-weighted share of candidates that put generation rows ``a`` and ``b`` together."""
        w = np.exp(self.log_posterior_ - self.log_posterior_.max())
        return (w @ (self._cand[:, a] == self._cand[:, b])) / w.sum()

    def _predict(self, ctx, i, j, asked):
        """Each expert's probability that ``i`` and ``j`` are answered "same", before the answer.

        COBRAS has no verdict on a pair it asks (two of its clusters it has not yet decided to merge): it predicts
        the share of "same" among the answers to its questions so far (Laplace's estimate)."""
        record, a, b = self._record, self._to_gen[i], self._to_gen[j]
        best = self._cand[self._best()]
        predictions = {}
        for name, labels, x, y in (
            ("candidate", best, a, b),
            ("cobras", best if self._cobras is None else self._cobras._current_labels(ctx), *(
                (a, b) if self._cobras is None else (i, j))),
            ("kmeans", None if self._guard is None else self._cand[self._guard], a, b),
            ("logistic", best if self._logistic is None else self._logistic[1], *(
                (a, b) if self._logistic is None else (i, j))),
        ):
            if name in record.log_evidence:
                predictions[name] = record.verdict(name, labels[x] == labels[y])
        if asked:
            predictions["cobras"] = (self._own_same[0] + 1.0) / (self._own_same[1] + 2.0)
        return predictions

    def _refit(self, ctx):
        """Refit the logistic model (Pei et al.) to the answers as believed when their number reaches a power of 2:
        between refits it predicts with its last fit, so its record stays prequential."""
        if "logistic" not in self._record.log_evidence or not self._answers:
            return
        size = 1 << (len(self._answers).bit_length() - 1)
        if self._logistic is not None and self._logistic[0] == (size, self._revision):
            return
        best = self._cand_full(self._best())
        k = self.n_clusters or int(np.clip(_large_clusters(best)[2].size, 2, 10))
        pairs, answers = self._pairs[:size], self._answers[:size]
        rows = np.union1d(self._gen_rows, np.ravel(pairs))
        self._logistic = ((size, self._revision), refit_labels(self._inputs(ctx), rows, pairs, answers, best[rows], k))

    def _generate(self, ctx):
        owner = type(self).__name__
        n, space = ctx.n_samples, self._series_space(ctx)
        if self.n_clusters is not None and self.n_clusters > n:
            raise InvalidParameterError(
                f"The 'n_clusters' parameter of {owner} must be at most the number of samples, "
                f"got n_clusters={self.n_clusters} for n_samples={n}."
            )
        if n > self.max_samples:
            rows = np.sort(ctx.rng.choice(n, self.max_samples, replace=False))
            to_gen = nearest_rows(ctx.X, rows) if space is None else np.argmin(space.D[:, rows], axis=1)
        else:
            rows, to_gen = np.arange(n), np.arange(n)
        data = ctx.X[rows] if space is None else space.embedding(rows)
        k = None if self.n_clusters is None else min(self.n_clusters, rows.size - 1)
        spec = check_common(owner, (FAMILIES, _grid(data, k)), "singletons", self.n_jobs, self.cache)
        cands = candidates_for(data, spec, "singletons", self.n_jobs, self.cache, ctx.rng, owner)
        self.candidates_ = cands
        self._gen_rows, self._to_gen, self._cand = rows, to_gen, cands.labels
        self._log_right, self._log_wrong = np.log1p(-self.noise), np.log(self.noise)
        prior_scale = _PRIOR_WEIGHT * (self._log_right - self._log_wrong)
        self._prior = prior_scale * _silhouettes(data, cands.labels, np.random.RandomState(0))
        self._consensus = prior_scale * agreement_matrix(cands.labels).mean(axis=1)
        if k is not None:  # K-means with the given K is the 0-question answer, and K is believed until answers object
            bonus = _K_WEIGHT * (self._log_right - self._log_wrong)
            self._prior[cands.n_clusters_found == k] += bonus
            guard = _best_kmeans(data, cands, k)
            self._consensus[guard] = (self._prior + self._consensus).max() - self._prior[guard] + bonus
        self.log_posterior_ = self._prior.copy()
        self._guard = None if k is None else guard
        self._seen = set()  # pairs sampled by the committee (coded by draw_pairs)
        ctx.labels = self._cand_full(self._best())
        if space is None and ctx.X.shape[1] > FALLBACK_DIMS:  # the projection is upfront work, not a wait later
            self._inputs(ctx)

    def _best(self):
        """The candidate Auto stands by: highest posterior plus consensus."""
        return int(np.argmax(self.log_posterior_ + self._consensus))

    def _cand_full(self, c):
        return self._cand[c][self._to_gen]

    # -- what is reported -----------------------------------------------------------
    def _current_labels(self, ctx):
        self._score(ctx)
        if self._cobras is not None and ctx.informed:  # COBRAS honours the feedback
            return self._cobras._current_labels(ctx)
        return self._leader(ctx)[1]

    def _leader(self, ctx):
        """``(name, labels)`` of the expert with the most evidence among those that leave at most half the rows
        alone (all of them if none does). On equal evidence: COBRAS (it refines the candidate), the candidate,
        K-means with the given K, the logistic model."""
        clusterings = {
            "cobras": None if self._cobras is None else lambda: self._cobras._current_labels(ctx),
            "candidate": lambda: self._cand_full(self._best()).astype(np.intp),
            "kmeans": None if self._guard is None else lambda: self._cand_full(self._guard).astype(np.intp),
            "logistic": None if self._logistic is None else lambda: self._logistic[1],
        }
        order = [name for name, labels in clusterings.items() if labels is not None]
        order.sort(key=lambda name: -self._record.log_evidence[name])  # stable: ties keep the order above
        for name in order:
            labels = clusterings[name]()
            if not _mostly_singletons(labels):
                return name, labels
        return order[0], clusterings[order[0]]()

    def _inputs(self, ctx):
        """The fallback's model inputs, made once per fit and kept on ``ctx`` (not with the fitted estimator)."""
        if getattr(ctx, "design", None) is None:
            ctx.design = design_matrix(ctx.X, FALLBACK_DIMS, self._gen_rows)
        return ctx.design
