"""The benchmark's two halves (issue 27): the tuning datasets, on which rules and constants are chosen, and the rest.

The split is fixed by rule before any result is seen, and ``benchmarks/split.toml`` writes it out in full. The
datasets shipped before the rule was written (the ``"literature"`` and ``"series"`` collections of
:mod:`linkwise.datasets`) are tuning, since earlier work chose the default's rules on them; every other dataset,
shipped later or a user's own file, is held-out when the first hexadecimal digit of the SHA-256 of its name is odd.
"""

import hashlib

from linkwise import datasets as _datasets
from linkwise._validation import InvalidParameterError

__all__ = ["SPLITS", "GROUPS", "split_of", "expand_groups"]

SPLITS = ("tuning", "held-out")
# names that stand for the shipped tables of a split or a collection wherever a list of datasets is expected
GROUPS = (*SPLITS, "literature", "rdatasets")
_TUNED_BEFORE = ("literature", "series")


def split_of(name):
    """The half of the benchmark a dataset belongs to: ``"tuning"`` or ``"held-out"``.

    Parameters
    ----------
    name : str
        A dataset name; it need not be shipped (the rule reads the name only,
        so a dataset's half is known before anything is run on it).

    Returns
    -------
    {"tuning", "held-out"}
        The half.

    Examples
    --------
    >>> split_of("iris"), split_of("DAAG-ais")
    ('tuning', 'held-out')
    """
    if not isinstance(name, str) or not name:
        raise InvalidParameterError(f"The 'name' argument of split_of must be a dataset name, got {name!r}.")
    if name in _datasets.SERIES or any(name in _datasets.names(collection=c) for c in _TUNED_BEFORE):
        return "tuning"
    return SPLITS[int(hashlib.sha256(name.encode()).hexdigest()[0], 16) % 2]


def expand_groups(names):
    """``names`` with each group name of :data:`GROUPS` replaced by the sorted shipped tables of that group."""
    out = []
    for name in names:
        if name in SPLITS:
            tables = [n for c in ("literature", "rdatasets") for n in _datasets.names(collection=c)]
            out.extend(n for n in sorted(tables) if split_of(n) == name)
        elif name in GROUPS:
            out.extend(_datasets.names(collection=name))
        else:
            out.append(name)
    return out
