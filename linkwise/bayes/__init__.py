"""Bayesian active clustering with pairwise constraints (Pei, Liu & Fern, ECML PKDD 2015).

:class:`BayesianActiveClustering` asks the pairs whose answers are most
informative about a logistic clustering model (Info or Uncertain criterion);
:class:`BayesianClustering` fits the same model to given constraints.
"""

from linkwise.bayes._estimators import BayesianActiveClustering, BayesianClustering

__all__ = ["BayesianActiveClustering", "BayesianClustering"]
