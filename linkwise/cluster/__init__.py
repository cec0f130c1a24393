"""Constrained clusterers: the k-means family with partial labels or pairwise constraints.

``SeededKMeans`` and ``ConstrainedKMeans`` take partial labels
(``fit(X, y)``, -1 = unlabeled). ``COPKMeans`` (hard constraints),
``PCKMeans`` (soft), ``MKMeans`` (metric learned first) and ``MPCKMeans``
(soft, with metrics learned along the way) take must-link / cannot-link row
pairs by keyword: ``fit(X, ml=[(i, j), ...], cl=[(i, j), ...])``. With no
constraints each is a plain scikit-learn clusterer.

Examples
--------
>>> import linkwise as lw
>>> X, y = lw.datasets.load("iris", scale="standard")
>>> model = lw.PCKMeans(n_clusters=3, random_state=0).fit(X, ml=[(0, 1)], cl=[(0, 100)])
>>> model.labels_.shape
(147,)
"""

from linkwise.cluster._copkmeans import COPKMeans
from linkwise.cluster._graph import PairGraph
from linkwise.cluster._mkmeans import MKMeans
from linkwise.cluster._mpckmeans import MPCKMeans
from linkwise.cluster._pckmeans import PCKMeans
from linkwise.cluster._seeded import ConstrainedKMeans, SeededKMeans

__all__ = ["COPKMeans", "ConstrainedKMeans", "MKMeans", "MPCKMeans", "PCKMeans", "SeededKMeans"]
__all__ += ["PairGraph"]  # the constraint graph of the penalised methods' assignment, shared with the benchmarks
