"""BayesianActiveClustering (Info / Uncertain / random pairs) and the passive BayesianClustering."""

import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from linkwise._docstrings import fill_placeholders
from linkwise._validation import Interval, StrOptions, check_data, check_n_clusters, validate_params
from linkwise.bayes._inputs import (
    ModelInputs,
    _ColumnMagnitude,  # noqa: F401 (models saved before 2026-12 name it here)
)
from linkwise.bayes._sampler import ParticleFilter
from linkwise.bayes._selection import candidate_pool, first_acyclic, pair_scores
from linkwise.exceptions import InvalidParameterError
from linkwise.graph import check_fit_input, relabel
from linkwise.loop import ActiveEstimator, Rest
from linkwise.prediction import LogisticAssignment

__all__ = ["BayesianActiveClustering", "BayesianClustering"]

_INIT_STEPS = 10  # slice-sampling steps that turn Gaussian draws into draws from the full prior
_MAX_POOL_DRAWS = 20  # fresh candidate samples tried before concluding no acyclic pair is left
# BayesianClustering resamples and moves its particles only below this effective sample size (the active
# estimator after every answer, as the paper): the particles predict most given constraints already
_PASSIVE_MIN_ESS = 0.5


@dataclass(eq=False)
class _Posterior:
    """What BayesianActiveClustering holds during a fit (in ``ctx.state``, not with the fitted estimator): the
    model's inputs, the particles, the belief revision and how many stated relations they are conditioned on, the
    last MAP and whether it is stale (the particles changed since), the pairs asked."""

    inputs: np.ndarray
    particles: object = None
    revision: int = 0
    n_stated: int = 0
    W_map: np.ndarray = None
    stale: bool = True
    asked: set = None  # codes of the pairs asked (a "don't know" too), out of the candidate pools


