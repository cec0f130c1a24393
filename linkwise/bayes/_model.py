"""The Bayesian clustering model: logistic assignments, separation prior, posterior and its gradient.

``P(y_i = k | W, x_i)`` is a softmax of ``W^T x_i`` (W is d x K). The log
prior is ``-||W||^2 / (2 lam) - tau/N sum_i H(y_i | W, x_i)``: a Gaussian of
variance ``lam`` (the paper's text calls its lambda the prior covariance; its
eq. (3) prints ``-lam/2 ||W||^2``, see ``BayesianActiveClustering``) times a
reward for confident, well separated assignments. ``P(Z | W)`` sums the labels
of the constrained points out on the constraint forest.

The entropy term, over every row, dominates the cost of sampling: it is
computed cluster-major, logits ``(n_particles, K, n_rows)``, in blocks of
particles that stay in cache, and in single precision for the sampler (an error
near 1e-7, far below what it resolves); L-BFGS and ``log P(Z | W)`` use double.
"""

import copy

import numpy as np
from scipy.optimize import minimize

from linkwise.bayes._forest import downward, max_product, same_cluster_in_tree, upward

__all__ = ["Model"]

_CHUNK = 4096  # candidate pairs per block when gathering marginals (bounds memory)
_BLOCK = 1 << 18  # logits per block of particles in the entropy term (a few MB: stays in cache)


def _log_softmax(logits, axis):
    """``logits`` normalised in place to log-probabilities over clusters along ``axis`` (shifted by their maximum)."""
    logits -= logits.max(axis=axis, keepdims=True)
    logits -= np.log(np.exp(logits).sum(axis=axis, keepdims=True))
    return logits


def _entropy_sum(logits):
    """Sum over rows of the softmax entropy over clusters, logits (S, K, n) -> (S,).

    ``H = log sum_k e_k - sum_k e_k l_k / sum_k e_k``, ``l`` shifted by its maximum, ``e = exp(l)``.
    """
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1)
    e *= shifted
    return (np.log(total) - e.sum(axis=1) / total).sum(axis=1, dtype=np.float64)


