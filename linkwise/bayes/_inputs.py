"""The logistic model's inputs: standardised features, or their leading principal components on wide tables.

The model has ``(d + 1) x K`` weights and its particle filter ``2 d K`` particles (Pei et al.), so its cost grows
with d twice over: on a table of 750 features a question took minutes. Above :data:`MAX_INPUT_DIMS` features the
model sees that many principal components instead (standardised), as text or image embeddings are usually reduced.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from linkwise._validation import Interval, validate_params

__all__ = ["MAX_INPUT_DIMS", "ModelInputs"]

# Most input dimensions of the model (the intercept aside): d = 64 and K = 10 give 1,280 particles.
MAX_INPUT_DIMS = 64
# Rows the principal components are fitted on at most, evenly spaced (enough to find 64 components).
_PCA_ROWS = 2000


class _ColumnMagnitude(TransformerMixin, BaseEstimator):
    """Divide each column by its largest magnitude (1 for a zero column).

    Unlike MaxAbsScaler it keeps magnitudes near 1e-300 (that scaler's zero);
    standardising the result cannot overflow, as data near 1e200 would.
    """

    def fit(self, X, y=None):
        scale = np.abs(X).max(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        return self

    def transform(self, X):
        return X / self.scale_


class ModelInputs(TransformerMixin, BaseEstimator):
    """Standardise features (any finite magnitude), and above ``max_dims`` of them keep their principal components.

    The components are the standardised features' coordinates in their
    leading subspace: the logistic model on them, with its isotropic Gaussian
    prior, is the model on the standardised features restricted to that
    subspace (a rotation leaves the prior as it is). ``scale_components``
    standardises each component instead, as Auto's fallback model was fitted
    (which magnifies the faint components as much as the ones the clusters
    lie along).

    Parameters
    ----------
    max_dims : int or None, default=MAX_INPUT_DIMS
        Most output dimensions; None keeps every feature. Fewer fitting rows
        than ``max_dims`` span as many components as there are rows.
    scale_components : bool, default=False
        Standardise each principal component (centred in any case).

    Attributes
    ----------
    scaler_ : Pipeline
        Division by each column's largest magnitude, then standardisation.
    pca_ : PCA or None
        The principal components (randomized, ``random_state=0``) of the
        standardised features, when there are more than ``max_dims``.
    post_ : StandardScaler or None
        The standardisation of the components, with ``scale_components``
        (not whitening: a component of no variance stays finite).
    """

    _parameter_constraints = {"max_dims": [Interval(Integral, 1, None, closed="left"), None],
                              "scale_components": ["boolean"]}

    def __init__(self, max_dims=MAX_INPUT_DIMS, scale_components=False):
        self.max_dims, self.scale_components = max_dims, scale_components

    def fit(self, X, y=None, fit_rows=None):
        """Fit the standardisation on every row, and the components on ``fit_rows``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Finite data.
        y : None
            Ignored.
        fit_rows : array-like of int, optional
            The rows the principal components are fitted on (default: at
            most 2,000 evenly spaced rows).

        Returns
        -------
        self
            The fitted transformer.
        """
        validate_params(self)
        self.scaler_ = make_pipeline(_ColumnMagnitude(), StandardScaler()).fit(X)
        self.pca_ = self.post_ = None
        if self.max_dims is not None and X.shape[1] > self.max_dims:
            Z = self.scaler_.transform(X)
            if fit_rows is None:
                fit_rows = np.arange(0, X.shape[0], -(-X.shape[0] // _PCA_ROWS))
            fit = Z[fit_rows]
            self.pca_ = PCA(min(self.max_dims, fit.shape[0]), svd_solver="randomized", random_state=0).fit(fit)
            self.post_ = StandardScaler(with_std=self.scale_components).fit(self.pca_.transform(Z))
        return self

    def transform(self, X):
        """The model's inputs for ``X`` (without the intercept's constant column).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Finite data with the fitted features.

        Returns
        -------
        ndarray of shape (n_samples, n_inputs)
            Standardised features, or standardised principal components.
        """
        Z = self.scaler_.transform(X)
        return Z if self.pca_ is None else self.post_.transform(self.pca_.transform(Z))
