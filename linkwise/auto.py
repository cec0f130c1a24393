"""Auto: the default active clusterer, good at every budget without knowing K.

It chooses among unsupervised clusterings while few answers are in, then
refines with COBRAS, and hands over to Bayesian active clustering's linear
model when the answers reject every clustering (see :class:`Auto`).
"""

from numbers import Integral, Real

import numpy as np
from scipy.spatial.distance import cdist, pdist, squareform
from sklearn.metrics import silhouette_score

from linkwise._validation import Interval, check_n_clusters
from linkwise.bayes import MAX_INPUT_DIMS, BayesianActiveClustering, design_matrix, refit_labels
from linkwise.cobra import COBRAS, SeriesMetric
from linkwise.cobs import CANDIDATE_CONSTRAINTS, FAMILIES, GridSpec, agreement_matrix, candidates_for, nearest_rows
from linkwise.committee import committee_questions, sample_rows
from linkwise.loop import ActiveEstimator, Rest
from linkwise.repair import RepairAttributes

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
# The committee agrees on a pair when fewer than this share of its (posterior) weight disagrees.
_AGREED = 0.05
# Prior weight of the silhouette, in units of (log-odds of a right answer) per unit of silhouette.
_PRIOR_WEIGHT = 5.0
# Prior weight of having the given number of clusters, in the same units.
_K_WEIGHT = 0.5
# The best candidate is rejected when it contradicts more than this many answers and this share of them.
_REJECT_MIN = 3
_REJECT_SHARE = 0.25
# The fallback's logistic model sees at most this many principal components of the features (its fit time grows
# with their number: text or image embeddings of hundreds would make a person wait), as Bayesian active clustering
# does. Public: the benchmark uses it.
FALLBACK_DIMS = MAX_INPUT_DIMS
# Sigmas of the Gaussian spectral kernels, as fractions of the median pairwise distance.
_SIGMA_FRACTIONS = (0.1, 0.25, 0.5, 1.0)


