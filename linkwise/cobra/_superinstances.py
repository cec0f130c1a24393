"""Super-instances and their merging, shared by COBRA and COBRAS.

A *super-instance* is a small K-means cluster treated as one unit: only its
representative is asked about and all its points share a label; clusters are
groups of super-instances. :class:`SuperInstanceTree` records every split, so
the clustering after any question is rebuilt from a few integers per
super-instance (:class:`LabelsHistory`), and splits large super-instances
lazily (rows assigned a chunk at a time between questions).
:class:`SuperInstanceClustering` holds the merging phase and the loop hooks.
"""

import functools
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.spatial.distance import cdist, pdist
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import ThreadpoolController

from linkwise.cobra._feedback import Feedback
from linkwise.graph import relabel
from linkwise.loop import ActiveEstimator, Checkpoint
from linkwise.prediction import NearestPoints

__all__ = ["SuperInstanceTree", "SuperInstanceClustering", "LabelsHistory", "group", "bisect", "kmeans",
           "make_parts", "predict", "representative", "sample_positions"]

# Above this many points K-means is fitted on a sample, the rest joining the nearest centre (fast on millions).
SAMPLE_SIZE = 4096
# Rows assigned between two questions while a lazy split is pending.
_CHUNK = 1 << 17
# Histories up to this many entries (n_queries * n_samples) are a plain array, larger ones rebuilt on access.
_DENSE_HISTORY_MAX = 1 << 24


