"""Kernel ridge regression with the penalty chosen by exact leave-one-out (or GCV / K-fold).

One eigendecomposition K = Q diag(lam) Q^T serves every alpha: the hat matrix is
H(alpha) = Q diag(lam / (lam + alpha)) Q^T, the fit yhat = H y costs O(n^2) per alpha and so
does diag(H) = (Q o Q) lam / (lam + alpha); the exact leave-one-out residuals are
e_i = (y_i - yhat_i) / (1 - H_ii) (the notes' "LOO without refitting").
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.model_selection import check_cv
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.validation import (
    FLOAT_DTYPES,
    KERNEL_PARAMETER_CONSTRAINTS,
    check_dense_target,
    check_is_fitted,
    validate_data,
)
from ..exceptions import NumericalError
from ..kernels import resolve_estimator_kernel
from ..linalg import KernelOperator, top_eigh

__all__ = ["KernelRidgeCV"]


def _check_alphas(alphas) -> np.ndarray:
    if np.ndim(alphas) > 1:
        raise ValueError(
            f"alphas must be a 1-D sequence of candidate penalties; got shape "
            f"{np.shape(alphas)}."
        )
    a = np.atleast_1d(np.asarray(alphas, dtype=float)).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(
            f"alphas must be a non-empty sequence of finite values > 0; got {alphas!r}."
        )
    return a


def _eigh_kernel(kernel, X):
    """Eigendecomposition of K(X, X), K overwritten (rounding negatives clipped at 0).

    Raises a ValueError (:class:`~kernelkit.exceptions.NumericalError`) when K has a
    negative eigenvalue beyond rounding (10 n eps max|lam|): the kernel is not PSD.
    """
    K = kernel(X)  # a fresh matrix (a copy for a precomputed kernel): ours to overwrite
    # every eigenpair (syevd), K overwritten in place; top_eigh's descending order is a
    # reversed view: reversing again gives LAPACK's own ascending arrays (positive strides,
    # so the O(n^2) products below go straight to BLAS without copying Q)
    lam, Q = top_eigh(K, K.shape[0], "dense", overwrite_a=True)
    lam, Q = lam[::-1], Q[:, ::-1]
    del K
    top = float(np.max(np.abs(lam))) if lam.size else 0.0
    if lam.size and lam[0] < -10 * len(lam) * np.finfo(lam.dtype).eps * top:
        raise NumericalError(
            f"The kernel matrix is not positive semi-definite (eigenvalues from {lam[0]:.3g} "
            f"to {lam[-1]:.3g}); use a positive semi-definite kernel (check the kernel, its "
            "parameters or the precomputed matrix)."
        )
    np.maximum(lam, 0.0, out=lam)
    return lam, Q


class KernelRidgeCV(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression with built-in cross-validation of ``alpha``.

    Parameters
    ----------
    alphas : array-like of float > 0, default=(0.1, 1.0, 10.0)
        Candidate penalties.
    kernel, gamma, degree, coef0, kernel_params :
        As in :class:`~kernelkit.KernelRidge` (default kernel "linear").
    cv : {"loo", "gcv"}, int or CV splitter, default="loo"
        "loo": exact leave-one-out residuals ``(y_i - yhat_i) / (1 - H_ii)`` for every alpha
        from one eigendecomposition of K (O(n^3) once, then O(n^2) per alpha).
        "gcv": generalized cross-validation ``(y_i - yhat_i) / (1 - tr(H) / n)``.
        An int or a scikit-learn splitter: K-fold (one eigendecomposition per fold).

    Attributes
    ----------
    alpha_ : float
        The selected penalty (the smallest mean squared CV error, summed over targets).
    best_score_ : float
        Negative mean squared CV error at ``alpha_`` (scikit-learn's RidgeCV convention).
    cv_values_ : ndarray
        "loo"/"gcv": squared CV residuals of shape (n_samples, n_alphas), or
        (n_samples, n_targets, n_alphas) for 2-D y (as RidgeCV's ``cv_results_``).
        K-fold: mean squared validation error per fold, (n_splits, n_alphas).
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        Coefficients refit on all data with ``alpha_``.
    X_fit_, kernel_, n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import KernelRidgeCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=80)
    >>> model = KernelRidgeCV(alphas=[0.01, 0.1, 1.0], kernel="rbf").fit(X, y)
    >>> model.cv_values_.shape
    (80, 3)
    """

    # scikit-learn's parameter validation (RidgeCV's constraints for alphas and cv)
    _parameter_constraints: dict = {
        **KERNEL_PARAMETER_CONSTRAINTS,
        "alphas": ["array-like", Interval(Real, 0, None, closed="neither")],
        "cv": [StrOptions({"loo", "gcv"}), "cv_object"],
    }

    def __init__(
        self,
        alphas=(0.1, 1.0, 10.0),
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        cv="loo",
    ):
        self.alphas = alphas
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.cv = cv

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags

    def fit(self, X, y) -> KernelRidgeCV:
        """Select ``alpha`` by cross-validation and refit on all data.

        Parameters
        ----------
        X : array of shape (n_samples, n_features) (or a precomputed kernel matrix)
        y : array of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True,
                             accept_sparse="csr", dtype=FLOAT_DTYPES)
        y = check_dense_target(y)
        alphas = _check_alphas(self.alphas)
        ravel = y.ndim == 1
        Y = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        self.kernel_ = resolve_estimator_kernel(self, X.shape[1])
        if isinstance(self.cv, str):
            lam, Q = _eigh_kernel(self.kernel_, X)
            QtY = Q.T @ Y
            errors = self._efficient_cv(lam, Q, Y, QtY, alphas)  # (n, t, n_alphas)
            mse = errors.mean(axis=0).sum(axis=0)
            self.cv_values_ = errors[:, 0, :] if ravel else errors
        else:
            if X.shape[0] < 2:
                raise ValueError("K-fold cross-validation needs at least 2 samples.")
            mse = self._kfold_cv(X, Y, alphas)
            lam, Q = _eigh_kernel(self.kernel_, X)
            QtY = Q.T @ Y
        best = int(np.argmin(mse))
        self.alpha_ = float(alphas[best])
        self.best_score_ = -float(mse[best]) / Y.shape[1]
        # refit: dual_coef = (K + alpha I)^-1 y = Q diag(1 / (lam + alpha)) Q^T y
        beta = Q @ (QtY / (lam + self.alpha_)[:, None])
        self.dual_coef_ = beta[:, 0] if ravel else beta
        self.X_fit_ = X
        return self

    def _efficient_cv(self, lam, Q, Y, QtY, alphas):
        """Squared LOO (or GCV) residuals for every alpha, shape (n, t, n_alphas)."""
        n, t = Y.shape
        A = len(alphas)
        # F[k, a] = lam_k / (lam_k + alpha_a): the spectrum of H(alpha_a)
        F = lam[:, None] / (lam[:, None] + alphas[None, :])
        # yhat(alpha) = Q diag(F_a) Q^T y for all alphas in one GEMM: (n, n) x (n, A t)
        fitted = (Q @ (F[:, :, None] * QtY[:, None, :]).reshape(n, A * t)).reshape(n, A, t)
        resid = Y[:, None, :] - fitted  # (n, A, t)
        if self.cv == "gcv":
            # GCV: e_i = (y_i - yhat_i) / (1 - tr(H) / n)
            denom = np.broadcast_to(1.0 - F.sum(axis=0) / n, (n, A))
        else:
            # diag H(alpha) = (Q o Q) F, row block by row block (no n x n temporary)
            denom = np.empty((n, A))
            step = max(1, (1 << 22) // max(n, 1))
            for s in range(0, n, step):
                Qb = Q[s : s + step]
                denom[s : s + step] = 1.0 - (Qb * Qb) @ F
        e = resid / denom[:, :, None]  # exact LOO: e_i = (y_i - yhat_i) / (1 - H_ii)
        return np.transpose(e**2, (0, 2, 1))

    def _kfold_cv(self, X, Y, alphas):
        cv = check_cv(self.cv)
        folds = list(cv.split(X, Y))
        values = np.zeros((len(folds), len(alphas)))
        precomputed = isinstance(self.kernel, str) and self.kernel == "precomputed"
        for f, (tr, va) in enumerate(folds):
            Xtr = X[np.ix_(tr, tr)] if precomputed else X[tr]
            lam, Q = _eigh_kernel(self.kernel_, Xtr)
            QtY = Q.T @ Y[tr]
            Kva = X[np.ix_(va, tr)] if precomputed else KernelOperator(
                self.kernel_, X[va], X[tr]).to_dense()
            KvQ = Kva @ Q
            for j, a in enumerate(alphas):
                pred = KvQ @ (QtY / (lam + a)[:, None])
                values[f, j] = np.mean(np.sum((Y[va] - pred) ** 2, axis=1))
        self.cv_values_ = values
        return values.mean(axis=0)

    def predict(self, X) -> np.ndarray:
        """``f(x) = k(x)^T dual_coef_`` with the selected alpha.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        return KernelOperator(self.kernel_, X, self.X_fit_) @ self.dual_coef_
