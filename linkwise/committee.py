"""The committee engine: ask the pair a weighted committee of candidate clusterings doubts most.

Active COBS and :class:`~linkwise.Auto` select among candidate clusterings
the same way: from a fresh random pool of pairs of queryable rows (pairs not
pooled before, when the last pool is used up), ask the pair whose answer the
committee is least sure of, learn from the answer, and go on. They differ
only in how the committee weighs its members and when it stops, which they
give :func:`committee_questions` as a rule. :func:`sample_rows` is the one way
to choose the rows candidates are generated on when there are too many: the
queryable rows first, so that the pool is drawn from as many of them as fit.
"""

import numpy as np

from linkwise.loop import Rest

__all__ = ["committee_questions", "draw_pairs", "sample_rows"]

# below this many possible pairs, a pool is drawn from the full list of unseen pairs
_ENUMERATE_PAIRS = 1_000_000


def sample_rows(n_samples, preferred, size, rng):
    """Sorted rows to generate candidates on: ``preferred`` ones (a random ``size`` of them if more), then others.

    Parameters
    ----------
    n_samples : int
        Rows of the data.
    preferred : array-like of int
        Rows to keep first (the queryable rows, or the constrained ones), sorted.
    size : int
        Rows to return, at most ``n_samples``.
    rng : numpy.random.RandomState
        The random generator that draws the rows.

    Returns
    -------
    ndarray of int of shape (size,)
        Sorted rows: every ``preferred`` row when there are at most
        ``size``, the others drawn at random.
    """
    preferred = np.asarray(preferred, dtype=np.intp)
    if preferred.size >= size:
        return np.sort(rng.choice(preferred, size, replace=False))
    others = np.setdiff1d(np.arange(n_samples), preferred)
    return np.sort(np.concatenate([preferred, rng.choice(others, size - preferred.size, replace=False)]))


def draw_pairs(rng, rows, n_code, size, seen):
    """Up to ``size`` random pairs of distinct ``rows`` not in ``seen``.

    Parameters
    ----------
    rng : numpy.random.RandomState
        The random generator that draws the pairs.
    rows : ndarray of int
        Sorted positions the pairs are made of.
    n_code : int
        Larger than every row: a pair ``i < j`` is coded ``i * n_code + j``.
    size : int
        Pairs wanted.
    seen : set of int
        Codes of the pairs drawn before.

    Returns
    -------
    ndarray of int64
        The codes of the pairs drawn (fewer than ``size`` when fewer are left).
    """
    nq = rows.size
    total = nq * (nq - 1) // 2
    if total - len(seen) <= 0:
        return np.empty(0, dtype=np.int64)
    if total <= _ENUMERATE_PAIRS:
        a, b = np.triu_indices(nq, k=1)
        codes = rows[a].astype(np.int64) * n_code + rows[b]
        if seen:
            codes = codes[~np.isin(codes, np.fromiter(seen, dtype=np.int64, count=len(seen)))]
        return rng.choice(codes, min(size, codes.size), replace=False)
    # far more pairs than have been seen: rejection sampling finishes in a round or two
    picked = {}
    while len(picked) < size:
        a = rows[rng.randint(nq, size=2 * size)]
        b = rows[rng.randint(nq, size=2 * size)]
        for i, j in zip(a.tolist(), b.tolist()):
            code = min(i, j) * n_code + max(i, j)
            if i != j and code not in seen and code not in picked:
                picked[code] = None
                if len(picked) == size:
                    break
    return np.fromiter(picked, dtype=np.int64, count=size)


def committee_questions(ctx, labels, rows, pool_size, choose, learn):
    """Ask the pairs a committee of candidate clusterings doubts most (a question generator, see :mod:`linkwise.loop`).

    Parameters
    ----------
    ctx : QueryContext
        The fit's context: its ``rng`` draws the pools, its ``queryable_mask``
        says which of ``rows`` a pair may hold.
    labels : ndarray of shape (n_candidates, rows.size)
        The committee: each candidate's clustering of ``rows``.
    rows : ndarray of int
        The sorted rows the candidates cluster (all rows, or a sample of
        them from :func:`sample_rows`).
    pool_size : int
        Pairs in each random pool.
    choose : callable
        The weight rule: ``choose(together, unasked)`` returns the position
        in the pool of the pair to ask next, or None to stop asking;
        ``together`` (bool, ``n_candidates x pool_size``) says which
        candidates put each pair of the pool in one cluster, ``unasked``
        (bool) which pairs of the pool are still unasked.
    learn : callable
        ``learn(pair, together, answer, revised)`` after each answer:
        ``pair`` the two positions in ``rows``, ``together`` the column of the
        pair asked, ``answer`` True, False or None, ``revised`` whether the
        knowledge revised its belief meanwhile (``ctx.revision`` changed).

    Yields
    ------
    pair : (int, int) or Rest
        Two queryable rows; the answer is sent back. Before each question the
        engine rests (its pool is kept in ``ctx.state["committee"]``): a
        session resumed from there (``ctx.resumed``) goes on with that pool.
    """
    pool = ctx.state.get("committee") if ctx.resumed else None
    if pool is None:
        queryable = np.flatnonzero(ctx.queryable_mask[rows])  # positions within rows
        pool = ctx.state["committee"] = _Pool(queryable, int(queryable.max()) + 1 if queryable.size else 1)
    while pool.unasked.any() or pool.draw(ctx.rng, labels, pool_size):
        yield Rest()
        k = choose(pool.together, pool.unasked)
        if k is None:
            return
        pool.unasked[k] = False
        revision = ctx.revision
        answer = yield int(rows[pool.a[k]]), int(rows[pool.b[k]])
        learn((pool.a[k], pool.b[k]), pool.together[:, k], answer, ctx.revision != revision)


class _Pool:
    """The committee engine's state between questions: the pairs drawn so far and the pool being asked from."""

    def __init__(self, queryable, n_code):
        self.queryable, self.n_code, self.seen = queryable, n_code, set()
        self.a = self.b = self.together = None
        self.unasked = np.zeros(0, dtype=bool)

    def draw(self, rng, labels, size):
        """Draw the next pool of pairs not drawn before; False when none is left."""
        codes = draw_pairs(rng, self.queryable, self.n_code, size, self.seen)
        if not codes.size:
            return False
        self.seen.update(codes.tolist())
        self.a, self.b = codes // self.n_code, codes % self.n_code
        self.together = labels[:, self.a] == labels[:, self.b]
        self.unasked = np.ones(codes.size, dtype=bool)
        return True
