"""The floor every speed figure of a session is given beside: one nearest-of-10-centres assignment of the rows.

Measured in the same run as the figure, so a ratio to it does not move with the speed of the machine: the CPU time
of this thread for ``sklearn.metrics.pairwise_distances_argmin`` of ``n`` rows of 10 features against 10 centres
(the median of five), the work of labelling every row once. Also the helpers that time a call, and each step of a
session, in CPU seconds of this thread.
"""

import time

import numpy as np
from sklearn.metrics import pairwise_distances_argmin

import linkwise as lw


def cpu(call, *args, **kwargs):
    """``(result, CPU seconds of this thread)`` of ``call(*args, **kwargs)``."""
    start = time.thread_time()
    result = call(*args, **kwargs)
    return result, time.thread_time() - start


def floor(n, repeats=5):
    """CPU seconds of one nearest-of-10-centres assignment of ``n`` x 10 rows (median of ``repeats``)."""
    rng = np.random.RandomState(0)
    X = rng.standard_normal((n, 10))
    centres = X[rng.choice(n, 10, replace=False)]
    return float(np.median([cpu(pairwise_distances_argmin, X, centres)[1] for _ in range(repeats)]))


def question_times(est, X, y, stability=True):
    """CPU seconds of each step of an ``ActiveSession(est, X, stability=stability)`` answered from ``y``: the first
    question (the session's construction, ``ask()`` and ``labels_``), then each answer to the next question and its
    clustering (``labels_``, as the page reads it); and the session."""
    def start():
        session = lw.ActiveSession(est, X, stability=stability)
        session.ask()
        _ = session.labels_  # the first clustering shown
        return session

    session, first = cpu(start)

    def step(pair):
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        session.ask()
        return session.labels_

    gaps = []
    while (pair := session.ask()) is not None:
        gaps.append(cpu(step, pair)[1])
    return first, np.array(gaps), session
