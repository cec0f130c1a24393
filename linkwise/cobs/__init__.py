"""COBS: choose a clustering algorithm and its parameters with pairwise constraints.

:func:`generate` clusters the data with K-means, DBSCAN and spectral
clustering over a grid of their parameters (the paper's 931 clusterings by
default); :class:`COBS` returns the candidate that satisfies the most given
constraints; :class:`ActiveCOBS` asks the pairs its weighted committee of
candidates disagrees on most.

References
----------
Van Craenendonck, T. and Blockeel, H. (2017). Constraint-based clustering
selection. Machine Learning, 106(9-10), 1497-1521.
"""

from linkwise.cobs._active import ActiveCOBS, nearest_rows
from linkwise.cobs._generate import (
            CACHE_VERSION,
            CANDIDATE_CONSTRAINTS,
            Candidates,
            candidates_for,
            generate,
            make_estimator,
)
from linkwise.cobs._grid import FAMILIES, GridSpec, paper_grid
from linkwise.cobs._select import COBS, agreement_matrix

__all__ = ["COBS", "ActiveCOBS", "Candidates", "generate", "make_estimator", "paper_grid"]
# helpers Auto and the benchmarks share with COBS (the candidate pool, its grid, parameters and cache version,
# committee agreement)
__all__ += ["CACHE_VERSION", "CANDIDATE_CONSTRAINTS", "FAMILIES", "GridSpec", "agreement_matrix", "candidates_for",
            "nearest_rows"]
