"""The grid of unsupervised clusterings that COBS chooses from.

A grid maps an algorithm family to the values of its parameters. The default
is the grid of Van Craenendonck & Blockeel (2017), Table 2: 931 clusterings.

* ``"kmeans"``: ``n_clusters`` (K) and ``n_seeds`` random initialisations
  for each K (9 x 20 = 180).
* ``"dbscan"``: ``eps`` (an int: that many evenly spaced values between the
  smallest and the largest pairwise distance; or explicit values) and
  ``min_samples`` (minPts, the point itself included). Table 2 gives minPts
  in [2, 20] but the paper counts 400 DBSCAN clusterings (20 x 20), 931 in
  all: the default takes minPts in [1, 20] (1: the clusters are the
  connected components of the eps-neighbourhood graph).
* ``"spectral"``: ``n_clusters`` (K) for each affinity, a k-nearest-neighbour
  graph for each ``n_neighbors`` (k) and a Gaussian kernel
  ``exp(-d^2 / (2 sigma^2))`` for each ``sigma``: 9 x (19 + 20) = 351.
  Either list may be empty (``"sigma": []``: kNN graphs only, sparing the
  O(n^3) time and O(n^2) memory of each dense Gaussian affinity).

On data of 20 rows or fewer, the default values of K and k that the rows
cannot hold are left out (the paper's grid is for larger data); values given
in ``grid`` are refused instead.
"""

import json
import numbers

import numpy as np

from linkwise._validation import Interval, StrOptions, check_value
from linkwise.exceptions import InvalidParameterError

__all__ = ["FAMILIES", "paper_grid", "GridSpec"]

FAMILIES = ("kmeans", "dbscan", "spectral")

_KEYS = {"kmeans": ("n_clusters", "n_seeds"), "dbscan": ("eps", "min_samples"),
         "spectral": ("n_clusters", "n_neighbors", "sigma")}


def paper_grid():
    """The default grid: Table 2 of Van Craenendonck & Blockeel (2017), 931 clusterings.

    Returns
    -------
    dict
        ``{family: {parameter: values}}``; pass a modified copy as ``grid=``
        to :func:`generate`, :class:`COBS` or :class:`ActiveCOBS` (families
        or parameters left out keep these values).

    Examples
    --------
    >>> from linkwise.cobs import paper_grid
    >>> grid = paper_grid()
    >>> grid["kmeans"]
    {'n_clusters': [2, 3, 4, 5, 6, 7, 8, 9, 10], 'n_seeds': 20}
    >>> len(grid["spectral"]["sigma"]), grid["dbscan"]["eps"]
    (20, 20)
    """
    return {
        "kmeans": {"n_clusters": list(range(2, 11)), "n_seeds": 20},
        "dbscan": {"eps": 20, "min_samples": list(range(1, 21))},
        "spectral": {"n_clusters": list(range(2, 11)), "n_neighbors": list(range(2, 21)),
                     "sigma": [round(float(s), 10) for s in np.linspace(0.01, 5.0, 20)]},
    }


def _number_list(values, name, owner, *, integer, allow_empty=False):
    """Sorted distinct ints >= 1 (``integer``) or finite floats > 0; anything else is refused."""
    what = f"a {'' if allow_empty else 'non-empty '}sequence of {'ints >= 1' if integer else 'finite floats > 0'}"

    def bad(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral if integer else numbers.Real):
            return True
        return v < 1 if integer else not np.isfinite(v) or v <= 0

    out = None if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") else list(values)
    if out is None or (not out and not allow_empty) or any(map(bad, out)):
        raise InvalidParameterError(f"The '{name}' entry of the grid of {owner} must be {what}. Got {values!r} instead.")
    return sorted({(int if integer else float)(v) for v in out})


