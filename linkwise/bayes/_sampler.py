"""Posterior samples of W: elliptical slice sampling and a resample-move particle filter.

The posterior is the Gaussian ``N(0, lam I)`` times a "likelihood"
``exp(log P(Z|W) - tau/N sum H)``: the setting of elliptical slice sampling (no
step sizes to tune), every particle stepping at once. The sampler and the
ranking of MAP starts evaluate the entropy term in single precision and, on
more than ``_ENTROPY_ROWS`` rows, over that many evenly spaced rows (about
1e-2 nats of error, and the bulk of the cost no longer grows with n); the MAP
estimate is searched on those rows and polished on every row.
"""

import numpy as np

from linkwise.bayes._forest import ConstraintForest
from linkwise.bayes._model import Model

__all__ = ["elliptical_slice", "systematic_resample", "ParticleFilter"]

_RAY_SCALES = np.array([0.1, 0.2, 0.35, 0.5, 0.7, 1.0, 1.4])  # rescalings tried before the MAP search
_ENTROPY_ROWS = 2000  # rows whose average entropy the sampler and the ranking of MAP starts use on larger data
# angle bracket (radians) below which a particle stays where it is: the proposal is then the current
# point up to rounding, which a likelihood with rounding noise or NaN need not accept (no endless loop)
_MIN_BRACKET = 1e-10


