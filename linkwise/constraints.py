"""The constraint store: every answer, and everything that follows from them.

Must-links are transitive (a~b, b~c => a~c) and cannot-links are entailed across
must-link components (a~b, b!~c => a!~c). A union-find forest over must-links
keeps, for each component root, the roots it is cannot-linked to (a union moves
the smaller root's onto the larger): ``add`` and ``relation`` take near-constant time.
"""

import copy
from itertools import chain, repeat
from numbers import Integral
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from linkwise._validation import Interval, check_index_set, check_value, validate_args
from linkwise.exceptions import InconsistentConstraintError
from linkwise.graph import check_constraints, check_pair, find_root, relabel, shortest_path

__all__ = ["ConstraintStore", "Constraint"]


class Constraint(NamedTuple):
    """One stored answer about a pair of points.

    Parameters
    ----------
    i, j : int
        The pair's row indices, in the order given.
    must_link : bool
        True for a must-link (together), False for a cannot-link (apart).
    """

    i: int
    j: int
    must_link: bool


class _Group(NamedTuple):
    """How the constraints of a group fall on a store (see ``ConstraintStore._plan``)."""

    roots: np.ndarray  # every point's root, before
    joined: list  # the members' components its must-links join, in order of first member
    refused: list  # members' components cannot-linked to one joined before it (tolerant: conflicts)
    apart: set  # roots cannot-linked to a joined component
    inside: np.ndarray  # which outside rows lie in a joined component (their cannot-links contradict)
    conflict: tuple  # the first contradiction, as ConstraintStore.group_conflict names it, or None


