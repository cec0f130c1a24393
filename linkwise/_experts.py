"""Prequential records of experts that predict each answer before it is revealed.

Several methods run on one stream of answers; each states, before an answer
is revealed, its probability that the pair is in the same cluster. An
expert's log evidence is the sum of the log probabilities it gave to the
answers that came: the log marginal likelihood of the answers under that
expert (Dawid's prequential principle), so comparing two experts is a
Bayes factor, and an adaptive choice of questions (on past answers only)
leaves the comparison valid. Methods that only hold a clustering predict
its verdict with their own running error rate, a sequential Laplace
estimate (a Beta(1, 1) prior on it), so no error rate has to be set.

Used by :class:`~linkwise.Auto`; written as a unit of its own so that any
committee of methods can share it.
"""

import numpy as np

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
    n_answers : int
        Answers observed.

    Examples
    --------
    >>> from linkwise._experts import PrequentialRecord
    >>> record = PrequentialRecord(["a", "b"])
    >>> for answer in (True, True, False):
    ...     record.observe({"a": record.verdict("a", True), "b": 0.5}, answer)
    >>> record.leader(["a", "b"])  # right twice, then wrong: 1/2 * 2/3 * 1/4 = 1/12 < 1/8
    'b'
    """

    def __init__(self, names):
        self.log_evidence = dict.fromkeys(names, 0.0)
        self._right = dict.fromkeys(names, 0)
        self._verdicts = {}  # name -> its verdict on the pending pair (clustering-valued experts only)
        self.n_answers = 0

    def verdict(self, name, same):
        """``name``'s probability of "same" when its clustering says ``same``: the verdict right with probability
        (right + 1) / (answers + 2), its Laplace estimate so far."""
        self._verdicts[name] = bool(same)
        right = (self._right[name] + 1.0) / (self.n_answers + 2.0)
        return right if same else 1.0 - right

    def observe(self, predictions, answer):
        """Add an answer; ``predictions`` maps each expert to the probability of "same" it gave before the answer
        (every expert of the record must have one)."""
        for name, p_same in predictions.items():
            p = p_same if answer else 1.0 - p_same
            self.log_evidence[name] += float(np.log(max(p, np.finfo(float).tiny)))
            if name in self._verdicts:
                self._right[name] += self._verdicts[name] == bool(answer)
        self._verdicts.clear()
        self.n_answers += 1

    def leader(self, names):
        """The expert of ``names`` with the most evidence (the first of them on a tie)."""
        return max(names, key=lambda name: (self.log_evidence[name], -names.index(name)))