class Model:
    """Log posterior of W given the answers on ``forest`` (many W at once).

    ``X`` holds the model's inputs (standardised features, with a constant
    column for an intercept); ``lam``, ``tau``, ``eps`` are the variance of
    the Gaussian prior, the weight of the entropy term and the probability of
    a wrong answer.
    """

    def __init__(self, X, forest, lam, tau, eps):
        self.X, self.forest = X, forest
        self.lam, self.tau, self.eps = lam, tau, eps
        self.X_nodes = X[forest.nodes]
        self._X_single = X.astype(np.float32)
        for inputs in (X, self._X_single):  # never changed: the copies of a session's state share them
            inputs.flags.writeable = False

    def with_edge(self, a, b, must):
        """The posterior given one more answer (shares X and its single-precision copy)."""
        return self.with_edges([a], [b], [must])

    def with_edges(self, a, b, must, stated=False):
        """The posterior given more answers (or ``stated`` relations), which together close no cycle of the forest."""
        model = copy.copy(self)
        model.forest = self.forest.with_edges(a, b, must, stated)
        model.X_nodes = self.X[model.forest.nodes]
        return model

    def log_assignments(self, W, rows=None):
        """``log P(y_i | W, x_i)``, (n_rows, n_particles, K), for W (n_particles, d, K).

        A view of cluster-major memory, the layout of the forest's passes.
        """
        X = self.X if rows is None else self.X[rows]
        s, d, k = W.shape
        # one matrix product for every particle: (n, d) @ (d, k*s) -> (n, k, s)
        logits = (X @ W.transpose(1, 2, 0).reshape(d, k * s)).reshape(-1, k, s)
        return _log_softmax(logits, axis=1).transpose(0, 2, 1)

    def mean_entropy(self, W, rows=None, dtype=np.float64):
        """Average entropy ``1/N sum_i H(y_i | W, x_i)`` per particle, over ``rows``, logits in ``dtype``."""
        X = self._X_single if dtype == np.float32 else self.X
        X = X if rows is None else X[rows]
        s, d, k = W.shape
        W_rows = W.transpose(0, 2, 1).reshape(s * k, d).astype(dtype, copy=False)
        step = max(1, _BLOCK // (k * X.shape[0]))
        total = [_entropy_sum((W_rows[start * k : (start + step) * k] @ X.T).reshape(-1, k, X.shape[0]))
                 for start in range(0, s, step)]
        return np.concatenate(total) / X.shape[0]

    def log_likelihood(self, W, entropy_rows=None, dtype=np.float64):
        """The non-Gaussian part of the log posterior, ``log P(Z|W) - tau/N sum H``, per particle.

        ``entropy_rows`` and ``dtype`` go to :meth:`mean_entropy`; ``log P(Z|W)`` is always double.
        """
        return self.log_p_answers(W) - self.tau * self.mean_entropy(W, entropy_rows, dtype)

    def log_p_answers(self, W):
        """``log P(Z | W)`` per particle: the answers on the forest, the labels of their rows summed out."""
        return upward(self.forest, self.log_assignments(W, self.forest.nodes), self.eps)[0]

    def log_posterior(self, W, entropy_rows=None, dtype=np.float64):
        """Unnormalised ``log P(W | Z, X)`` per particle (see :meth:`log_likelihood`)."""
        return self.log_likelihood(W, entropy_rows, dtype) - 0.5 * np.einsum("sdk,sdk->s", W, W) / self.lam

    def same_cluster(self, W, a, b):
        """``P(y_a = y_b | Z, W)`` for candidate pairs, ``(n_particles, n_pairs)`` float32.

        Pairs across trees (or with a point outside the forest) have
        independent labels given Z: the dot product of their marginals; pairs
        inside one tree go through :func:`same_cluster_in_tree`. Single
        precision (an error near 1e-7 is immaterial for scoring pairs and
        weighting particles) halves the memory traffic of the gathers.
        """
        forest = self.forest
        rows, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
        # cluster-major marginals (K, rows, particles): the softmax runs over whole contiguous slices,
        # and every gather below copies contiguous rows of particles into a pair-major result
        logits = np.matmul(self._X_single[rows], W.astype(np.float32).transpose(2, 1, 0))
        q = np.exp(logits - logits.max(axis=0))
        q /= q.sum(axis=0)
        if len(forest):
            _, beta = upward(forest, self.log_assignments(W, forest.nodes), self.eps)
            q_nodes = downward(forest, beta, self.eps)
            position = forest.position[rows]
            q[:, position >= 0] = q_nodes[position[position >= 0]].transpose(2, 0, 1)
        ia, ib = inverse[: a.size], inverse[a.size :]
        inside = forest.closes_cycle(a, b)
        out = np.empty((a.size, W.shape[0]), dtype=np.float32)
        across = np.flatnonzero(~inside)
        for chunk in np.array_split(across, max(1, across.size // _CHUNK)):
            pa, pb = ia[chunk], ib[chunk]
            same = q[0, pa] * q[0, pb]
            for q_k in q[1:]:
                same += q_k[pa] * q_k[pb]
            out[chunk] = same
        if inside.any():
            out[inside] = same_cluster_in_tree(forest, beta, q_nodes, self.eps, forest.position[a[inside]],
                                               forest.position[b[inside]]).T
        return out.T

    def objective(self, w, X_entropy=None):
        """Negative log posterior of one flat W and its gradient (for L-BFGS), the entropy over the rows of
        ``X_entropy`` (some of the model's inputs, selected once by :meth:`map_estimate`; default every row).

        The gradient is ``sum_{i in forest} x_i (q_i - p_i)^T - W / lam +
        tau/N sum_i x_i g_i^T`` with ``g_ik = p_ik (log p_ik - sum_j p_ij log
        p_ij)``, the derivative of ``-H(y_i)`` with respect to the logits.
        The paper's section 3.4 prints the entropy term negated; this is the
        derivative of the prior as written (checked by finite differences).

        Cluster-major, ``(K, n)``: the softmax's maxima and sums over a few
        clusters run across whole rows instead of thousands of tiny ones
        (the same operations in the same order as :meth:`log_assignments`).
        """
        X = self.X if X_entropy is None else X_entropy
        n = X.shape[0]
        W = w.reshape(X.shape[1], -1)
        log_p = _log_softmax(np.ascontiguousarray((X @ W).T), axis=0)
        p = np.exp(log_p)
        plogp = p * log_p
        neg_entropy = plogp.sum(axis=0)
        value = -0.5 * np.dot(w, w) / self.lam + self.tau * neg_entropy.sum() / n
        plogp -= p * neg_entropy
        grad = -W / self.lam + (self.tau / n) * X.T @ np.ascontiguousarray(plogp.T)
        forest = self.forest
        if len(forest):
            if X_entropy is None:
                log_p_nodes = log_p[:, forest.nodes]
            else:
                log_p_nodes = _log_softmax(np.ascontiguousarray((self.X_nodes @ W).T), axis=0)
            p_nodes = np.exp(log_p_nodes).T
            log_z, beta = upward(forest, log_p_nodes.T[:, None], self.eps)
            q = downward(forest, beta, self.eps)[:, 0]
            value += log_z[0]
            grad += self.X_nodes.T @ (q - p_nodes)
        return -value, -grad.ravel()

    def map_estimate(self, W0, entropy_rows=None):
        """The local optimum of the log posterior from ``W0`` (d, K) by L-BFGS, and its unnormalised value
        (the entropy over ``entropy_rows``, default every row)."""
        X_entropy = None if entropy_rows is None else self.X[entropy_rows]  # one copy, not one per evaluation
        result = minimize(self.objective, W0.ravel(), args=(X_entropy,), jac=True, method="L-BFGS-B")
        return result.x.reshape(W0.shape), -float(result.fun)

    def labels(self, W):
        """Cluster labels for one W: max-product on the forest, argmax of the softmax elsewhere."""
        log_p = self.log_assignments(W[None])[:, 0]
        labels = np.argmax(log_p, axis=1)
        forest = self.forest
        labels[forest.nodes] = max_product(forest, log_p[forest.nodes], self.eps)
        return labels