class ConstraintStore:
    """Pairwise constraints with their transitive and entailed consequences.

    Parameters
    ----------
    n : int
        Number of points; indices run over ``0 .. n - 1``.
    tolerant : bool, default=False
        What to do with a constraint that contradicts the closure of earlier
        ones: ``False`` raises :class:`~linkwise.InconsistentConstraintError`
        (the store is unchanged), ``True`` stores it, lists it in
        ``conflicts``, and leaves the closure as it was.

    Attributes
    ----------
    conflicts : list of Constraint
        In tolerant mode, each stored constraint that contradicted the closure
        when it was added, in order.

    Examples
    --------
    >>> store = ConstraintStore(4)
    >>> store.add(0, 1, True)
    True
    >>> store.add(1, 2, False)
    True
    >>> store.relation(0, 2)    # entailed: 0~1 and 1!~2
    False
    >>> store.relation(0, 3) is None
    True
    >>> [c.tolist() for c in store.components()]
    [[0, 1], [2]]
    """

    @validate_args({"n": [Interval(Integral, 1, None, closed="left")], "tolerant": ["boolean"]})
    def __init__(self, n, *, tolerant=False):
        self.n, self.tolerant = int(n), bool(tolerant)
        self._reset()

    def _reset(self):
        self._parent, self._size, self._explicit, self.conflicts = list(range(self.n)), [1] * self.n, [], []
        self._cl = {}  # root -> set of roots it is cannot-linked to

    @classmethod
    def from_pairs(cls, n, ml=None, cl=None, *, tolerant=False):
        """Build a store from must-link and cannot-link pair lists (must-links first).

        Parameters
        ----------
        n : int
            Number of points.
        ml, cl : array-like of shape (n_pairs, 2), default=None
            Must-link and cannot-link pairs, added in this order with
            :meth:`add`.
        tolerant : bool, default=False
            As in the constructor.

        Returns
        -------
        ConstraintStore
            The new store.

        Raises
        ------
        InvalidParameterError
            If ``n`` is not a positive int or a pair is not valid.
        InconsistentConstraintError
            If ``tolerant`` is False and a pair contradicts earlier ones.

        Examples
        --------
        >>> ConstraintStore.from_pairs(3, ml=[(0, 1)], cl=[(1, 2)]).relation(0, 2)
        False
        """
        store = cls(n, tolerant=tolerant)
        ml, cl = check_constraints(ml, cl, store.n, "ConstraintStore.from_pairs")
        for pairs, must in ((ml, True), (cl, False)):
            for i, j in pairs.tolist():
                store.add(i, j, must)
        return store

    # -- union-find ---------------------------------------------------------
    def find(self, i):
        """Find the root of ``i``'s must-link component (path halving).

        Parameters
        ----------
        i : int
            A point's index (not checked: this is the hot path).

        Returns
        -------
        int
            The component's root; two points are must-linked exactly when
            their roots are equal.
        """
        return find_root(self._parent, i)

    def _union(self, ra, rb):
        """Join two roots (the larger component's root stays root); returns it."""
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._size[ra] += self._size[rb]
        moved = self._cl.pop(rb, None)
        if moved:
            mine = self._cl.setdefault(ra, set())
            for other in moved:
                peers = self._cl[other]
                peers.discard(rb)
                peers.add(ra)
                mine.add(other)
        return ra

    def _roots(self):
        """Every point's root, as an array (pointer doubling; the forest is flattened: later finds take a step)."""
        roots = np.array(self._parent, dtype=np.intp)
        while not np.array_equal(up := roots[roots], roots):
            roots = up
        self._parent = roots.tolist()
        return roots

    # -- public API ---------------------------------------------------------
    def relation(self, i, j):
        """Tell what the constraints say about the pair ``(i, j)``.

        Parameters
        ----------
        i, j : int
            Two distinct point indices.

        Returns
        -------
        bool or None
            True when together (given or by transitivity), False when apart
            (given or entailed), None when unknown.

        Raises
        ------
        InvalidParameterError
            If an index is not a valid point or ``i == j``.
        """
        i, j = check_pair(i, j, self.n, "ConstraintStore")
        ri, rj = self.find(i), self.find(j)
        return True if ri == rj else (False if rj in self._cl.get(ri, ()) else None)

    def explain(self, i, j):
        """List the stored answers that imply the relation of ``(i, j)``.

        A must-link is explained by a shortest path of must-links; a
        cannot-link by the earliest cannot-link between the two must-link
        components, reached by shortest must-link paths from both ends. Ties
        go to earlier answers; conflicting answers (tolerant mode) take no part.

        Parameters
        ----------
        i, j : int
            Two distinct point indices.

        Returns
        -------
        list of Constraint or None
            A chain of stored answers leading from ``i`` to ``j``; None when
            the relation is unknown.

        Raises
        ------
        InvalidParameterError
            If an index is not a valid point or ``i == j``.

        Examples
        --------
        >>> store = ConstraintStore.from_pairs(5, ml=[(0, 1), (1, 2), (3, 4)], cl=[(2, 4)])
        >>> [tuple(c) for c in store.explain(0, 2)]
        [(0, 1, True), (1, 2, True)]
        >>> [tuple(c) for c in store.explain(0, 3)]
        [(0, 1, True), (1, 2, True), (2, 4, False), (3, 4, True)]
        >>> store.explain(0, 4) == store.explain(4, 0)[::-1]
        True
        >>> ConstraintStore(3).explain(0, 2) is None
        True
        """
        i, j = check_pair(i, j, self.n, "ConstraintStore")
        known = self.relation(i, j)
        if known is None:
            return None
        ml = self._kept(True)
        pairs = [(c.i, c.j) for c in ml]

        def path(source, target):  # walked back from target
            return [ml[e] for e in shortest_path(pairs, self.n, source, target)]

        if known:
            return path(i, j)[::-1]
        ri, rj = self.find(i), self.find(j)
        for c in self._kept(False):
            for a, b in ((c.i, c.j), (c.j, c.i)):
                if self.find(a) == ri and self.find(b) == rj:
                    return path(i, a)[::-1] + [c] + path(j, b)  # searched from j: explain(j, i) is this reversed

    def add(self, i, j, must_link):
        """Store the answer ``must_link`` for the pair ``(i, j)``.

        Parameters
        ----------
        i, j : int
            Two distinct point indices.
        must_link : bool
            True for a must-link, False for a cannot-link.

        Returns
        -------
        bool
            True if the constraint added knowledge (the pair's relation was
            unknown), False if it was already implied or, in tolerant mode,
            contradicted the closure (it is then listed in ``conflicts``).

        Raises
        ------
        InvalidParameterError
            If an index is not a valid point, ``i == j``, or ``must_link`` is
            not a bool.
        InconsistentConstraintError
            In strict mode, if the answer contradicts the closure; the store
            is left unchanged.
        """
        i, j = check_pair(i, j, self.n, "ConstraintStore")
        if not isinstance(must_link, (bool, np.bool_)):  # checked by hand first: add is called for every answer
            check_value(must_link, ["boolean"], "must_link", "ConstraintStore.add")
        must_link, known = bool(must_link), self.relation(i, j)
        constraint = Constraint(i, j, must_link)
        if known is not None and known != must_link and not self.tolerant:
            raise _contradiction(i, j, must_link)
        self._explicit.append(constraint)
        if known is not None:
            if known != must_link:
                self.conflicts.append(constraint)
            return False
        ri, rj = self.find(i), self.find(j)
        if must_link:
            self._union(ri, rj)
        else:
            self._cl.setdefault(ri, set()).add(rj)
            self._cl.setdefault(rj, set()).add(ri)
        return True

    # -- a group at once (a person's mark on a cluster: ActiveSession.mark) -------------------------
    @validate_args({"complete": ["boolean"]})
    def add_group(self, rows, complete=False):
        """Store that ``rows`` belong together and, with ``complete``, that nothing else does.

        The same as adding, in this order, the must-links from the first
        (smallest) row to each other row and, when complete, the cannot-links
        from it to every row outside, one by one with :meth:`add`, in far less
        time on large groups: a strict store takes all of them or, when one
        contradicts, none (the error names the first that would, as ``add``
        would, with ``explanation``: the chain of stored answers and of the
        group's own pairs that implies the opposite).

        Parameters
        ----------
        rows : array-like of int
            The group's members.
        complete : bool, default=False
            Whether the group is the whole cluster: every other point is
            cannot-linked to it.

        Raises
        ------
        InvalidParameterError
            If ``rows`` holds an invalid or repeated index, or ``complete`` is
            not a bool.
        InconsistentConstraintError
            A strict store, and a constraint of the group contradicts: nothing has changed.

        Examples
        --------
        >>> store = ConstraintStore(5)
        >>> store.add_group([3, 1, 2], complete=True)
        >>> store.relation(1, 3), store.relation(2, 4), len(store)
        (True, False, 4)
        """
        self._join(*self._members(rows, complete, "add_group"))

    def _join(self, rows, outside, keyed=False):
        """Store the must-links ``rows[0]`` -> ``rows[1:]`` then the cannot-links ``rows[0]`` -> ``outside``
        (both sorted), as :meth:`add_group` says; ``keyed``: each stored as ``(min, max)``."""
        plan = self._plan(rows, outside)
        if plan.conflict is not None and not self.tolerant:
            raise self._refusal(rows, outside, plan.conflict)
        first, roots = int(rows[0]), plan.roots
        cl_ends = (np.minimum(outside, first).tolist(), np.maximum(outside, first).tolist()) if keyed else (
            repeat(first), outside.tolist())
        # what Constraint(i, j, must_link) makes, without a Python call per pair
        ml, cl = ([*map(tuple.__new__, repeat(Constraint), zip(*ends, repeat(must_link)))]
                  for ends, must_link in (((repeat(first), rows[1:].tolist()), True), (cl_ends, False)))
        self._explicit += ml + cl
        refused = np.isin(roots[rows[1:]], plan.refused)
        self.conflicts += [ml[k] for k in np.flatnonzero(refused)] + [cl[k] for k in np.flatnonzero(plan.inside)]
        root = plan.joined[0]
        for c in plan.joined[1:]:
            root = self._union(root, c)
        # the roots newly cannot-linked (outside rows' roots are still roots), in the order add() meets them
        apart = [r for r in dict.fromkeys(roots[outside][~plan.inside].tolist()) if r not in plan.apart]
        if apart:
            self._cl.setdefault(root, set()).update(apart)
            for r in filter(self._cl.__contains__, apart):
                self._cl[r].add(root)
            self._cl.update(zip(filter(lambda r: r not in self._cl, apart), map(set, repeat((root,)))))

    @validate_args({"complete": ["boolean"]})
    def group_conflict(self, rows, complete=False):
        """Tell whether :meth:`add_group` of ``rows`` would contradict the store, and where.

        Nothing changes.

        Parameters
        ----------
        rows : array-like of int
            The group's members.
        complete : bool, default=False
            As in :meth:`add_group`.

        Returns
        -------
        tuple of (int, int, bool) or None
            None when the group fits; else ``(a, b, must_link)``. With
            ``must_link`` True, members ``a`` and ``b`` lie in components a
            stored cannot-link separates (the first member of each, ``b``'s
            the first to meet one joined before it). With False (complete
            only), row ``b``, not a member, is must-linked to member ``a``
            (the smallest such row, and the first member of its component).
            The first pair :meth:`add_group` refuses is ``(min(rows), b)``.

        Raises
        ------
        InvalidParameterError
            If ``rows`` holds an invalid or repeated index, or ``complete`` is
            not a bool.

        Examples
        --------
        >>> store = ConstraintStore.from_pairs(5, ml=[(2, 4)], cl=[(1, 3)])
        >>> store.group_conflict([0, 1, 2, 3]), store.group_conflict([0, 2], complete=True)
        ((1, 3, True), (2, 4, False))
        >>> store.group_conflict([0, 2, 4], complete=True) is None
        True
        """
        return self._plan(*self._members(rows, complete, "group_conflict")).conflict

    def _members(self, rows, complete, owner):
        """The group's rows (sorted) and the rows outside it that a complete group cannot-links (else none)."""
        rows = check_index_set(rows, self.n, "rows", f"ConstraintStore.{owner}")
        return rows, np.setdiff1d(np.arange(self.n), rows) if complete else rows[:0]

    def _plan(self, rows, outside, whole=False):
        """How the must-links ``rows[0]`` -> ``rows[1:]`` then the cannot-links ``rows[0]`` -> ``outside``
        (sorted) fall, taken in order as ``add`` takes them: a :class:`_Group` (a strict store's stops at the
        first contradiction, unless ``whole``)."""
        roots = self._roots()
        comps, at = np.unique(roots[rows], return_index=True)
        order = np.argsort(at)
        comps, at = comps[order].tolist(), at[order].tolist()
        joined, refused, apart, conflict = [], [], set(), None
        for c, k in zip(comps, at):
            if c not in apart:
                joined.append(c)
                apart |= self._cl.get(c, set())
                continue
            if conflict is None:  # b's component meets the cannot-links of one joined before: name its first member
                conflict = (int(rows[min(p for d, p in zip(comps, at) if p < k and d in self._cl[c])]), int(rows[k]),
                            True)
            refused.append(c)
            if not (self.tolerant or whole):
                break
        inside = np.isin(roots[outside], joined)
        if conflict is None and inside.any():
            y = outside[inside.argmax()]
            conflict = (int(rows[(roots[rows] == roots[y]).argmax()]), int(y), False)
        return _Group(roots, joined, refused, apart, inside, conflict)

    def absorb_group(self, rows, outside):
        """Store the pairs of a group that the store does not know yet, and say whether the others contradict it.

        What a belief does with the pairs of a mark (:class:`~linkwise.repair.AnswerGraph`):
        the must-links ``rows[0]`` -> ``rows[1:]`` and the cannot-links
        ``rows[0]`` -> ``outside``, each stored (as ``(min, max)``) where its
        relation is unknown, as :meth:`add` pair by pair would, in far less time.

        Parameters
        ----------
        rows : ndarray of int
            The group's members, sorted.
        outside : ndarray of int
            Rows apart from the group, sorted.

        Returns
        -------
        bool
            Whether a pair of the group contradicts what the store holds.
        """
        plan = self._plan(rows, outside, whole=True)
        roots = plan.roots
        comps, at = np.unique(roots[rows], return_index=True)
        joining = rows[np.sort(at[np.isin(comps, plan.joined)])]  # each joined component's first member
        fresh = ~plan.inside & ~np.isin(roots[outside], list(plan.apart))
        at = np.unique(roots[outside][fresh], return_index=True)[1]  # each new cannot-linked root's first row
        self._join(joining, np.sort(outside[fresh][at]), keyed=True)
        return bool(plan.refused) or bool(plan.inside.any())

    def _refusal(self, rows, outside, conflict):
        """The error :meth:`add` would raise at the group's first contradicting pair, explained through the pairs
        before it (on a copy: the store alone cannot say)."""
        _, b, must_link = conflict
        before = (rows[: np.searchsorted(rows, b)], outside[:0]) if must_link else (rows, outside[outside < b])
        trial = self.copy()
        trial._join(*before)
        error = _contradiction(int(rows[0]), b, must_link)
        error.explanation = trial.explain(int(rows[0]), b)
        return error

    # -- the loop's knowledge (see linkwise.loop): answers taken as given ----------
    @property
    def store(self):
        """The store itself: what a knowledge holds (see :mod:`linkwise.loop`)."""
        return self

    def weigh(self, ctx, answered=None):
        """Weigh an answer: nothing to check, since the loop has stored it already.

        The plain store is the knowledge of answers taken as given (see
        :mod:`linkwise.loop`); :class:`~linkwise.repair.NoisyAnswers` is the one
        that asks questions while weighing one.

        Parameters
        ----------
        ctx : QueryContext
            The run's context (unused).
        answered : tuple of (int, int, bool), default=None
            The answer just given (unused); None at a checkpoint.

        Returns
        -------
        bool
            False: the belief never changes.

        Yields
        ------
        pair
            Nothing: no question is asked.
        """
        yield from ()
        return False

    def remove(self, i, j):
        """Remove and return the most recent stored answer about ``(i, j)`` (either order).

        The closure is rebuilt from the remaining answers, in their order.

        Parameters
        ----------
        i, j : int
            Two distinct point indices.

        Returns
        -------
        Constraint
            The answer removed.

        Raises
        ------
        InvalidParameterError
            If an index is not a valid point or ``i == j``.
        KeyError
            If no answer about the pair is stored.
        """
        i, j = check_pair(i, j, self.n, "ConstraintStore")
        for k in range(len(self._explicit) - 1, -1, -1):
            if {self._explicit[k].i, self._explicit[k].j} == {i, j}:
                break
        else:
            raise KeyError(f"no stored constraint for the pair ({i}, {j})")
        removed = self._explicit[k]
        kept = self._explicit[:k] + self._explicit[k + 1 :]
        self._reset()
        for constraint in kept:
            self.add(*constraint)
        return removed

    @property
    def constraints(self):
        """Every stored answer, in the order added (conflicting ones included)."""
        return list(self._explicit)

    def _kept(self, must_link):
        """The stored answers ``must_link`` that the closure holds (conflicting ones excluded), in order."""
        kept = [c for c in self._explicit if c.must_link == must_link]
        conflicting = set(self.conflicts)
        return [c for c in kept if c not in conflicting] if conflicting else kept

    def _pairs(self, must_link):
        kept = self._kept(must_link)  # a complete mark stores n pairs: no Python tuple per pair on the way
        return np.fromiter(chain.from_iterable(map(itemgetter(0, 1), kept)), np.intp, 2 * len(kept)).reshape(-1, 2)

    def must_link_pairs(self, closure=False):
        """List the must-link pairs.

        Parameters
        ----------
        closure : bool, default=False
            False: the stored must-links (conflicting ones excluded). True: every
            pair inside a must-link component, one row per unordered pair
            (quadratic in component size).

        Returns
        -------
        ndarray of shape (m, 2), dtype intp
            The pairs, one per row.
        """
        if not closure:
            return self._pairs(True)
        blocks = [np.column_stack([m[a], m[b]]) for m in self.components() for a, b in [np.triu_indices(m.size, k=1)]]
        return np.concatenate([np.empty((0, 2), dtype=np.intp), *blocks])

    def cannot_link_pairs(self, closure=False):
        """List the cannot-link pairs.

        Parameters
        ----------
        closure : bool, default=False
            False: the stored cannot-links (conflicting ones excluded). True:
            every pair entailed across cannot-linked components (the product
            of their member sets).

        Returns
        -------
        ndarray of shape (m, 2), dtype intp
            The pairs, one per row.
        """
        if not closure:
            return self._pairs(False)
        labels = self.component_labels()
        comps = self.components(all_points=True)  # indexed by component label
        # roots in sorted order: a set's iteration order depends on its history (a copy's may differ); the list must not
        roots = ((ra, rb) for ra in sorted(self._cl) for rb in sorted(self._cl[ra]) if ra < rb)
        pairs = [(comps[labels[ra]], comps[labels[rb]]) for ra, rb in roots]
        blocks = [np.column_stack([np.repeat(a, b.size), np.tile(b, a.size)]) for a, b in pairs]
        return np.concatenate([np.empty((0, 2), dtype=np.intp), *blocks])

    def relations_among(self, rows):
        """Group ``rows`` by must-link component and say which of those components are cannot-linked.

        Work in the number of ``rows`` and of their components' cannot-links, not in the number of points.

        Parameters
        ----------
        rows : array-like of int
            Point indices (not checked: this is a hot path of the super-instance methods).

        Returns
        -------
        component : ndarray of int of shape (len(rows),)
            The component of each row, numbered ``0 .. k - 1`` by increasing root.
        apart : ndarray of bool of shape (k, k)
            ``apart[a, b]``: a cannot-link (given or entailed) separates components ``a`` and ``b``.

        Examples
        --------
        >>> store = ConstraintStore.from_pairs(5, ml=[(0, 1)], cl=[(1, 2)])
        >>> component, apart = store.relations_among([0, 1, 2, 3])
        >>> component.tolist(), apart[component[0], component[2]].item(), apart[component[2], component[3]].item()
        ([0, 0, 1, 2], True, False)
        """
        roots = np.array([find_root(self._parent, int(r)) for r in np.asarray(rows).tolist()], dtype=np.intp)
        uniq, component = np.unique(roots, return_inverse=True)
        index = {root: k for k, root in enumerate(uniq.tolist())}
        apart = np.zeros((uniq.size, uniq.size), dtype=bool)
        for k, root in enumerate(uniq.tolist()):
            for other in self._cl.get(root, ()):
                if (m := index.get(other)) is not None:
                    apart[k, m] = True
        return component.reshape(-1), apart

    def component_labels(self):
        """Label every point by its must-link component.

        Returns
        -------
        ndarray of shape (n,)
            Component ids numbered from 0 in order of first member, so that
            they do not depend on which root won a union; a point in no
            must-link has a component of its own.
        """
        return relabel(self._roots())

    def constrained_points(self):
        """List the points that appear in at least one stored constraint.

        Returns
        -------
        ndarray of int
            Their indices, sorted.
        """
        return np.unique(np.array([(c.i, c.j) for c in self._explicit], dtype=np.intp))

    def components(self, all_points=False):
        """The neighbourhoods: must-link components, as sorted index arrays.

        Parameters
        ----------
        all_points : bool, default=False
            False: only components holding a constrained point (the
            neighbourhoods of the active-learning literature, singletons with a
            cannot-link included). True: every point's component.

        Returns
        -------
        list of ndarray
            The components' sorted member indices, ordered by smallest member.
        """
        labels = self.component_labels()
        wanted = np.unique(labels if all_points else labels[self.constrained_points()])
        order = np.argsort(labels, kind="stable")
        bounds = np.searchsorted(labels[order], np.arange(labels.max() + 2))
        return [order[bounds[c] : bounds[c + 1]] for c in wanted]

    def n_components(self):
        """Count the neighbourhoods (components holding a constrained point).

        Returns
        -------
        int
            The number of must-link components with a constrained member.
        """
        return len({self.find(int(p)) for p in self.constrained_points()})

    def __getstate__(self):
        # the union-find as arrays: pickling a list of a million ints one object at a time is slow (resume points)
        return {**self.__dict__, "_parent": np.array(self._parent, dtype=np.int64),
                "_size": np.array(self._size, dtype=np.int64)}

    def __setstate__(self, state):
        self.__dict__.update(state)  # stores pickled before 2026-12 hold lists
        self._parent, self._size = np.asarray(state["_parent"]).tolist(), np.asarray(state["_size"]).tolist()

    def copy(self):
        """Copy the store: same answers, closure and conflicts, sharing no state.

        Returns
        -------
        ConstraintStore
            The independent copy.
        """
        other = copy.copy(self)
        other._parent, other._size, other._explicit = list(self._parent), list(self._size), list(self._explicit)
        other.conflicts, other._cl = list(self.conflicts), {r: set(peers) for r, peers in self._cl.items()}
        return other

    def __len__(self):
        return len(self._explicit)

    def __repr__(self):
        n_ml, mode = sum(c.must_link for c in self._explicit), ", tolerant" if self.tolerant else ""
        return (f"ConstraintStore(n={self.n}{mode}: {n_ml} must-link, {len(self._explicit) - n_ml} cannot-link, "
                f"{len(self.conflicts)} conflicts)")


def _contradiction(i, j, must_link):
    """The error for storing ``must_link`` about ``(i, j)`` when earlier constraints imply the opposite."""
    return InconsistentConstraintError(f"{'Must' if must_link else 'Cannot'}-link ({i}, {j}) contradicts earlier "
                                       f"constraints, which imply {'cannot' if must_link else 'must'}-link.",
                                       pair=(i, j), must_link=must_link)
