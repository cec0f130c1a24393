"""Every answer about pairs and a consistent belief about them (the answer graph).

:class:`AnswerGraph` keeps every answer and a *belief*: one consistent
labelling, with the strict :class:`~linkwise.ConstraintStore` of its closure
for reuse; its noise model is in :mod:`linkwise.repair._noise`, the search that
explains and repairs a contradiction in :mod:`linkwise.repair._explain`.
"""

import math
from itertools import chain, count
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from linkwise._validation import Interval, validate_args
from linkwise.constraints import ConstraintStore
from linkwise.graph import breadth_first, components, pair_key
from linkwise.graph import shortest_path as path_between
from linkwise.repair._explain import ExplanationSearch
from linkwise.repair._noise import NoiseModel

__all__ = ["AnswerGraph", "Correction", "Evidence"]


class Evidence(NamedTuple):
    """Why an answer is believed wrong.

    Parameters
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
    """One answer linkwise believes wrong.

    Parameters
    ----------
    pair : tuple of (int, int)
        The pair the answer is about (``i < j``).
    given : bool
        The answer given (True: same cluster).
    believed : bool
        The value believed instead, the opposite of ``given``.
    evidence : Evidence
        Its probability, and the other answers that contradict ``given``.
    """

    pair: tuple
    given: bool
    believed: bool
    evidence: Evidence


class AnswerGraph(NoiseModel, ExplanationSearch):
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
        How many answers ``noise_probability`` counts as (:meth:`noise_rate`).
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
        Strict store of the believed answers (while :attr:`conflicted`: the
        last consistent belief and the new answers that agree with it).
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

    @validate_args({
        "n": [Interval(Integral, 1, None, closed="left")],
        "noise_probability": [Interval(Real, 0, 0.5, closed="neither")],
        "prior_strength": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "max_nodes": [Interval(Integral, 1, None, closed="left")],
        "slack": [Interval(Integral, 0, None, closed="left")],
    })
    def __init__(self, n, noise_probability, *, X=None, prior_strength=20, max_depth=4, max_nodes=2000, slack=2):
        self.n, self.noise_probability, self.prior_strength = int(n), float(noise_probability), float(prior_strength)
        self.max_depth, self.max_nodes, self.slack = int(max_depth), int(max_nodes), int(slack)
        self._X = X
        self._dist = []  # edge id -> distance between its points (with X)
        self._prior = (-1, None)  # (n_answers it was fitted on, prior per edge)
        self._rate = (None, None)  # ((n_answers, belief version) it was estimated on, rate)
        self._version = 0  # bumped when the belief is rebuilt
        self._support = (None, None)  # cached _confirmed()
        self._components = (0, {})  # (n_pairs, labelling's bytes -> _labels), as one labelling is read many times
        self.store = ConstraintStore(self.n)
        self.n_answers = 0
        self._node_of = {}  # point -> node id
        self._points = []  # node id -> point
        self._edge_of = {}  # (i, j), i < j -> edge id
        self._ends = []  # edge id -> (node a, node b)
        self._n_ml, self._n_cl = [], []  # edge id -> must-link answers, cannot-link answers
        self._belief = []  # edge id -> believed must-link
        self._confidence = {}  # edge id -> posterior of its belief when last repaired
        self._dirty = False  # belief may be inconsistent

    def _node(self, point):
        node = self._node_of.get(point)
        if node is None:
            node = self._node_of[point] = len(self._points)
            self._points.append(point)
        return node

    def add(self, i, j, must_link):
        """Record an answer and update the belief about its pair.

        A pair answered more than once is believed as most of its answers
        say (a tie keeps the belief it had).

        Parameters
        ----------
        i, j : int
            The two rows of the pair (either order).
        must_link : bool
            The answer: True (same cluster) or False (different clusters).

        Returns
        -------
        bool
            True if the answer contradicts the belief about the other pairs
            (a repair is due), else False.
        """
        i, j = pair_key(i, j)
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
        elif known != self._belief[e]:
            self._dirty = True
            return True
        return False

    def add_group(self, rows, outside):
        """Record the answers of a mark at once, as :meth:`add` one by one would.

        All at once when none of its pairs was answered before, else one by one.

        Parameters
        ----------
        rows : ndarray of int
            The marked cluster, sorted: must-links ``rows[0]`` -> ``rows[1:]``.
        outside : ndarray of int
            The rows outside a complete mark, sorted (empty for a pure one):
            cannot-links ``rows[0]`` -> ``outside``.

        Returns
        -------
        bool
            True if one of the answers contradicts the belief.
        """
        first, ends = int(rows[0]), np.concatenate([rows[1:], outside]).tolist()
        answers = [True] * (len(rows) - 1) + [False] * len(outside)
        keys = [(e, first) if e < first else (first, e) for e in ends]
        if not self._edge_of.keys().isdisjoint(keys):  # a pair answered before: its belief follows the majority
            return any([self.add(first, e, a) for e, a in zip(ends, answers)])
        points = [p for p in dict.fromkeys(chain.from_iterable(keys)) if p not in self._node_of]  # as _node meets them
        self._node_of.update(zip(points, count(len(self._points))))
        self._points += points
        self._edge_of.update(zip(keys, count(len(self._ends))))
        self._ends += [(self._node_of[i], self._node_of[j]) for i, j in keys]
        self._n_ml += [int(a) for a in answers]
        self._n_cl += [1 - int(a) for a in answers]
        self._belief += answers
        if self._X is not None:  # np.linalg.norm's own sum, row by row
            self._dist += [math.sqrt(d.dot(d)) for d in self._X[first] - self._X[ends]]
        self.n_answers += len(keys)
        contradicts = self.store.absorb_group(rows, outside)
        self._dirty |= contradicts
        return contradicts

    @property
    def conflicted(self):
        """True while the belief (with the answers added since the last repair) is inconsistent."""
        if self._dirty and self._conflict_cycle(np.array(self._belief, dtype=bool)) is None:
            self._rebuild(self._belief)
        return self._dirty

    @property
    def contradicted(self):
        """True once some answer is known wrong: the belief contradicts one, or cannot hold them all."""
        return self.conflicted or any(cl if ml_believed else ml
                                      for ml_believed, ml, cl in zip(self._belief, self._n_ml, self._n_cl))

    def relation(self, i, j):
        """Return the believed relation of a pair, answered or implied by the belief.

        Parameters
        ----------
        i, j : int
            The two rows of the pair (either order).

        Returns
        -------
        bool or None
            True (same cluster), False (different clusters) or None (the
            closure of the belief does not say).
        """
        return self.store.relation(i, j)

    def pairs(self):
        """Return the answered pairs, in order of first answer.

        Returns
        -------
        ndarray of int of shape (n_pairs, 2)
            One row ``(i, j)`` per answered pair, ``i < j``.
        """
        return np.array(list(self._edge_of), dtype=np.intp).reshape(-1, 2)

    def believed(self, i, j):
        """Return the believed value of an answered pair.

        Parameters
        ----------
        i, j : int
            The two rows of the pair (either order).

        Returns
        -------
        bool or None
            The answer believed (True: same cluster); None if the pair was never answered.
        """
        e = self._edge_of.get(pair_key(i, j))
        return None if e is None else self._belief[e]

    def _bridges(self, mask):
        """Which edges of ``mask`` lie on no cycle of them: the forest's edges minus the tree paths others close."""
        a, b = self._arrays()
        n_nodes = len(self._points)
        edges = np.flatnonzero(mask)
        order, reached = breadth_first(np.column_stack([a[edges], b[edges]]), n_nodes)
        via = np.r_[edges, -1][reached]  # -1 (a root, or not reached) stays -1
        parent, depth = [-1] * n_nodes, [0] * n_nodes
        for v in order[via[order] >= 0].tolist():
            u = int(a[via[v]] if b[via[v]] == v else b[via[v]])
            parent[v], depth[v] = u, depth[u] + 1
        tree = np.zeros(a.size, dtype=bool)
        tree[via[via >= 0]] = True
        bridge = tree.copy()
        for e in np.flatnonzero(mask & ~tree).tolist():
            u, v = int(a[e]), int(b[e])
            while u != v:
                if depth[u] < depth[v]:
                    u, v = v, u
                bridge[via[u]] = False
                u = parent[u]
        return bridge

    def weak(self, i, j):
        """Tell whether the believed answer about a pair stands alone.

        It does when it rests on a majority of at most one answer and
        changing it alone leaves the belief consistent (a must-link bridge, or
        the only cannot-link between its two components): no other answer
        would notice if it were wrong.

        Parameters
        ----------
        i, j : int
            The two rows of the pair (either order).

        Returns
        -------
        bool
            True if the answer stands alone; False if other answers confirm
            it or the pair was never answered.
        """
        e = self._edge_of.get(pair_key(i, j))
        if e is None or abs(self._n_ml[e] - self._n_cl[e]) > 1:
            return False
        if self.conflicted:
            values = np.array(self._belief, dtype=bool)
            values[e] = not values[e]
            return self._conflict_cycle(values) is None
        return not self._confirmed()[e]

    def _confirmed(self):
        """Which believed values other answers confirm (a must-link on a must-link cycle, a cannot-link between
        two components another one also separates), on a consistent belief; cached until the next answer or repair."""
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

    def _arrays(self):
        ends = np.array(self._ends, dtype=np.intp).reshape(-1, 2)
        return ends[:, 0], ends[:, 1]

    def _labels(self, values, a, b):
        """Must-link component of every node under ``values`` (read-only)."""
        if self._components[0] != values.size:
            self._components = (values.size, {})
        key = values.tobytes()
        if key not in self._components[1]:
            self._components[1][key] = components(np.column_stack([a[values], b[values]]), len(self._points))[1]
        return self._components[1][key]

    def _conflict_cycle(self, values):
        """Edge ids of a shortest cycle with one cannot-link under ``values`` (that one first), or None."""
        if not len(values):
            return None
        a, b = self._arrays()
        labels = self._labels(values, a, b)
        bad = np.flatnonzero(~values & (labels[a] == labels[b]))
        if not bad.size:
            return None
        ml = np.flatnonzero(values)
        pairs = np.column_stack([a[ml], b[ml]])
        cycles = ([cl] + ml[path_between(pairs, len(self._points), a[cl], b[cl])].tolist() for cl in bad.tolist())
        return min(cycles, key=len)  # the first of the shortest

    def _rebuild(self, values):
        self._belief = [bool(v) for v in values]
        self.store = ConstraintStore(self.n)
        for (i, j), e in sorted(self._edge_of.items(), key=lambda item: not self._belief[item[1]]):  # must-links first
            self.store.add(i, j, self._belief[e])
        self._dirty = False
        self._version += 1

    def adopt(self, explanations):
        """Make the most probable explanation of a contradiction the belief.

        Parameters
        ----------
        explanations : Explanations
            What the explanation search found: candidate beliefs of the
            answered pairs, the best one, and their posterior probabilities.

        Returns
        -------
        list of tuple of (int, int)
            The pairs whose belief changed.
        """
        best, values, posterior = explanations.best, explanations.values, explanations.posterior
        changed = np.flatnonzero(best != np.array(self._belief, dtype=bool)).tolist()
        for e in np.flatnonzero((values != best).any(axis=0)).tolist():
            self._confidence[e] = float(posterior[values[:, e] == best[e]].sum())
        self._rebuild(best)
        pairs = list(self._edge_of)
        return [pairs[e] for e in changed]

    def corrections(self):
        """List every answer the belief contradicts, with its evidence.

        Returns
        -------
        list of Correction
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
