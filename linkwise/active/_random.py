"""Random: pairs drawn uniformly among the queryable points (the baseline)."""

from linkwise.active._base import QueryStrategy
from linkwise.graph import pair_key

__all__ = ["Random"]

# pairs drawn from the generator at once (the draws, not the questions, are batched)
_DRAWS = 256


class Random(QueryStrategy):
    """Ask about pairs of queryable points drawn uniformly at random.

    Each unordered pair is drawn at most once; a drawn pair whose relation
    already follows from earlier answers is answered by the constraint store
    and costs no question. The strategy ends when every pair was drawn.

    References
    ----------
    J. Švehla. Active Semi-Supervised Clustering. Master's thesis, Czech
    Technical University in Prague, 2018 (Random baseline of Sec. 5.4.3).

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris")
    >>> store = lw.active.Random().collect(X, lw.LabelOracle(y), n_clusters=3, max_queries=10, random_state=0)
    >>> len(store)
    10
    """

    def questions(self, ctx, n_clusters, fit_labels):
        """Draw pairs of queryable rows uniformly at random, each pair once.

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
            The next pair drawn; the strategy ends when every pair was drawn.
        """
        q = ctx.queryable
        n_pairs = q.size * (q.size - 1) // 2
        drawn = set()
        while len(drawn) < n_pairs:
            for a, b in ctx.rng.randint(q.size, size=(_DRAWS, 2)).tolist():
                key = pair_key(a, b)
                if a == b or key in drawn:
                    continue
                drawn.add(key)
                yield int(q[a]), int(q[b])
