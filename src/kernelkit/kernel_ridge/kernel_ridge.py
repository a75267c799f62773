"""Kernel ridge regression in its dual form: alpha = (K + lambda I)^-1 y, f(x) = k(x)^T alpha.

The dense solver builds K once, adds lambda to its diagonal in place and factorizes it in
place (one n x n matrix in memory, where scikit-learn holds two); the CG solver never forms
K and only multiplies by it, block by block, through :class:`~kernelkit.linalg.KernelOperator`.
"""

from __future__ import annotations

import copy
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.progress import progress_bar
from .._core.validation import (
    FLOAT_DTYPES,
    KERNEL_PARAMETER_CONSTRAINTS,
    check_dense_target,
    check_is_fitted,
    check_sample_weight,
    validate_data,
)
from ..kernels import resolve_estimator_kernel
from ..linalg import KernelOperator
from ..solvers.krr import choose_solver, solve_krr
from ._online import extend_kernel_ridge, online_state

__all__ = ["KernelRidge"]

def _scaled_weights(sample_weight, X, alphas):
    """(weights, alphas): weights beyond 1e+-100 times y overflow; (c w, c alpha) is the same
    problem as (w, alpha), so they are scaled to a maximum of 1 (alpha with them)."""
    if sample_weight is None:
        return None, alphas
    sw = check_sample_weight(sample_weight, X, any_scale=True)
    if not 1e-100 <= sw.max() <= 1e100:
        c = float(sw.max())
        return sw / c, alphas / c
    return sw, alphas


def _check_finite(beta, alphas):
    if not np.all(np.isfinite(beta)):
        raise ValueError(
            "KernelRidge: the dual coefficients overflow float64 (a kernel matrix that is "
            "(nearly) zero with an alpha this small relative to the sample weights, alpha / "
            f"max(sample_weight) = {float(np.min(alphas)):.3g}). Increase alpha.")
    return beta


def check_alpha(alpha, n_targets: int, name: str = "alpha") -> np.ndarray:
    """``alpha`` as a float array of length ``n_targets`` (a scalar is broadcast)."""
    a = np.atleast_1d(np.asarray(alpha, dtype=float)).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite; got {alpha!r}.")
    if np.any(a < 0):
        raise ValueError(f"{name} must be >= 0 (it is the ridge penalty); got {alpha!r}.")
    if a.size == 1:
        return np.full(n_targets, a[0])
    if a.size != n_targets:
        raise ValueError(
            f"Number of targets and number of penalties do not correspond: {a.size} != "
            f"{n_targets}; pass a scalar {name} or one per target."
        )
    return a


def _progress_callback(bar):
    """A pcg callback advancing ``bar`` by one iteration and showing the residual."""

    def callback(it, x, rel):
        bar.update()
        bar.set_postfix_str(f"residual {rel:.2e}")

    return callback


