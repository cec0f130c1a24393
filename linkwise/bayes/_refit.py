"""Pei et al.'s logistic model fitted to given answers from a given clustering, by MAP alone (Auto's fallback).

Where no clustering of the data explains the answers (the classes are not
clusters), a linear model of the class boundaries fitted to the answers does
better than any candidate; this fits one in a few tens of milliseconds, with
no particles: L-BFGS on the model's posterior, started from a multinomial
logistic regression of the given clustering's largest clusters.
"""

from numbers import Integral

import numpy as np
from sklearn.linear_model import LogisticRegression

from linkwise._validation import Interval, InvalidParameterError, validate_args
from linkwise.bayes._forest import ConstraintForest
from linkwise.bayes._inputs import ModelInputs
from linkwise.bayes._model import Model

__all__ = ["design_matrix", "refit_labels"]

# the defaults of BayesianActiveClustering (prior variance, weight of the separation term, wrong-answer rate)
_LAM, _TAU, _EPS = 10.0, 1.0, 0.05


@validate_args({"max_dims": [Interval(Integral, 1, None, closed="left"), None]})
def design_matrix(X, max_dims=None, fit_rows=None):
    """Build the model's inputs for ``X``: standardised features and a constant column (the intercept).

    With more than ``max_dims`` features, their ``max_dims`` principal
    components (fitted on ``fit_rows``), standardised, stand for them: a fit
    costs d x K (d = 768, K = 10: 0.6 s on 1,000 rows; at 64 components 50 ms).
    Fewer rows than ``max_dims`` span fewer components: as many as there are
    rows, then.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite data.
    max_dims : int, default=None
        Most input dimensions (the intercept aside); None keeps every feature.
    fit_rows : array-like of int, default=None
        Rows the principal components are fitted on; None: every row.

    Returns
    -------
    ndarray of shape (n_samples, n_inputs + 1)
        The inputs, the last column all ones.

    Raises
    ------
    InvalidParameterError
        If ``max_dims`` is not None or a positive int.
    """
    fit_rows = np.arange(X.shape[0]) if fit_rows is None else fit_rows
    Z = ModelInputs(max_dims, scale_components=True).fit(X, fit_rows=fit_rows).transform(X)
    return np.hstack([Z, np.ones((X.shape[0], 1))])


@validate_args({"n_clusters": [Interval(Integral, 1, None, closed="left")]})
def refit_labels(design, rows, pairs, must, init, n_clusters):
    """Cluster every row under the model's MAP given the answered ``pairs``, fitted on ``rows``.

    Answers that would close a cycle in the constraint forest are left out
    (the model's inference is exact on a forest). A logistic regression of
    the ``n_clusters`` largest clusters of ``init`` starts L-BFGS.

    Parameters
    ----------
    design : ndarray of shape (n_samples, n_inputs)
        The model's inputs, from :func:`design_matrix`.
    rows : ndarray of int
        The rows the model is fitted on, sorted; every answered row among them.
    pairs : array-like of shape (n_pairs, 2)
        The answered pairs of rows.
    must : sequence of bool
        The answer to each pair: True for a must-link.
    init : ndarray of int, shape (len(rows),)
        A clustering of ``rows`` to start from.
    n_clusters : int
        Number of clusters of the model.

    Returns
    -------
    ndarray of shape (n_samples,)
        Constrained rows take their max-product labels, the others the
        argmax of their assignment.

    Raises
    ------
    InvalidParameterError
        If ``n_clusters`` is not a positive int, ``must`` has not one answer
        per pair, or a pair's row is not in ``rows``.

    Examples
    --------
    >>> import numpy as np
    >>> from linkwise.bayes import design_matrix, refit_labels
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0], [13.0]])
    >>> init = np.array([0, 0, 0, 0, 1, 1, 1, 1])  # the clustering of the features
    >>> pairs, must = [(0, 1), (1, 2), (2, 7)], [True, False, True]  # the person cuts between 1 and 2
    >>> refit_labels(design_matrix(X), np.arange(8), pairs, must, init, 2).tolist()
    [0, 0, 1, 1, 1, 1, 1, 1]
    """
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    if len(must) != len(pairs):
        raise InvalidParameterError(f"The 'must' argument of refit_labels must hold one answer per pair, got "
                                    f"{len(must)} for {len(pairs)} pairs.")
    position = np.full(design.shape[0], -1, dtype=np.intp)
    position[rows] = np.arange(rows.size)
    if (position[pairs] < 0).any():
        raise InvalidParameterError("The 'rows' argument of refit_labels must hold every row of 'pairs'; add the "
                                    "answered rows to it.")
    forest = ConstraintForest(rows.size, [], [])
    for (a, b), answer in zip(position[pairs].tolist(), must):
        if not forest.closes_cycle(a, b):
            forest = forest.with_edge(a, b, bool(answer))
    inputs = design[rows]
    model = Model(inputs, forest, _LAM, _TAU, _EPS)
    W, _ = model.map_estimate(_start(inputs, init, n_clusters))
    labels = np.argmax(design @ W, axis=1)
    labels[rows] = model.labels(W)
    return labels


def _start(inputs, init, n_clusters):
    """Weights (d + 1, K) of a logistic regression of ``init``'s ``n_clusters`` largest clusters (0 if fewer than 2)."""
    _, inverse, counts = np.unique(init, return_inverse=True, return_counts=True)
    top = np.argsort(-counts, kind="stable")[:n_clusters]
    W0 = np.zeros((inputs.shape[1], n_clusters))
    if top.size < 2:
        return W0
    kept = np.isin(inverse, top)
    fit = LogisticRegression(max_iter=200).fit(inputs[kept, :-1], inverse[kept])
    coef, intercept = fit.coef_, fit.intercept_
    if top.size == 2:  # one decision function: split it between the two clusters' columns
        coef, intercept = np.vstack([-coef, coef]) / 2, np.array([-intercept[0], intercept[0]]) / 2
    W0[:-1, : top.size], W0[-1, : top.size] = coef.T, intercept
    return W0
