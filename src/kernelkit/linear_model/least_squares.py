"""Least squares as the maximum-likelihood estimate of a linear-Gaussian model.

Model: y = theta^T x + theta_0 + eps, eps ~ N(0, sigma^2). The MLE of theta is the least
squares solution, the MLE of the noise is sigma^2 = RSS / n, and the maximized
log-likelihood is -n/2 (log(2 pi sigma^2) + 1).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.utils._param_validation import Interval

from .._core.validation import (
    FLOAT_DTYPES,
    check_dense_target,
    check_is_fitted,
    check_sample_weight,
    validate_data,
)
from ._nnls import nnls_solve
from ._sparse import GRAM_MAX_FEATURES, sparse_fit

__all__ = ["LinearRegression"]


def center_data(X, Y, sw, fit_intercept: bool):
    """Weighted means and the rescaled, centered problem sqrt(w) (X - x_bar), sqrt(w) (y - y_bar).

    Returns ``Xc, Yc, x_mean, y_mean, s`` where ``s = sqrt(w)`` (ones without weights).
    """
    n = X.shape[0]
    w = np.ones(n) if sw is None else sw
    if fit_intercept:
        if w.sum() <= 0:
            raise ValueError("sample_weight must not be all zero.")
        x_mean = (w @ X) / w.sum()
        y_mean = (w @ Y) / w.sum()
    else:
        x_mean = np.zeros(X.shape[1])
        y_mean = np.zeros(Y.shape[1])
    s = np.sqrt(w)
    return (X - x_mean) * s[:, None], (Y - y_mean) * s[:, None], x_mean, y_mean, s


def svd_solve(Xc, Yc, alpha, rcond=None):
    """Ridge/least-squares coefficients from the thin SVD Xc = U S V^T.

    coef = V diag(s / (s^2 + alpha)) U^T y (alpha may differ per target; alpha = 0 gives the
    minimum-norm least-squares solution, singular values below ``rcond * s_max`` dropped).
    Returns ``coef`` (n_features, n_targets) and ``(s, Vt)`` for variances.
    """
    U, s, Vt = scipy.linalg.svd(Xc, full_matrices=False, check_finite=False,
                                lapack_driver="gesdd")
    rcond = max(Xc.shape) * np.finfo(float).eps if rcond is None else rcond
    keep = s > rcond * (s[0] if s.size else 0.0)
    UtY = U.T @ Yc
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (Yc.shape[1],))
    with np.errstate(divide="ignore", invalid="ignore"):
        D = np.where(keep[:, None], s[:, None] / (s[:, None] ** 2 + alpha[None, :]), 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        coef = Vt.T @ (D * UtY)
    if not np.all(np.isfinite(coef)):  # e.g. subnormal X: 1/s overflows
        raise ValueError(
            f"The least-squares coefficients overflow float64: X's scale (largest singular "
            f"value {s[0] if s.size else 0.0:.3g}) is too small for y's. Scale the features "
            "(e.g. StandardScaler) or regularize (Ridge).")
    return coef, (s, Vt, keep)


class LinearRegression(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Ordinary least squares, read as maximum likelihood under Gaussian noise.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Fit the offset theta_0 (unpenalized, by centering X and y).
    copy_X : bool, default=True
        Kept for scikit-learn compatibility (X is never modified).
    tol : float, default=1e-6
        Kept for scikit-learn compatibility (the SVD solve is direct; unused).
    n_jobs : int, optional
        Kept for scikit-learn compatibility (BLAS threads do the work; unused).
    positive : bool, default=False
        Constrain the coefficients to be >= 0 (non-negative least squares, as scikit-learn).
        ``noise_variance_`` and ``log_likelihood_`` then use the constrained residuals; the
        ``return_std`` of predict keeps the unconstrained formula.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
    intercept_ : float or ndarray of shape (n_targets,)
        0.0 without ``fit_intercept`` (as scikit-learn).
    noise_variance_ : float or ndarray of shape (n_targets,)
        MLE sigma^2 = RSS / n (weighted: sum w r^2 / sum w).
    log_likelihood_ : float
        Maximized log-likelihood -n/2 (log(2 pi sigma^2) + 1), summed over targets.
    rank_ : int
    singular_ : ndarray
        Singular values of the (centered) design matrix.
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    - The solve is an SVD of the centred, weighted design (scikit-learn: lstsq), and
      ``tol`` / ``n_jobs`` are unused; ``rank_`` and ``singular_`` are those of the centred
      design. Extra attributes ``noise_variance_`` and ``log_likelihood_`` and
      ``predict(return_std=True)`` (the maximum-likelihood reading).
    - Sparse X (CSR/CSC/COO) is centred implicitly, never densified. Up to 1000 features
      the solve is the eigendecomposition of the centred Gram matrix (``rank_`` and
      ``singular_`` from it); with more, LSQR (as scikit-learn) stopped at ``1e-4 * tol``,
      and ``rank_``, ``singular_`` and ``predict(return_std=True)`` are then not available
      (scikit-learn does not set ``rank_``/``singular_`` on sparse X either).
      ``positive=True`` works on sparse X too (up to 1000 features the dense path's NNLS on a
      square factor of the centred Gram matrix, else bounded L-BFGS-B on the implicitly
      centred problem); scikit-learn raises a TypeError there.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import LinearRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([1.0, 3.1, 4.9, 7.0])
    >>> model = LinearRegression().fit(X, y)
    >>> round(float(model.coef_[0]), 2), round(float(model.intercept_), 2)
    (1.98, 1.03)
    """

    _ravel_column = False  # Ridge: True (scikit-learn's shapes for an (n, 1) y)

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_jobs": [None, Integral],
        "positive": ["boolean"],
    }

    def __init__(self, *, fit_intercept: bool = True, copy_X: bool = True, tol: float = 1e-6,
                 n_jobs: int | None = None, positive: bool = False):
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.tol = tol
        self.n_jobs = n_jobs
        self.positive = positive

    def _alpha(self, n_targets):
        return np.zeros(n_targets)

    def _nnls_max_iter(self):
        return None

    def fit(self, X, y, sample_weight=None):
        """Fit by least squares (SVD of the centered, weighted design).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,), optional

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=FLOAT_DTYPES,
                             accept_sparse=("csr", "csc"))
        y = check_dense_target(y)  # multi_output lets a sparse y through
        dtype = X.dtype  # the coefficients keep float32; the solve runs in float64
        X = X.astype(np.float64, copy=False)
        Y = np.asarray(y, dtype=float).reshape(len(y), -1)
        sw = None if sample_weight is None else check_sample_weight(sample_weight, X)
        alpha = self._alpha(Y.shape[1])
        if scipy.sparse.issparse(X):  # implicit centring, X never densified
            fit = sparse_fit(X, Y, sw, alpha, fit_intercept=self.fit_intercept,
                             positive=self.positive, tol=self.tol,
                             max_iter=self._nnls_max_iter())
            coef, x_mean, y_mean, rss = fit.coef, fit.x_mean, fit.y_mean, fit.rss
            self._sparse_solver, self._sparse_n_iter = fit.solver, fit.n_iter
            spectrum = fit.spectrum
        else:
            Xc, Yc, x_mean, y_mean, _ = center_data(X, Y, sw, self.fit_intercept)
            coef, spectrum = svd_solve(Xc, Yc, alpha)
            if self.positive:  # coef >= 0: NNLS on the same centered, weighted problem
                coef = nnls_solve(Xc, Yc, alpha, self._nnls_max_iter())
            resid = Yc - Xc @ coef  # sqrt(w) * (y - X theta - theta_0)
            rss = np.sum(resid**2, axis=0)
            self._sparse_solver = None
        intercept = y_mean - x_mean @ coef
        w_sum = float(X.shape[0] if sw is None else sw.sum())
        self._set_likelihood(rss, coef, alpha, w_sum)
        # kept for predictive variances x^T (Xc^T Xc + alpha I)^-1 x
        self._alphas = alpha
        self._x_mean = x_mean
        self._w_sum = w_sum
        self._vt = None
        for name in ("singular_", "rank_"):  # not computed by the iterative sparse solvers
            self.__dict__.pop(name, None)
        if spectrum is not None:  # the SVD (or centred Gram) spectrum
            s, Vt, keep = spectrum
            self.singular_ = s
            self.rank_ = int(np.sum(keep))
            self._vt = Vt[keep]
            self._s = s[keep]
        ravel = y.ndim == 1
        coef, intercept = coef.astype(dtype), intercept.astype(dtype)
        # scikit-learn's Ridge: an (n, 1) y gives coef_ (d,), intercept_ (1,) or 0.0
        column = self._ravel_column and y.ndim == 2 and y.shape[1] == 1
        self.coef_ = coef[:, 0] if ravel or column else coef.T
        # 1-D y: a NumPy scalar (it has .shape and .dtype), as scikit-learn's
        self.intercept_ = intercept[0] if ravel else intercept
        if not self.fit_intercept:
            self.intercept_ = 0.0  # as scikit-learn, for any number of targets
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR/CSC/COO, centred implicitly
        return tags

    def _set_likelihood(self, rss, coef, alpha, w_sum):
        # MLE: sigma^2 = RSS / n;  log L = -n/2 (log(2 pi sigma^2) + 1)
        sigma2 = rss / w_sum
        ll = -0.5 * w_sum * (np.log(2 * np.pi * np.maximum(sigma2, np.finfo(float).tiny)) + 1)
        self.noise_variance_ = float(sigma2[0]) if sigma2.size == 1 else sigma2
        self.log_likelihood_ = float(np.sum(ll))

    def _param_variance(self, X):
        # x^T (Xc^T Xc + alpha I)^-1 x  (+ 1/n for the intercept), shape (n_samples, n_targets)
        if self._vt is None:
            raise ValueError(
                f"predict(return_std=True) needs the spectrum of the design; this model was "
                f"fitted on sparse X with {self.n_features_in_} features by the iterative "
                f"solver {self._sparse_solver!r}, which does not compute it. Fit on at most "
                f"{GRAM_MAX_FEATURES} features (or dense X) to get standard deviations.")
        Z = X @ self._vt.T - self._x_mean @ self._vt.T  # (x - x_bar)^T V, X may be sparse
        with np.errstate(divide="ignore"):
            inv = 1.0 / (self._s[:, None] ** 2 + self._alphas[None, :])
        v = (Z**2) @ inv
        return v + (1.0 / self._w_sum if self.fit_intercept else 0.0)

    def predict(self, X, return_std: bool = False):
        """Predict ``X theta + theta_0``; optionally the predictive standard deviation.

        The std is that of a new observation under the fitted model (parameter uncertainty
        plus noise): ``sigma^2 (1 + 1/n + (x - x_bar)^T (Xc^T Xc)^+ (x - x_bar))``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        return_std : bool, default=False

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_targets)
        std : ndarray, same shape, only with ``return_std``
        """
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES, accept_sparse=("csr", "csc"))
        y = np.asarray(X @ np.asarray(self.coef_).T) + self.intercept_
        if not return_std:
            return y
        var = (1.0 + self._param_variance(X)) * np.atleast_1d(self.noise_variance_)
        return y, np.sqrt(var[:, 0] if y.ndim == 1 else var)