class _BayesianModelMixin:
    """Parameters, their checks and the particle filter shared by both estimators."""

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_particles": [Interval(Integral, 1, None, closed="left"), None],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "tau": [Interval(Real, 0, None, closed="left")],
        "eps": [Interval(Real, 0, 0.5, closed="neither")],
        "n_mcmc_steps": [Interval(Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=2, *, n_particles=None, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=5,
                 fit_intercept=True, random_state=None):
        self.n_clusters, self.n_particles, self.lam, self.tau, self.eps = n_clusters, n_particles, lam, tau, eps
        self.n_mcmc_steps, self.fit_intercept, self.random_state = n_mcmc_steps, fit_intercept, random_state

    def _check_params_vs_input(self, X):
        """The checks of the parameters against the data: no more clusters than rows."""
        check_n_clusters(self.n_clusters, X.shape[0], self)

    def _design(self, X_scaled):
        """The model's inputs: standardised features, and a constant 1 with ``fit_intercept``."""
        return np.hstack([X_scaled, np.ones((X_scaled.shape[0], 1))]) if self.fit_intercept else X_scaled

    def _particle_filter(self, X, rng, min_ess=1.0):
        n_particles = self.n_particles or 2 * X.shape[1] * self.n_clusters
        return ParticleFilter(self._design(X), self.n_clusters, n_particles, lam=self.lam, tau=self.tau, eps=self.eps,
                              n_mcmc_steps=self.n_mcmc_steps, n_init_steps=_INIT_STEPS, rng=rng, min_ess=min_ess)


_PARAMETERS_DOC = """n_particles : int or None, default=None
        Posterior samples of W kept at all times; None means ``2 * d * K``
        as in the paper (d the model's inputs).
    lam : float, default=10.0
        Variance of the Gaussian prior on W (larger: weaker prior), the
        paper's lambda. The paper's text calls lambda the prior covariance
        and uses 10; its eq. (3) prints ``-lambda/2 ||W||^2``, a precision,
        which at 10 keeps the weights near 0 on standardised data (pass
        ``lam=0.1`` for that reading).
    tau : float, default=1.0
        Weight of the prior's separation term (average assignment entropy).
    eps : float, default=0.05
        Probability that an answer is wrong, in (0, 0.5): makes constraints
        soft.
    n_mcmc_steps : int, default=5
        Slice-sampling steps that move the particles after each answer.
    fit_intercept : bool, default=True
        Add a constant feature, so cluster boundaries need not pass through
        the data's mean. The paper's model has none (``False``); without it
        unbalanced classes, such as fertility's 88/12, cannot be separated."""


class BayesianActiveClustering(_BayesianModelMixin, ActiveEstimator):
    """Bayesian active clustering: ask the pair whose answer tells the model most.

    A logistic model ``P(y_i = k | W, x_i)`` assigns points to clusters; the
    prior on W prefers small weights and confident (well separated)
    assignments. The posterior over W given the answers is kept as particles
    (elliptical slice sampling, updated after each answer by resample-move).
    Answered pairs form a forest, so the likelihood and the answer
    probabilities of new pairs are exact (message passing with O(K)
    messages); candidate pairs that would close a cycle are skipped. The
    clustering after each answer comes from the MAP estimate of W (L-BFGS),
    with max-product over the constrained points.

    Features are standardised internally (zero mean, unit variance), as in
    the paper; a table of more than 64 features is reduced to its 64
    leading principal components first (standardised), which bounds the
    particles at ``2 x 65 x K``.

    Cost grows with ``S = 2 d K`` particles (a smaller ``n_particles`` is
    faster): a question takes about 0.05 CPU s at n = 1,000, d = 16, K = 3 and
    0.2-0.4 s at d = 64 up to n = 5,000 (benchmarks/results/bayes.md); the
    particle moves no longer grow with n past 2,000 rows.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters K.
    criterion : {"info", "uncertain", "random"}, default="info"
        ``"info"``: the pair maximising the mutual information between its
        answer and W. ``"uncertain"``: the pair whose answer is most
        uncertain. ``"random"``: a random pair (the paper's passive baseline).
    {parameters}
    min_ess : float in (0, 1], default=1.0
        Resample and move the particles after an answer only once their
        effective sample size ``(sum w)^2 / sum w^2`` is below this fraction
        of them; in between, answers reweight them and questions are scored
        with the weights. 1 moves them after every answer, as the paper.
        0.5 about halves a question's time at 10,000 rows but was lower on
        the benchmark's tuning half (by .05 at 10 answers and .015 at 100;
        benchmarks/results/auto.md, session 17), hence the default.
    candidate_pairs : int, default=10000
        Size of the candidate pool scored for each question: every queryable
        pair when there are at most this many, else this many pairs drawn
        uniformly afresh for each question.
    max_queries : int or None, default=None
        Question budget (None: until no pair that keeps the forest is left).
    random_state : int, RandomState or None, default=None
        Seeds the particles, the candidate pools and the random criterion.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The clustering of every row.
    W_map_ : ndarray of shape (n_inputs + fit_intercept, n_clusters)
        MAP weights for the model's inputs given all answers: the
        standardised features, or their 64 principal components above 64
        features (the last row is the intercept when ``fit_intercept``).
    constraints_, query_log_, n_queries_, labels_history_
        Every answer (a ConstraintStore), the questions in the order asked,
        their number and the clustering after each (as for every
        :class:`~linkwise.ActiveEstimator`).
    n_cycle_pairs_dropped_ : ndarray of shape (n_queries,)
        For each question, how many better-scoring candidate pairs were
        skipped because they would have closed a cycle (the paper's Table 2).

    See Also
    --------
    BayesianClustering : The same model fitted to given constraints.

    References
    ----------
    Pei, Liu, Fern. Bayesian Active Clustering with Pairwise Constraints.
    ECML PKDD 2015 (LNAI 9284), pp. 235-250.

    Murray, Adams, MacKay. Elliptical slice sampling. AISTATS 2010.

    Examples
    --------
    >>> import linkwise as lw
    >>> from sklearn.datasets import make_blobs
    >>> X, y = make_blobs(n_samples=60, centers=2, n_features=8, random_state=0)
    >>> est = lw.BayesianActiveClustering(2, n_particles=8, max_queries=5, random_state=0)
    >>> est.fit(X, lw.LabelOracle(y)).n_queries_
    5
    >>> lw.metrics.pairwise_f_measure(y, est.labels_) > 0.9
    True
    """

    anytime = True

    def __init__(self, n_clusters=2, *, criterion="info", n_particles=None, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=5,
                 fit_intercept=True, min_ess=1.0, candidate_pairs=10000, max_queries=None, random_state=None):
        super().__init__(n_clusters, n_particles=n_particles, lam=lam, tau=tau, eps=eps, n_mcmc_steps=n_mcmc_steps,
                         fit_intercept=fit_intercept, random_state=random_state)
        self.min_ess, self.criterion, self.candidate_pairs, self.max_queries = min_ess, criterion, candidate_pairs, max_queries

    _parameter_constraints = {
        **_BayesianModelMixin._parameter_constraints,
        **ActiveEstimator._parameter_constraints,
        "criterion": [StrOptions({"info", "uncertain", "random"})],
        "min_ess": [Interval(Real, 0, 1, closed="right")],
        "candidate_pairs": [Interval(Integral, 1, None, closed="left")],
    }

    def questions(self, ctx, *, inputs=None):
        """Ask, from a pool of candidate pairs, the one whose answer tells the posterior most.

        After each answer the particles are updated and the MAP estimate
        refitted (``W_map_``, ``ctx.labels``); a pair that would close a cycle
        of answered pairs is skipped (``n_cycle_pairs_dropped_``). Answers
        already in ``ctx.log`` when it starts (another method asked them:
        :class:`~linkwise.Auto` hands over to this one) condition the
        particles first, and their pairs are not asked again. Relations
        stated in a session (:meth:`~linkwise.ActiveSession.inform`,
        :meth:`~linkwise.ActiveSession.mark`) condition them as soon as
        stated, all at once and as near-certain (error probability
        ``STATED_EPS`` = 1e-6, not ``eps``), those closing a cycle of the
        pairs held left out; when the knowledge revises its belief (an
        answer now believed wrong), the particles are rebuilt from every
        answer and stated relation as now believed.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this fit.
        inputs : ndarray of shape (n_samples, n_inputs), optional
            The model's inputs, standardised, without the constant column;
            by default ``ctx.X`` standardised (its 64 principal components
            above 64 features: ``ModelInputs``). A method handing over passes
            its own (:class:`~linkwise.Auto`: at most 64 principal
            components).

        Yields
        ------
        tuple of (int, int)
            The next question; the loop sends back its answer. The method
            stops when the answered pairs connect every queryable row or no
            pair that keeps them a forest is left.
        """
        state = ctx.state.get("bayes") if ctx.resumed else None  # resumed: at the rest below, the particles kept
        if state is None:
            ctx.state["bayes"] = state = _Posterior(self._checked_inputs(ctx, inputs))
            # "don't know" too: out of the pool
            state.asked = {min(a, b) * ctx.n_samples + max(a, b) for a, b, _ in ctx.log}
            self.n_cycle_pairs_dropped_ = np.zeros(0, dtype=np.intp)
            self._sync(ctx)
        while True:
            yield Rest()  # every part of the run is in ctx.state["bayes"] and n_cycle_pairs_dropped_
            if (choice := self._choose(state.particles, ctx, state.asked)) is None:
                return
            a, b, n_dropped, p_must = choice
            answer = yield a, b
            state.asked.add(a * ctx.n_samples + b)
            self.n_cycle_pairs_dropped_ = np.append(self.n_cycle_pairs_dropped_, n_dropped)
            n_stated = state.n_stated
            # relations stated while the question was pending come first; a rebuild (belief revised) takes the answer
            if not self._catch_up(ctx) and answer is not None and not state.particles.model.forest.closes_cycle(a, b):
                state.particles.add(a, b, answer, p_must if state.n_stated == n_stated else None)
                state.stale = True
            self._refit(ctx)

    @staticmethod
    def _checked_inputs(ctx, inputs):
        """The model's inputs: ``inputs`` if finite, one row per sample; by default ``ctx.X``'s (ModelInputs)."""
        if inputs is None:
            inputs = ModelInputs().fit_transform(ctx.X)
        elif np.ndim(inputs) != 2 or len(inputs) != ctx.n_samples or not np.isfinite(inputs).all():
            raise InvalidParameterError(f"The 'inputs' argument of BayesianActiveClustering.questions must be a finite "
                                        f"array of one row per sample ({ctx.n_samples}), got shape "
                                        f"{np.shape(inputs)}; pass the method's standardised features.")
        inputs = np.array(inputs, dtype=float)  # its own, read-only: resume points share it
        inputs.flags.writeable = False
        return inputs

    def current_labels(self, ctx):
        """Return the MAP clustering given every answer and every relation stated so far.

        A relation stated between two questions (:meth:`ActiveSession.inform`,
        :meth:`ActiveSession.mark`) conditions the particles at once.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit or session.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            A label per row.
        """
        if "bayes" in ctx.state:
            self._sync(ctx)
        return super().current_labels(ctx)

    def _sync(self, ctx):
        """Condition the particles on what is known (see :meth:`_catch_up`) and refit the MAP if that changed them."""
        self._catch_up(ctx)
        self._refit(ctx)

    def _refit(self, ctx):
        """Refit the MAP (``W_map_``, ``ctx.labels``) if the particles changed since the last fit."""
        state = ctx.state["bayes"]
        if state.stale:
            self.W_map_ = state.W_map = state.particles.map_estimate(state.W_map)
            ctx.labels = state.particles.model.labels(state.W_map)
            state.stale = False

    def _catch_up(self, ctx):
        """Rebuild the particles from every answer as now believed when the knowledge revised its belief (wrong-answer
        repair) or at the start; then condition them on the relations stated since. Whether they were rebuilt."""
        state = ctx.state["bayes"]
        rebuild = state.particles is None or ctx.revision != state.revision
        if rebuild:
            state.particles = self._particle_filter(state.inputs, ctx.rng, self.min_ess)
            state.revision, state.n_stated = ctx.revision, 0
            for a, b, answer in ctx.believed(ctx.log):
                if not state.particles.model.forest.closes_cycle(a, b):
                    state.particles.add(a, b, answer)
        if len(ctx.informed) > state.n_stated:
            stated = ctx.believed(ctx.informed[state.n_stated :])
            if stated:
                state.particles.condition(*np.array(stated, dtype=np.intp).T)
            state.n_stated, state.stale = len(ctx.informed), True
        state.stale |= rebuild
        return rebuild

    def make_predictor(self, ctx):
        """Return the rule ``predict`` applies: the logistic model's most probable cluster at ``W_map_``.

        Parameters
        ----------
        ctx : QueryContext
            The context of the finished fit.

        Returns
        -------
        LogisticAssignment
            The model; its ``rows`` (the fitted rows no answer involves) keep
            their label in ``labels_``.
        """
        answered = np.array([(i, j) for i, j, _ in ctx.log], dtype=np.intp).reshape(-1, 2)
        return LogisticAssignment(ModelInputs().fit(ctx.X), self.W_map_, np.unique(self.labels_), self.fit_intercept,
                                  np.setdiff1d(np.arange(ctx.n_samples), answered), scale=ctx.scale)

    def _choose(self, particles, ctx, asked):
        """The next pair ``(a, b, n_dropped, p_must)``, or None when no acyclic pair is left."""
        forest, queryable = particles.model.forest, ctx.queryable
        trees = forest.tree[queryable]
        if queryable.size < 2 or (trees[0] >= 0 and np.all(trees == trees[0])):
            return None
        complete = queryable.size * (queryable.size - 1) // 2 <= self.candidate_pairs
        for _ in range(1 if complete else _MAX_POOL_DRAWS):
            a, b = candidate_pool(queryable, self.candidate_pairs, ctx.rng)
            if asked:
                known = np.isin(a * ctx.n_samples + b, np.fromiter(asked, dtype=np.intp))
                a, b = a[~known], b[~known]
            cycle = forest.closes_cycle(a, b)
            if cycle.all():
                continue
            if self.criterion == "random":
                p_must, scores = None, ctx.rng.uniform(size=a.size)
            else:
                p_must = particles.p_must(a, b)
                scores = pair_scores(p_must, self.criterion, particles.weights)
            k, n_dropped = first_acyclic(scores, cycle)
            return int(a[k]), int(b[k]), n_dropped, None if p_must is None else p_must[:, k]
        return None


BayesianActiveClustering.__doc__ = fill_placeholders(BayesianActiveClustering.__doc__,
                                                     {"{parameters}": _PARAMETERS_DOC})


class BayesianClustering(_BayesianModelMixin, ClusterMixin, BaseEstimator):
    """The Bayesian clustering model of Pei et al. fitted to given constraints ("BC+tree").

    Constraints are added one by one (must-links first) to a particle filter
    over W, as the active estimator does with answers, but resampled and
    moved only when the effective sample size falls below half the
    particles; a constraint closing a cycle in the constraint graph is
    skipped (with a warning), since inference is exact only on a forest.
    Labels come from the MAP estimate of W. Features are standardised
    internally (above 64 features, their 64 leading principal components).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters K.
    {parameters}
    random_state : int, RandomState or None, default=None
        Seeds the particles.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Clusters numbered by first appearance (0, 1, ... without gaps).
    W_map_ : ndarray of shape (n_inputs + fit_intercept, n_clusters)
        MAP weights for the model's inputs (the last row is the intercept
        when ``fit_intercept``), columns in the order of the labels
        (clusters no row is assigned to last).
    scaler_ : ModelInputs
        The inputs' transform fitted on X (used by :meth:`predict`):
        division by each column's largest magnitude, standardisation, and
        above 64 features the 64 leading principal components.
    dropped_constraints_ : ndarray of shape (n_dropped, 2)
        Constraints skipped because they would have closed a cycle.

    See Also
    --------
    BayesianActiveClustering : Chooses the pairs itself.

    References
    ----------
    Pei, Liu, Fern. Bayesian Active Clustering with Pairwise Constraints.
    ECML PKDD 2015 (LNAI 9284), pp. 235-250.

    Examples
    --------
    >>> import linkwise as lw
    >>> from sklearn.datasets import make_blobs
    >>> X, y = make_blobs(n_samples=40, centers=2, n_features=8, random_state=0)
    >>> bc = lw.BayesianClustering(2, n_particles=8, random_state=0)
    >>> labels = bc.fit(X, ml=[(0, 1)], cl=[(0, 2)]).labels_
    >>> bool(labels[0] == labels[1]), bool(labels[0] != labels[2])
    (True, True)
    """

    def fit(self, X, y=None, *, ml=None, cl=None):
        """Fit the model to ``X`` and the must-link / cannot-link row pairs ``ml`` / ``cl``.

        Must-links are taken first, then cannot-links, each in the order
        given; a pair that would close a cycle of the constraints already
        taken is skipped and listed in ``dropped_constraints_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : None
            Ignored (scikit-learn convention).
        ml, cl : array-like of shape (n_pairs, 2), default=None
            Must-link and cannot-link pairs of row indices.

        Returns
        -------
        self
            The fitted estimator.
        """
        validate_params(self)
        X, ml, cl = check_fit_input(self, X, y, ml, cl)
        self._check_params_vs_input(X)
        rng = check_random_state(self.random_state)
        self.scaler_ = ModelInputs().fit(X)
        particles = self._particle_filter(self.scaler_.transform(X), rng, min_ess=_PASSIVE_MIN_ESS)
        dropped = []
        for (a, b), must in zip(np.vstack([ml, cl]).tolist(), [True] * len(ml) + [False] * len(cl)):
            if particles.model.forest.closes_cycle(a, b):
                dropped.append((a, b))
            else:
                particles.add(a, b, must)
        self.dropped_constraints_ = np.asarray(dropped, dtype=np.intp).reshape(-1, 2)
        if dropped:
            warnings.warn(f"BayesianClustering skipped {len(dropped)} constraint(s) that would close a cycle in the "
                          "constraint graph (the model needs a forest); see dropped_constraints_.", UserWarning,
                          stacklevel=2)
        W_map = particles.map_estimate()
        labels = particles.model.labels(W_map)
        # the model is symmetric in the cluster order: number clusters by first appearance, unused
        # ones last, so labels_ run 0, 1, ... without gaps (predict agrees, through W_map_)
        self.labels_, used = relabel(labels, return_order=True)
        self.W_map_ = W_map[:, np.concatenate([used, np.setdiff1d(np.arange(self.n_clusters), used)])]
        return self

    def predict(self, X):
        """Predict the most probable cluster of each row of new data, which carries no constraints.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data, with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The cluster whose column of ``W_map_`` scores each row highest.
        """
        check_is_fitted(self)
        X = check_data(X, self, validate=True, reset=False)
        return np.argmax(self._design(self.scaler_.transform(X)) @ self.W_map_, axis=1)


BayesianClustering.__doc__ = fill_placeholders(BayesianClustering.__doc__, {"{parameters}": _PARAMETERS_DOC})
