"""Bayesian active clustering with pairwise constraints (Pei, Liu & Fern, ECML PKDD 2015).

:class:`BayesianActiveClustering` asks the pairs whose answers are most
informative about a logistic clustering model (Info or Uncertain criterion);
:class:`BayesianClustering` fits the same model to given constraints.
"""

from linkwise.bayes._estimators import BayesianActiveClustering, BayesianClustering
from linkwise.bayes._inputs import MAX_INPUT_DIMS, ModelInputs
from linkwise.bayes._refit import design_matrix, refit_labels

__all__ = ["BayesianActiveClustering", "BayesianClustering"]
# the model's MAP fitted to given answers from a clustering, which Auto shares (its fallback)
__all__ += ["design_matrix", "refit_labels"]
# the model's inputs (standardised; principal components above MAX_INPUT_DIMS features), which Auto shares too
__all__ += ["MAX_INPUT_DIMS", "ModelInputs"]