def elliptical_slice(W, log_lik, log_lik_fn, scale, rng, n_steps, batch=None):
    """Particles ``W`` (not modified) and their ``log_lik`` moved ``n_steps`` elliptical slice-sampling steps.

    ``log_lik_fn`` evaluates a batch of particles; ``scale`` is the standard
    deviation of the isotropic Gaussian prior. Each shrinking round
    evaluates, for every particle still searching, the next few angles it
    would try if each one before were rejected (``batch`` proposals per call,
    default ``n_particles``; 1 tries one angle per round), and takes the
    first accepted: the proposals of one angle per round, in fewer calls. A
    particle whose bracket shrinks below ``_MIN_BRACKET`` keeps its state
    (on the slice in exact arithmetic), so every step ends even when rounding
    or a NaN likelihood rejects every angle (Murray, Adams & MacKay, AISTATS 2010).
    """
    W, log_lik = W.copy(), log_lik.copy()
    n = W.shape[0]
    batch = n if batch is None else batch
    expand = (slice(None), slice(None)) + (None,) * (W.ndim - 1)
    for _ in range(n_steps):
        nu = scale * rng.standard_normal(W.shape)
        threshold = log_lik + np.log(rng.uniform(size=n))
        theta = rng.uniform(0.0, 2.0 * np.pi, size=n)
        low, high = theta - 2.0 * np.pi, theta.copy()
        todo = np.arange(n)
        while todo.size:
            ahead = max(1, batch // todo.size)
            angles = np.empty((todo.size, ahead))
            t, lo, hi = theta[todo], low[todo], high[todo]
            for j in range(ahead):
                angles[:, j] = t
                # shrink the angle bracket towards 0 (the current point, always on the slice)
                lo, hi = np.where(t < 0, t, lo), np.where(t < 0, hi, t)
                t = rng.uniform(lo, hi)
            proposal = W[todo, None] * np.cos(angles)[expand] + nu[todo, None] * np.sin(angles)[expand]
            proposal = proposal.reshape(-1, *W.shape[1:])
            value = log_lik_fn(proposal).reshape(todo.size, ahead)
            accept = value > threshold[todo, None]
            done = accept.any(axis=1)
            first = np.argmax(accept, axis=1)[done]
            W[todo[done]] = proposal[np.flatnonzero(done) * ahead + first]
            log_lik[todo[done]] = value[done, first]
            theta[todo], low[todo], high[todo] = t, lo, hi
            todo = todo[~done & (hi - lo > _MIN_BRACKET)]
    return W, log_lik


def systematic_resample(weights, rng):
    """Indices of ``len(weights)`` particles drawn in proportion to ``weights`` (systematic resampling)."""
    n = weights.size
    cumulative = np.cumsum(weights)
    positions = (rng.uniform() + np.arange(n)) / n * cumulative[-1]
    return np.minimum(np.searchsorted(cumulative, positions, side="right"), n - 1)


class ParticleFilter:
    """Particles from ``P(W | Z, X)``, updated after each answer by resample-move.

    Each answer reweights the particles by its probability; once the
    effective sample size ``(sum w)^2 / sum w^2`` falls below ``min_ess``
    particles' worth, they are resampled and moved by slice sampling (Del
    Moral, Doucet & Jasra 2006). ``min_ess=1`` does so after every answer, as
    the paper does; lower saves the moves after answers already predicted.

    ``X``, ``lam``, ``tau``, ``eps`` are those of :class:`~linkwise.bayes._model.Model`;
    ``n_init_steps`` slice-sampling steps turn the Gaussian draws into prior
    draws, ``n_mcmc_steps`` follow each resampling. ``W`` holds the
    particles ``(n_particles, n_features, n_clusters)``, ``log_weights``
    their unnormalised log weights, ``model`` the posterior so far,
    ``n_moves`` the resample-move steps taken.
    """

    def __init__(self, X, n_clusters, n_particles, *, lam, tau, eps, n_mcmc_steps, n_init_steps, rng, min_ess=1.0):
        self.model = Model(X, ConstraintForest(X.shape[0], [], []), lam, tau, eps)
        self.n_mcmc_steps, self.rng, self.min_ess = n_mcmc_steps, rng, min_ess
        n = X.shape[0]
        self._entropy_rows = np.arange(0, n, -(-n // _ENTROPY_ROWS)) if n > _ENTROPY_ROWS else None
        self.W = rng.standard_normal((n_particles, X.shape[1], n_clusters)) * np.sqrt(lam)
        self.log_weights = np.zeros(n_particles)
        self.n_moves = 0
        self._move(n_init_steps)

    def _log_likelihood(self, W):
        return self.model.log_likelihood(W, self._entropy_rows, dtype=np.float32)

    def _move(self, n_steps):
        """Slice-sample every particle under the current model (after computing its likelihood)."""
        self.W, _ = elliptical_slice(self.W, self._log_likelihood(self.W), self._log_likelihood,
                                     np.sqrt(self.model.lam), self.rng, n_steps)

    @property
    def weights(self):
        """The particles' normalised weights, or None while they are equal (after each resampling)."""
        if not self.log_weights.any():
            return None
        weights = self._relative_weights()
        return weights / weights.sum()

    def _relative_weights(self):
        """The weights up to a constant factor, the largest 1."""
        return np.exp(self.log_weights - self.log_weights.max())

    def p_must(self, a, b):
        """``P(z_ab = must-link | Z, W_s)`` of shape (n_particles, n_pairs)."""
        eps = self.model.eps
        return eps + (1.0 - 2.0 * eps) * self.model.same_cluster(self.W, np.atleast_1d(a), np.atleast_1d(b))

    def add(self, a, b, must, p_must=None):
        """Condition on the answer ``z_ab`` (the pair closes no cycle): reweight, and resample-move when due."""
        if p_must is None:
            p_must = self.p_must(a, b)[:, 0]
        self.log_weights += np.log(p_must if must else 1.0 - p_must)
        self.model = self.model.with_edge(a, b, must)
        self._rejuvenate()

    def condition(self, a, b, must):
        """Condition on relations a person stated (not answers: as good as certain, ``STATED_EPS``), several at once;
        return which were left out as closing a cycle.

        The pairs that close no cycle, taken in order, join the forest; each
        particle is reweighted by ``P(Z_new | W) / P(Z | W)`` (one pass over
        the forest, not one per relation), then resampled and moved when due.
        """
        keep = self.model.forest.acyclic(a, b)
        if keep.any():
            before = self.model.log_p_answers(self.W)
            self.model = self.model.with_edges(np.asarray(a)[keep], np.asarray(b)[keep], np.asarray(must)[keep], True)
            self.log_weights += self.model.log_p_answers(self.W) - before
            self._rejuvenate()
        return ~keep

    def _rejuvenate(self):
        """Resample and move the particles when the effective sample size is below ``min_ess`` particles' worth."""
        weights = self._relative_weights()
        if self.min_ess >= 1.0 or weights.sum() ** 2 < self.min_ess * weights.size * np.dot(weights, weights):
            self.W = self.W[systematic_resample(weights, self.rng)]
            self.log_weights[:] = 0.0
            self._move(self.n_mcmc_steps)
            self.n_moves += 1

    def map_estimate(self, previous=None):
        """MAP estimate of W: the better of two L-BFGS runs, from the best particle and from ``previous``.

        The Gaussian factor makes the shortest particles the densest whatever
        their direction, and L-BFGS from a poorly aimed one can stall at the
        saddle W = 0: so each particle is first rescaled along its ray (a short
        grid of scales) and the densest is one start. The last MAP alone would
        follow one mode long after another became higher (digits 3-8-9: ARI
        .84 to .42 between 20 and 50 answers), so both starts are optimised.
        On more than ``_ENTROPY_ROWS`` rows both runs take the entropy over
        the sampler's rows and only the better one is polished on every row
        (it reaches the same optimum at a quarter of the full evaluations).
        """
        model, rows = self.model, self._entropy_rows
        starts = (_RAY_SCALES[:, None, None, None] * self.W[None]).reshape(-1, *self.W.shape[1:])
        ranking = model.log_posterior(starts, rows, dtype=np.float32)
        optima = [model.map_estimate(start, rows) for start in (starts[np.argmax(ranking)], previous)
                  if start is not None]
        best = max(optima, key=lambda optimum: optimum[1])[0]
        return best if rows is None else model.map_estimate(best)[0]