def sample_positions(n_points, queryable, rng, size=SAMPLE_SIZE):
    """Positions (into ``n_points`` points) of a K-means fitting sample: all up to ``size``, else half drawn
    among all and half among the ``queryable`` ones (so that representatives are found in it)."""
    if n_points <= size:
        return np.arange(n_points)
    q = np.flatnonzero(queryable)
    parts = [rng.randint(0, n_points, size // 2)]
    if q.size:
        parts.append(q[rng.randint(0, q.size, size // 2)])
    return np.unique(np.concatenate(parts))


@functools.cache
def _threadpools():
    return ThreadpoolController()


def kmeans(X, k, rng, *, n_init=1):
    """A K-means model of ``X`` seeded from ``rng``, on one OpenMP thread (the fits are small and many); callers
    keep the non-empty clusters, so scikit-learn's warning about duplicate points is silenced."""
    km = KMeans(n_clusters=k, n_init=n_init, random_state=int(rng.randint(np.iinfo(np.int32).max)))
    with warnings.catch_warnings(), _threadpools().limit(limits=1, user_api="openmp"):
        warnings.simplefilter("ignore", ConvergenceWarning)
        km.fit(X)
    return km


def predict(model, X):
    """Nearest centre of ``model`` for every row of ``X`` (scikit-learn's assignment, one thread)."""
    with _threadpools().limit(limits=1, user_api="openmp"):
        return model.predict(X)


def bisect(X, centres):
    """Nearest of two ``centres`` for every row: the side of their bisecting hyperplane (one product)."""
    w = centres[1] - centres[0]
    return (X @ w > 0.5 * (centres[1] @ centres[1] - centres[0] @ centres[0])).astype(np.intp)


def representative(X, rows, queryable_mask, centre):
    """The queryable row of ``rows`` closest to ``centre`` (the first on ties; among a fixed stride of
    ``SAMPLE_SIZE`` rows of a larger set, plenty to land next to the centre)."""
    thin = rows[:: -(-rows.size // (2 * SAMPLE_SIZE))]
    cand = thin[queryable_mask[thin]]
    if not cand.size:  # the stride missed the few queryable rows
        cand = rows[queryable_mask[rows]]
    cand = cand[:: -(-cand.size // SAMPLE_SIZE)]
    diff = X[cand] - centre
    return int(cand[np.argmin(np.einsum("ij,ij->i", diff, diff))])


def group(labels, n_parts):
    """Positions holding each label ``0 .. n_parts - 1``, each sorted (a stable radix sort on 16-bit keys)."""
    keys = labels.astype(np.uint16) if n_parts <= np.iinfo(np.uint16).max else labels
    order = np.argsort(keys, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=n_parts))])
    return [order[bounds[p] : bounds[p + 1]] for p in range(n_parts)]


def make_parts(X, members, labels, queryable_mask, Xm=None):
    """Group the sorted rows ``members`` by ``labels`` (``>= 0``); a part without a queryable row joins the nearest.

    Nearest between part means, estimated on at most 65,536 rows (a fixed
    stride; parts it misses are summed exactly). ``Xm`` is ``X[members]`` if
    the caller has it. Returns the parts (sorted positions into
    ``members``) and their means.
    """
    Xm = X[members] if Xm is None else Xm
    n_parts = int(labels.max()) + 1
    present = np.bincount(labels, minlength=n_parts) > 0
    has_q = np.bincount(labels, weights=queryable_mask[members], minlength=n_parts) > 0
    step = -(-labels.size // (1 << 16))
    sub, rows = labels[::step], Xm[::step]
    counts = np.bincount(sub, minlength=n_parts).astype(float)
    sums = np.stack([np.bincount(sub, weights=rows[:, f], minlength=n_parts) for f in range(Xm.shape[1])], axis=1)
    for p in np.flatnonzero(counts == 0):
        exact = Xm[labels == p]
        sums[p], counts[p] = exact.sum(axis=0), exact.shape[0]
    target = np.arange(n_parts)
    keep, lost = np.flatnonzero(has_q), np.flatnonzero(present & ~has_q)
    if keep.size and lost.size:
        means = sums / np.maximum(counts, 1.0)[:, None]
        target[lost] = keep[np.argmin(cdist(means[lost], means[keep]), axis=1)]
        np.add.at(sums, target[lost], sums[lost])
        np.add.at(counts, target[lost], counts[lost])
        labels = target[labels]
    kept = np.flatnonzero(present & (has_q | ~has_q.any()))
    parts = group(labels, n_parts)
    return [parts[p] for p in kept], sums[kept] / counts[kept][:, None]


@dataclass
class _LazySplit:
    """A split whose rows are still being assigned (:meth:`SuperInstanceTree.replace_lazily`)."""

    sid: int  # the split leaf: its rows not assigned yet still point to it (leaf_of_point)
    rows: np.ndarray  # the split leaf's rows
    assign: Callable  # rows -> index of their new leaf
    ids: np.ndarray  # the new leaves
    pieces: list  # per new leaf, the positions in ``rows`` assigned to it so far, a sorted array per chunk
    done: int = 0  # rows assigned so far
    filled: int = 0  # new leaves given their rows so far


class SuperInstanceTree:
    """Every super-instance created so far, and the current clustering of them.

    Super-instance 0 holds all points (``X`` places it and is not kept); a
    split replaces a leaf by children with new, larger ids. ``cluster[s]`` is
    the cluster of leaf ``s`` (renumbered when shown). Only leaves keep members.
    """

    def __init__(self, X, queryable_mask):
        n_samples = X.shape[0]
        centre = X.mean(axis=0)
        self.queryable_mask = queryable_mask
        self.leaf_of_point = np.zeros(n_samples, dtype=np.intp)
        self.members = {0: np.arange(n_samples)}
        self.parent, self.first_point, self.size, self.n_queryable = [-1], [0], [n_samples], [int(queryable_mask.sum())]
        self.rep = [representative(X, np.arange(n_samples), queryable_mask, centre)]
        self.position = [centre]
        self.cluster = np.zeros(1, dtype=np.intp)
        self.shown = (1, self.cluster.copy())
        self._cache = self._labels = None
        self._pending = []  # lazy splits (_LazySplit), oldest first

    def __getstate__(self):  # the labels shown are a cache of the rest: not pickled with a resume point
        return {k: v for k, v in self.__dict__.items() if k != "_labels"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._labels = None

    @property
    def n_ids(self):
        return len(self.parent)

    def leaves(self):
        """Current super-instances, as a sorted id array."""
        return np.array(sorted(self.members), dtype=np.intp)

    def replace(self, sid, parts, reps, positions):
        """Split leaf ``sid`` into ``parts`` (sorted positions into its members), each a cluster; the new ids."""
        pts = self.members.pop(sid)
        ids = self._new_leaves(sid, reps, positions)
        self._fill(ids, pts, parts)
        return ids

    def replace_lazily(self, sid, assign, reps, positions):
        """Split leaf ``sid`` into leaves whose rows ``assign(rows)`` (the part of each) gives later.

        ``assign`` runs a chunk at a time (:meth:`advance`) and must give
        every part a row; the leaves can be merged before. Returns the new ids.
        """
        rows = self.members.pop(sid)
        ids = self._new_leaves(sid, reps, positions)
        self.members.update(dict.fromkeys(ids.tolist()))
        self._pending.append(_LazySplit(sid, rows, assign, ids, [[] for _ in ids]))
        return ids

    def advance(self, rows=None):
        """One step (milliseconds) of the oldest lazy split: assign ``rows`` (131,072) more rows to their new
        leaves, or give one new leaf its rows."""
        if not self._pending:
            return
        job = self._pending[0]
        if job.done < job.rows.size:
            stop = min(job.rows.size, job.done + (rows or _CHUNK))
            for piece, part in zip(job.pieces, group(job.assign(job.rows[job.done : stop]), job.ids.size)):
                piece.append(job.done + part)
            job.done = stop
            return
        self._fill(job.ids[job.filled : job.filled + 1], job.rows, [np.concatenate(job.pieces[job.filled])])
        job.pieces[job.filled] = None
        job.filled += 1
        if job.filled == job.ids.size:
            self._pending.pop(0)

    def settle(self):
        """Finish every pending lazy split: each new leaf gets its rows."""
        while self._pending:
            self.advance(self._pending[0].rows.size)

    def _new_leaves(self, sid, reps, positions):
        """Leaves split from ``sid`` (rows still to be given), each in a cluster of its own."""
        ids = np.arange(self.n_ids, self.n_ids + len(reps))
        for values, fill in ((self.parent, sid), (self.first_point, -1), (self.size, 0), (self.n_queryable, 0)):
            values += [fill] * ids.size
        self.rep += [int(r) for r in reps]
        self.position += list(positions)
        self.cluster = np.concatenate([self.cluster, self.cluster.max() + 1 + np.arange(ids.size)])
        self._cache = None
        return ids

    def _fill(self, ids, pts, parts):
        """Give leaf ``ids[p]`` the rows ``pts[parts[p]]``."""
        for nid, part in zip(ids.tolist(), parts):
            rows = pts[part]
            self.members[nid] = rows
            self.leaf_of_point[rows] = nid
            self.first_point[nid] = int(rows[0])
            self.size[nid] = int(rows.size)
            self.n_queryable[nid] = int(np.count_nonzero(self.queryable_mask[rows]))
        self._cache = None

    def show(self):
        """Make the current clustering the one reported (``labels_`` and history)."""
        self.shown = (self.n_ids, self.cluster.copy())

    def _leaves_by_first_point(self):
        """Current leaves ordered by their first point, and the parent array (cached until the next split)."""
        self.settle()
        leaves, parent, _ = self._holding_rows()
        return leaves, parent

    def _holding_rows(self):
        """The leaves that rows point to (``leaf_of_point``), ordered by first point, the parent array, and for each
        the id whose cluster it shows (cached until the next split or fill). A leaf whose rows a lazy split is still
        assigning stands for its new leaves not given rows yet, and shows the cluster of the first of them."""
        if self._cache is None:
            filled = [sid for sid, rows in self.members.items() if rows is not None]
            stand_in = {job.sid: int(job.ids[0]) for job in self._pending}
            leaves = np.array(sorted(filled + list(stand_in)), dtype=np.intp)
            leaves = leaves[np.argsort(np.asarray(self.first_point)[leaves], kind="stable")]
            shows = np.array([stand_in.get(sid, sid) for sid in leaves.tolist()], dtype=np.intp)
            self._cache = leaves, np.asarray(self.parent, dtype=np.intp), shows
        return self._cache

    def _cluster_then(self, ids, view):
        """The cluster of leaves ``ids`` under a ``view`` saved by :meth:`show`: that of their ancestor then."""
        n_then, cluster_then = view
        parent = self._holding_rows()[1]
        anc = np.array(ids, dtype=np.intp)
        while (late := anc >= n_then).any():
            anc[late] = parent[anc[late]]
        return cluster_then[anc]

    def _label_per_id(self, view):
        """Label (0.. by first point) of every leaf rows point to, by id, under a ``view`` saved by :meth:`show`:
        each takes the cluster of its ancestor that existed then. For the view shown, read-only and the same array
        until it or the rows of a leaf change (most answers change neither)."""
        # a lazy split is assigned first only if the view puts its new leaves in different clusters (else its rows
        # not assigned yet all take their one cluster)
        if any(np.unique(self._cluster_then(job.ids, view)).size > 1 for job in self._pending):
            self.settle()
        holding, kept = self._holding_rows(), self._labels
        if kept is not None and kept[0] is view and kept[1] is holding:
            return kept[2]
        leaves, _, shows = holding
        per_id = np.zeros(self.n_ids, dtype=np.int32)
        per_id[leaves] = relabel(self._cluster_then(shows, view))
        if view is self.shown:
            per_id.flags.writeable = False
            self._labels = (view, holding, per_id, None)  # the labels of every row: computed when read
        return per_id

    def labels(self):
        """Point labels of the shown clustering, numbered 0.. by first point: read-only, the same array until the
        clustering shown or the rows of a leaf change (a replay of hundreds of answers on a million rows labels
        every row only where something moved)."""
        per_id = self._label_per_id(self.shown)
        view, holding, _, labels = self._labels
        if labels is None:
            labels = per_id[self.leaf_of_point].astype(np.intp)
            labels.flags.writeable = False
            self._labels = (view, holding, per_id, labels)
        return labels

    def super_instance_labels(self):
        """Leaf of every point, numbered 0.. by first point."""
        leaves, _ = self._leaves_by_first_point()
        per_id = np.zeros(self.n_ids, dtype=np.intp)
        per_id[leaves] = np.arange(leaves.size)
        return per_id[self.leaf_of_point]


class LabelsHistory:
    """``labels_history_`` of a large run, rebuilt row by row when indexed (a few integers per question).

    A read-only ``(n_queries, n_samples)`` int32 array for indexing (``h[t]``,
    ``h[a:b]``, ``h[t, rows]``), ``len``, iteration and ``np.asarray``.
    """

    def __init__(self, tree, views):
        self._tree = tree
        self._views = list(views)
        self.shape = (len(self._views), tree.leaf_of_point.size)
        self.dtype = np.dtype(np.int32)
        self.ndim = 2

    @property
    def size(self):
        return self.shape[0] * self.shape[1]

    def __len__(self):
        return self.shape[0]

    def _row(self, t):
        return self._tree._label_per_id(self._views[t])[self._tree.leaf_of_point]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            rows, cols = key[0], key[1:]
            return self[rows][(slice(None),) * (not np.isscalar(rows)) + cols]
        if isinstance(key, (int, np.integer)):
            t = int(key) + (self.shape[0] if key < 0 else 0)
            if not 0 <= t < self.shape[0]:
                raise IndexError(f"index {key} is out of bounds for a history of {self.shape[0]} questions")
            return self._row(t)
        ts = np.arange(self.shape[0])[key]
        if not ts.size:
            return np.empty((0, self.shape[1]), dtype=np.int32)
        # consecutive questions often share one view: label its super-instances once, then one gather
        views = {}
        which = [views.setdefault((v[0], id(v[1])), (len(views), v))[0] for v in (self._views[t] for t in ts)]
        tables = np.stack([self._tree._label_per_id(v) for _, v in views.values()])
        return np.take(tables[which], self._tree.leaf_of_point, axis=1)

    def __iter__(self):
        return (self._row(t) for t in range(self.shape[0]))

    def __array__(self, dtype=None, copy=None):
        return self[:] if dtype is None else self[:].astype(dtype)

    def __repr__(self):
        return f"LabelsHistory(shape={self.shape}, rebuilt on access)"


class SuperInstanceClustering(ActiveEstimator):
    """Base of COBRA and COBRAS: ``questions`` builds a :class:`SuperInstanceTree` in ``self._tree`` and calls
    :meth:`_merge_phase` after each split."""

    anytime = True
    _space = None  # a SeriesSpace when clustering series under DTW or k-Shape

    @property
    def super_instances_(self):
        """Super-instance of every row (numbered 0.. by first row)."""
        check_is_fitted(self, "labels_")
        return self._tree.super_instance_labels()

    @property
    def representatives_(self):
        """The row asked about for each super-instance (indexed like ``super_instances_``)."""
        check_is_fitted(self, "labels_")
        leaves, _ = self._tree._leaves_by_first_point()
        return np.asarray(self._tree.rep, dtype=np.intp)[leaves]

    def make_predictor(self, ctx):
        """Return the rule ``predict`` applies: a new item joins the super-instance of the nearest representative.

        Parameters
        ----------
        ctx : QueryContext
            The context of the finished fit.

        Returns
        -------
        NearestPoints
            The representatives and their labels, under the method's metric.
        """
        reps = self.representatives_
        return NearestPoints(ctx.X[reps], self.labels_[reps], reps, **self.prediction_metric(), scale=ctx.scale)

    def _start_tree(self, ctx):
        """A new :class:`SuperInstanceTree` of every row in ``self._tree``, and the run's :class:`Feedback`."""
        self._feedback = Feedback(self)
        self._tree = SuperInstanceTree(ctx.X, ctx.queryable_mask)
        return self._tree

    def _representative(self, X, rows, qmask, centre):
        """The row to ask about for ``rows`` around ``centre`` (by the series distance for COBRAS-TS)."""
        return (representative if self._space is None else self._space.representative)(X, rows, qmask, centre)

    def focus(self):
        """Return what a noisy-answer belief checks: the current representatives and their clusters.

        Returns
        -------
        rows : ndarray of int
            The representative of each current super-instance.
        clusters : ndarray of int
            The cluster of each of ``rows``.
        """
        leaves = self._tree.leaves()
        return np.asarray(self._tree.rep, dtype=np.intp)[leaves], self._tree.cluster[leaves]

    def _known_relations(self, ctx, leaves, reps):
        """``(comp, cl)``: the knowledge's must-link component of each representative (0..), and which components
        a cannot-link (given or entailed, from any earlier answer) separates; the pairs stated outside the
        questions relate their rows' ``leaves`` (:meth:`Feedback.lift`)."""
        comp, cl = ctx.knowledge.store.relations_among(reps)  # in the representatives, not the rows
        return self._feedback.lift(leaves, comp, cl)

    def _merge_phase(self, ctx, new, *, live):
        """Merge clusters, closest representatives first, then let the knowledge check them (a Checkpoint); when it
        revises its belief (``ctx.revision``) or feedback arrives, start again over every super-instance."""
        revision = ctx.revision
        while True:
            version = self._feedback.version
            if not (yield from self._merge(ctx, new, live=live, revision=revision)):
                yield Checkpoint()
                self._feedback.update(ctx)
                if ctx.revision == revision and self._feedback.version == version:
                    return
            revision, new = ctx.revision, self._tree.leaves()

    def _merge(self, ctx, new, *, live, revision):
        """One pass of the merging phase (a generator); returns True when stopped because ``ctx.revision`` moved
        on or feedback arrived.

        Pairs of clusters no cannot-link separates are asked through their
        closest representatives, closest first; a must-link merges them. Only
        pairs with a leaf in ``new`` are scanned (cannot-links survive splits).
        With ``live`` the shown clustering follows every merge.
        """
        tree, feedback = self._tree, self._feedback
        feedback.update(ctx)
        version = feedback.version
        leaves = tree.leaves()
        reps = np.asarray(tree.rep, dtype=np.intp)[leaves]
        pos = np.stack([tree.position[s] for s in leaves])
        ia, ib, dist = _candidate_pairs(pos, np.isin(leaves, new))
        if self._space is not None:  # COBRAS-TS: the series distance between representatives
            dist = self._space.D[reps[ia], reps[ib]]
        order = np.argsort(dist, kind="stable")
        ia, ib = ia[order], ib[order]
        comp, cl = self._known_relations(ctx, leaves, reps)
        tree.cluster[leaves] = comp
        if live:
            tree.show()
        start, chunk = 0, 256
        while start < ia.size:
            stop = min(ia.size, start + chunk)
            ca, cb = comp[ia[start:stop]], comp[ib[start:stop]]
            open_ = np.flatnonzero((ca != cb) & ~cl[ca, cb])
            if not open_.size:
                start, chunk = stop, chunk * 2
                continue
            k = start + open_[0]
            a, b = comp[ia[k]], comp[ib[k]]
            answer = yield int(reps[ia[k]]), int(reps[ib[k]])
            feedback.update(ctx)
            if ctx.revision != revision or feedback.version != version:
                return True
            tree.advance()  # rows of a lazy split, a chunk per question
            start, chunk = k + 1, 256
            if answer is True:
                comp[comp == b] = a
                cl[a] |= cl[b]
                cl[:, a] |= cl[:, b]
                tree.cluster[leaves] = comp
                if live:
                    tree.show()
            elif answer is False:
                cl[a, b] = cl[b, a] = True
            # None ("don't know"): leave the pair undecided and move on
        tree.show()
        return False

    def current_labels(self, ctx):
        """Return the clustering of the super-instances, with the feedback stated so far applied.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit or session.

        Returns
        -------
        ndarray of int of shape (n_samples,)
            A label per row: that of its super-instance's cluster.
        """
        self._feedback.update(ctx)  # feedback shows at once, not at the method's next step
        return self._tree.labels()

    def snapshot(self, ctx):
        """Return the clustering shown now, in compact form: a label per super-instance.

        Parameters
        ----------
        ctx : QueryContext
            The context of the fit, just after an answer.

        Returns
        -------
        tuple of (int, ndarray of int)
            The number of super-instance ids so far and a label per id;
            :meth:`history_array` expands them to rows.
        """
        return self._tree.shown

    def history_array(self, snapshots):
        """Turn the snapshots into ``labels_history_``, a label per row after each answer.

        Parameters
        ----------
        snapshots : list
            What :meth:`snapshot` returned after each answer.

        Returns
        -------
        ndarray or LabelsHistory of shape (n_queries, n_samples)
            A plain array up to 2**24 entries; above, an array-like that
            rebuilds each entry from the super-instance tree on access.
        """
        history = LabelsHistory(self._tree, snapshots)
        return np.asarray(history) if history.size <= _DENSE_HISTORY_MAX else history


def _candidate_pairs(pos, is_new):
    """Leaf-index pairs (a, b) with a new leaf, and their distances."""
    new = np.flatnonzero(is_new)
    old = np.flatnonzero(~is_new)
    a1, b1 = np.triu_indices(new.size, k=1)
    d_nn = pdist(pos[new]) if new.size > 1 else np.empty(0)
    d_no = cdist(pos[new], pos[old]).ravel() if old.size else np.empty(0)
    ia = np.concatenate([new[a1], np.repeat(new, old.size)])
    ib = np.concatenate([new[b1], np.tile(old, new.size)])
    return ia, ib, np.concatenate([d_nn, d_no])
