"""Wrong answers: find contradictions among pairwise answers, explain them, repair them.

The model: every answer is wrong independently with probability ``p``. A
*labelling* gives every answered pair one value, must-link or cannot-link.
It is *consistent* when some clustering satisfies it, that is when no cycle
of the answer graph holds exactly one cannot-link (such a cycle says "a and b
are together" along its must-link path and "a and b are apart" on its
cannot-link). A labelling that contradicts ``c`` answers has probability
proportional to ``(p / (1 - p)) ** c`` times a prior over its values (a
pair of close points is more likely a must-link than a pair of far ones:
:meth:`AnswerGraph.prior`). ``p`` itself is estimated as answers come
(:meth:`AnswerGraph.noise_rate`), from a prior guess.

:class:`AnswerGraph` keeps every answer and a *belief*: one consistent
labelling, with the strict :class:`~linkwise.ConstraintStore` of its closure
for reuse. A new answer that contradicts the belief makes it inconsistent;
:meth:`AnswerGraph.explain` then lists the most probable *explanations* (the
consistent labellings that change the fewest answers from the belief, found
by branching over the edges of one inconsistent cycle at a time),
:meth:`Explanations.question` picks the pair whose answer tells the
explanations apart best (most mutual information about the clustering they
imply), and :meth:`AnswerGraph.adopt` makes the most probable one the new
belief. The branching is depth-limited and node-capped; past the cap, an
approximate rule (keep the most certain, then the earliest, answers, exactly as
a tolerant store does) takes over with a logged warning: the search never
aborts.

A believed answer is *weak* when nothing else confirms it: changing it alone
leaves the belief consistent, so no other answer would notice if it were
wrong. :meth:`AnswerGraph.verification` picks the question that would notice (one
question can check several such answers at once).

References
----------
Soenen, J., Dumančić, S., Van Craenendonck, T., Blockeel, H. Tackling noise
in active semi-supervised clustering. ECML PKDD 2020 (the possible-worlds
view of noisy answers that this module makes incremental and bounded).
"""

import logging
import math
from collections import deque
from typing import NamedTuple

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path
from scipy.special import betaln, expit

from linkwise._validation import check_scalar
from linkwise.constraints import ConstraintStore

__all__ = ["AnswerGraph", "Explanations", "Correction", "Evidence"]

logger = logging.getLogger(__name__)


class Evidence(NamedTuple):
    """Why an answer is believed wrong.

    Attributes
    ----------
    probability : float
        Posterior probability of the believed value, given every answer.
    answers : tuple of (int, int, bool)
        Other answers, as believed, that together contradict the given one
        (with it they close a cycle holding exactly one cannot-link).
    """

    probability: float
    answers: tuple


class Correction(NamedTuple):
    """One answer linkwise believes wrong: ``pair``, answer ``given``, answer ``believed``, ``evidence``."""

    pair: tuple
    given: bool
    believed: bool
    evidence: Evidence


def _entropy(q):
    """Binary entropy (bits) of probabilities ``q``, elementwise."""
    q = np.clip(q, 1e-12, 1 - 1e-12)
    return -(q * np.log2(q) + (1 - q) * np.log2(1 - q))


