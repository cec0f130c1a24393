"""A naive reference active method: ask the closest pairs first (COBRA paper, Fig. 1c).

It exists only to prove the shared question loop; real methods live in the package.
"""

import numpy as np
from sklearn.metrics import pairwise_distances

from linkwise.loop import ActiveEstimator


class ClosestPairsFirst(ActiveEstimator):
    """Ask every queryable pair in order of increasing distance; clusters are must-link components."""

    _anytime = True

    def __init__(self, *, max_queries=None, random_state=None):
        self.max_queries = max_queries
        self.random_state = random_state

    def _questions(self, ctx):
        q = ctx.queryable
        d = pairwise_distances(ctx.X[q])
        a, b = np.triu_indices(q.size, k=1)
        for k in np.argsort(d[a, b], kind="stable"):
            yield int(q[a[k]]), int(q[b[k]])
            ctx.labels = ctx.constraints.component_labels()
