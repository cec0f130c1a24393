"""Active query strategies for any constrained clusterer, and the meta-estimator joining them.

A strategy picks which pairs to ask; :class:`ActiveClustering` pairs it with
a constrained clusterer (:class:`~linkwise.PCKMeans`, ...). A strategy alone
collects answers with ``strategy.collect(X, oracle, n_clusters=...)``.

======================  ===========================================================
``Random``              uniformly random pairs (baseline)
``ExploreConsolidate``  farthest-first skeleton, then random points (Basu et al. 2004)
``MinMax``              farthest-first skeleton, then least similar points (Mallapragada et al. 2008)
``NPU``                 re-clusters; most uncertain point per expected question (Xiong et al. 2014)
``Committee``           ensemble co-association; least certain point (Greene & Cunningham 2007)
======================  ===========================================================
"""

from linkwise.active._committee import Committee
from linkwise.active._explore import ExploreConsolidate, MinMax, kernel_width
from linkwise.active._meta import ActiveClustering
from linkwise.active._npu import NPU
from linkwise.active._random import Random

__all__ = ["ActiveClustering", "Random", "ExploreConsolidate", "MinMax", "NPU", "Committee", "kernel_width"]
