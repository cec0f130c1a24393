"""NPU: normalised point-based uncertainty, an iterative strategy that re-clusters as it asks."""

from numbers import Integral, Real

import numpy as np
from sklearn import config_context
from sklearn.tree import DecisionTreeClassifier

from linkwise._validation import Interval
from linkwise.active._base import NEW, QueryStrategy, argbest, ask_membership
from linkwise.ensemble import agreement, flat_codes
from linkwise.graph import relabel

__all__ = ["NPU"]


class NPU(QueryStrategy):
    """Normalised point-based uncertainty: ask about the point whose neighbourhood is least predictable per question.

    Starts with one random point as the first neighbourhood, then repeats:
    fit the clusterer on the answers so far; train a random forest to predict
    that clustering; take as similarity of two points the fraction of trees
    that put them in the same leaf; estimate the probability that a point
    belongs to each neighbourhood from its mean similarity to the
    neighbourhood's members; and ask about the point with the largest entropy
    of these probabilities divided by the expected number of questions needed
    to find its neighbourhood (neighbourhoods asked by decreasing
    probability). The point is asked against the neighbourhoods in that order
    until a must-link; cannot-linked to all, it starts a new neighbourhood.

    By default the forest (scikit-learn's, grown tree by tree) is regrown
    after every point, as published. With ``renew < 1`` it is regrown in full
    only when the clustering changed as a partition; on the same one a new
    forest would differ only in its random draws, so only the oldest
    ``renew`` share of the trees is regrown. Similarities are never stored as
    a matrix: a point's mean similarity to a neighbourhood comes from
    per-tree leaf histograms of its members, linear in ``n * n_trees``.

    Parameters
    ----------
    n_trees : int, default=50
        Trees in the random forest (scikit-learn's ``RandomForestClassifier``
        defaults otherwise).
    batch_size : int, default=1
        Points asked about per re-clustering. 1 is the published method; a
        larger batch re-clusters and re-trains the forest less often (the
        speed-up suggested as future work by Švehla, 2018), updating the
        membership probabilities from each answer in between.
    renew : float in (0, 1], default=1.0
        Share of the trees regrown (at least one) after a point that left
        the clustering unchanged; 1.0 (published) regrows all. Smaller values
        save up to that share of the forest's cost (0.2: about 2x faster runs
        on iris and spambase with PCKMeans) at a price in quality that
        depends on the data: a forest kept whole stalled spambase with
        PCKMeans at ARI 0 after 100 questions, against .53.

    References
    ----------
    S. Xiong, J. Azimi and X. Z. Fern. Active learning of constraints for
    semi-supervised clustering. IEEE Transactions on Knowledge and Data
    Engineering 26(1), 2014, pp. 43-54.

    J. Švehla. Active Semi-Supervised Clustering. Master's thesis, Czech
    Technical University in Prague, 2018 (Sec. 3.2.1 and future work).

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="standard")
    >>> est = lw.ActiveClustering(
    ...     lw.PCKMeans(n_clusters=3), lw.active.NPU(n_trees=10), max_queries=10, random_state=0
    ... ).fit(X, lw.LabelOracle(y))
    >>> est.n_queries_
    10
    """

    _needs_clusterer = True

    def __init__(self, *, n_trees=50, batch_size=1, renew=1.0):
        self.n_trees, self.batch_size, self.renew = n_trees, batch_size, renew

    _parameter_constraints = {
        "n_trees": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "renew": [Interval(Real, 0, 1, closed="right")],
    }

    def questions(self, ctx, n_clusters, fit_labels):
        """Ask about the point of largest normalised uncertainty, against its likeliest neighbourhoods first.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this run.
        n_clusters : int
            The number of clusters the strategy looks for (K).
        fit_labels : callable or None
            Returns the clusterer's labels fitted on the answers so far (None
            when the strategy runs without a clusterer).

        Yields
        ------
        tuple of (int, int)
            The next pair to ask (the point against a member of a
            neighbourhood); the loop sends back its answer.
        """
        rng = ctx.rng
        open_ = ctx.queryable_mask.copy()  # queryable points not asked about yet
        first = int(rng.choice(ctx.queryable))
        open_[first] = False
        members = [[first]]
        X32 = np.asarray(ctx.X, dtype=np.float32)  # what the trees split on, converted once
        partition = None  # the clustering the current forest was grown on
        renew = max(1, round(self.renew * self.n_trees))
        while open_.any():
            labels = relabel(fit_labels())  # equal partitions, equal arrays
            seed = rng.randint(np.iinfo(np.int32).max)
            if not np.array_equal(labels, partition):
                partition, oldest = labels, 0
                leaves = _forest_leaves(X32, labels, self.n_trees, seed)
            else:  # the same clustering: fresh random draws for the oldest trees only
                renewed = (oldest + np.arange(renew)) % self.n_trees
                leaves[:, renewed] = _forest_leaves(X32, labels, renew, seed)
                oldest = (oldest + renew) % self.n_trees
            flat, n_codes = flat_codes(leaves)
            # summed leaf agreements of every row with each neighbourhood's members
            sums = np.column_stack([agreement(flat, n_codes, m) for m in members]).astype(np.float64)
            for _ in range(self.batch_size):
                if not open_.any():
                    break
                proba = _membership_proba(sums, np.array([len(m) for m in members]))
                x = argbest(_normalised_uncertainty(proba), open_, rng)
                order = np.argsort(-proba[x], kind="stable")
                h = yield from ask_membership(x, order, [m[0] for m in members], complete=False)
                open_[x] = False
                if h == NEW:
                    members.append([x])
                    sums = np.column_stack([sums, agreement(flat, n_codes, [x])])
                elif h is not None:
                    members[h].append(x)
                    sums[:, h] += agreement(flat, n_codes, [x])


def _forest_leaves(X32, labels, n_trees, seed):
    """Leaf of every row in each tree of a random forest fitted to ``labels``: ``(n_samples, n_trees)``.

    Exactly ``RandomForestClassifier(n_estimators=n_trees, random_state=seed)``'s
    trees, grown one by one with the same random numbers: on a few hundred
    rows the forest's per-tree checks cost more than growing the trees.
    """
    n = X32.shape[0]
    seeds = np.random.RandomState(seed).randint(np.iinfo(np.int32).max, size=n_trees)
    leaves = np.empty((n, n_trees), dtype=np.intp)
    with config_context(skip_parameter_validation=True):
        for t, tree_seed in enumerate(seeds):
            rows = np.random.RandomState(tree_seed).randint(0, n, n, dtype=np.int32)
            tree = DecisionTreeClassifier(max_features="sqrt", random_state=tree_seed)
            tree.fit(X32, labels, sample_weight=np.bincount(rows, minlength=n).astype(np.float64), check_input=False)
            leaves[:, t] = tree.tree_.apply(X32)
    return leaves


def _membership_proba(sums, sizes):
    """Probability of each row belonging to each neighbourhood, proportional to mean similarity."""
    mean = sums / sizes
    total = mean.sum(axis=1, keepdims=True)
    uniform = np.full_like(mean, 1.0 / mean.shape[1])
    return np.divide(mean, total, out=uniform, where=total > 0)


def _normalised_uncertainty(proba):
    """Entropy (bits) of each row's membership divided by the expected number of questions."""
    logs = np.log2(proba, out=np.zeros_like(proba), where=proba > 0)
    entropy = -(proba * logs).sum(axis=1)
    ranked = -np.sort(-proba, axis=1)  # asked in decreasing probability: the i-th costs i questions
    expected = ranked @ np.arange(1, proba.shape[1] + 1)
    return entropy / expected