class KernelRidge(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression: squared loss + RKHS-norm penalty, solved in the dual.

    Minimizes ``sum_i w_i (y_i - f(x_i) - theta_0)^2 + alpha ||f||_H^2``; by the
    representer theorem ``f = sum_i dual_coef_i k(x_i, .)`` with
    ``dual_coef = (K + alpha I)^-1 y`` (no intercept, unit weights).

    Parameters
    ----------
    alpha : float or array of shape (n_targets,), default=1.0
        Ridge penalty lambda (>= 0); one per target allowed. Conventions in the notes map
        onto ``alpha`` as follows (all give the same predictor f, see the tests):

        - ``(K + lambda I) a = y``, ``f = k^T a``: ``alpha = lambda``.
        - averaged loss ``(1/n) sum (y - f)^2 + lambda ||f||^2``, ``a = (K + lambda n I)^-1 y``:
          ``alpha = n * lambda``.
        - ``a = 2 lambda (K + lambda I)^-1 y`` with ``f = k^T a / (2 lambda)``:
          ``alpha = lambda`` (``dual_coef_ = a / (2 lambda)``).
        - ``a = lambda (lambda I + K)^-1 y`` with ``f = k^T a / lambda``: ``alpha = lambda``
          (``dual_coef_ = a / lambda``).
    kernel : str, callable or Kernel, default="linear"
        Anything :func:`~kernelkit.kernels.resolve_kernel` accepts (sklearn strings,
        kernelkit kernels, scikit-learn GP kernels, callables, ``"precomputed"``).
    gamma, degree, coef0, kernel_params :
        scikit-learn's parameters for string kernels.
    fit_intercept : bool, default=False
        Fit an unpenalized offset theta_0 through the centering matrix
        ``C = I - 1 1^T / n``: ``dual_coef = (C K C + alpha I)^-1 C y`` and
        ``theta_0 = mean(y - K dual_coef)`` (weighted versions with ``sample_weight``).
    solver : {"auto", "cholesky", "mixed", "cg"}, default="auto"
        "cholesky" builds K once and factorizes it in place (one n x n matrix in memory).
        "mixed" factorizes K + alpha I in float32 (half the memory, about half the time)
        and uses that factor to precondition CG on the exact float64 system, whose
        products with K are computed block by block; it falls back to "cholesky" if CG
        has not converged in 100 iterations (a system too ill-conditioned for float32).
        "cg" runs preconditioned conjugate gradients (Nystrom preconditioner) on products
        with K computed block by block, never forming K. "auto": with float64 data and
        n >= 8,000, "mixed" while its float32 n x n matrix fits the dense budget; else
        "cholesky" while the n x n matrix fits the dense budget; else "cg". The dense
        budget is 4 x ``sklearn.get_config()["working_memory"]`` (4 GiB by default, i.e.
        n <= 23,170 in float64), so ``sklearn.config_context(working_memory=...)`` moves
        the switch.
    tol : float, default=1e-10
        Relative residual at which "cg" and "mixed" stop; the training-set predictions
        then differ from the exact ones by at most ``tol * ||y||``.
    max_iter : int, optional
        Iteration cap for "cg" (default 1000).
    random_state : int, RandomState or None
        Landmarks of the Nystrom preconditioner of "cg".
    verbose : int, default=0
        Show a progress bar (on stderr) over the CG iterations of "cg" and "mixed".

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
    intercept_ : float or ndarray of shape (n_targets,)
        0.0 unless ``fit_intercept``.
    X_fit_ : ndarray of shape (n_samples, n_features)
    kernel_ : Kernel
        The resolved kernel.
    solver_ : str
        The solver used.
    n_iter_ : int
        CG iterations (1 for the direct "cholesky" solve).
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    - Extra parameters ``fit_intercept``, ``solver`` ("mixed" and "cg" never hold a second
      n x n copy), ``tol``, ``max_iter``, ``random_state`` and ``verbose``; extra
      attributes ``kernel_``, ``solver_``, ``n_iter_``, ``intercept_``.
    - ``kernel`` also takes kernelkit kernels and scikit-learn GP kernels.
    - Sparse X is not accepted yet (issue 15).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2)); y = np.sin(X[:, 0])
    >>> model = KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5).fit(X, y)
    >>> model.dual_coef_.shape
    (50,)
    >>> bool(np.abs(model.predict(X) - y).max() < 0.2)
    True
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        **KERNEL_PARAMETER_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "solver": [StrOptions({"auto", "cholesky", "mixed", "cg"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        fit_intercept: bool = False,
        solver: str = "auto",
        tol: float = 1e-10,
        max_iter: int | None = None,
        random_state=None,
        verbose: int = 0,
    ):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    # partial_fit adds points to a fitted model (hyperparameters kept); before fit it raises
    # NotFittedError (issue 18), where these checks expect it to start a new model
    _expected_failed_checks = {
        "check_estimators_partial_fit_n_features": "partial_fit needs a fitted model",
        "check_n_features_in_after_fitting": "partial_fit needs a fitted model",
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None) -> KernelRidge:
        """Fit the dual coefficients.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Or the (n_samples, n_samples) kernel matrix with ``kernel="precomputed"``.
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,), optional
            Non-negative weights of the squared errors.

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True,
                             accept_sparse="csr", dtype=FLOAT_DTYPES)
        y = check_dense_target(y)
        ravel = y.ndim == 1
        Y = np.asarray(y, dtype=X.dtype).reshape(len(y), -1)
        n, t = Y.shape
        alphas = check_alpha(self.alpha, t)
        sw, alphas = _scaled_weights(sample_weight, X, alphas)
        self.kernel_ = resolve_estimator_kernel(self, X.shape[1])
        self.solver_ = choose_solver(self.solver, n, X.dtype.itemsize)
        s = None if sw is None else np.sqrt(sw).astype(X.dtype)
        # the rescaled problem: K~ = S K S, y~ = S y (S = diag(sqrt w)), centered by P
        u = None
        if self.fit_intercept:
            w1 = np.ones(n, dtype=X.dtype) if s is None else s
            norm = float(np.linalg.norm(w1))
            if norm == 0:
                raise ValueError("sample_weight must not be all zero.")
            u = w1 / norm
        Yt = Y if s is None else Y * s[:, None]
        if u is not None:
            Yt = Yt - np.outer(u, u @ Yt)  # P S y
        gamma = np.empty((n, t), dtype=np.result_type(X.dtype, np.float32))
        self.n_iter_ = 1
        op = KernelOperator(self.kernel_, X)
        total = {"cg": 1000 if self.max_iter is None else int(self.max_iter), "mixed": 100}
        factor = None  # (L, jitter) of a dense solve, kept for partial_fit
        for a in np.unique(alphas):
            cols = np.flatnonzero(alphas == a)
            # (P S K S P + a I) gamma = P S y  (solvers.krr, eq. 1)
            with progress_bar(self.verbose if self.solver_ != "cholesky" else 0,
                              total=total.get(self.solver_, 1),
                              desc=f"KernelRidge ({self.solver_})") as bar:
                res = solve_krr(op, Yt[:, cols], a, weights=s, center=u, method=self.solver_,
                                tol=self.tol, max_iter=self.max_iter,
                                random_state=self.random_state,
                                callback=_progress_callback(bar))
            gamma[:, cols] = res.coef
            if "factor" in res.info:
                factor = (res.info["factor"], res.info["jitter"])
            if res.info["method"] != "cholesky":
                self.n_iter_ = max(self.n_iter_, res.n_iter)
        beta = _check_finite(gamma if s is None else gamma * s[:, None], alphas)  # S gamma
        if self.fit_intercept:
            # theta_0 = sum_i w_i (y_i - (K beta)_i) / sum_i w_i
            resid = Y - KernelOperator(self.kernel_, X) @ beta
            w = np.ones(n) if sw is None else sw
            intercept = (w @ resid) / w.sum()
        else:
            intercept = np.zeros(t)
        self.dual_coef_ = beta[:, 0] if ravel else beta
        self.intercept_ = float(intercept[0]) if ravel else intercept
        self.X_fit_ = X
        # the factor partial_fit extends, kept only where partial_fit supports the fit
        online = online_state(self, Y, alphas, sw, factor)
        if online is None:
            self.__dict__.pop("_online", None)
        else:
            self._online = online
        return self

    # --------------------------------------------------------------- online
    def partial_fit(self, X, y) -> KernelRidge:
        """Add training points: ``dual_coef = (K + alpha I)^-1 y`` on all the data.

        Extends the Cholesky factor of ``K + alpha I`` kept by the dense solver by a block
        (O(n^2 k) for k new points, never a new (n + k)^3 factorization), then solves
        again (O(n^2)); equals a fit on all the data. Supported for models fitted with
        ``solver="cholesky"`` (or "auto" resolved to it), ``fit_intercept=False``, no
        ``sample_weight``, one ``alpha`` for every target and a kernel that is not
        "precomputed"; other fits raise a ValueError that says so. For this the dense
        fit keeps its factor of ``K + alpha I`` (the n x n matrix it factorized in place).

        Parameters
        ----------
        X : array of shape (n_new, n_features)
        y : array of shape (n_new,) or (n_new, n_targets)

        Returns
        -------
        self
        """
        self._validate_params()  # as fit: a bad parameter is InvalidParameterError
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        extend_kernel_ridge(self, X, y)
        return self

    def condition_on(self, X, y) -> KernelRidge:
        """A new model that also fits ``(X, y)``; self unchanged (see :meth:`partial_fit`).

        Parameters
        ----------
        X : array of shape (n_new, n_features)
        y : array of shape (n_new,) or (n_new, n_targets)

        Returns
        -------
        KernelRidge
        """
        check_is_fitted(self, "dual_coef_")
        # a shallow copy: partial_fit replaces the fitted arrays, it never writes into them
        return copy.copy(self).partial_fit(X, y)

    # -------------------------------------------------------------- predict
    def predict(self, X) -> np.ndarray:
        """``f(x) = k(x)^T dual_coef_ + intercept_``, computed in row blocks.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Or the (n_samples, n_train) kernel matrix with ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        out = KernelOperator(self.kernel_, X, self.X_fit_) @ self.dual_coef_
        return out + self.intercept_
