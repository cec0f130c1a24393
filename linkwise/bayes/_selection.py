"""Which pair to ask next: candidate pools and the Info / Uncertain criteria."""

import numpy as np

__all__ = ["candidate_pool", "pair_scores", "first_acyclic"]


def candidate_pool(queryable, size, rng):
    """Candidate pairs ``(a, b)``, ``a < b``, of queryable rows: all if at most ``size``, else about ``size`` drawn."""
    n = queryable.size
    if n * (n - 1) // 2 <= size:
        i, j = np.triu_indices(n, k=1)
    else:
        i = rng.randint(n, size=size)
        j = rng.randint(n - 1, size=size)
        j += j >= i  # uniform over the other n - 1 rows
        i, j = np.divmod(np.unique(np.minimum(i, j) * n + np.maximum(i, j)), n)
    return queryable[i], queryable[j]


def _binary_entropy(p):
    """Entropy of Bernoulli(p) in single precision (scores only rank pairs), in place on a copy.

    Clipping to [1e-6, 1 - 1e-6] keeps ``1 - p`` nonzero in float32 and changes no entropy by more than 2e-5 nats.
    """
    p = np.clip(p, 1e-6, 1.0 - 1e-6, dtype=np.float32)
    q = 1.0 - p
    h = np.log(p)
    h *= p
    p = np.log(q, out=p)
    p *= q
    h += p
    return np.negative(h, out=h)


def pair_scores(p_must, criterion, weights=None):
    """Scores of candidate pairs from ``P(z_ab = must-link | Z, W_s)``, ``(n_particles, n_pairs)``.

    ``"uncertain"``: entropy of the answer with W integrated out; ``"info"``:
    that minus the expected entropy given W (the answer's mutual information
    with W). ``weights``: the particles' normalised weights (None: equal).
    """
    average = (lambda v: v.mean(axis=0)) if weights is None else (lambda v: weights @ v)
    score = _binary_entropy(average(p_must))
    if criterion == "info":
        score -= average(_binary_entropy(p_must))
    return score


def first_acyclic(scores, closes_cycle):
    """Position of the best-scoring pair closing no cycle (None if all do), and how many better ones did."""
    order = np.argsort(-scores, kind="stable")
    allowed = ~closes_cycle[order]
    if not allowed.any():
        return None, int(closes_cycle.sum())
    rank = int(np.argmax(allowed))
    return int(order[rank]), rank
