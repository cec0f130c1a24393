"""Explanations of a contradiction among the answers, and the questions that tell them apart.

When a new answer makes the belief of :class:`AnswerGraph` inconsistent,
:meth:`AnswerGraph.explain` lists the most probable *explanations* (consistent
labellings changing few answers, found by branching over the edges of one
inconsistent cycle at a time, depth-limited and node-capped, past the cap the
approximate rule of a tolerant store with a logged warning),
``Explanations.question`` picks the pair whose answer tells them apart
best, and :meth:`AnswerGraph.adopt` makes the most probable one the belief.

References
----------
Soenen, J., Dumančić, S., Van Craenendonck, T., Blockeel, H. Tackling noise
in active semi-supervised clustering. ECML PKDD 2020 (the possible-worlds
view of noisy answers that this module makes incremental and bounded).
"""

import logging
import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from linkwise.constraints import ConstraintStore
from linkwise.graph import pair_key, relabel

__all__ = ["ExplanationSearch", "Explanations"]

logger = logging.getLogger(__name__)


def _entropy(q):
    """Binary entropy (bits) of probabilities ``q``, elementwise."""
    q = np.clip(q, 1e-12, 1 - 1e-12)
    return -(q * np.log2(q) + (1 - q) * np.log2(1 - q))


class ExplanationSearch:
    """The search for explanations of :class:`~linkwise.repair.AnswerGraph` (its base class)."""

    def explain(self):
        """Find the most probable consistent labellings of the answers near the current belief.

        Returns
        -------
        Explanations
            Just the belief when it is consistent; else every consistent
            labelling changing at most ``max_depth`` believed answers and
            contradicting at most ``slack`` more answers than the best found.
            If the search visits ``max_nodes`` branches or finds nothing, the
            approximate rule's labelling is added and ``exact`` is False.
        """
        start = np.array(self._belief, dtype=bool)
        if not self.conflicted:
            return Explanations(self, start[None, :], np.array([self._cost(start)]), exact=True)
        n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
        # cost change of flipping each edge from its current value: + when it leaves the majority
        flip_gain = np.where(start, n_ml - n_cl, n_cl - n_ml)
        # the most one change can lower the cost: reverting an earlier repair the answers outvote
        max_drop = max(0, -int(flip_gain.min()))
        found, nodes, best = {}, 0, math.inf

        def visit(values, cost, depth, frozen):
            nonlocal nodes, best
            nodes += 1
            if nodes > self.max_nodes:
                return
            cycle = self._conflict_cycle(values)
            if cycle is None:
                found.setdefault(values.tobytes(), (values.copy(), cost))
                best = min(best, cost)
                return
            if depth == self.max_depth or cost - (self.max_depth - depth) * max_drop > best + self.slack:
                return
            blocked = set(frozen)
            for e in [e for e in cycle if e not in frozen]:  # the edges of a cycle are distinct
                blocked.add(e)
                delta = int(flip_gain[e]) if values[e] == start[e] else -int(flip_gain[e])
                values[e] = not values[e]
                visit(values, cost + delta, depth + 1, blocked)
                values[e] = not values[e]

        visit(start.copy(), self._cost(start), 0, frozenset())
        exact = nodes <= self.max_nodes and bool(found)
        worlds = [v for v, c in found.values() if c <= best + self.slack]
        if not exact:
            logger.warning("Wrong-answer search stopped after %d branches (max_nodes=%d, max_depth=%d) with %d "
                           "explanation(s); adding the approximate repair that keeps the most certain, then the "
                           "earliest, answers.",
                           min(nodes, self.max_nodes), self.max_nodes, self.max_depth, len(worlds))
            worlds.append(self._approximate())
        values = np.unique(np.array(worlds, dtype=bool), axis=0)
        costs = np.array([self._cost(v) for v in values])
        return Explanations(self, values, costs, exact=exact)

    def _approximate(self):
        """A consistent labelling: answers by decreasing certainty, then age, into a tolerant store."""
        margin = np.abs(np.array(self._n_ml) - np.array(self._n_cl))
        store, pairs = ConstraintStore(self.n, tolerant=True), list(self._edge_of)
        values = np.array(self._belief, dtype=bool)
        for e in np.lexsort((np.arange(margin.size), -margin)).tolist():
            i, j = pairs[e]
            store.add(i, j, bool(values[e]))
            values[e] = store.relation(i, j)
        return values

    def verification(self, decisions, candidates, X=None, decisive=True):
        """Choose the question that best checks the belief about ``decisions``, all at once.

        Each decision is a set of answered pairs that would all be wrong
        together (one weak answer, or the cannot-links between two
        clusters). The worlds weighed are the belief and, for each decision,
        the belief with it reversed; the question is the pair whose answer
        says most about which holds (``Explanations.question``), so one
        question covers as many doubtful decisions as it can.

        Parameters
        ----------
        decisions : list of list of (int, int)
            Answered pairs, grouped by decision.
        candidates : array-like of int
            Points the question may be about, in order of preference.
        X : ndarray, optional
            The data, to break ties between equally telling pairs.
        decisive : bool, default=True
            Only pairs every world settles. With False, a pair the reversed
            decision leaves open may be asked: its answer cannot confirm the
            decision, only gather evidence about it.

        Returns
        -------
        tuple of int or None
            The pair to ask; None if no unanswered pair among ``candidates``
            depends on them.
        """
        worlds = np.tile(np.array(self._belief, dtype=bool), (len(decisions) + 1, 1))
        for w, pairs in enumerate(decisions, 1):
            es = [self._edge_of[pair_key(i, j)] for i, j in pairs]
            worlds[w, es] = ~worlds[w, es]
        costs = np.array([self._cost(w) for w in worlds])
        return Explanations(self, worlds, costs, exact=True).question(candidates, X=X, decisive=decisive)


