"""What the page, the widget and the terminal draw beside a time series: members of its cluster."""

import numpy as np

__all__ = ["cluster_sample"]

_CONTEXT = 20  # cluster members drawn faintly behind an item


def cluster_sample(labels, row, k=_CONTEXT):
    """At most ``k`` other members of ``row``'s cluster, a sample that stays put while the cluster does."""
    members = np.flatnonzero(labels == labels[row])
    members = members[members != row]
    return members if len(members) <= k else np.sort(np.random.RandomState(row).choice(members, k, replace=False))
