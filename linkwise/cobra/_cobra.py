"""COBRA: merge K-means super-instances by asking about their medoids, closest first."""

from numbers import Integral

import numpy as np
from scipy.spatial.distance import pdist, squareform

from linkwise._validation import Interval, InvalidParameterError
from linkwise.cobra._metric import SeriesMetric
from linkwise.cobra._superinstances import SuperInstanceClustering, kmeans, make_parts, predict, sample_positions

__all__ = ["COBRA"]

# COBRA runs K-means once: on all points up to this many, on a sample of this size beyond.
_EXACT_MAX = 20_000
# Medoids are searched among at most this many queryable points of a super-instance.
_MEDOID_CANDIDATES = 1000


def _medoid(X, candidates):
    """The candidate with the smallest summed distance to the others (thinned by a fixed stride)."""
    cand = candidates[:: -(-candidates.size // _MEDOID_CANDIDATES)]
    if cand.size <= 2:
        return int(cand[0])
    return int(cand[np.argmin(squareform(pdist(X[cand])).sum(axis=1))])


class COBRA(SeriesMetric, SuperInstanceClustering):
    """Constraint-based repeated aggregation: cluster without knowing K.

    K-means over-clusters the data into ``n_super_instances`` super-instances,
    each a unit represented by its medoid. Clusters are merged bottom-up: the
    two closest in single linkage (between medoids) that no cannot-link
    separates are asked about through their closest medoids; a must-link
    merges them. It ends when every pair of clusters is separated by a
    cannot-link; transitivity and entailment answer many pairs for free.

    With perfect super-instances and must-links closer than cannot-links it
    asks exactly ``N_S - N_C + N_C * (N_C - 1) / 2`` questions (``N_S``
    super-instances, ``N_C`` clusters), at most ``N_S * (N_S - 1) / 2``.

    Parameters
    ----------
    n_super_instances : int, default=50
        Number of K-means clusters to start from; at most the number of rows
        of ``X``. Fewer result when ``X`` has fewer distinct points, or when
        super-instances without a queryable row join the nearest one that has
        one (the paper's cross-validation protocol).
    max_queries : int or None, default=None
        Optional budget; without it COBRA asks until nothing can be merged.
        When the budget runs out, the clustering of the merges so far is
        returned.
    metric : {"euclidean", "dtw", "kshape"}, default="euclidean"
        Time series distance, as for :class:`~linkwise.COBRAS` (``"dtw"``:
        spectral clustering into super-instances, represented by medoids;
        ``"kshape"``: k-Shape).
    window : float in [0, 1], default=0.1
        DTW's Sakoe-Chiba band, as a fraction of the series length.
    cache : str or Path, optional
        Folder keeping the series distance matrix for the next fit.
    random_state : int, RandomState instance or None, default=None
        Seeds K-means.

    Attributes
    ----------
    labels_, super_instances_, representatives_, constraints_, query_log_, n_queries_, labels_history_
        As in :class:`~linkwise.COBRAS`.

    Notes
    -----
    K-means runs once, from one k-means++ start (above 20,000 rows on a
    seeded sample, every row joining its nearest centre). Medoids are taken
    among the queryable rows (at most 1,000) of each super-instance. The
    pairs of super-instances are scanned once, in order of distance, decided
    pairs skipped in vectorised blocks (restarting after a merge, as
    Algorithm 1 does, would only revisit decided pairs). "Don't know" leaves
    the pair undecided: the next closest pair between the two clusters may
    be asked instead.

    References
    ----------
    T. Van Craenendonck, S. Dumančić, H. Blockeel. COBRA: A Fast and Simple
    Method for Active Clustering with Pairwise Constraints. IJCAI 2017.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> est = lw.COBRA(n_super_instances=25, random_state=0).fit(X, lw.LabelOracle(y))
    >>> est.n_queries_ < 60, lw.metrics.ari(y, est.labels_) > 0.7
    (True, True)
    """

    def __init__(self, *, n_super_instances=50, max_queries=None, metric="euclidean", window=0.1, cache=None,
                 random_state=None):
        self.n_super_instances = n_super_instances
        self.max_queries = max_queries
        self.metric, self.window, self.cache = metric, window, cache
        self.random_state = random_state

    _parameter_constraints = {
        **SuperInstanceClustering._parameter_constraints,
        **SeriesMetric._parameter_constraints,
        "n_super_instances": [Interval(Integral, 1, None, closed="left")],
    }

    def check_params_vs_input(self, X):
        """No more super-instances than rows.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            The data, validated.

        Raises
        ------
        InvalidParameterError
            ``n_super_instances`` is above the number of rows.
        """
        if self.n_super_instances > X.shape[0]:
            raise InvalidParameterError(
                f"The 'n_super_instances' parameter of COBRA must be at most the number of rows of X "
                f"({X.shape[0]}), got {self.n_super_instances}; use fewer super-instances or more data."
            )

    def questions(self, ctx):
        """Split the data into super-instances once, then merge them by asking about their representatives.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this fit.

        Yields
        ------
        tuple of (int, int) or Checkpoint
            The next question (two representatives); the loop sends back its
            answer. The method stops when the merging phase has settled every
            pair of clusters.
        """
        X, n, qmask = ctx.X, ctx.n_samples, ctx.queryable_mask
        k = self.n_super_instances
        tree = self._start_tree(ctx)
        space = self._space = self._series_space(ctx)
        if space is not None:
            parts, means = space.parts(X, tree.members[0], *space.split(tree.members[0], k, ctx.rng), qmask, Xm=X)
            reps = [space.representative(X, part, qmask, m) for part, m in zip(parts, means)]
        else:
            sample = sample_positions(n, qmask, ctx.rng, size=_EXACT_MAX)
            model = kmeans(X[sample], k, ctx.rng)
            labels = model.labels_ if sample.size == n else predict(model, X)
            parts, _ = make_parts(X, tree.members[0], labels, qmask, Xm=X)
            reps = [_medoid(X, part[qmask[part]]) for part in parts]  # root members are all rows
        new = tree.replace(0, parts, reps, [X[r] for r in reps])
        yield from self._merge_phase(ctx, new, live=True)
