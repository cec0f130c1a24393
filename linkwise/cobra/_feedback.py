"""Cluster feedback for super-instance methods: marks and pairs a person stated outside the questions.

A person who looks at the clusters can mark one *pure* (its members belong
together) or *pure and complete* (and nothing else belongs with them), or
move an item to another cluster (:meth:`linkwise.ActiveSession.mark` and
:meth:`~linkwise.ActiveSession.inform`). :class:`Feedback` applies them to a
:class:`~linkwise.cobra._superinstances.SuperInstanceTree`, as the COBRAS
authors' interactive tool treats marked clusters (Van Craenendonck et al.,
IDA 2018): the super-instances of a marked cluster are never split again,
and a complete one is never merged with (its cannot-links see to that).

Statements are taken in the order given, against the clustering shown:

- a mark: every super-instance partly inside the cluster is cut in two (the
  part inside, the part outside) and the parts inside join the cluster the
  marked rows were shown in; for a complete mark, the super-instances
  outside leave that cluster;
- a move of ``x`` from ``a``'s cluster to ``b``'s (``inform(x, b, True,
  move=True)`` and ``inform(x, a, False, move=True)``: two pairs of opposite
  answers sharing ``x``, in either order and either way round) that the clustering shown
  disagrees with takes ``x``, with the rows of its super-instance stated
  together with it, out of that super-instance as a super-instance of its
  own, into ``b``'s cluster (or a cluster of its own);
- a lone pair (an imported constraint, another person's answer to a
  question) acts through the constraint store, as an answer to a question:
  a team's answers make the questions one person would be asked.

Marks and moves show at once and restart the method's step under way; its
merging treats a move's pairs as relations between the two rows'
super-instances (the rows speak for them, as representatives do). A part
without a row that may be asked about is not cut out (its rows follow
their super-instance).
"""

import functools

import numpy as np

from linkwise.graph import components

__all__ = ["Feedback"]


def _shared(pair, other):
    """The row two stated pairs of opposite answers share, if exactly one (they are then the halves of a move of
    it, stored in either order and either way round), else None."""
    shared = {pair[0], pair[1]} & {other[0], other[1]}
    return shared.pop() if pair[2] != other[2] and len(shared) == 1 else None


