"""Constrained clusterers: the k-means family with labels or pairwise constraints.

``SeededKMeans`` and ``ConstrainedKMeans`` take partial labels
(``fit(X, y)``, -1 = unlabeled); ``COPKMeans``, ``PCKMeans``, ``MKMeans`` and
``MPCKMeans`` take must-link / cannot-link pairs (``fit(X, ml=..., cl=...)``).
With no constraints each is a plain scikit-learn clusterer.
"""

from linkwise.cluster._pckmeans import PCKMeans

__all__ = ["PCKMeans"]
