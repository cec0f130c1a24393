"""Stable cluster numbers: a cluster keeps its number while it exists, whatever the method calls it.

The method numbers its clusters afresh after every answer (0.. in order of first appearance), so "cluster 3" would
name another group after an answer that splits or merges an earlier one. Each new clustering is matched to the
numbers shown before by overlap (the assignment of most shared members over the contingency table); a cluster
matched to none (a new one from a split) gets a fresh number, never one used before in the session. The session
numbers the clustering after each stored statement as it replays them, so the numbers are a function of the
session file: the page, a reopened session and the export agree. Numbers start
at 1 and are the same on the page, in the terminal and in the exported labels.
"""

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["carry_numbers"]


def carry_numbers(labels, previous, fresh):
    """Stable numbers for ``labels`` (0..k-1 per row) given the ``previous`` numbers per row (None: the first).

    Returns ``(numbers, fresh)``: each row's cluster number, and the next number never used. A new cluster takes
    the previous number it shares most members with (one number per cluster, the total overlap maximised); the
    others get ``fresh``, ``fresh + 1``, ... in order of their label.
    """
    labels = np.asarray(labels, dtype=np.intp)
    k = int(labels.max()) + 1 if labels.size else 0
    mapping = np.full(k, -1, dtype=np.intp)
    if previous is not None and k:
        present = np.bincount(previous) > 0  # numbers are small non-negative ints: counted, not sorted
        old = np.flatnonzero(present)
        index = (np.cumsum(present) - 1)[previous]
        table = np.bincount(labels * len(old) + index, minlength=k * len(old)).reshape(k, len(old))
        rows, cols = linear_sum_assignment(table, maximize=True)
        kept = table[rows, cols] > 0
        mapping[rows[kept]] = old[cols[kept]]
    new = (mapping < 0) & (np.bincount(labels, minlength=k) > 0)  # a label no row has takes no number
    mapping[new] = fresh + np.arange(int(new.sum()))
    return mapping[labels], fresh + int(new.sum())
