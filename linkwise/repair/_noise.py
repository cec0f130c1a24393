"""How likely an answer is wrong: the noise model of :class:`~linkwise.repair.AnswerGraph`.

Every answer is wrong independently with probability ``p``. A *labelling*
gives every answered pair a value; it is *consistent* when no cycle of the
answer graph holds exactly one cannot-link. A labelling contradicting ``c``
answers has probability proportional to ``(p / (1 - p)) ** c`` times a prior
over its values (:meth:`AnswerGraph.prior`: close points are more likely
must-linked); ``p`` is estimated as answers come (:meth:`AnswerGraph.noise_rate`).
"""

import math

import numpy as np
from scipy.special import betaln, expit

from linkwise.graph import pair_key

__all__ = ["NoiseModel"]


class NoiseModel:
    """The noise model over the answers of an :class:`~linkwise.repair.AnswerGraph` (its base class)."""

    def prior(self):
        """Give the prior probability that each answered pair is a must-link.

        A logistic regression of the answers on the distance between the points
        with ``X`` and both kinds of answer, else the smoothed must-link share.

        Returns
        -------
        ndarray of float, shape (n_pairs,)
            In :meth:`pairs` order, clipped to [0.01, 0.99].
        """
        if self._prior[0] != self.n_answers:
            n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
            share = (n_ml.sum() + 1) / (self.n_answers + 2)
            if self._X is None or not n_ml.any() or not n_cl.any():
                prior = np.full(n_ml.size, share)
            else:
                d = np.array(self._dist)
                prior = _logistic(d / max(np.median(d), 1e-12), n_ml, n_cl)
            self._prior = (self.n_answers, prior.clip(0.01, 0.99))
        return self._prior[1]

    def noise_rate(self):
        """Estimate the rate of wrong answers (its posterior mean).

        The person is, with prior odds 1:1, either *careful* (never wrong) or
        *careless*: wrong at a rate whose Beta prior has mean
        ``2 * noise_probability`` (``noise_probability`` overall) and counts
        as ``prior_strength`` answers. The
        evidence is the answers others confirm (not :meth:`weak`) and, among
        them, those the belief contradicts. One contradiction rules the
        careful person out; while every checked answer agrees, the careful one
        grows more probable, so checks fade as fast as the evidence allows.

        Returns
        -------
        float
            The estimate, clipped to [0.001, 0.49].
        """
        if self._rate[0] != (self.n_answers, self._version):
            n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
            wrong = int(np.where(self._belief, n_cl, n_ml).sum())
            checked = int((n_ml + n_cl)[self._confirmed() | (n_ml + n_cl > 1)].sum())
            a = 2 * self.prior_strength * self.noise_probability
            b = self.prior_strength - a
            rate = (a + wrong) / (a + b + checked)
            if not self.contradicted:
                # odds careless : careful = P(all checked answers right | careless) : 1
                odds = math.exp(betaln(a, b + checked) - betaln(a, b))
                rate *= odds / (1 + odds)
            self._rate = ((self.n_answers, self._version), float(np.clip(rate, 1e-3, 0.49)))
        return self._rate[1]

    def suspicion(self, pairs):
        """Estimate the probability that the belief is wrong about every one of ``pairs`` at once.

        From their own answers and the largest of their priors alone, the rest
        taken as believed: for the cannot-links keeping two clusters apart, the
        probability that the clusters belong together.

        Parameters
        ----------
        pairs : sequence of (int, int)
            Answered pairs, believed alike.

        Returns
        -------
        float
            The probability, in [0, 1].
        """
        es = [self._edge_of[pair_key(i, j)] for i, j in pairs]
        believed = np.array([self._belief[e] for e in es], dtype=bool)
        n_ml, n_cl = np.array([self._n_ml[e] for e in es]), np.array([self._n_cl[e] for e in es])
        p = self.noise_rate()
        # answers that agree with the belief would all be wrong, those against it right
        surplus = int(np.where(believed, n_ml - n_cl, n_cl - n_ml).sum())
        prior = self.prior()[es]
        flip_prior = float(np.where(believed, 1 - prior, prior).max())
        odds = flip_prior / (1 - flip_prior) * (p / (1 - p)) ** surplus
        return float(odds / (1 + odds))

    def _cost(self, values):
        """Number of answers the labelling ``values`` contradicts."""
        n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
        return int(np.where(values, n_cl, n_ml).sum())


def _logistic(d, n_pos, n_neg, ridge=1.0):
    """Fitted ``P(positive | d)`` of a one-feature logistic model: Newton steps (microseconds where a general
    solver takes milliseconds, a few hundred times per run), ridge on the slope."""
    design = np.column_stack([np.ones_like(d), d])
    total = n_pos + n_neg
    penalty = np.diag([1e-6, ridge])
    w = np.zeros(2)
    for _ in range(50):
        p = expit(design @ w)
        grad = design.T @ (n_pos - total * p) - penalty @ w
        hess = (design * (total * p * (1 - p))[:, None]).T @ design + penalty
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return expit(design @ w)
