"""COBRA and COBRAS: active clustering without knowing the number of clusters.

Both over-cluster the data into *super-instances* (small K-means clusters
treated as units) and merge them by asking whether their representatives
belong together, closest pairs first, letting transitivity and entailment
answer as many pairs as possible. :class:`COBRA` fixes the number of
super-instances in advance; :class:`COBRAS` refines them as it goes and can
be stopped after any question.

Examples
--------
>>> import linkwise as lw
>>> X, y = lw.datasets.load("wine", scale="minmax")
>>> est = lw.COBRAS(max_queries=40, random_state=0).fit(X, lw.LabelOracle(y))
>>> len(est.labels_history_)
40
"""

from linkwise._cobra import COBRA
from linkwise._cobras import COBRAS

__all__ = ["COBRA", "COBRAS"]
