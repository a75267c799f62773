"""Bayesian linear regression on an explicit finite feature map (weight-space view of a GP).

Model: f(x) = w^T phi(x), w ~ N(0, I / alpha), y = f(x) + eps, eps ~ N(0, noise).
Posterior: A = Phi^T Phi / noise + alpha I, Sigma_w = A^-1, mu_w = Sigma_w Phi^T y / noise.
Predictive: mean phi(x)^T mu_w, variance phi(x)^T Sigma_w phi(x) (of f; add ``noise`` for y).
This equals the GP with kernel k(x, y) = phi(x)^T phi(y) / alpha and noise variance ``noise``.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval

from .._core.validation import check_is_fitted, validate_data
from ..linalg import cho_inverse, cho_logdet, cho_solve, jitter_cholesky

__all__ = ["BayesianLinearRegression"]


class BayesianLinearRegression(RegressorMixin, BaseEstimator):
    """Gaussian prior on the weights of a finite feature map; exact Gaussian posterior.

    Parameters
    ----------
    features : callable, optional
        ``phi``: maps an (n, d) array to (n, p) features. ``None``: phi(x) = x.
    alpha : float, default=1.0
        Prior precision of the weights, w ~ N(0, I / alpha) (the notes' w ~ N(0, I) is 1.0).
    noise : float, default=1.0
        Noise variance sigma^2 of the observations.

    Attributes
    ----------
    coef_ : ndarray of shape (n_basis,)
        Posterior mean of the weights.
    sigma_ : ndarray of shape (n_basis, n_basis)
        Posterior covariance of the weights.
    noise_variance_ : float
    log_marginal_likelihood_value_ : float
        log N(y; 0, Phi Phi^T / alpha + noise I), computed in weight space.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import BayesianLinearRegression
    >>> X = np.linspace(-1, 1, 20)[:, None]; y = 2 * X.ravel() + 1
    >>> phi = lambda X: np.hstack([np.ones((len(X), 1)), X])
    >>> model = BayesianLinearRegression(features=phi, noise=1e-2).fit(X, y)
    >>> np.round(model.coef_, 1).tolist()
    [1.0, 2.0]
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "features": [callable, None],
        "alpha": [Interval(Real, 0, np.inf, closed="neither")],
        "noise": [Interval(Real, 0, np.inf, closed="neither")],
    }

    def __init__(self, features: Callable | None = None, alpha: float = 1.0,
                 noise: float = 1.0):
        self.features = features
        self.alpha = alpha
        self.noise = noise

    def _phi(self, X) -> np.ndarray:
        if self.features is None:
            return X
        P = np.asarray(self.features(X), dtype=np.float64)
        return P.reshape(len(X), -1)

    def fit(self, X, y) -> BayesianLinearRegression:
        """Compute the posterior over the weights.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        alpha, noise = float(self.alpha), float(self.noise)
        P = self._phi(X)
        # A = Phi^T Phi / noise + alpha I = L L^T
        A = P.T @ P
        A /= noise
        A[np.diag_indices_from(A)] += alpha
        L, _ = jitter_cholesky(A, overwrite_a=True, what="posterior precision of the weights",
                               hint="increase alpha or noise")
        b = P.T @ y / noise
        self.coef_ = cho_solve(L, b)  # mu_w = A^-1 Phi^T y / noise
        self.sigma_ = cho_inverse(L)  # Sigma_w = A^-1
        # log N(y; 0, C), C = Phi Phi^T / alpha + noise I, by the determinant lemma and
        # Woodbury: log det C = log det A + n log noise - p log alpha,
        # y^T C^-1 y = (y^T y - b^T A^-1 b noise) / noise
        n, p = P.shape
        logdet = cho_logdet(L) + n * np.log(noise) - p * np.log(alpha)
        quad = (y @ y - noise * (b @ self.coef_)) / noise
        self.log_marginal_likelihood_value_ = float(
            -0.5 * quad - 0.5 * logdet - 0.5 * n * np.log(2 * np.pi))
        self.noise_variance_ = noise
        return self

    def predict(self, X, return_std: bool = False, return_cov: bool = False):
        """Posterior predictive mean of f, and optionally its std or covariance.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        return_std, return_cov : bool
            Std / covariance of f(x) = w^T phi(x) (add ``noise_variance_`` for new y).

        Returns
        -------
        mean : ndarray of shape (n_samples,)
        std : ndarray of shape (n_samples,) or cov : ndarray (n_samples, n_samples)
        """
        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        P = self._phi(X)
        mean = P @ self.coef_
        if return_cov:
            return mean, P @ self.sigma_ @ P.T
        if return_std:
            # var = phi^T Sigma_w phi >= 0 (clipped against rounding)
            var = np.einsum("ij,ij->i", P @ self.sigma_, P)
            return mean, np.sqrt(np.maximum(var, 0.0))
        return mean
