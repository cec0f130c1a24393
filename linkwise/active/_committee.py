"""Committee: constraint selection by an ensemble of k-means clusterings."""

from numbers import Integral, Real

import numpy as np

from linkwise._validation import Interval, InvalidParameterError
from linkwise.active._base import NEW, QueryStrategy, argbest, ask_membership
from linkwise.ensemble import agreement, ensemble_labels, flat_codes, imputed_neighbourhoods

__all__ = ["Committee"]


class Committee(QueryStrategy):
    """Constraint selection by committee: ask where an ensemble of clusterings disagrees.

    An ensemble of ``n_estimators`` k-means runs on random subsamples gives
    the co-association of every pair (see :mod:`linkwise.ensemble`). Pairs
    co-assigned in at least ``kappa_ml`` of the runs are imputed must-links;
    their transitive closure gives imputed neighbourhoods.

    *Initialisation*: neighbourhood medians (the queryable member with the
    highest mean co-association to the others), largest neighbourhood first
    and imputed cannot-links to every representative (co-association at most
    ``kappa_cl``) preferred, are asked against the representatives so far;
    one cannot-linked to all becomes a new representative, its cluster
    starting as its neighbourhood, until there are K.

    *Expansion*: the unassigned queryable point with the least certain
    assignment (the margin between its two highest size-weighted mean
    co-associations with the clusters, Eq. 5 of the paper) is asked against
    the representatives by decreasing association; after K - 1 cannot-links
    the last cluster is concluded without a question. Once every unassigned
    point is placed, the budget left goes to the members the imputed
    neighbourhoods placed without a question, least certain first (an answer
    may move one to another cluster).

    Only the ``(n, n_estimators)`` ensemble labels are stored; picking the
    next point costs ``O(n * n_estimators)``.

    Parameters
    ----------
    n_estimators : int, default=100
        Base k-means clusterings (random initialisation, one run each).
    sample_fraction : float, default=0.8
        Fraction of the rows each base clustering is fitted on; the others
        go to their nearest centroid.
    kappa_ml : float, default=0.98
        Least co-association of an imputed must-link.
    kappa_cl : float, default=0.0
        Greatest co-association of an imputed cannot-link (below ``kappa_ml``).

    References
    ----------
    D. Greene and P. Cunningham. Constraint selection by committee: an
    ensemble approach to identifying informative constraints for
    semi-supervised clustering. European Conference on Machine Learning
    (ECML), 2007, LNAI 4701.

    Examples
    --------
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris", scale="standard")
    >>> strategy = lw.active.Committee(n_estimators=20)
    >>> store = strategy.collect(X, lw.LabelOracle(y), n_clusters=3, max_queries=10, random_state=0)
    >>> len(store)
    10
    """

    def __init__(self, *, n_estimators=100, sample_fraction=0.8, kappa_ml=0.98, kappa_cl=0.0):
        self.n_estimators, self.sample_fraction = n_estimators, sample_fraction
        self.kappa_ml, self.kappa_cl = kappa_ml, kappa_cl

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "sample_fraction": [Interval(Real, 0, 1, closed="right")],
        "kappa_ml": [Interval(Real, 0, 1, closed="both")],
        "kappa_cl": [Interval(Real, 0, 1, closed="left")],
    }

    def questions(self, ctx, n_clusters, fit_labels):
        """Pick representatives from the imputed neighbourhoods, then ask where the ensemble disagrees.

        Parameters
        ----------
        ctx : QueryContext
            The data, the answers and the random generator of this run.
        n_clusters : int
            The number of clusters the strategy looks for (K).
        fit_labels : callable or None
            Returns the clusterer's labels fitted on the answers so far (None
            when the strategy runs without a clusterer).

        Yields
        ------
        tuple of (int, int)
            The next pair to ask; the loop sends back its answer.

        Raises
        ------
        InvalidParameterError
            ``kappa_cl`` is not below ``kappa_ml``.
        """
        if self.kappa_cl >= self.kappa_ml:  # a relation of two parameters, beyond what the table states
            raise InvalidParameterError(f"The 'kappa_cl' parameter of Committee must be below kappa_ml="
                                        f"{self.kappa_ml!r}, got {self.kappa_cl!r}.")
        codes = ensemble_labels(ctx.X, n_clusters, self.n_estimators, self.sample_fraction, ctx.rng, owner=self)
        flat, n_codes = flat_codes(codes)
        clusters = _Clusters(flat, n_codes)
        open_ = ctx.queryable_mask.copy()  # queryable points not asked about yet

        # initialisation: representatives from the largest imputed neighbourhoods
        hood = imputed_neighbourhoods(flat, n_codes, self.kappa_ml)
        medians, hoods = _medians(flat, n_codes, hood, ctx.queryable_mask)
        pending = np.ones(len(medians), dtype=bool)
        distinct = np.ones(len(medians), dtype=bool)  # imputed cannot-link to every representative
        cl_agreements = self.kappa_cl * codes.shape[1]
        while len(clusters.reps) < n_clusters and pending.any():
            preferred = pending & distinct
            k = int(np.argmax(preferred if preferred.any() else pending))
            pending[k] = False
            r = int(medians[k])
            h = yield from ask_membership(r, clusters.order(r), clusters.reps, complete=False)
            open_[r] = False
            if h == NEW:
                clusters.new(r, hoods[k])
                distinct &= (flat[medians] == flat[r]).sum(axis=1) <= cl_agreements
            elif h is not None:
                clusters.assign(r, h)

        # expansion: unassigned points, least certain first; then, while the budget
        # lasts, the members the imputed neighbourhoods placed without a question
        while open_.any():
            priority = clusters.certainty() + 2.0 * (clusters.owner >= 0)
            x = argbest(-priority, open_, ctx.rng)
            complete = len(clusters.reps) >= n_clusters
            h = yield from ask_membership(x, clusters.order(x), clusters.reps, complete=complete)
            open_[x] = False
            if h == NEW:
                clusters.new(x, [x])
            elif h is not None:
                clusters.assign(x, h)


