"""Prequential records of experts that predict each answer before it is revealed.

Several methods run on one stream of answers; each states, before an answer
is revealed, its probability that the pair is in the same cluster. An
expert's log evidence is the sum of the log probabilities it gave to the
answers that came: the log marginal likelihood of the answers under that
expert (Dawid's prequential principle), so comparing two experts is a
Bayes factor, and an adaptive choice of questions (on past answers only)
leaves the comparison valid. Methods that only hold a clustering predict
its verdict with their own running error rate, the posterior mean under a
uniform prior on [0, 1/2] (a clustering is taken to be no worse than a
coin: with the whole of [0, 1], Laplace's rule, one always wrong would
predict as well as one always right), so no error rate has to be set.

Experts improve as answers come (a method refining its clustering), so the
one to follow now is not the one with the best record since the start:
:meth:`PrequentialRecord.leader` follows the posterior of a switching
mixture (fixed share, Herbster & Warmuth 1998) whose rate of switching
after the t-th answer is 1 / (t + 1), a rate that needs no setting and
costs an expert about log t nats to take the lead.

Used by :class:`~linkwise.Auto`; written as a unit of its own so that any
committee of methods can share it.
"""

import numpy as np
from scipy.special import betainc

__all__ = ["PrequentialRecord"]


class PrequentialRecord:
    """Log evidence of named experts, updated answer by answer.

    Parameters
    ----------
    names : sequence of str
        The experts, in order of preference: on equal evidence the earlier
        one leads.

    Attributes
    ----------
    log_evidence : dict of str to float
        Sum of the log probabilities each expert gave to the answers.
    log_weight : dict of str to float
        Log posterior weight of each expert being the one to follow now (the switching mixture).
    n_answers : int
        Answers observed.

    Examples
    --------
    >>> from linkwise._experts import PrequentialRecord
    >>> record = PrequentialRecord(["a", "b"])
    >>> for answer in (True, True, False):
    ...     record.observe({"a": record.verdict("a", True), "b": 0.5}, answer)
    >>> round(float(np.exp(record.log_evidence["a"])), 4)  # right, right, wrong: 3/4 x 7/9 x 11/56
    0.1146
    >>> record.leader(["a", "b"])  # 0.1146 < 1/8
    'b'

    References
    ----------
    Dawid, A. P. (1984). Present position and potential developments: some
    personal views. Statistical theory. The prequential approach. Journal of
    the Royal Statistical Society A, 147(2), 278-292.

    Herbster, M. and Warmuth, M. K. (1998). Tracking the best expert.
    Machine Learning, 32(2), 151-178.
    """

    def __init__(self, names):
        self.log_evidence = dict.fromkeys(names, 0.0)
        self.log_weight = dict.fromkeys(names, -np.log(len(self.log_evidence)))
        self._right, self._judged = dict.fromkeys(names, 0), dict.fromkeys(names, 0)
        self._verdicts = {}  # name -> its verdict on the pending pair (clustering-valued experts only)
        self.n_answers = 0

    def verdict(self, name, same):
        """``name``'s probability of "same" when its clustering says ``same``: the verdict right with the posterior
        mean of 1 - error rate, the error rate uniform on [0, 1/2] a priori and ``right`` of ``n`` verdicts right so
        far (of the answers it gave a verdict on): (right + 1) / (n + 2) x I(1/2; wrong + 1, right + 2) / I(1/2; wrong + 1, right + 1), with I the
        regularised incomplete beta function (Laplace's estimate, kept below 1/2 of errors)."""
        self._verdicts[name] = bool(same)
        r, w = self._right[name], self._judged[name] - self._right[name]
        right = (r + 1.0) / (r + w + 2.0) * betainc(w + 1, r + 2, 0.5) / betainc(w + 1, r + 1, 0.5)
        return right if same else 1.0 - right

    def observe(self, predictions, answer):
        """Add an answer; ``predictions`` maps each expert to the probability of "same" it gave before the answer
        (every expert of the record must have one: by :meth:`verdict`, or any other)."""
        for name, p_same in predictions.items():
            p = p_same if answer else 1.0 - p_same
            log_p = float(np.log(max(p, np.finfo(float).tiny)))
            self.log_evidence[name] += log_p
            self.log_weight[name] += log_p
            if name in self._verdicts:
                self._right[name] += self._verdicts[name] == bool(answer)
                self._judged[name] += 1
        self._verdicts.clear()
        self.n_answers += 1
        import os
        share = 1.0 / (self.n_answers + 1) if os.environ.get("LW_SW", "1") == "1" else 0.0
        log_w = np.array(list(self.log_weight.values()))
        w = np.exp(log_w - log_w.max())
        w = (1 - share) * w / w.sum() + share / w.size
        self.log_weight = dict(zip(self.log_weight, np.log(w).tolist()))

    def leader(self, names):
        """The expert of ``names`` of most weight (the first of them on a tie)."""
        return max(names, key=lambda name: (self.log_weight[name], -names.index(name)))
