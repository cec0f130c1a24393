"""COBRA, COBRAS and noise-robust COBRAS: active clustering without knowing the number of clusters.

They over-cluster the data into *super-instances* (small K-means clusters
treated as units) and merge them by asking about their representatives,
closest first. :class:`COBRA` fixes the number of super-instances;
:class:`COBRAS` refines them as it goes and can stop after any question;
:class:`NoiseRobustCOBRAS` is COBRAS on :class:`~linkwise.repair.NoisyAnswers`, a belief that
finds and repairs wrong answers (:mod:`linkwise.repair`, any active estimator's possible knowledge).

Examples
--------
>>> import linkwise as lw
>>> X, y = lw.datasets.load("wine", scale="minmax")
>>> est = lw.COBRAS(max_queries=40, random_state=0).fit(X, lw.LabelOracle(y))
>>> len(est.labels_history_)
40
"""

from linkwise.cobra._cobra import COBRA
from linkwise.cobra._cobras import COBRAS
from linkwise.cobra._feedback import Feedback
from linkwise.cobra._metric import SeriesMetric
from linkwise.cobra._robust import NoiseRobustCOBRAS

__all__ = ["COBRA", "COBRAS", "NoiseRobustCOBRAS"]
__all__ += ["SeriesMetric"]  # Auto's metric, window and cache, as COBRAS's
__all__ += ["Feedback"]  # how they use marks and moves (the feedback benchmark ablates it)
