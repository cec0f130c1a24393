"""Exceptions raised by linkwise."""

__all__ = ["InconsistentConstraintError", "InvalidParameterError", "NotFittedError"]

from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError as _SklearnInvalidParameterError


class InvalidParameterError(_SklearnInvalidParameterError):
    """A parameter or argument has the wrong type or value.

    Every linkwise estimator and function raises it for bad input, with a
    message naming the argument and the fix. It subclasses scikit-learn's
    ``InvalidParameterError`` (in ``sklearn.utils._param_validation``), itself
    a ``ValueError`` and a ``TypeError``: code catching any of the four
    catches it. An estimator's constructor parameters are checked against its
    ``_parameter_constraints`` table by scikit-learn's rules, and the error
    raised is this class, with scikit-learn's message.

    Examples
    --------
    >>> import linkwise as lw
    >>> try:
    ...     lw.PCKMeans(n_clusters=0).fit([[0.0], [1.0]])
    ... except lw.exceptions.InvalidParameterError as exc:
    ...     print(exc)
    The 'n_clusters' parameter of PCKMeans must be an int in the range [1, inf). Got 0 instead.
    """


class InconsistentConstraintError(ValueError):
    """A constraint contradicts what earlier constraints imply.

    Raised by a strict :class:`~linkwise.ConstraintStore` (and by hard-constraint
    clusterers) when a must-link joins two points already separated by a
    cannot-link, or a cannot-link separates two points already joined by
    must-links. The store is left unchanged.

    Parameters
    ----------
    message : str
        What contradicts what.
    pair : tuple of int, default=None
        The pair ``(i, j)`` of the rejected constraint.
    must_link : bool, default=None
        The rejected answer.

    Attributes
    ----------
    pair : tuple of int
        The pair ``(i, j)`` of the rejected constraint.
    must_link : bool
        The rejected answer.

    Examples
    --------
    >>> import linkwise as lw
    >>> store = lw.ConstraintStore.from_pairs(3, ml=[(0, 1)])
    >>> try:
    ...     store.add(1, 0, False)
    ... except lw.InconsistentConstraintError as error:
    ...     print(error.pair, error.must_link, len(store))
    (1, 0) False 1
    """

    def __init__(self, message, *, pair=None, must_link=None):
        super().__init__(message)
        self.pair, self.must_link = pair, must_link