class _Clusters:
    """Clusters around the representatives, with each row's summed co-association to them."""

    def __init__(self, flat, n_codes):
        self.flat, self.n_codes = flat, n_codes
        self.reps, self.sizes = [], []
        self.sums = np.zeros((flat.shape[0], 0))
        self.owner = np.full(flat.shape[0], -1, dtype=np.intp)  # cluster of each row, -1: none

    def new(self, rep, members):
        members = np.asarray(members, dtype=np.intp)
        for x in members[self.owner[members] >= 0]:
            self._leave(x)
        self.reps.append(rep)
        self.sizes.append(len(members))
        self.sums = np.column_stack([self.sums, agreement(self.flat, self.n_codes, members)])
        self.owner[members] = len(self.reps) - 1

    def assign(self, x, c):
        if self.owner[x] == c:
            return
        if self.owner[x] >= 0:
            self._leave(x)
        self.sizes[c] += 1
        self.sums[:, c] += agreement(self.flat, self.n_codes, [x])
        self.owner[x] = c

    def _leave(self, x):
        """Take ``x`` out of its cluster (an imputed member an answer placed elsewhere)."""
        c = self.owner[x]
        self.sizes[c] -= 1
        self.sums[:, c] -= agreement(self.flat, self.n_codes, [x])
        self.owner[x] = -1

    def order(self, x):
        """Clusters by decreasing mean co-association with ``x`` (the paper's S row)."""
        if not self.reps:
            return np.empty(0, dtype=np.intp)
        return np.argsort(-self.sums[x] / np.array(self.sizes), kind="stable")

    def certainty(self):
        """Size-weighted margin ``2 T_a / (T_a + T_b) - 1`` of every row (Eq. 5).

        ``T_c = |c| / total * S_c`` is the summed co-association up to a
        common factor, so the margin comes straight from ``sums``.
        """
        if self.sums.shape[1] < 2:
            return np.ones(self.sums.shape[0])  # one cluster: no competing assignment
        top = -np.partition(-self.sums, 1, axis=1)[:, :2]
        total = top.sum(axis=1)
        return np.divide(2.0 * top[:, 0], total, out=np.ones_like(total), where=total > 0) - 1.0


def _medians(flat, n_codes, hood, queryable_mask):
    """Median (queryable member most co-associated with the others) and members of each neighbourhood, largest first.

    Neighbourhoods without a queryable member are left out; ties in size go to the lower label.
    """
    by = np.argsort(hood, kind="stable")
    bounds = np.searchsorted(hood[by], np.arange(hood.max() + 2))
    medians, hoods = [], []
    for g in np.argsort(-np.diff(bounds), kind="stable"):
        members = by[bounds[g] : bounds[g + 1]]
        candidates = members[queryable_mask[members]]
        if candidates.size == 0:
            continue
        if candidates.size > 1:
            candidates = candidates[[np.argmax(agreement(flat, n_codes, members, rows=candidates))]]
        medians.append(candidates[0])
        hoods.append(members)
    return np.array(medians, dtype=np.intp), hoods