def _grid(data, n_clusters):
    """A compact version of the COBS grid (Van Craenendonck & Blockeel, 2017): 228 clusterings (K in 2..10)."""
    n = data.shape[0]  # small data: only what it can hold (K and kNN below n)
    ks = sorted(k for k in set(range(2, 11)) | ({n_clusters} if n_clusters else set()) if k < n) or [1]
    median = float(np.median(pdist(data[:_PRIOR_ROWS]))) or 1.0
    identical = bool((data == data[0]).all())  # no distance to spread DBSCAN's eps over; any eps finds one cluster
    return {
        "kmeans": {"n_clusters": ks, "n_seeds": 5},
        "dbscan": {"eps": [1.0] if identical else 20, "min_samples": [2, 3, 5, 8, 12, 20]},
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
    to seed COBRAS (largest first, at most ``_MAX_SEEDS``). Labels are non-negative: counted, not sorted (a sort
    of a million labels costs tens of milliseconds)."""
    counts = np.bincount(labels)
    ids = np.flatnonzero(counts)
    position = np.cumsum(counts > 0) - 1
    counts = counts[ids]
    big = np.argsort(-counts, kind="stable")[:_MAX_SEEDS]
    return ids, position[labels], big[counts[big] >= max(2, _SEED_SHARE * labels.size)]


def _mostly_singletons(labels):
    """Whether more than half the (non-negative) labels are alone in their cluster."""
    return np.count_nonzero(np.bincount(labels) == 1) > labels.size / 2


def _seeds(X, labels):
    """``labels`` with only the clusters holding enough rows; the other rows join the nearest of those."""
    ids, inverse, big = _large_clusters(labels)
    if big.size < 2:
        return None
    seed_of = np.full(ids.size, -1)
    seed_of[big] = np.arange(big.size)
    out = seed_of[inverse]
    lost = out < 0
    if lost.any():
        # each large cluster's mean from running sums in row order (what X[inverse == c].mean adds), a feature a pass
        sums = np.stack([np.bincount(inverse, weights=np.ascontiguousarray(X[:, f]), minlength=ids.size)[big]
                         for f in range(X.shape[1])], axis=1)
        means = sums / np.bincount(inverse, minlength=ids.size)[big][:, None]
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
    4. *A linear model* for data whose classes are no clustering of the
       features. Once the answers reject every clustering (the best
       candidate contradicts a quarter of them or more, at least 3, and
       COBRAS's refinement no fewer), Bayesian active clustering (Pei, Liu &
       Fern 2015) takes over: its logistic model (K = ``n_clusters``, else
       the candidate's clusters holding 2 % of the rows, 2 to 10) is
       conditioned on every answer so far, it asks its own questions (the
       pair whose answer is most uncertain) and its MAP clustering is
       reported (``bayes_at_``). Before that, while the candidate
       contradicts that many answers without being rejected yet, the same
       model fitted to the answers by MAP is reported if it contradicts
       fewer. Time series (another metric) and feedback on clusters stay
       with COBRAS.
    5. *No clustering of mostly singletons*: one that leaves more than half
       the rows alone (a density clustering's noise agrees with most answers,
       as most pairs are in different clusters) is replaced by the clustering
       of fewer singletons that contradicts the fewest answers: COBRAS's (when
       it runs), the logistic model's (when fitted), or the same with its
       small clusters joined to the nearest large one. Again only the report.

    Every answer goes to a belief (:class:`~linkwise.repair.NoisyAnswers`)
    from the first question. Selection checks none (a clean run selects
    question for question as with trusted answers); under COBRAS, doubtful
    decisions are checked and contradictions repaired, and whenever an
    answer is then believed wrong, the candidates are scored again on the
    answers as believed (which also decides between COBRAS's clustering and
    the best candidate). ``noise_probability=0`` trusts every answer.
    After the hand-over Bayesian active clustering conditions on the answers
    as believed (its likelihood allows for 5 % of wrong answers; a revised
    belief rebuilds its particles) and on relations stated in a session
    (``inform``, ``mark``); its questions close no cycle of the answers it
    holds, so the repair rarely has a contradiction to resolve, and checks
    no decision.

    Upfront work before the first question: the candidates are generated on
    at most ``max_samples`` rows (a few seconds on one core at 1,000 rows);
    between questions the work is a few vector operations over the
    candidates and a COBRAS step, after the hand-over a particle update
    (a few ms to 0.3 s: ``benchmarks/results/auto.md``).

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
        Candidates are generated on at most this many rows (the queryable
        rows first, as many as fit, then random others; every other row takes
        the label of its nearest sampled row), which bounds the work before
        the first question.
    n_jobs : int, optional
        The joblib parallelism of the candidate generation.
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
    labels_history_ : ndarray of shape (``n_queries_``, n_samples)
        The clustering after each question.
    candidates_ : Candidates
        The generated clusterings.
    log_posterior_ : ndarray of shape (n_candidates,)
        Unnormalised log posterior of each candidate.
    switched_at_ : int or None
        Questions asked when COBRAS took over (None: it never did).
    bayes_at_ : int or None
        Questions asked when Bayesian active clustering took over (None: it
        never did).
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

    anytime = True

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

    _parameter_constraints = {
        **ActiveEstimator._parameter_constraints,
        **SeriesMetric._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "noise": [Interval(Real, 0, 0.5, closed="neither")],
        "noise_probability": [Interval(Real, 0, 0.5, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "n_jobs": CANDIDATE_CONSTRAINTS["n_jobs"],
    }

    def check_params_vs_input(self, X):
        """No more clusters than rows.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            The data, validated.

        Raises
        ------
        InvalidParameterError
            ``n_clusters`` is above the number of rows.
        """
        if self.n_clusters is not None:
            check_n_clusters(self.n_clusters, X.shape[0], self)

    def tolerates_contradictions(self):
        """Record every answer, one that contradicts earlier ones too.

        Returns
        -------
        bool
            Always True: Auto counts the answers each candidate violates, so a
            contradiction (a wrong answer) is evidence, not a reason to stop.
        """
        return True  # answers are counted, so a contradiction (a wrong answer) is no reason to stop

    def stop_rule(self):
        """The rule of "you can stop" chosen on Auto's own runs of the benchmark.

        Either the moves of the last 40 answers, each answer that
        contradicted the clustering counting as 1 more, add up to at most
        0.2 with at most a tenth of the rows nearer another cluster's centre
        than their own (Auto often takes in an answer its clustering got
        wrong without changing the clustering at once); or, from the 8th
        answer, the last 8 changed nothing, the clustering contradicts no
        answer, at most 5 % of the rows are misplaced and the candidates
        agree (:meth:`doubt` at most 0.2 on every probe pair: a percentile
        of it told more easy runs early only by rules that stopped unsafely
        on the tuning half): the early signal on easy data.
        On the tuning half a person who stopped at the first signal lost at
        most 0.02 ARI in 91 % of the runs where it was shown (92 % on the
        held-out half), and on easy data (ARI 0.9 after 10 answers, no
        later gain) it came before the 20th answer in 27 % of the runs (56 %
        held out; ``benchmarks/results/stability.md``).

        Returns
        -------
        dict
            Keyword arguments of :class:`~linkwise.StabilityMonitor`.
        """
        return {"window": 40, "share": 0.0, "max_drift": 0.2, "count_contradicted": True, "max_misplaced": 0.1,
                "early_window": 8, "early_max_misplaced": 0.05, "early_max_doubt": 0.2, "doubt_quantile": 1.0}

    def doubt(self, pairs):
        """The candidates' doubt on each of ``pairs``: the share of posterior weight against their majority.

        Weighted by the answers selection scored them on: once COBRAS refines
        the chosen candidate or Bayesian active clustering takes over, the
        weights at the end of selection (the calibration of the stop signal
        read the same).

        Parameters
        ----------
        pairs : ndarray of int of shape (n_pairs, 2)
            Row indices.

        Returns
        -------
        ndarray of float in [0, 0.5] of shape (n_pairs,) or None
            0 where the candidates agree; None before they are generated.
        """
        cand, log_posterior = getattr(self, "_cand", None), getattr(self, "log_posterior_", None)
        if cand is None or log_posterior is None:
            return None
        probed = getattr(self, "_probed", None)  # the candidates never change: their agreement on a session's fixed
        if probed is None or probed[0] is not pairs or probed[1] is not cand:  # probe pairs is computed once
            a, b = self._to_gen[pairs[:, 0]], self._to_gen[pairs[:, 1]]
            probed = self._probed = (pairs, cand, (cand[:, a] == cand[:, b]).astype(float))
        w = np.exp(log_posterior - log_posterior.max())
        together = (w @ probed[2]) / w.sum()
        return np.clip(np.minimum(together, 1 - together), 0.0, 0.5)  # a share of rounded sums can pass 1

    def __getstate__(self):  # the probe pairs' agreement is a cache of doubt(): not pickled, not compared
        state = super().__getstate__()
        state.pop("_probed", None)
        return state

    def focus(self):
        """Return the rows the wrong-answer repair checks, and their clusters.

        Returns
        -------
        rows : ndarray of int
            COBRAS's super-instance representatives while it asks; none
            before (every answer is recorded from the first, but the
            selection among candidates checks none) nor after Bayesian active
            clustering takes over (no merge of COBRAS's rests on its answers).
        clusters : ndarray of int
            The cluster of each of ``rows``.
        """
        none = np.empty(0, dtype=np.intp)
        return (none, none) if self._cobras is None or self._bayes is not None else self._cobras.focus()

    # -- the question generator ---------------------------------------------------
    def questions(self, ctx):
        """Select a candidate clustering by committee questions, then refine it with COBRAS.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this fit.

        Yields
        ------
        tuple of (int, int), Checkpoint or Rest
            The next question; the loop sends back its answer. While the
            answers still tell the candidates apart, a pair they disagree on;
            then COBRAS's questions, starting from the best candidate's
            large clusters. It rests (:class:`~linkwise.loop.Rest`) before
            each committee question, each split of COBRAS and each question
            of Bayesian active clustering.
        """
        phase = ctx.state.get("auto") if ctx.resumed else None  # resumed: the phase the run rested in
        if phase == "bayes":
            yield from self._bayes.questions(ctx, inputs=self._inputs(ctx)[:, :-1])
            return
        if phase == "cobras":
            yield from self._refine(ctx, self._cobras.questions(ctx))
            return
        if phase is None:
            self._pairs, self._answers, self._n_seen, self._revision = [], [], 0, 0
            self._cobras, self._bayes, self.switched_at_, self.bayes_at_ = None, None, None, None
            self._refitted = None  # the fallback's last fit: ((answers, revision), labels)
            ctx.state["auto"] = "select"
        yield from self._select(ctx, resumed=phase == "select")
        self.switched_at_ = ctx.n_queries
        if self._rejected() and self._may_hand_over(ctx):
            yield from self._bayes_questions(ctx)
            return
        # COBRAS starts from the chosen candidate (its merging phase checks the large clusters), draws from ctx.rng
        self._cobras = COBRAS(metric=self.metric, window=self.window, cache=self.cache)
        ctx.state["auto"] = "cobras"
        yield from self._refine(ctx, self._cobras.questions(ctx, seeds=_seeds(ctx.X, self._cand_full(self._best()))))

    def _refine(self, ctx, cobras):
        """COBRAS's questions (its generator ``cobras``) until the answers reject its refinement too, then those of
        Bayesian active clustering."""
        answer = None
        while True:
            try:
                question = cobras.send(answer)
            except StopIteration:
                return
            answer = yield question
            if (isinstance(question, tuple) and not isinstance(question, Rest) and self._may_hand_over(ctx)
                    and self._unexplained(ctx)):
                cobras.close()
                yield from self._bayes_questions(ctx)
                return

    def _may_hand_over(self, ctx):
        """Bayesian active clustering can take over: Euclidean data, and no feedback on clusters (COBRAS's)."""
        return self.metric == "euclidean" and not ctx.informed

    def _unexplained(self, ctx):
        """Whether the candidate contradicts the answers the fallback cannot ignore and COBRAS's refinement of it
        no fewer (the fallback's test, so the hand-over comes when the fallback would start reporting)."""
        self._score(ctx)
        wrong = self._violations(self._cand_full(self._best()))
        return wrong >= self._limit() and self._violations(self._cobras.current_labels(ctx)) >= wrong

    def _limit(self):
        """Contradicted answers that wrong answers no longer explain: a quarter of them, at least 3. Reaching it
        brings the fallback; exceeding it rejects the candidate (selection ends)."""
        return max(_REJECT_MIN, _REJECT_SHARE * len(self._answers))

    def _model_k(self, best):
        """The logistic model's number of clusters: ``n_clusters``, else the candidate ``best``'s large ones (2-10)."""
        return self.n_clusters or int(np.clip(_large_clusters(best)[2].size, 2, 10))

    def _bayes_questions(self, ctx):
        """Bayesian active clustering's questions from now on, its particles conditioned on every answer so far."""
        self.bayes_at_, ctx.state["auto"] = ctx.n_queries, "bayes"
        self._bayes = BayesianActiveClustering(self._model_k(self._cand_full(self._best())), criterion="uncertain")
        yield from self._bayes.questions(ctx, inputs=self._inputs(ctx)[:, :-1])

    def _score(self, ctx):
        """Score the candidates on the answers given since the last call (``ctx.log``).

        When the belief has been revised since (an earlier answer is now
        believed wrong), every answer is scored again, as now believed.
        """
        if ctx.revision != self._revision:
            self._revision, self._n_seen = ctx.revision, 0
            self._pairs, self._answers, self.log_posterior_ = [], [], self._prior.copy()
        for i, j, answer in ctx.believed(ctx.log[self._n_seen :]):  # after a revision, each as believed now
            self._pairs.append((i, j))
            self._answers.append(answer)
            agree = (self._cand[:, self._to_gen[i]] == self._cand[:, self._to_gen[j]]) == answer
            self.log_posterior_ += np.where(agree, self._log_right, self._log_wrong)
        self._n_seen = len(ctx.log)

    def _select(self, ctx, resumed=False):
        """Committee questions while selection among the candidates is informative (a generator); ``resumed``:
        from the committee's rest, the candidates generated."""
        if not resumed:
            self._generate(ctx)

        def choose(together, unasked):  # the weight rule: the posterior's
            w = np.exp(self.log_posterior_ - self.log_posterior_.max())
            p = (w @ together.astype(float)) / w.sum()
            doubt = np.minimum(p, 1 - p)
            doubt[~unasked] = -1.0
            k = int(np.argmax(doubt))
            # the committee agrees, the answers reject it, or feedback came (COBRAS uses it): refine
            return None if doubt[k] < _AGREED or self._rejected() or ctx.informed else k

        yield from committee_questions(ctx, self._cand, self._gen_rows, _POOL, choose, lambda *_: self._score(ctx))

    def _rejected(self):
        """Whether the best candidate contradicts more answers than noise explains."""
        if not self._answers:
            return False
        best = self._best()
        return self._violations(self._cand_full(best)) > self._limit()

    def _generate(self, ctx):
        owner = type(self).__name__
        n, space = ctx.n_samples, self._series_space(ctx)
        if n > self.max_samples:
            rows = sample_rows(n, ctx.queryable, self.max_samples, ctx.rng)  # every queryable row that fits
            to_gen = nearest_rows(ctx.X, rows) if space is None else np.argmin(space.D[:, rows], axis=1)
        else:
            rows, to_gen = np.arange(n), np.arange(n)
        data = ctx.X[rows] if space is None else space.embedding(rows)
        k = None if self.n_clusters is None else min(self.n_clusters, rows.size - 1)
        spec = GridSpec(FAMILIES, _grid(data, k), owner)
        cands = candidates_for(data, spec, "singletons", self.n_jobs, self.cache, ctx.rng, owner)
        self.candidates_ = cands
        self._gen_rows, self._to_gen, self._cand = rows, to_gen, cands.labels
        for fixed in (to_gen, cands.labels):  # never changed: the copies of a session's state share them
            fixed.flags.writeable = False
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
        ctx.labels = self._cand_full(self._best())
        if space is None and ctx.X.shape[1] > FALLBACK_DIMS:  # the projection is upfront work, not a wait later
            self._inputs(ctx)

    def _best(self):
        """The candidate Auto stands by: highest posterior plus consensus."""
        return int(np.argmax(self.log_posterior_ + self._consensus))

    def _cand_full(self, c):
        return self._cand[c][self._to_gen]

    def _violations(self, labels):
        if not self._pairs:
            return 0
        pairs = np.asarray(self._pairs)
        same = labels[pairs[:, 0]] == labels[pairs[:, 1]]
        return int(np.count_nonzero(same != np.asarray(self._answers)))

    # -- what is reported -----------------------------------------------------------
    def current_labels(self, ctx):
        """Return the clustering that best explains the answers so far.

        The best-scored candidate, or COBRAS's refinement of it once COBRAS
        runs and contradicts no more answers (always when the person gave
        feedback on clusters); a logistic model fitted to the answers
        replaces it when that contradicts far fewer of them.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit or session.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            A label per row.
        """
        if self._bayes is not None:  # its MAP clustering, given the relations stated since too
            return self._bayes.current_labels(ctx)
        self._score(ctx)
        best = self._cand_full(self._best()).astype(np.intp)
        report, wrong = best, self._violations(best)
        if self._cobras is not None:
            refined = self._cobras.current_labels(ctx)
            if ctx.informed:  # COBRAS honours the feedback
                return refined
            refined_wrong = self._violations(refined)
            if refined_wrong < wrong:  # COBRAS's refinement explains the answers better than the candidate
                return refined
            if refined_wrong == wrong:
                report = refined
        return self._clustered(ctx, self._fallback(ctx, report, wrong, best))

    def _clustered(self, ctx, labels):
        """``labels``, unless more than half the rows are alone in a cluster (a density clustering's noise): then
        the clustering of fewer singletons that contradicts the fewest answers among COBRAS's, the logistic model's
        (if fitted) and ``labels`` with every small cluster joined to the nearest large one (as COBRAS's seeds
        are made). Such singletons agree with most answers only because most pairs are in different clusters."""
        if not _mostly_singletons(labels):
            return labels
        others = [_seeds(ctx.X, labels)]
        if self._cobras is not None:
            others.append(self._cobras.current_labels(ctx))
        if self._refitted is not None:
            others.append(self._refitted[1])
        others = [other for other in others if other is not None and not _mostly_singletons(other)]
        return min(others, key=self._violations) if others else labels

    def _fallback(self, ctx, report, wrong, best):
        """``report`` (which contradicts ``wrong`` answers, as many as the candidate ``best``), or the logistic
        model fitted to the answers when it contradicts fewer and ``report`` a quarter of them, at least 3."""
        if self.metric != "euclidean" or wrong < self._limit():
            return report
        key = (len(self._answers), self._revision)
        if self._refitted is None or self._refitted[0] != key:
            rows = np.union1d(self._gen_rows, np.ravel(self._pairs))
            labels = refit_labels(self._inputs(ctx), rows, self._pairs, self._answers, best[rows], self._model_k(best))
            self._refitted = (key, labels)
        labels = self._refitted[1]
        return labels if self._violations(labels) < wrong else report

    def _inputs(self, ctx):
        """The fallback's model inputs, made once per fit and kept in ``ctx.state`` (not with the fitted estimator)."""
        if "design" not in ctx.state:
            ctx.state["design"] = design = design_matrix(ctx.X, FALLBACK_DIMS, self._gen_rows)
            design.flags.writeable = False  # never changed: the copies of a session's state share it
        return ctx.state["design"]
