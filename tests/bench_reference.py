"""Small reference methods for the benchmark harness's tests.

Each stands in for one kind of method the harness distinguishes (anytime, one
run per budget, own number of questions, failing, slow), so the bench tests
check the harness, not the methods.
"""

import time

import numpy as np
from sklearn.metrics import pairwise_distances

from linkwise.bench import MethodSpec
from linkwise.bench._runner import _Task
from linkwise.loop import ActiveEstimator
from tests.reference import ClosestPairsFirst


def _propagate(ctx):
    """Label every row like its nearest constrained row (its must-link component)."""
    store = ctx.constraints
    points = store.constrained_points()
    if len(points) == 0:
        return np.zeros(ctx.n_samples, dtype=np.intp)
    components = store.component_labels()[points]
    nearest = pairwise_distances(ctx.X, ctx.X[points]).argmin(axis=1)
    return components[nearest]


class RandomPairs(ActiveEstimator):
    """One run per budget: random pairs of queryable rows, nearest-neighbour labels at the end."""

    def __init__(self, *, max_queries=None, random_state=None):
        self.max_queries = max_queries
        self.random_state = random_state

    def current_labels(self, ctx):
        return _propagate(ctx)

    def questions(self, ctx):
        while True:
            i, j = ctx.rng.choice(ctx.queryable, size=2, replace=False)
            yield int(i), int(j)


class FirstRows(ActiveEstimator):
    """Decides its own number of questions (like COBRA): every pair among its first ``n_points`` queryable rows."""

    def __init__(self, *, n_points=6, random_state=None):
        self.n_points = n_points
        self.random_state = random_state

    def current_labels(self, ctx):
        return _propagate(ctx)

    def questions(self, ctx):
        rows = ctx.rng.choice(ctx.queryable, size=min(self.n_points, ctx.queryable.size), replace=False)
        for a in range(rows.size):
            for b in range(a + 1, rows.size):
                yield int(rows[a]), int(rows[b])


class Chain(ActiveEstimator):
    """Asks (q0, q1), (q1, q2), ...: touches every queryable row and no other."""

    def __init__(self, *, max_queries=None, random_state=None):
        self.max_queries = max_queries
        self.random_state = random_state

    def questions(self, ctx):
        for a, b in zip(ctx.queryable[:-1], ctx.queryable[1:]):
            yield int(a), int(b)


class Broken(RandomPairs):
    """Fails on one dataset, to check that failures are recorded and retried."""

    def questions(self, ctx):
        if ctx.n_samples == 178:  # wine
            raise ArithmeticError("broken on purpose")
        yield from super().questions(ctx)


def make_closest(k, budget, seed):
    return ClosestPairsFirst(max_queries=budget, random_state=seed)


def make_random(k, budget, seed):
    return RandomPairs(max_queries=budget, random_state=seed)


def make_first_rows(k, budget, seed):
    return FirstRows(n_points=7, random_state=seed)


def make_chain(k, budget, seed):
    return Chain(max_queries=budget, random_state=seed)


def make_broken(k, budget, seed):
    return Broken(max_queries=budget, random_state=seed)


CLOSEST = MethodSpec("closest", make_closest, False, "reference: closest pairs first (anytime)")
RANDOM = MethodSpec("random-pairs", make_random, False, "reference: random pairs, one run per budget")
FIRST = MethodSpec("first-rows", make_first_rows, False, "reference: asks as many questions as it needs", True)
CHAIN = MethodSpec("chain", make_chain, False, "reference: a chain over every queryable row")
BROKEN = MethodSpec("broken", make_broken, False, "reference: fails on wine")


def make_task(spec, kind, dataset, budgets, *, fold=0, folds=5, seed=0, noise=0.0, data_dir=None):
    """One cell of repeat 0, min-max scaled."""
    return _Task(spec, kind, dataset, 0, fold, tuple(budgets), folds, seed, "minmax", noise, data_dir)


class SlowClosest(ClosestPairsFirst):
    """The reference method, slowed down so that a run can be killed halfway."""

    def questions(self, ctx):
        for pair in super().questions(ctx):
            time.sleep(0.02)
            yield pair


def make_slow(k, budget, seed):
    return SlowClosest(max_queries=budget, random_state=seed)


SLOW = MethodSpec("slow-closest", make_slow, False, "reference, slowed down")
