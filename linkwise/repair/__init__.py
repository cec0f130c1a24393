"""Wrong answers: a belief about the answers that finds and repairs them, for any active estimator.

:class:`AnswerGraph` keeps every answer and one consistent belief about
them; :class:`NoisyAnswers` is that belief as the question loop's knowledge
(see :mod:`linkwise.loop`), asking a few extra questions to check doubtful
decisions and to settle contradictions; :class:`RepairAttributes` gives it to
an estimator with a ``noise_probability`` parameter (NoiseRobustCOBRAS,
ActiveCOBS, Auto). It sits beside the loop: no method package depends on
another for it.

Examples
--------
>>> import linkwise as lw
>>> X, y = lw.datasets.load("iris", scale="minmax")
>>> oracle = lw.LabelOracle(y, noise=0.1, random_state=0)
>>> est = lw.NoiseRobustCOBRAS(max_queries=60, random_state=0).fit(X, oracle)
>>> all(c.given != c.believed for c in est.corrections_)
True
"""

from linkwise.repair._answers import AnswerGraph, Correction, Evidence
from linkwise.repair._belief import NoisyAnswers, RepairAttributes

__all__ = ["NoisyAnswers", "RepairAttributes", "AnswerGraph", "Correction", "Evidence"]
