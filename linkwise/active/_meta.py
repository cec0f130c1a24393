"""ActiveClustering: any constrained clusterer, questions chosen by a query strategy."""

from sklearn.base import clone

from linkwise._validation import HasMethods, StrOptions, check_n_clusters
from linkwise.active._base import CONSTRAINT_FORMS, ConstrainedFit, QueryStrategy, check_clusterer, run_strategy
from linkwise.loop import ActiveEstimator

__all__ = ["ActiveClustering"]


class ActiveClustering(ActiveEstimator):
    """Cluster with a constrained clusterer, asking the pairs a strategy picks.

    The strategy chooses every question; the answers go to the shared
    constraint store, and the clustering is the clusterer fitted on them,
    refitted whenever labels are asked for after a new answer (iterative
    strategies such as :class:`NPU` ask between questions). When the budget
    runs out mid-phase the strategy stops and the clusterer is fitted on what
    was learned.

    The clusterer sees either the answered pairs or their closure (every pair
    inside a must-link neighbourhood and across two cannot-linked ones), as in
    Švehla's library. A soft-constraint clusterer needs the closure, which
    weighs a point's membership by its neighbourhood's size where one answer
    is one unit of penalty (breast cancer, standardised, 100 MinMax questions:
    PCKMeans ARI .678 with the answers, .771 with the closure, the library
    .768; on [0, 1] features it changes little; see
    ``benchmarks/results/active_strategies.md``). The closure is quadratic in
    the neighbourhood sizes (thousands of pairs after 100 questions).

    A clusterer with ``on_infeasible="raise"`` (:class:`~linkwise.COPKMeans`)
    that finds no clustering keeping every answer (wrong answers can make
    that impossible) is refitted with ``on_infeasible="relax"`` and a
    ``UserWarning``, so that no answer is lost; pass ``on_infeasible="relax"``
    yourself to silence it.

    Parameters
    ----------
    clusterer : estimator
        A constrained clusterer with ``fit(X, ml=, cl=)``, ``labels_`` and an
        ``n_clusters`` parameter (:class:`~linkwise.PCKMeans`,
        :class:`~linkwise.MPCKMeans`, ...). It is cloned, never modified. If
        its ``random_state`` is None it is seeded from ``random_state``.
    strategy : QueryStrategy
        :class:`Random`, :class:`ExploreConsolidate`, :class:`MinMax`,
        :class:`NPU` or :class:`Committee`. It looks for the clusterer's
        ``n_clusters`` clusters. It is cloned, never modified.
    max_queries : int or None, default=None
        Budget of questions (None: until the strategy has nothing left to ask).
    constraints : {"auto", "answered", "closure"}, default="auto"
        The pairs given to the clusterer: ``"answered"``, the answers
        themselves; ``"closure"``, everything they imply. ``"auto"``: the
        closure for :class:`~linkwise.PCKMeans`, :class:`~linkwise.MPCKMeans`
        and :class:`~linkwise.MKMeans` (penalties and metric evidence grow
        with it), the answered pairs for any other clusterer
        (:class:`~linkwise.COPKMeans` treats them as hard rules and builds
        the same closure itself).
    random_state : int, RandomState instance or None, default=None
        Seeds the strategy's random choices and an unseeded clusterer.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of every row.
    constraints_ : ConstraintStore
        Every answer and what follows from them.
    query_log_ : list of (int, int, bool or None)
        Questions in the order asked, with their answers.
    n_queries_ : int
        Questions asked.
    clusterer_ : estimator
        The clusterer fitted on the final answers.
    strategy_ : QueryStrategy
        The strategy's clone after the run (MinMax's ``sigma_`` lives here).

    References
    ----------
    J. Švehla. Active Semi-Supervised Clustering. Master's thesis, Czech
    Technical University in Prague, 2018 (strategy / clusterer pairing and
    the learning-curve protocol).

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="standard")
    >>> est = lw.ActiveClustering(
    ...     lw.PCKMeans(n_clusters=3), lw.active.MinMax(), max_queries=20, random_state=0
    ... ).fit(X, lw.LabelOracle(y))
    >>> est.n_queries_
    20
    >>> est.labels_.shape
    (147,)
    """

    def __init__(self, clusterer, strategy, *, max_queries=None, constraints="auto", random_state=None):
        self.clusterer, self.strategy, self.max_queries = clusterer, strategy, max_queries
        self.constraints, self.random_state = constraints, random_state

    _parameter_constraints = {
        **ActiveEstimator._parameter_constraints,
        "clusterer": [HasMethods(["fit", "get_params"])],  # check_clusterer reads the rest
        "strategy": [QueryStrategy],
        "constraints": [StrOptions(set(CONSTRAINT_FORMS))],
    }

    def check_params_vs_input(self, X):
        """The clusterer's n_clusters against the rows of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            The data, validated.

        Raises
        ------
        InvalidParameterError
            The clusterer's ``n_clusters`` is above the number of rows.
        """
        owner = type(self).__name__
        check_n_clusters(check_clusterer(self.clusterer, owner), X.shape[0], f"{owner}'s clusterer")

    def questions(self, ctx):
        """Run the strategy on a clone, with the clusterer refitted on the answers when it asks for labels.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this fit.

        Yields
        ------
        tuple of (int, int)
            The strategy's next question; the loop sends back its answer.

        Raises
        ------
        InvalidParameterError
            ``clusterer`` has no ``fit(X, ml=, cl=)`` or no valid ``n_clusters`` parameter.
        """
        n_clusters = check_clusterer(self.clusterer, type(self).__name__)
        self._fit = ConstrainedFit(self.clusterer, ctx, self.constraints)
        self.strategy_ = clone(self.strategy)
        yield from run_strategy(self.strategy_, ctx, n_clusters, self._fit.labels)

    def current_labels(self, ctx):
        """Return the clusterer's clustering of the answers so far (refitted if an answer came since).

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit or session.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            A label per row; ``clusterer_`` is set to the fitted clusterer.
        """
        labels = self._fit.labels().copy()
        self.clusterer_ = self._fit.fitted
        return labels