class GridSpec:
    """A checked grid: the families to run and the values of their parameters.

    Data-dependent values (DBSCAN's eps range) and random seeds are resolved
    later, by :func:`linkwise.cobs.generate`.

    Parameters
    ----------
    algorithms : sequence of str
        The families to run, each of :data:`~linkwise.cobs.FAMILIES` at most once.
    grid : dict or None
        ``{family: {parameter: values}}``, replacing entries of the paper's
        grid (:func:`~linkwise.cobs.paper_grid`); None: the paper's grid.
    owner : str
        The caller named in error messages.
    role : {"parameter", "argument"}, default="parameter"
        What ``algorithms`` and ``grid`` are to ``owner`` (an estimator's parameters, a function's arguments).
    """

    def __init__(self, algorithms, grid, owner, *, role="parameter"):
        # the types of algorithms (a sequence) and grid (a dict or None) are checked by the owner's table
        algorithms = [check_value(name, [StrOptions(set(FAMILIES))], "algorithms", owner, role=role)
                      for name in algorithms]
        if not algorithms or len(set(algorithms)) != len(algorithms):
            names = ", ".join(map(repr, FAMILIES))
            raise InvalidParameterError(f"The 'algorithms' {role} of {owner} must name each of {names} at most once "
                                        f"and at least one, got {algorithms!r}.")
        grid = {} if grid is None else grid
        for family, values in grid.items():
            check_value(family, [StrOptions(set(FAMILIES))], "grid", owner, role=role)
            if not isinstance(values, dict):
                raise InvalidParameterError(f"The 'grid' {role} of {owner} must map {family!r} to a dict of "
                                            f"parameter values, got {type(values).__name__}.")
            for key in values:
                check_value(key, [StrOptions(set(_KEYS[family]))], f"grid[{family!r}]", owner, role=role)
        defaults = paper_grid()
        self.families = [f for f in FAMILIES if f in algorithms]  # canonical order
        self._given = {f: set(grid.get(f, {})) for f in self.families}  # values not from the paper's grid
        self.values = {f: self._checked(f, {**defaults[f], **grid.get(f, {})}, owner) for f in self.families}

    @staticmethod
    def _checked(family, values, owner):
        out = {}
        for key, value in values.items():
            whole = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
            if key == "n_seeds" or (key == "eps" and whole):  # eps: how many values, or the values
                check_value(value, [Interval(numbers.Integral, 1, None, closed="left")], key, f"the grid of {owner}",
                            role="entry")
                out[key] = int(value)
            else:  # sigma may be empty (kNN graphs only), n_neighbors too (Gaussian kernels only)
                integer = key not in ("eps", "sigma")
                out[key] = _number_list(value, key, owner, integer=integer, allow_empty=key in ("sigma", "n_neighbors"))
        if family == "spectral" and not (out["n_neighbors"] or out["sigma"]):
            raise InvalidParameterError(f"The grid of {owner} gives spectral clustering no affinity: 'n_neighbors' and "
                                        "'sigma' are both empty. Give values to either, or leave 'spectral' out of "
                                        "'algorithms'.")
        return out

    def check_against(self, n_samples, owner):
        """Leave out the default values that the data cannot support; refuse given ones.

        ``n_clusters`` and ``n_neighbors`` values must be below the number of
        rows; the grid is changed in place.

        Parameters
        ----------
        n_samples : int
            Number of rows of the data.
        owner : str
            The caller, named in error messages.

        Raises
        ------
        InvalidParameterError
            If a value given in the grid is too large for the data, or a
            family is left with no clustering.
        """
        for family in self.families:
            for key in ("n_clusters", "n_neighbors"):
                values = self.values[family].get(key)
                if values and values[-1] >= n_samples:
                    if key in self._given[family]:
                        raise InvalidParameterError(f"The grid of {owner} asks for {key}={values[-1]} ({family}) but X "
                                                    f"has only {n_samples} rows; use values < {n_samples}.")
                    self.values[family][key] = [v for v in values if v < n_samples]
            left = self.values[family]
            if not left.get("n_clusters", [1]) or (family == "spectral" and not (left["n_neighbors"] or left["sigma"])):
                raise InvalidParameterError(f"The grid of {owner} has no {family} clustering for X of {n_samples} rows "
                                            "(n_clusters and n_neighbors must be below the number of rows); give X "
                                            "more rows.")

    def key(self):
        """Write the grid as canonical JSON, for the candidate-cache key.

        Returns
        -------
        str
            The families' values, keys sorted.
        """
        return json.dumps({f: self.values[f] for f in self.families}, sort_keys=True)
