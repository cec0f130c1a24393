"""Clustering quality: ARI and NMI (scikit-learn), pairwise F-measure, constraint satisfaction."""

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.cluster import pair_confusion_matrix

from linkwise._validation import InvalidParameterError
from linkwise.graph import check_constraints

__all__ = ["ari", "nmi", "pairwise_precision_recall_f", "pairwise_f_measure", "constraint_satisfaction"]


def _check_labelings(y_true, y_pred):
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.shape != y_true.shape:
        raise InvalidParameterError("'y_true' and 'y_pred' must be 1-D arrays of the same length, got shapes "
                                    f"{y_true.shape} and {y_pred.shape}.")
    return y_true, y_pred


def ari(y_true, y_pred):
    """Compute the adjusted Rand index of two clusterings (scikit-learn's ``adjusted_rand_score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference labels.
    y_pred : array-like of shape (n_samples,)
        Labels to score.

    Returns
    -------
    float
        1.0 for identical partitions, about 0.0 for a random one; can be
        negative.

    Raises
    ------
    InvalidParameterError
        If the labelings are not 1-D arrays of the same length.

    Examples
    --------
    >>> ari([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return float(adjusted_rand_score(*_check_labelings(y_true, y_pred)))


def nmi(y_true, y_pred):
    """Compute the normalised mutual information of two clusterings (arithmetic mean normalisation).

    Unlike :func:`ari` it is not adjusted for chance.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference labels.
    y_pred : array-like of shape (n_samples,)
        Labels to score.

    Returns
    -------
    float
        In [0, 1], 1.0 for identical partitions.

    Raises
    ------
    InvalidParameterError
        If the labelings are not 1-D arrays of the same length.

    Examples
    --------
    >>> round(nmi([0, 0, 1, 1], [0, 0, 1, 2]), 3), round(ari([0, 0, 1, 1], [0, 0, 1, 2]), 3)
    (0.8, 0.571)
    """
    return float(normalized_mutual_info_score(*_check_labelings(y_true, y_pred)))


def pairwise_precision_recall_f(y_true, y_pred):
    """Compute pairwise precision, recall and F-measure over all unordered pairs.

    A pair is a true positive when both labelings put it together. Used by
    Pei, Liu & Fern (ECML PKDD 2015) to score Bayesian active clustering.
    Counts come from the contingency table, so this is O(n) in memory.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference labels.
    y_pred : array-like of shape (n_samples,)
        Labels to score.

    Returns
    -------
    precision : float
        Fraction of the pairs ``y_pred`` puts together that ``y_true`` puts
        together too; 1.0 when ``y_pred`` puts no pair together.
    recall : float
        Fraction of the pairs ``y_true`` puts together that ``y_pred`` finds;
        1.0 when there are none.
    f : float
        Their harmonic mean; 0.0 when both are zero.

    Raises
    ------
    InvalidParameterError
        If the labelings are not 1-D arrays of the same length.

    Examples
    --------
    >>> pairwise_precision_recall_f([0, 0, 1, 1], [0, 0, 0, 1])
    (0.3333333333333333, 0.5, 0.4)
    """
    y_true, y_pred = _check_labelings(y_true, y_pred)
    (_, fp), (fn, tp) = pair_confusion_matrix(y_true, y_pred) // 2
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return float(precision), float(recall), float(f)


def pairwise_f_measure(y_true, y_pred):
    """Compute the pairwise F-measure (harmonic mean of pairwise precision and recall).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference labels.
    y_pred : array-like of shape (n_samples,)
        Labels to score.

    Returns
    -------
    float
        The ``f`` of :func:`pairwise_precision_recall_f`.

    Raises
    ------
    InvalidParameterError
        If the labelings are not 1-D arrays of the same length.

    Examples
    --------
    >>> pairwise_f_measure([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    """
    return pairwise_precision_recall_f(y_true, y_pred)[2]


def constraint_satisfaction(labels, ml=None, cl=None):
    """Compute the fraction of constraints a clustering satisfies.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The clustering.
    ml, cl : array-like of shape (n_pairs, 2), default=None
        Must-link and cannot-link pairs of row indices.

    Returns
    -------
    float
        Satisfied constraints over all constraints; 1.0 when there are none.

    Raises
    ------
    InvalidParameterError
        If ``labels`` is not 1-D or a pair fails
        :func:`linkwise.graph.check_pairs`.

    Examples
    --------
    >>> constraint_satisfaction([0, 0, 1], ml=[(0, 1)], cl=[(0, 1), (1, 2)])
    0.6666666666666666
    """
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise InvalidParameterError(f"'labels' must be a 1-D array, got shape {labels.shape}.")
    ml, cl = check_constraints(ml, cl, labels.size, "constraint_satisfaction")
    if not (total := len(ml) + len(cl)):
        return 1.0
    ok = np.sum(labels[ml[:, 0]] == labels[ml[:, 1]]) + np.sum(labels[cl[:, 0]] != labels[cl[:, 1]])
    return float(ok / total)