class Feedback:
    """The feedback of one run, applied to ``method._tree`` (see the module docstring).

    ``version`` grows whenever new statements are applied: a question
    generator compares it across a ``yield`` and starts its step again.

    It holds no reference to the run's context (each :meth:`update` is given it), so a fitted estimator pickles
    without its data.

    Parameters
    ----------
    method : COBRAS
        The super-instance method whose tree the statements change.
    """

    def __init__(self, method):
        self._method = method
        self._n_informed = self._n_marks = self.version = 0
        self._masks = []  # rows of each mark, as a mask
        self._moves, self._arrays = {}, None  # the pairs of moves by position in ctx.informed, and as arrays

    def update(self, ctx):
        """Apply the statements made since the last call (any time: between questions too).

        Parameters
        ----------
        ctx : QueryContext
            The run's context: its ``informed`` pairs and ``marks`` are the statements.
        """
        if self._n_informed == len(ctx.informed) and self._n_marks == len(ctx.marks):
            return
        tree = self._method._tree
        tree.settle()
        n_ids, shown = tree.n_ids, tree._label_per_id(tree.shown)
        view = shown.copy()
        # the must-link component of each row by the stated pairs: only a move needs it (an import of many pairs
        # would otherwise label every row once per pair)
        stated = functools.cache(lambda: components([(i, j) for i, j, a in ctx.informed if a], ctx.n_samples)[1])
        start = self._n_informed  # the first pair not applied yet
        for mark in ctx.marks[self._n_marks :]:
            mask = np.zeros(ctx.n_samples, dtype=bool)
            mask[mark.rows] = True
            self._masks.append(mask)
            for pos in range(start, mark.start):  # the pairs stated before the mark
                view = self._pair(ctx, pos, view, stated)
            view = self._mark(ctx, mask, mark.complete, view)
            start = mark.stop
        for pos in range(start, len(ctx.informed)):
            view = self._pair(ctx, pos, view, stated)
        marked = len(ctx.marks) > self._n_marks
        self._n_informed, self._n_marks = len(ctx.informed), len(ctx.marks)
        if marked or tree.n_ids > n_ids or not np.array_equal(view, shown):
            tree.shown = (tree.n_ids, view)
            self.version += 1

    def locked(self, sid):
        """Tell whether a leaf lies inside a marked cluster (it is then never split again).

        Parameters
        ----------
        sid : int
            The leaf's super-instance id.

        Returns
        -------
        bool
            True when every member of the leaf is in one mark.
        """
        members = self._method._tree.members[sid]
        return any(mask[members].all() for mask in self._masks)

    def _mark(self, ctx, inside, complete, view):
        tree = self._method._tree
        labels = view[tree.leaf_of_point[inside]]
        target = np.bincount(labels).argmax()  # the cluster the marked rows were shown in
        for sid in tree.leaves().tolist():
            share = inside[tree.members[sid]]
            if share.all() or not share.any():
                continue
            view = self._cut(ctx, sid, tree.members[sid][share], view)[1]
        outside = view.max() + 1
        for sid in tree.leaves().tolist():
            share = inside[tree.members[sid]]
            if share.all():
                view[sid] = target
            elif complete and not share.any() and view[sid] == target:
                view[sid] = outside
        return view

    def _pair(self, ctx, pos, view, stated):
        """Apply the stated pair ``ctx.informed[pos]``: nothing if lone, else the move it is half of."""
        informed, moved = ctx.informed, ctx.moved
        for k in (pos - 1, pos + 1):
            if {pos, k} <= moved and (mover := _shared(informed[pos], informed[k])) is not None:
                break
        else:
            return view  # a lone pair (as another person's answer to a question): the store has it
        if k < pos:  # its first half again: it looked lone if the clustering was read between the two
            view = self._move(ctx, k, mover, view, stated)
        return self._move(ctx, pos, mover, view, stated)

    def _move(self, ctx, pos, mover, view, stated):
        """Apply half ``ctx.informed[pos]`` of a move of row ``mover``."""
        tree = self._method._tree
        i, j, answer = ctx.informed[pos]
        self._moves[pos] = (i, j, answer)
        if mover == j:
            i, j = j, i
        li, lj = tree.leaf_of_point[i], tree.leaf_of_point[j]
        if answer == (view[li] == view[lj]) and (answer or li != lj):
            return view  # the clustering shown agrees
        members = tree.members[li]
        component = stated()
        piece = members[component[members] == component[i]]
        if not answer and li == lj and component[j] == component[i]:
            return view  # contradicting statements: the knowledge sorts them out
        if piece.size < members.size:
            li, view = self._cut(ctx, li, piece, view)
            if li is None:
                return view
        view[li] = view[tree.leaf_of_point[j]] if answer else view.max() + 1
        return view

    def _cut(self, ctx, sid, piece, view):
        """Split leaf ``sid`` into the rows ``piece`` and the rest; returns the piece's leaf (None if either part
        has no queryable row) and ``view`` for the new leaves."""
        method = self._method
        tree, X, qmask = method._tree, ctx.X, ctx.queryable_mask
        members = tree.members[sid]
        in_piece = np.isin(members, piece)
        parts = [np.flatnonzero(in_piece), np.flatnonzero(~in_piece)]
        if not all(qmask[members[part]].any() for part in parts):
            return None, view
        means = [X[members[part]].mean(axis=0) for part in parts]
        reps = [tree.rep[sid] if in_part[tree.rep[sid] == members].any() else
                method._representative(X, members[part], qmask, m)
                for part, m, in_part in zip(parts, means, (in_piece, ~in_piece))]
        cluster = tree.cluster[sid]
        ids = tree.replace(sid, parts, reps, means)
        tree.cluster[ids[1]] = cluster  # the rest stays in the working clustering; the merging places the piece
        view = np.concatenate([view, np.full(ids.size, view[sid], dtype=view.dtype)])
        return int(ids[0]), view

    def lift(self, leaves, comp, cl):
        """Add the pairs of moves to a merging, as relations between their rows' leaves.

        Must-links join components (unless apart), cannot-links part them
        (the moved row speaks for its new super-instance, its partner for its
        own).

        Parameters
        ----------
        leaves : ndarray of int
            The merging's leaves, sorted.
        comp : ndarray of int, shape (len(leaves),)
            The component of each leaf.
        cl : ndarray of bool, shape (n_components, n_components)
            Which components are kept apart.

        Returns
        -------
        comp : ndarray of int, shape (len(leaves),)
            The components after the moves' must-links.
        cl : ndarray of bool, shape (n_components, n_components)
            Which of those are apart, the moves' cannot-links included; the
            inputs themselves when there is no move.
        """
        moves = self._moves
        if not moves:
            return comp, cl
        if self._arrays is None or len(self._arrays[0]) != len(moves):  # kept between merging passes
            pairs = list(moves.values())
            self._arrays = np.array([(i, j) for i, j, _ in pairs], np.intp), np.array([a for *_, a in pairs])
        pairs, answers = self._arrays
        tree = self._method._tree
        tree.settle()  # every row in its leaf
        at = np.searchsorted(leaves, tree.leaf_of_point[pairs])
        ends = comp[at]
        cl = cl.copy()
        apart = ends[~answers]
        apart = apart[apart[:, 0] != apart[:, 1]]
        cl[apart[:, 0], apart[:, 1]] = cl[apart[:, 1], apart[:, 0]] = True
        together = ends[answers]
        together = together[~cl[together[:, 0], together[:, 1]]]
        n_comp, merged = components(together, cl.shape[0])
        if n_comp == cl.shape[0]:
            return comp, cl
        onehot = np.zeros((cl.shape[0], n_comp), dtype=int)
        onehot[np.arange(cl.shape[0]), merged] = 1
        return merged[comp], (onehot.T @ cl.astype(int) @ onehot) > 0
