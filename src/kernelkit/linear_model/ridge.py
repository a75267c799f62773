"""Ridge regression as the MAP estimate under a Gaussian prior tied to the noise variance.

Model: y = theta^T x + theta_0 + eps, eps ~ N(0, sigma^2), prior theta ~ N(0, sigma^2 / lambda I)
(theta_0 flat). The MAP estimate is theta = (lambda I + X^T X)^-1 X^T y (X, y centered); the
joint mode in sigma^2 is sigma^2 = (RSS + lambda ||theta||^2) / (n + d).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .least_squares import LinearRegression

__all__ = ["Ridge"]

# scikit-learn's solver names (all give the same exact solution here)
SOLVERS = ("auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga", "lbfgs")


class Ridge(LinearRegression):
    """Ridge regression (L2-penalized least squares) read as maximum a posteriori.

    Parameters
    ----------
    alpha : float or array of shape (n_targets,), default=1.0
        Penalty lambda >= 0: the prior variance of the weights is sigma^2 / lambda.
    fit_intercept : bool, default=True
        Fit an unpenalized offset by centering.
    copy_X : bool, default=True
        Kept for scikit-learn compatibility.
    max_iter : int, optional
        Iteration cap of the non-negative solver (``positive=True``); else unused.
    tol : float, default=1e-4
        Kept for scikit-learn compatibility (the SVD solve is direct; unused).
    solver : {"auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga", "lbfgs"}, \
