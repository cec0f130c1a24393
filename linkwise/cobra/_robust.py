"""Noise-robust COBRAS: notice wrong answers, find them with a few extra questions, and repair.

COBRAS whose knowledge is the noisy-answer belief of :mod:`linkwise.repair`.
"""

from numbers import Integral, Real

from linkwise._validation import Interval
from linkwise.cobra._cobras import COBRAS
from linkwise.repair import RepairAttributes

__all__ = ["NoiseRobustCOBRAS"]


class NoiseRobustCOBRAS(RepairAttributes, COBRAS):
    """COBRAS that detects and repairs wrong answers.

    :class:`~linkwise.COBRAS` whose knowledge (see :mod:`linkwise.loop`) is
    a belief about the answers, :class:`~linkwise.repair.NoisyAnswers`. A
    decision likely enough to be wrong is checked with one extra question
    across its two sides: a merge resting on one unconfirmed answer at once,
    the must-links holding a cluster together and the cannot-links keeping
    two apart when a merging phase ends. A contradiction (a cycle of answers
    with one cannot-link) is settled by the most probable explanation after
    a few questions that tell the explanations apart, and every
    super-instance is merged again from the repaired answers. With
    ``noise_probability=0`` it is plain COBRAS, question for question.

    Parameters
    ----------
    max_queries : int or None, default=None
        The budget (extra questions included).
    noise_probability : float in [0, 0.5), default=0.05
        Prior guess of the share of wrong answers, updated from the answers
        (:meth:`~linkwise.repair.AnswerGraph.noise_rate`). 0 turns checks off.
    check_threshold : float in (0, 1], default=0.02
        A decision is checked with an extra question when its probability of
        being wrong is at least this. Lower: more checks, more robust.
    max_repair_questions : int, default=4
        Most extra questions asked to settle one contradiction (a cycle of
        ``L`` answers needs about ``log2(L)`` when they are answered right).
    metric : {"euclidean", "dtw", "kshape"}, default="euclidean"
        For time series, as for :class:`~linkwise.COBRAS`.
    window : float in [0, 1], default=0.1
        DTW's Sakoe-Chiba band, as a fraction of the series length.
    cache : str or Path, optional
        Folder keeping the series distance matrix for the next fit.
    random_state : int, RandomState instance or None, default=None
        Seeds every K-means split and the choice of half while descending.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The clustering.
    super_instances_ : ndarray of shape (n_samples,)
        Each point's super-instance.
    constraints_ : ConstraintStore
        Every answer as given, in a tolerant store (its ``conflicts`` lists
        the answers that contradicted earlier ones).
    believed_constraints_ : ConstraintStore
        The repaired answers: what the clustering is built on.
    corrections_ : list of Correction
        Each answer believed wrong, as ``(pair, given, believed, evidence)``,
        kept up to date while the estimator runs (a session shows it after
        every answer).
    n_extra_queries_ : int
        Questions asked to check or repair answers (part of ``n_queries_``).
    query_log_, n_queries_, labels_history_
        As in :class:`~linkwise.COBRAS`; extra questions are logged like any
        other (as a :class:`~linkwise.loop.Recheck` when the answers settle them).

    Notes
    -----
    Until an answer is known wrong, a check is a pair whose relation both
    the belief and the decision reversed settle, so that its answer confirms
    or contradicts (afterwards, a pair that only gathers evidence may be
    asked too); two one-super-instance clusters kept apart by one
    cannot-link offer no such pair until one is split. A pair is never asked
    twice: a person with a fixed misbelief would repeat the same answer, so
    a decision is re-examined through another pair across the same sides.

    The search over explanations is exact up to 4 changed answers and 2,000
    branches per contradiction; beyond that the approximate repair (the most
    certain, then the earliest, answers win) is used and a warning logged on
    ``linkwise.repair._explain``. Unlike nCOBRAS, which reasons over possible
    worlds of all answers after every merging phase, the search starts from
    the current belief and branches only over the contradicting cycles, so
    its cost depends on the contradiction, not on the number of answers.

    References
    ----------
    J. Soenen, S. Dumančić, T. Van Craenendonck, H. Blockeel. Tackling Noise
    in Active Semi-Supervised Clustering. ECML PKDD 2020.

    T. Van Craenendonck, S. Dumančić, E. Van Wolputte, H. Blockeel. COBRAS:
    Interactive Clustering with Pairwise Queries. IDA 2018.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="minmax")
    >>> oracle = lw.LabelOracle(y, noise=0.1, random_state=0)
    >>> est = lw.NoiseRobustCOBRAS(max_queries=60, random_state=0).fit(X, oracle)
    >>> est.n_queries_
    60
    >>> all(c.given != c.believed for c in est.corrections_)
    True
    """

    def __init__(self, *, max_queries=None, noise_probability=0.05, check_threshold=0.02, max_repair_questions=4,
                 metric="euclidean", window=0.1, cache=None, random_state=None):
        self.max_queries, self.noise_probability, self.random_state = max_queries, noise_probability, random_state
        self.check_threshold, self.max_repair_questions = check_threshold, max_repair_questions
        self.metric, self.window, self.cache = metric, window, cache

    _parameter_constraints = {
        **COBRAS._parameter_constraints,
        "noise_probability": [Interval(Real, 0, 0.5, closed="left")],
        "check_threshold": [Interval(Real, 0, 1, closed="right")],
        "max_repair_questions": [Interval(Integral, 0, None, closed="left")],
    }

    def tolerates_contradictions(self):
        """Record an answer that contradicts earlier ones when wrong answers are repaired.

        Returns
        -------
        bool
            True with ``noise_probability`` above 0 (the belief settles the
            contradiction); False: plain COBRAS on the answers as given.
        """
        return self.noise_probability > 0  # else plain COBRAS on the answers as given

    @property
    def believed_constraints_(self):
        """The repaired answers, a :class:`~linkwise.ConstraintStore`: what the clustering is built on."""
        return self._belief.store
