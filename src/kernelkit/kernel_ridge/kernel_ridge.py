"""Kernel ridge regression in its dual form: alpha = (K + lambda I)^-1 y, f(x) = k(x)^T alpha.

The dense solver builds K once, adds lambda to its diagonal in place and factorizes it in
place (one n x n matrix in memory, where scikit-learn holds two); the CG solver never forms
K and only multiplies by it, block by block, through :class:`~kernelkit.linalg.KernelOperator`.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import sklearn
from numba import njit, prange
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._progress import progress_bar
from .._validation import (
    FLOAT_DTYPES,
    check_is_fitted,
    check_sample_weight,
    resolve_estimator_kernel,
    validate_data,
)
from ..exceptions import ConvergenceWarning
from ..linalg import KernelOperator, cho_solve, jitter_cholesky, pcg

__all__ = ["KernelRidge"]

# "auto" factorizes densely while the n x n matrix takes at most this many working_memory
# budgets (scikit-learn's working_memory, 1024 MiB by default => 4 GiB => n <= 23,170).
DENSE_BUDGETS = 4
# from this n on, "auto" factorizes float64 problems in float32 and refines with CG
MIXED_MIN_N = 8000


@njit(parallel=True, cache=True)
def _center_inplace(K, u, r, c):  # pragma: no cover - numba
    # P K P with P = I - u u^T (||u|| = 1), r = K u, c = u^T K u:
    # (P K P)_ij = K_ij - u_i r_j - r_i u_j + c u_i u_j   (in place, no n x n temporary)
    n = K.shape[0]
    for i in prange(n):
        ui, ri = u[i], r[i]
        for j in range(n):
            K[i, j] += -ui * r[j] - ri * u[j] + c * ui * u[j]


@njit(parallel=True, cache=True)
def _scale_inplace(K, s):  # pragma: no cover - numba
    # K <- S K S with S = diag(s)
    n = K.shape[0]
    for i in prange(n):
        si = s[i]
        for j in range(n):
            K[i, j] *= si * s[j]


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


def choose_solver(solver: str, n: int, itemsize: int) -> str:
    """Resolve ``solver="auto"`` (rule in the KernelRidge docstring)."""
    if solver not in ("auto", "cholesky", "mixed", "cg"):
        raise ValueError(
            f"solver must be 'auto', 'cholesky', 'mixed' or 'cg'; got {solver!r}.")
    if solver != "auto":
        return solver
    budget = DENSE_BUDGETS * sklearn.get_config()["working_memory"] * 2**20
    if itemsize == 8 and n >= MIXED_MIN_N and n * n * 4 <= budget:
        return "mixed"
    return "cholesky" if n * n * itemsize <= budget else "cg"


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
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "kernel": [str, callable],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Real],
        "kernel_params": [dict, None],
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
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
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=FLOAT_DTYPES)
        ravel = y.ndim == 1
        Y = np.asarray(y, dtype=X.dtype).reshape(len(y), -1)
        n, t = Y.shape
        alphas = check_alpha(self.alpha, t)
        sw = None if sample_weight is None else check_sample_weight(sample_weight, X)
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
        for a in np.unique(alphas):
            cols = np.flatnonzero(alphas == a)
            solve = {"cholesky": self._solve_dense, "mixed": self._solve_mixed,
                     "cg": self._solve_cg}[self.solver_]
            gamma[:, cols] = solve(X, Yt[:, cols], a, s, u)
        beta = gamma if s is None else gamma * s[:, None]  # beta = S gamma
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
        return self

    def _solve_dense(self, X, Yt, a, s, u):
        # one n x n matrix: K -> S K S -> P K P -> + a I -> L (in place) -> solve
        K = self.kernel_(X)
        if s is not None:
            _scale_inplace(K, s)
        if u is not None:
            r = K @ u
            _center_inplace(K, u, r, float(u @ r))
        K.flat[:: K.shape[0] + 1] += a
        # a pivot below n * eps (relative) is rounding error (e.g. duplicated inputs with
        # alpha = 0): jitter and a warning instead of a meaningless solve
        L, _ = jitter_cholesky(
            K, overwrite_a=True, what="regularized kernel matrix K + alpha I",
            hint="increase alpha or use a kernel that is positive semi-definite",
            min_pivot=K.shape[0] * float(np.finfo(K.dtype).eps),
        )
        return cho_solve(L, Yt)

    def _operator(self, X, a, s, u):
        """The map v -> (P S K S P + a I) v with K applied block by block (never formed)."""
        # blocks of at most 256 MiB: next to the float32 factor of "mixed", the product's
        # blocks stay small compared with one n x n float64 matrix
        wm = min(256.0, float(sklearn.get_config()["working_memory"]))
        op = KernelOperator(self.kernel_, X, working_memory=wm)

        def scale(V):
            return V if s is None else V * s.reshape((-1,) + (1,) * (V.ndim - 1))

        def project(V):
            return V if u is None else V - np.multiply.outer(u, u @ V)

        def apply_A(V):
            return project(scale(op @ scale(project(V)))) + a * V

        return apply_A, scale, project

    def _solve_cg(self, X, Yt, a, s, u):
        apply_A, scale, project = self._operator(X, a, s, u)
        M = self._nystrom_preconditioner(X, a, scale, project)
        max_iter = 1000 if self.max_iter is None else int(self.max_iter)
        with progress_bar(self.verbose, total=max_iter, desc="KernelRidge (cg)") as bar:
            res = pcg(apply_A, Yt, M=M, tol=self.tol, max_iter=max_iter,
                      callback=_progress_callback(bar))
        self.n_iter_ = max(self.n_iter_, res.n_iter)
        if not res.converged:
            warnings.warn(
                f"KernelRidge CG did not reach tol={self.tol:g} in {res.n_iter} iterations "
                f"(relative residual {res.history[-1]:.2e}); increase max_iter or alpha.",
                ConvergenceWarning, stacklevel=3,
            )
        return res.coef

    def _solve_mixed(self, X, Yt, a, s, u):
        # float32 Cholesky of K + a I (half the memory and about half the time of float64)
        # used as the preconditioner of CG on the exact float64 system: the residual is
        # computed in float64, so the solution is as accurate as the float64 solve (tol).
        X32 = X.astype(np.float32)
        K = self.kernel_(X32)
        if s is not None:
            _scale_inplace(K, s.astype(np.float32))
        if u is not None:
            u32 = u.astype(np.float32)
            r = K @ u32
            _center_inplace(K, u32, r, float(u32 @ r))
        K.flat[:: K.shape[0] + 1] += np.float32(a)
        with warnings.catch_warnings():  # a preconditioner: jitter only slows CG down
            warnings.simplefilter("ignore")
            L32, _ = jitter_cholesky(K, overwrite_a=True)
        del K

        def apply_M(R):
            return cho_solve(L32, R.astype(np.float32)).astype(np.float64)

        apply_A, _, _ = self._operator(X, a, s, u)
        with progress_bar(self.verbose, total=100, desc="KernelRidge (mixed)") as bar:
            res = pcg(apply_A, Yt, M=apply_M, tol=self.tol, max_iter=100,
                      callback=_progress_callback(bar))
        if not res.converged:  # ill-conditioned beyond float32: solve in float64 instead
            del L32, apply_M
            return self._solve_dense(X, Yt, a, s, u)
        self.n_iter_ = max(self.n_iter_, res.n_iter)
        return res.coef

    def _nystrom_preconditioner(self, X, a, scale, project):
        # K ~ U U^T with U = K_nm L_mm^-T (m landmarks); Woodbury:
        # (U U^T + a I)^-1 = (I - U (a I + U^T U)^-1 U^T) / a
        n = X.shape[0]
        if a <= 0:
            return None
        rng = check_random_state(self.random_state)
        m = min(n, 300)
        idx = np.sort(rng.choice(n, m, replace=False))
        Kmm = self.kernel_(X[idx])
        with warnings.catch_warnings():  # a preconditioner only: jitter is harmless here
            warnings.simplefilter("ignore")
            Lm, _ = jitter_cholesky(Kmm, overwrite_a=True, what="landmark kernel matrix")
        from scipy.linalg import solve_triangular

        Knm = KernelOperator(self.kernel_, X, X[idx]).to_dense()
        U = solve_triangular(Lm, Knm.T, lower=True).T  # U = K_nm L^-T
        U = project(scale(U))
        Lc, _ = jitter_cholesky(U.T @ U + a * np.eye(m), overwrite_a=True,
                                what="Nystrom preconditioner")

        def apply_M(R):
            return (R - U @ cho_solve(Lc, U.T @ R)) / a

        return apply_M

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
        X = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        out = KernelOperator(self.kernel_, X, self.X_fit_) @ self.dual_coef_
        return out + self.intercept_