default="auto"
        scikit-learn's names, accepted for drop-in use: every one gives the same exact
        solution here, computed from the SVD of the centered design (``positive=True``:
        non-negative least squares). As in scikit-learn, ``positive=True`` needs "auto" or
        "lbfgs" and "lbfgs" needs ``positive=True``.
    positive : bool, default=False
        Constrain the coefficients to be >= 0.
    random_state : int, RandomState or None
        Kept for scikit-learn compatibility (no randomness; unused).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        MAP weights (lambda I + Xc^T Xc)^-1 Xc^T yc.
    intercept_ : float or ndarray of shape (n_targets,)
    noise_variance_ : float or ndarray of shape (n_targets,)
        Joint MAP sigma^2 = (RSS + lambda ||theta||^2) / (n + d).
    prior_variance_ : float or ndarray of shape (n_targets,)
        sigma^2 / lambda (``inf`` for lambda = 0).
    log_likelihood_ : float
        log p(y | theta, sigma^2) at the MAP, summed over targets.
    penalized_log_likelihood_ : float
        log p(y | theta, sigma^2) + log N(theta; 0, sigma^2 / lambda I) at the MAP (the
        log-posterior up to log p(y)); equals ``log_likelihood_`` when lambda = 0.
    solver_ : str
        The solver used: "svd", or "nnls" with ``positive=True``; on sparse X "gram",
        "cg", "lsqr", and with ``positive=True`` "nnls" or "lbfgs" (see below).
    n_iter_ : int
        1 (one direct solve; scikit-learn's direct solvers report None).
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    - Every ``solver`` name gives the same exact SVD solution (``solver_`` is "svd"; with
      ``positive=True`` non-negative least squares, falling back to ``max_iter`` L-BFGS-B
      steps with a ``ConvergenceWarning`` when that cap is too small); ``n_iter_`` is 1.
    - Extra attributes ``noise_variance_``, ``prior_variance_``, ``log_likelihood_``,
      ``penalized_log_likelihood_`` (the MAP reading).
    - Sparse X (CSR/CSC/COO) is centred implicitly, never densified, whatever ``solver``
      names: up to 1000 features the eigendecomposition of the centred Gram matrix
      (``solver_`` "gram", the same solution as the dense SVD); with more, conjugate
      gradients on the centred normal equations preconditioned by their diagonal
      (``solver_`` "cg", ``n_iter_`` its iterations; LSQR for ``alpha=0``). With
      ``positive=True``: up to 1000 features the dense path's NNLS on a square factor of the
      centred Gram matrix (``solver_`` "nnls"), with more bounded L-BFGS-B (``solver_``
      "lbfgs", scikit-learn's sparse positive solver, ``n_iter_`` its iterations). The
      iterative solvers are stopped at a relative residual of ``1e-4 * tol`` so that the
      coefficients stay close to the direct solution (scikit-learn stops at ``tol``).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import Ridge
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([1.0, 3.1, 4.9, 7.0])
    >>> model = Ridge(alpha=1.0).fit(X, y)
    >>> round(float(model.coef_[0]), 2)  # shrunk from the least-squares 1.98
    1.65
    """

    _ravel_column = True

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions(set(SOLVERS))],
        "positive": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, alpha=1.0, *, fit_intercept: bool = True, copy_X: bool = True,
                 max_iter: int | None = None, tol: float = 1e-4, solver: str = "auto",
                 positive: bool = False, random_state=None):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive = positive
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit the MAP weights (SVD of the centered, weighted design).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : float or array of shape (n_samples,), optional

        Returns
        -------
        self
        """
        self._validate_params()
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}; got {self.solver!r}.")
        if self.positive and self.solver not in ("auto", "lbfgs"):
            raise ValueError(
                f"solver={self.solver!r} does not support positive=True; set solver to "
                "'auto' or 'lbfgs', or positive=False.")
        if self.solver == "lbfgs" and not self.positive:
            raise ValueError("solver='lbfgs' is only for positive=True (as in scikit-learn); "
                             "use another solver or set positive=True.")
        super().fit(X, y, sample_weight=sample_weight)
        if self._sparse_solver is not None:  # sparse X: "gram", "cg", "lsqr", "nnls", "lbfgs"
            self.solver_, self.n_iter_ = self._sparse_solver, self._sparse_n_iter
        else:
            self.solver_ = "nnls" if self.positive else "svd"
            self.n_iter_ = 1
        return self

    def _nnls_max_iter(self):
        return self.max_iter

    def _alpha(self, n_targets):
        a = np.atleast_1d(np.asarray(self.alpha, dtype=float)).ravel()
        if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ValueError(f"alpha must be finite and >= 0; got {self.alpha!r}.")
        if a.size == 1:
            return np.full(n_targets, a[0])
        if a.size != n_targets:
            raise ValueError(
                f"Number of targets and number of penalties do not correspond: {a.size} != "
                f"{n_targets}; pass a scalar alpha or one per target."
            )
        return a

    def _set_likelihood(self, rss, coef, alpha, w_sum):
        d = coef.shape[0]
        pen = alpha * np.sum(coef**2, axis=0)  # lambda ||theta||^2
        has_prior = alpha > 0
        # joint mode: sigma^2 = (RSS + lambda ||theta||^2) / (n + d) (n only when lambda = 0)
        sigma2 = (rss + pen) / (w_sum + np.where(has_prior, d, 0))
        sigma2 = np.maximum(sigma2, np.finfo(float).tiny)
        ll = -0.5 * w_sum * np.log(2 * np.pi * sigma2) - 0.5 * rss / sigma2
        with np.errstate(divide="ignore"):
            prior_var = np.where(has_prior, sigma2 / np.where(has_prior, alpha, 1.0), np.inf)
        # log N(theta; 0, v I) = -d/2 log(2 pi v) - lambda ||theta||^2 / (2 sigma^2), v = s2/lambda
        log_prior = np.where(
            has_prior, -0.5 * d * np.log(2 * np.pi * np.where(has_prior, prior_var, 1.0))
            - 0.5 * pen / sigma2, 0.0)
        one = sigma2.size == 1
        self.noise_variance_ = float(sigma2[0]) if one else sigma2
        self.prior_variance_ = float(prior_var[0]) if one else prior_var
        self.log_likelihood_ = float(np.sum(ll))
        self.penalized_log_likelihood_ = float(np.sum(ll + log_prior))