class AnswerGraph:
    """Every answer about pairs, a consistent belief about them, and the search that repairs it.

    Parameters
    ----------
    n : int
        Number of points.
    noise_probability : float in (0, 0.5)
        Prior guess of the probability that an answer is wrong.
    X : ndarray of shape (n, n_features), optional
        The data: distances between answered points inform the prior that a
        pair is a must-link (:meth:`prior`).
    prior_strength : float, default=20
        How many answers ``noise_probability`` counts as in
        :meth:`noise_rate`.
    max_depth : int, default=4
        Most answers one explanation may change from the belief.
    max_nodes : int, default=2000
        Cap on the branches the exact search visits per :meth:`explain`;
        past it the approximate rule is used and a warning logged.
    slack : int, default=2
        Explanations contradicting up to ``slack`` more answers than the best
        are kept (they carry probability ``r ** slack`` relative to it).

    Attributes
    ----------
    store : ConstraintStore
        Strict store of the believed answers (their closure is what reuse may
        rely on). While :attr:`conflicted`, it holds the last consistent
        belief plus the new answers that agree with it.
    n_answers : int
        Answers recorded.

    Examples
    --------
    >>> g = AnswerGraph(4, 0.1)
    >>> for i, j, a in [(0, 1, True), (1, 2, True), (0, 2, False)]:
    ...     _ = g.add(i, j, a)
    >>> g.conflicted
    True
    >>> ex = g.explain()
    >>> len(ex), round(ex.certainty(), 2)
    (3, 0.53)
    >>> ex.question([0, 1, 2, 3]) is None  # point 3 has no answers: nothing to learn from it
    True
    >>> _ = g.add(2, 3, True)
    >>> g.explain().question([0, 1, 2, 3])
    (0, 3)
    """

    def __init__(self, n, noise_probability, *, X=None, prior_strength=20, max_depth=4, max_nodes=2000, slack=2):
        self.n = check_scalar(n, "n", "AnswerGraph", kind="int", low=1)
        self.noise_probability = check_scalar(
            noise_probability, "noise_probability", "AnswerGraph", kind="float", low=0.0, high=0.5,
            include_low=False, include_high=False,
        )
        self.max_depth = check_scalar(max_depth, "max_depth", "AnswerGraph", kind="int", low=1)
        self.max_nodes = check_scalar(max_nodes, "max_nodes", "AnswerGraph", kind="int", low=1)
        self.slack = check_scalar(slack, "slack", "AnswerGraph", kind="int", low=0)
        self._X = X
        self._dist = []  # edge id -> distance between its points (with X)
        self._prior = (-1, None)  # (n_answers it was fitted on, prior per edge)
        self._rate = (None, None)  # ((n_answers, belief version) it was estimated on, rate)
        self._version = 0  # bumped when the belief is rebuilt
        self._support = (None, None)  # cached _confirmed()
        self.prior_strength = check_scalar(
            prior_strength, "prior_strength", "AnswerGraph", kind="float", low=0.0, include_low=False
        )
        self.store = ConstraintStore(self.n)
        self.n_answers = 0
        self._node_of = {}  # point -> node id
        self._points = []  # node id -> point
        self._edge_of = {}  # (i, j), i < j -> edge id
        self._ends = []  # edge id -> (node a, node b)
        self._n_ml = []
        self._n_cl = []
        self._belief = []  # edge id -> believed must-link
        self._confidence = {}  # edge id -> posterior of its belief when last repaired
        self._dirty = False  # belief may be inconsistent

    # -- recording ----------------------------------------------------------
    def _node(self, point):
        node = self._node_of.get(point)
        if node is None:
            node = self._node_of[point] = len(self._points)
            self._points.append(point)
        return node

    def add(self, i, j, must_link):
        """Record an answer; return True if it contradicts the current belief.

        A pair may be answered more than once (a re-asked question): its
        answers are counted, and its belief follows their majority.
        """
        i, j = (int(i), int(j)) if i < j else (int(j), int(i))
        must_link = bool(must_link)
        self.n_answers += 1
        e = self._edge_of.get((i, j))
        if e is None:
            e = self._edge_of[(i, j)] = len(self._ends)
            self._ends.append((self._node(i), self._node(j)))
            self._n_ml.append(0)
            self._n_cl.append(0)
            self._belief.append(must_link)
            if self._X is not None:
                self._dist.append(float(np.linalg.norm(self._X[i] - self._X[j])))
        (self._n_ml if must_link else self._n_cl)[e] += 1
        if self._n_ml[e] != self._n_cl[e]:
            self._belief[e] = self._n_ml[e] > self._n_cl[e]
        known = self.store.relation(i, j)
        if known is None:
            self.store.add(i, j, self._belief[e])
            return False
        if known == self._belief[e]:
            return False
        self._dirty = True
        return True

    @property
    def conflicted(self):
        """True while the belief (with the answers added since the last repair) is inconsistent."""
        if self._dirty and self._conflict_cycle(np.array(self._belief, dtype=bool)) is None:
            self._rebuild(self._belief)
        return self._dirty

    @property
    def contradicted(self):
        """True once some answer is known wrong: the belief contradicts one, or cannot hold them all."""
        return self.conflicted or any(
            cl if ml_believed else ml for ml_believed, ml, cl in zip(self._belief, self._n_ml, self._n_cl)
        )

    # -- queries about the belief ---------------------------------------------
    def relation(self, i, j):
        """Believed relation of ``(i, j)``: True, False or None (closure of the belief)."""
        return self.store.relation(i, j)

    def pairs(self):
        """Answered pairs as an ``(m, 2)`` int array (i < j), in order of first answer."""
        return np.array(list(self._edge_of), dtype=np.intp).reshape(-1, 2)

    def believed(self, i, j):
        """The believed value of an answered pair (None if never answered)."""
        e = self._edge_of.get((i, j) if i < j else (j, i))
        return None if e is None else self._belief[e]

    def prior(self):
        """Prior probability that each answered pair (in :meth:`pairs` order) is a must-link.

        A logistic regression of the answers on the distance between the two
        points when the graph has ``X`` and both kinds of answer, else the
        (Laplace-smoothed) share of must-link answers. Clipped to [0.01, 0.99].
        """
        if self._prior[0] != self.n_answers:
            n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
            share = (n_ml.sum() + 1) / (self.n_answers + 2)
            if self._X is None or not n_ml.any() or not n_cl.any():
                prior = np.full(n_ml.size, share)
            else:
                d = np.array(self._dist)
                prior = _logistic(d / max(np.median(d), 1e-12), n_ml, n_cl)
            self._prior = (self.n_answers, prior.clip(0.01, 0.99))
        return self._prior[1]

    def noise_rate(self):
        """Current estimate of the rate of wrong answers (its posterior mean).

        The person is, with prior odds 1:1, either *careful* (no wrong
        answer at all) or *careless*: wrong at a rate whose Beta prior has
        mean ``noise_probability`` and counts as ``prior_strength`` answers.
        The evidence is the answers a wrong value would have shown up in
        (those other answers confirm, :meth:`weak`'s complement: a cycle of
        cannot-links alone checks nothing) and, among them, those the belief
        contradicts. One contradiction rules the careful
        person out; while every checked answer agrees, the careful one
        becomes the more probable the more answers are checked, so checks
        fade away as fast as the evidence allows.
        """
        if self._rate[0] != (self.n_answers, self._version):
            n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
            wrong = int(np.where(self._belief, n_cl, n_ml).sum())
            checked = int((n_ml + n_cl)[self._confirmed() | (n_ml + n_cl > 1)].sum())
            # the careless rate's prior mean is twice noise_probability, so that overall it is noise_probability
            a = 2 * self.prior_strength * self.noise_probability
            b = self.prior_strength - a
            rate = (a + wrong) / (a + b + checked)
            if not self.contradicted:
                # odds careless : careful = P(all checked answers right | careless) : 1
                odds = math.exp(betaln(a, b + checked) - betaln(a, b))
                rate *= odds / (1 + odds)
            self._rate = ((self.n_answers, self._version), float(np.clip(rate, 1e-3, 0.49)))
        return self._rate[1]

    def _bridges(self, mask):
        """Which edges of those in ``mask`` lie on no cycle of that subgraph.

        A breadth-first spanning forest; every other edge clears the tree
        path it closes into a cycle.
        """
        a, b = self._arrays()
        n_nodes = len(self._points)
        parent, depth, via = [-1] * n_nodes, [0] * n_nodes, [-1] * n_nodes
        adjacency = [[] for _ in range(n_nodes)]
        for e in np.flatnonzero(mask).tolist():
            adjacency[a[e]].append((int(b[e]), e))
            adjacency[b[e]].append((int(a[e]), e))
        seen = [False] * n_nodes
        tree = np.zeros(a.size, dtype=bool)
        for root in range(n_nodes):
            if seen[root]:
                continue
            seen[root] = True
            queue = deque([root])
            while queue:
                u = queue.popleft()
                for v, e in adjacency[u]:
                    if not seen[v]:
                        seen[v], parent[v], depth[v], via[v] = True, u, depth[u] + 1, e
                        tree[e] = True
                        queue.append(v)
        bridge = tree.copy()
        for e in np.flatnonzero(mask & ~tree).tolist():
            u, v = int(a[e]), int(b[e])
            while u != v:
                if depth[u] < depth[v]:
                    u, v = v, u
                bridge[via[u]] = False
                u = parent[u]
        return bridge

    def suspicion(self, pairs):
        """Probability that the belief is wrong about every one of ``pairs`` at once.

        From their own answers and the prior alone (the rest of the graph is
        taken as believed): for the cannot-links that keep two clusters
        apart, the probability that the clusters belong together. The prior
        of that event is the largest prior among the pairs.

        Parameters
        ----------
        pairs : list of (int, int)
            Answered pairs with the same believed value.
        """
        es = np.array([self._edge_of[(i, j) if i < j else (j, i)] for i, j in pairs], dtype=np.intp)
        believed = np.array(self._belief, dtype=bool)[es]
        n_ml, n_cl = np.array(self._n_ml)[es], np.array(self._n_cl)[es]
        p = self.noise_rate()
        # answers that agree with the belief would all be wrong, those against it right
        surplus = int(np.where(believed, n_ml - n_cl, n_cl - n_ml).sum())
        prior = self.prior()[es]
        flip_prior = float(np.where(believed, 1 - prior, prior).max())
        odds = flip_prior / (1 - flip_prior) * (p / (1 - p)) ** surplus
        return float(odds / (1 + odds))

    def weak(self, i, j):
        """Whether the believed answer about ``(i, j)`` stands alone.

        True when it rests on a single answer (or a one-answer majority) and
        changing it alone would leave the belief consistent, so that no other
        answer confirms it: a must-link that is a bridge of the must-link
        graph, or the only cannot-link between its two components.
        """
        e = self._edge_of.get((i, j) if i < j else (j, i))
        if e is None or abs(self._n_ml[e] - self._n_cl[e]) > 1:
            return False
        if self.conflicted:
            values = np.array(self._belief, dtype=bool)
            values[e] = not values[e]
            return self._conflict_cycle(values) is None
        return not self._confirmed()[e]

    def _confirmed(self):
        """Which believed values changing alone would contradict the other answers.

        A must-link on a cycle of must-links, or a cannot-link sharing its
        two must-link components with another cannot-link. Read on a
        consistent belief (cached until the next answer or repair).
        """
        key = (self.n_answers, self._version)
        if self._support[0] != key:
            values = np.array(self._belief, dtype=bool)
            a, b = self._arrays()
            confirmed = values & ~self._bridges(values)
            cl = np.flatnonzero(~values)
            if cl.size:
                labels = self._labels(values, a, b)
                ends = np.sort(np.column_stack([labels[a[cl]], labels[b[cl]]]), axis=1)
                _, inverse, counts = np.unique(ends, axis=0, return_inverse=True, return_counts=True)
                confirmed[cl] = counts[inverse.ravel()] > 1
            self._support = (key, confirmed)
        return self._support[1]

    # -- consistency ----------------------------------------------------------
    def _arrays(self):
        ends = np.array(self._ends, dtype=np.intp).reshape(-1, 2)
        return ends[:, 0], ends[:, 1]

    def _labels(self, values, a, b):
        """Must-link component (a root node id) of every node under ``values``; union-find."""
        parent = list(range(len(self._points)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for u, v in zip(a[values].tolist(), b[values].tolist()):
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[max(ru, rv)] = min(ru, rv)
        return np.array([find(x) for x in range(len(parent))], dtype=np.intp)

    def _conflict_cycle(self, values):
        """Edge ids of a shortest cycle with one cannot-link under ``values`` (that one first), or None."""
        if not len(values):
            return None
        a, b = self._arrays()
        labels = self._labels(values, a, b)
        bad = np.flatnonzero(~values & (labels[a] == labels[b]))
        if not bad.size:
            return None
        adjacency = {}
        for e in np.flatnonzero(values).tolist():
            adjacency.setdefault(int(a[e]), []).append((int(b[e]), e))
            adjacency.setdefault(int(b[e]), []).append((int(a[e]), e))
        best = None
        for cl in bad.tolist():
            path = _ml_path(adjacency, int(a[cl]), int(b[cl]))
            if best is None or len(path) + 1 < len(best):
                best = [cl] + path
        return best

    def _rebuild(self, values):
        self._belief = [bool(v) for v in values]
        store = ConstraintStore(self.n)
        for (i, j), e in self._edge_of.items():
            if self._belief[e]:
                store.add(i, j, True)
        for (i, j), e in self._edge_of.items():
            if not self._belief[e]:
                store.add(i, j, False)
        self.store = store
        self._dirty = False
        self._version += 1

    # -- explanations ---------------------------------------------------------
    def _cost(self, values):
        n_ml, n_cl = np.array(self._n_ml), np.array(self._n_cl)
        return int(np.where(values, n_cl, n_ml).sum())

    def explain(self):
        """The most probable consistent labellings near the current belief.

        Returns
        -------
        explanations : Explanations
            Just the belief when it is consistent. Otherwise every consistent
            labelling that changes at most ``max_depth`` believed answers and
            contradicts at most ``slack`` more answers than the best one found.
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
        found = {}
        state = {"nodes": 0, "best": math.inf}

        def visit(values, cost, depth, frozen):
            state["nodes"] += 1
            if state["nodes"] > self.max_nodes:
                return
            cycle = self._conflict_cycle(values)
            if cycle is None:
                found.setdefault(values.tobytes(), (values.copy(), cost))
                state["best"] = min(state["best"], cost)
                return
            if depth == self.max_depth:
                return
            if cost - (self.max_depth - depth) * max_drop > state["best"] + self.slack:
                return
            blocked = set(frozen)
            for e in cycle:
                if e in blocked:
                    continue
                blocked.add(e)
                delta = int(flip_gain[e]) if values[e] == start[e] else -int(flip_gain[e])
                values[e] = not values[e]
                visit(values, cost + delta, depth + 1, blocked)
                values[e] = not values[e]

        visit(start.copy(), self._cost(start), 0, frozenset())
        exact = state["nodes"] <= self.max_nodes and bool(found)
        worlds = [v for v, c in found.values() if c <= state["best"] + self.slack]
        if not exact:
            logger.warning(
                "Wrong-answer search stopped after %d branches (max_nodes=%d, max_depth=%d) with %d "
                "explanation(s); adding the approximate repair that keeps the most certain, then the "
                "earliest, answers.",
                min(state["nodes"], self.max_nodes), self.max_nodes, self.max_depth, len(worlds),
            )
            worlds.append(self._approximate())
        values = np.unique(np.array(worlds, dtype=bool), axis=0)
        costs = np.array([self._cost(v) for v in values])
        return Explanations(self, values, costs, exact=exact)

    def _approximate(self):
        """A consistent labelling: answers by decreasing certainty, then age, into a tolerant store."""
        margin = np.abs(np.array(self._n_ml) - np.array(self._n_cl))
        order = np.lexsort((np.arange(margin.size), -margin))
        store = ConstraintStore(self.n, tolerant=True)
        pairs = list(self._edge_of)
        values = np.array(self._belief, dtype=bool)
        for e in order.tolist():
            i, j = pairs[e]
            store.add(i, j, bool(values[e]))
            values[e] = store.relation(i, j)
        return values

    def adopt(self, explanations):
        """Make the most probable explanation the belief; return the pairs whose belief changed."""
        best = explanations.best
        old = np.array(self._belief, dtype=bool)
        changed = np.flatnonzero(best != old)
        posterior = explanations.posterior
        for e in np.flatnonzero((explanations.values != best).any(axis=0)).tolist():
            self._confidence[e] = float(posterior[explanations.values[:, e] == best[e]].sum())
        self._rebuild(best)
        pairs = list(self._edge_of)
        return [pairs[e] for e in changed.tolist()]

    def corrections(self):
        """Every answer the belief contradicts, with its evidence.

        Returns
        -------
        corrections : list of Correction
            One per answered pair whose belief differs from some answer given
            about it, in order of first answer.
        """
        values = np.array(self._belief, dtype=bool)
        pairs = list(self._edge_of)
        out = []
        for (i, j), e in self._edge_of.items():
            given_other = self._n_cl[e] if values[e] else self._n_ml[e]
            if not given_other:
                continue
            trial = values.copy()
            trial[e] = not values[e]
            cycle = self._conflict_cycle(trial) or []
            support = tuple((*pairs[f], bool(values[f])) for f in cycle if f != e)
            prob = self._confidence.get(e, 1.0 - self.noise_rate())
            out.append(Correction((i, j), not values[e], bool(values[e]), Evidence(prob, support)))
        return out

    def verification(self, decisions, candidates, X=None, decisive=True):
        """The question that best checks the belief about ``decisions``, all at once.

        Each decision is a set of answered pairs that would all be wrong
        together (one weak answer, or the cannot-links between two
        clusters). The worlds weighed are the belief and, for each decision,
        the belief with that decision reversed; the question is the one,
        among the pairs every world settles, whose answer says most about
        which holds (see :meth:`Explanations.question`): an answer that
        agrees with the belief confirms each decision it crosses. When wrong answers are rare, that is
        the question across as many doubtful decisions as it can cover: a
        cycle through several weak must-links checks them all with one
        answer, and a contradiction it reveals is then narrowed down by the
        repair.

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
        pair : tuple of int or None
            None if no unanswered pair among ``candidates`` depends on them.
        """
        base = np.array(self._belief, dtype=bool)
        worlds = [base]
        for pairs in decisions:
            es = [self._edge_of[(i, j) if i < j else (j, i)] for i, j in pairs]
            flipped = base.copy()
            flipped[es] = ~flipped[es]
            worlds.append(flipped)
        costs = np.array([self._cost(w) for w in worlds])
        return Explanations(self, np.stack(worlds), costs, exact=True).question(candidates, X=X, decisive=decisive)


def _logistic(d, n_pos, n_neg, ridge=1.0):
    """Fitted ``P(positive | d)`` of a one-feature logistic model (Newton steps, ridge on the slope).

    Two parameters fitted up to a few hundred times per run: a handful of
    Newton steps cost microseconds where a general solver costs milliseconds.
    """
    design = np.column_stack([np.ones_like(d), d])
    total = n_pos + n_neg
    penalty = np.diag([1e-6, ridge])
    w = np.zeros(2)
    for _ in range(50):
        p = expit(design @ w)
        grad = design.T @ (n_pos - total * p) - penalty @ w
        hess = (design * (total * p * (1 - p))[:, None]).T @ design + penalty
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return expit(design @ w)


def _ml_path(adjacency, source, target):
    """Edge ids of a shortest path from ``source`` to ``target`` (breadth-first)."""
    back = {source: None}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        if node == target:
            break
        for nxt, e in adjacency.get(node, ()):
            if nxt not in back:
                back[nxt] = (node, e)
                queue.append(nxt)
    path = []
    node = target
    while back[node] is not None:
        node, e = back[node]
        path.append(e)
    return path


class Explanations:
    """Consistent labellings of the answers, weighted by their probability.

    Made by :meth:`AnswerGraph.explain`. Row ``w`` of :attr:`values` gives
    every answered pair (in :meth:`AnswerGraph.pairs` order) its value in
    world ``w``.

    The weight of a world is ``r ** cost`` with ``r = p / (1 - p)``, times
    the prior of its values (:meth:`AnswerGraph.prior`): a must-link between
    two far points, or a cannot-link between two close ones, is the more
    likely wrong answer of an otherwise equal pair.

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
        log_weight = (
            costs * math.log(p / (1 - p))
            + values @ np.log(prior)
            + (~values) @ np.log1p(-prior)
        )
        # most probable first; ties: fewer changes from the belief, then blame the latest answers
        belief = np.array(graph._belief, dtype=bool)
        changes = values != belief
        keys = [
            (-round(float(lw), 9), int(ch.sum()), tuple(-np.flatnonzero(ch)[::-1]))
            for lw, ch in zip(log_weight, changes)
        ]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        self.values = values[order]
        self.costs = costs[order]
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
        keys = {}
        groups = []
        for labels, apart in self._worlds(points):
            comps = labels[np.sort(np.unique(labels, return_index=True)[1])]  # in order of first appearance
            rank = np.empty(labels.max() + 1, dtype=np.intp)
            rank[comps] = np.arange(comps.size)
            key = (rank[labels].tobytes(), apart[np.ix_(comps, comps)].tobytes())
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
        graph (the shortest new cycle), then to the closest in ``X`` if
        given, then to the earliest in ``candidates``.

        Parameters
        ----------
        candidates : array-like of int
            Points the question may be about, in order of preference.
        relevant : array-like of int, optional
            Points whose clustering matters (every world is its own group by default).
        X : ndarray of shape (n, n_features), optional
            The data, to prefer pairs of close points among equally informative ones.
        decisive : bool, default=False
            Only pairs whose relation every world settles (together or
            apart), so that an answer either confirms a world or contradicts it.

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
        p = g.noise_rate()
        c = len(points)
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
            n_nodes = len(g._points)
            adjacency = coo_matrix((np.ones(a.size), (a, b)), shape=(n_nodes, n_nodes))
            hops = shortest_path(adjacency, directed=False, unweighted=True, indices=nodes)[:, nodes]
            px, py = np.asarray(points)[tied[:, 0]], np.asarray(points)[tied[:, 1]]
            dist = np.zeros(len(tied)) if X is None else np.einsum("ij,ij->i", X[px] - X[py], X[px] - X[py])
            tied = tied[np.lexsort((tied[:, 1], tied[:, 0], dist, hops[tied[:, 0], tied[:, 1]]))]
        x, y = tied[0]
        return int(points[x]), int(points[y])
