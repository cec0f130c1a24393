"""Exceptions raised by linkwise."""

__all__ = ["InconsistentConstraintError", "NotFittedError"]

from sklearn.exceptions import NotFittedError


class InconsistentConstraintError(ValueError):
    """A constraint contradicts what earlier constraints imply.

    Raised by a strict :class:`~linkwise.ConstraintStore` (and by hard-constraint
    clusterers) when a must-link joins two points already separated by a
    cannot-link, or a cannot-link separates two points already joined by
    must-links. The store is left unchanged.

    Attributes
    ----------
    pair : tuple of int
        The pair ``(i, j)`` of the rejected constraint.
    must_link : bool
        The rejected answer.
    """

    def __init__(self, message, *, pair=None, must_link=None):
        super().__init__(message)
        self.pair = pair
        self.must_link = must_link