class Explanations:
    """Consistent labellings of the answers, weighted by their probability.

    Made by :meth:`AnswerGraph.explain`. Row ``w`` of :attr:`values` gives
    every answered pair (in :meth:`AnswerGraph.pairs` order) its value in
    world ``w``, whose weight is ``r ** cost`` with ``r = p / (1 - p)``, times
    the prior of its values (:meth:`AnswerGraph.prior`).

    Attributes
    ----------
    values : ndarray of bool, shape (n_worlds, n_pairs)
    costs : ndarray of int, shape (n_worlds,)
        Number of answers each world contradicts.
    posterior : ndarray of float, shape (n_worlds,)
        Probabilities, normalised over the worlds listed; most probable first.
    exact : bool
        False when the search hit its cap and the approximate rule was used.
    """

    def __init__(self, graph, values, costs, *, exact):
        self._graph = graph
        p = graph.noise_rate()
        prior = graph.prior()
        log_weight = costs * math.log(p / (1 - p)) + values @ np.log(prior) + (~values) @ np.log1p(-prior)
        # most probable first; ties: fewer changes from the belief, then blame the latest answers
        changes = values != np.array(graph._belief, dtype=bool)
        keys = [(-round(float(lw), 9), int(ch.sum()), tuple(-np.flatnonzero(ch)[::-1]))
                for lw, ch in zip(log_weight, changes)]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        self.values, self.costs = values[order], costs[order]
        weights = np.exp(log_weight[order] - log_weight[order[0]])
        self.posterior = weights / weights.sum()
        self.exact = exact

    def __len__(self):
        return len(self.costs)

    @property
    def best(self):
        """The most probable labelling."""
        return self.values[0]

    def _worlds(self, points):
        """For each world: must-link component of each of ``points`` and the cannot-linked component pairs."""
        g = self._graph
        a, b = g._arrays()
        nodes = np.array([g._node_of[p] for p in points], dtype=np.intp)
        out = []
        for values in self.values:
            labels = g._labels(values, a, b)
            k = labels.max() + 1
            apart = np.zeros((k, k), dtype=bool)
            la, lb = labels[a[~values]], labels[b[~values]]
            apart[la, lb] = apart[lb, la] = True
            out.append((labels[nodes], apart))
        return out

    def _groups(self, relevant):
        """Group id of each world: worlds that cluster ``relevant`` points alike share one."""
        g = self._graph
        if relevant is None:
            return np.arange(len(self))
        points = [p for p in np.asarray(relevant).tolist() if p in g._node_of]
        if not points:
            return np.zeros(len(self), dtype=np.intp)
        keys, groups = {}, []
        for labels, apart in self._worlds(points):
            relabelled, comps = relabel(labels, return_order=True)
            key = (relabelled.tobytes(), apart[np.ix_(comps, comps)].tobytes())
            groups.append(keys.setdefault(key, len(keys)))
        return np.array(groups, dtype=np.intp)

    def certainty(self, relevant=None):
        """Probability that the most probable world clusters the ``relevant`` points right.

        Parameters
        ----------
        relevant : array-like of int, optional
            Points whose clustering matters (by default every answer matters).
        """
        groups = self._groups(relevant)
        return float(self.posterior[groups == groups[0]].sum())

    def question(self, candidates, relevant=None, X=None, decisive=False):
        """The unanswered pair among ``candidates`` whose answer says most about the worlds.

        The score is the mutual information between the answer (right with
        probability ``1 - p``) and the group of worlds that cluster the
        ``relevant`` points alike. Ties go to the pair closest in the answer
        graph, then in ``X``, then to the earliest in ``candidates``.

        Parameters
        ----------
        candidates : array-like of int
            Points the question may be about, in order of preference.
        relevant : array-like of int, optional
            Points whose clustering matters (every world is its own group by default).
        X : ndarray of shape (n, n_features), optional
            The data, to prefer close pairs among equally informative ones.
        decisive : bool, default=False
            Only pairs every world settles, so an answer confirms or contradicts each.

        Returns
        -------
        pair : tuple of int or None
            None when no candidate pair carries information.
        """
        g = self._graph
        points = [p for p in dict.fromkeys(np.asarray(candidates).tolist()) if p in g._node_of]
        groups = self._groups(relevant)
        if len(points) < 2 or np.unique(groups).size < 2:
            return None
        p, c = g.noise_rate(), len(points)
        # P(answer must-link | world) for every candidate pair
        q_ml = np.empty((len(self), c, c))
        settled = np.ones((c, c), dtype=bool)
        for w, (labels, apart) in enumerate(self._worlds(points)):
            same = labels[:, None] == labels[None, :]
            cut = apart[labels[:, None], labels[None, :]]
            q_ml[w] = np.where(same, 1 - p, np.where(cut, p, 0.5))
            settled &= same | cut
        n_groups = groups.max() + 1
        weight = np.zeros(n_groups)
        np.add.at(weight, groups, self.posterior)
        per_group = np.zeros((n_groups, c, c))
        np.add.at(per_group, groups, self.posterior[:, None, None] * q_ml)
        per_group /= weight[:, None, None]
        overall = np.tensordot(weight, per_group, axes=1)
        info = _entropy(overall) - np.tensordot(weight, _entropy(per_group), axes=1)
        answered = np.zeros((c, c), dtype=bool)
        pos = {pt: k for k, pt in enumerate(points)}
        for i, j in g._edge_of:
            if i in pos and j in pos:
                answered[pos[i], pos[j]] = answered[pos[j], pos[i]] = True
        info[answered | ~np.triu(np.ones((c, c), dtype=bool), k=1)] = 0.0
        if decisive:
            info[~settled] = 0.0
        top = info.max()
        if top <= 1e-9:
            return None
        tied = np.argwhere(info >= top - 1e-9)
        if len(tied) > 1:
            nodes = np.array([g._node_of[pt] for pt in points], dtype=np.intp)
            a, b = g._arrays()
            adjacency = coo_matrix((np.ones(a.size), (a, b)), shape=(len(g._points),) * 2)
            hops = shortest_path(adjacency, directed=False, unweighted=True, indices=nodes)[:, nodes]
            px, py = np.asarray(points)[tied[:, 0]], np.asarray(points)[tied[:, 1]]
            dist = np.zeros(len(tied)) if X is None else np.einsum("ij,ij->i", X[px] - X[py], X[px] - X[py])
            tied = tied[np.lexsort((tied[:, 1], tied[:, 0], dist, hops[tied[:, 0], tied[:, 1]]))]
        x, y = tied[0]
        return int(points[x]), int(points[y])
