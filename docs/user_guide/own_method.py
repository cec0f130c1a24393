"""Farthest-first questions: an active method written on linkwise's public method protocol.

The example of the user guide page "Write your own active method"; the test suite runs it through
:func:`linkwise.estimator_checks.check_active_estimator`.
"""

import numpy as np

from linkwise import ActiveEstimator


class FarthestFirst(ActiveEstimator):
    """Visit the queryable rows farthest first; ask each about the groups found so far, nearest group first.

    A row that no group claims starts a group of its own; every row takes
    the group of its nearest visited row.

    Parameters
    ----------
    max_queries : int or None, default=None
        The budget (None: until every queryable row is placed).
    random_state : int, RandomState instance or None, default=None
        Seeds the first row visited.
    """

    anytime = True  # the clustering after every question means something: fit records labels_history_

    def __init__(self, *, max_queries=None, random_state=None):
        self.max_queries = max_queries
        self.random_state = random_state

    def questions(self, ctx):
        X, rows = ctx.X, ctx.queryable
        reps = []  # the first row of each group, which the questions are about
        gap = np.full(rows.size, np.inf)  # distance of each queryable row to the nearest visited one (-1: visited)
        near = np.full(ctx.n_samples, np.inf)  # distance of every row to the nearest visited row
        k = ctx.rng.randint(rows.size)
        for _ in range(rows.size):
            x, group = int(rows[k]), None
            for g in np.argsort(np.linalg.norm(X[reps] - X[x], axis=1), kind="stable"):
                if (yield x, reps[g]):  # True: together; False or None ("don't know"): the next group
                    group = int(g)
                    break
            if group is None:
                group = len(reps)
                reps.append(x)
            d = np.linalg.norm(X - X[x], axis=1)
            closer = d < near
            near[closer], ctx.labels[closer] = d[closer], group
            gap = np.minimum(gap, d[rows])
            gap[k] = -1.0
            k = int(np.argmax(gap))
