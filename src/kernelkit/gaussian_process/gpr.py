"""Gaussian-process regression (Rasmussen & Williams, Algorithm 2.1) with learned hyperparameters.

Posterior at test inputs X_*, with K = K(X, X) + alpha I = L L^T and a = K^-1 y:
mean = K_* a, cov = K(X_*, X_*) - V^T V with V = L^-1 K_*^T. Hyperparameters maximize the log
marginal likelihood by L-BFGS-B with analytic gradients (see ``_marginal_likelihood.py``).
"""

from __future__ import annotations

import copy
import numbers
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from .._core.blas import gram
from .._core.memory import require_memory
from .._core.progress import progress_bar
from .._core.scratch import Arena
from .._core.threads import single_threaded
from .._core.validation import check_is_fitted, validate_data
from ..kernels import RBF, Constant, Kernel, SklearnKernel, resolve_estimator_kernel, resolve_kernel
from ..linalg import BlockCholesky, block_rows, cho_solve
from ._marginal_likelihood import factorize, log_marginal_likelihood
from ._online import (
    check_new_targets,
    extend_gp_posterior,
    gp_log_marginal_likelihood_value,
    scalar_noise,
)
from ._optimize import (
    OPTIMIZER_CONSTRAINTS,
    minimize_once,
    minimize_with_restarts,
    theta_setter,
)
from ._optimizer_warnings import warn_close_to_bounds
from ._sampling import pathwise_samples, sample_from_covariance

__all__ = ["GaussianProcessRegressor"]

# Up to this many training points the optimizer runs on one BLAS thread and one numba
# thread: each log-likelihood evaluation is a chain of short LAPACK/BLAS calls and kernel
# loops whose thread synchronization costs more than it saves (badly so on a loaded machine).
SERIAL_BLAS_MAX_N = 1000




class GaussianProcessRegressor(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Gaussian-process regression; a drop-in for scikit-learn's estimator of the same name.

    Parameters
    ----------
    kernel : Kernel, sklearn GP kernel or str, optional
        Prior covariance. ``None`` means ``Constant(1.0) * RBF(1.0)`` (hyperparameters
        learned at fit; fixed when predicting from the prior), as in scikit-learn.
    alpha : float or ndarray of shape (n_samples,), default=1e-10
        Added to the diagonal of K at fit: the noise variance of the observations.
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
        L-BFGS-B on the negative log marginal likelihood with analytic gradients. A
        callable ``optimizer(obj_func, initial_theta, bounds) -> (theta_opt, func_min)``
        as in scikit-learn; ``None`` keeps the kernel's hyperparameters.
    n_restarts_optimizer : int, default=0
        Extra starts drawn log-uniformly within the bounds (``random_state``).
    normalize_y : bool, default=False
        Standardize the targets (mean and standard deviation) before fitting.
    copy_X_train : bool, default=True
    n_targets : int, optional
        Number of targets for sampling from the prior before fit.
    random_state : int, RandomState or None
    verbose : int, default=0
        Show a progress bar over the optimizer starts.

    Attributes
    ----------
    X_train_, y_train_ : ndarray
        Training data (``y_train_`` normalized when ``normalize_y``).
    kernel_ : Kernel
        The kernel with optimized hyperparameters.
    L_ : ndarray of shape (n_samples, n_samples)
        Lower Cholesky factor of ``K(X_train_, X_train_) + alpha I`` (plus ``jitter_``).
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        ``K^-1 y_train_`` (the dual coefficients of the posterior mean).
    log_marginal_likelihood_value_ : float
    jitter_ : float
        Diagonal jitter that the final factorization needed (0.0 normally).
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    - ``kernel`` may also be a kernelkit kernel or a kernel name. A scikit-learn kernel
      built from scikit-learn's own classes (ConstantKernel, RBF, Matern with nu in
      {0.5, 1.5, 2.5, inf}, RationalQuadratic, ExpSineSquared, WhiteKernel, DotProduct, Sum,
      Product, Exponentiation) is computed by its exact kernelkit twin (same values, bounds
      and fixed markers) and ``kernel_`` is again that scikit-learn kernel; any other
      scikit-learn kernel (a subclass, the general-nu Matern) runs through scikit-learn's
      own code.
    - A covariance ``K + alpha I`` that is not numerically positive definite gets the
      adaptive diagonal jitter of ``kernelkit.linalg`` with a ``JitterWarning`` naming it
      (``jitter_``), where scikit-learn raises ``LinAlgError`` ("The kernel, ..., is not
      returning a positive definite matrix"); past 1e-4 of the mean diagonal a
      ``NumericalError`` says what to change.
    - The ``ConvergenceWarning`` for an optimum at a bound (scikit-learn's wording) is
      given within a relative 1e-2 of the log bound; scikit-learn's ``np.isclose`` uses
      1e-5, which misses optima a hair inside a bound. An L-BFGS-B stop is reported with
      its reason in words.
    - ``verbose`` shows a progress bar over the optimizer starts (no such parameter there).
    - ``predict(return_cov=True)`` writes its diagonal with the operations of
      ``return_std=True``, so ``std == sqrt(diag(cov))`` to rounding even where the
      posterior variance cancels badly.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import GaussianProcessRegressor
    >>> from kernelkit.kernels import RBF, White
    >>> rng = np.random.default_rng(0)
    >>> X = np.linspace(0, 5, 30)[:, None]; y = np.sin(X).ravel() + 0.1 * rng.normal(size=30)
    >>> gp = GaussianProcessRegressor(RBF(1.0) + White(1e-2), random_state=0).fit(X, y)
    >>> mean, std = gp.predict(X[:3], return_std=True)
    >>> bool(np.all(std >= 0))
    True
    """

    # scikit-learn's parameter validation (its GaussianProcessRegressor's constraints; kernel
    # also a kernelkit kernel or a name, alpha also a list)
    _parameter_constraints: dict = {
        **OPTIMIZER_CONSTRAINTS,
        "kernel": [None, str, callable],
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "normalize_y": ["boolean"],
        "copy_X_train": ["boolean"],
        "n_targets": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel=None,
        *,
        alpha=1e-10,
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer: int = 0,
        normalize_y: bool = False,
        copy_X_train: bool = True,
        n_targets: int | None = None,
        random_state=None,
        verbose: int = 0,
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.normalize_y = normalize_y
        self.copy_X_train = copy_X_train
        self.n_targets = n_targets
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
        tags.requires_fit = False
        return tags

    # ------------------------------------------------------------- helpers
    def _prior_kernel(self, n_features: int, *, fixed: bool) -> Kernel:
        if self.kernel is None:
            if fixed:
                return Constant(1.0, value_bounds="fixed") * RBF(1.0, length_scale_bounds="fixed")
            return Constant(1.0) * RBF(1.0)
        k = resolve_estimator_kernel(self, n_features)
        return clone(k)  # never share (and mutate) the user's kernel object

    def _check_alpha(self, n: int):
        a = self.alpha
        if np.iterable(a):
            a = np.asarray(a, dtype=float).ravel()
            if a.size == 1:
                a = float(a[0])
            elif a.size != n:
                raise ValueError(
                    "alpha must be a scalar or an array with same number of entries as y. "
                    f"({a.size} != {n})"
                )
        if isinstance(a, bool) or not (isinstance(a, numbers.Real) or np.iterable(a)):
            raise ValueError(f"alpha must be a float or an array; got {self.alpha!r}.")
        if np.any(~np.isfinite(a)) or np.any(np.asarray(a) < 0):
            raise ValueError(f"alpha (the noise variance) must be finite and >= 0; got {a!r}.")
        return a

    # ------------------------------------------------------------------ fit
    @property
    def L_(self) -> np.ndarray:
        """Lower Cholesky factor of ``K + alpha I`` on the training points (dense)."""
        return self._factor().dense()

    def _factor(self) -> BlockCholesky:
        """The factor of ``K + alpha I``, held as block rows (see :meth:`partial_fit`)."""
        state = vars(self)
        if "_chol" in state:
            return state["_chol"]
        if "L_" in state:  # a model file written before the factor was held by blocks
            return BlockCholesky(state["L_"])
        raise AttributeError(f"{type(self).__name__} has no attribute 'L_' (not fitted).")

    def fit(self, X, y) -> GaussianProcessRegressor:
        """Learn the hyperparameters (if any) and factorize the posterior.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True,
                             **self._input_spec())
        y = np.asarray(y, dtype=np.float64)
        n_targets_seen = y.shape[1] if y.ndim > 1 else 1
        if self.n_targets is not None and n_targets_seen != self.n_targets:
            raise ValueError(
                "The number of targets seen in `y` is different from the parameter "
                f"`n_targets`. Got {n_targets_seen} != {self.n_targets}."
            )
        alpha = self._check_alpha(X.shape[0])
        n = X.shape[0]  # K + alpha I, its factor and (optimizing) K^-1: n x n each
        require_memory(8.0 * n * n * (3 if self.optimizer is not None else 2),
                       f"An exact Gaussian process on {n:,} points",
                       "SparseGaussianProcessRegressor (inducing points, nothing of n x n)")
        self.kernel_ = self._prior_kernel(_n_features(X), fixed=False)
        rng = check_random_state(self.random_state)
        if self.normalize_y:
            # y <- (y - mean) / std (std 0 -> 1), undone at predict
            self._y_train_mean = np.mean(y, axis=0)
            std = np.std(y, axis=0)
            self._y_train_std = np.where(std < 10 * np.finfo(float).eps, 1.0, std)
            y = (y - self._y_train_mean) / self._y_train_std
        else:
            shape = (y.shape[1],) if y.ndim == 2 else 1
            self._y_train_mean = np.zeros(shape)
            self._y_train_std = np.ones(shape)
        self.X_train_ = np.copy(X) if self.copy_X_train else X
        self.y_train_ = np.copy(y) if self.copy_X_train else y
        Y = self.y_train_.reshape(len(X), -1)

        optimized = self.optimizer is not None and self.kernel_.n_dims > 0
        if optimized:
            self.kernel_.theta = self._optimize(X, Y, alpha, rng)

        # Alg. 2.1: L = chol(K + alpha I), a = L^T \ (L \ y)  (jitter with a warning if needed)
        K = self.kernel_(X)
        L, self.jitter_ = factorize(K, alpha, jitter=True)
        self._chol = BlockCholesky(L)  # L_ (partial_fit appends block rows to it)
        self.alpha_ = cho_solve(L, self.y_train_)
        # log p(y) = -1/2 y^T a - sum log L_ii - n/2 log 2 pi (summed over targets)
        n, t = Y.shape
        self.log_marginal_likelihood_value_ = np.float64(
            -0.5 * np.sum(Y * self.alpha_.reshape(n, -1))
            - t * np.sum(np.log(np.diagonal(L))) - 0.5 * n * t * np.log(2 * np.pi)
        )
        if isinstance(self.kernel_, SklearnKernel):
            # the user's scikit-learn kernel, with the learned values (computed by its twin)
            self.kernel_ = self.kernel_.kernel
        if optimized:
            warn_close_to_bounds(self.kernel_)
        return self

    def _input_spec(self) -> dict:
        """validate_data's arguments: floats for vector kernels, anything for the others
        (strings, sequences), as scikit-learn."""
        if getattr(self.kernel, "requires_vector_input", True):
            return {"dtype": np.float64, "ensure_2d": True}
        return {"dtype": None, "ensure_2d": False}

    def _fitted_kernel(self) -> Kernel:
        """``kernel_`` as a kernelkit kernel (a scikit-learn kernel_ through its twin)."""
        return resolve_kernel(self.kernel_)

    def _optimize(self, X, Y, alpha, rng) -> np.ndarray:
        kernel = clone(self.kernel_)
        # a scikit-learn kernel is optimized as its kernelkit twin (same values, theta in
        # another order: theta_ours = theta[order]), not through the adapter per evaluation
        twin = kernel.twin() if isinstance(kernel, SklearnKernel) else None
        order = None if twin is None else twin.to_ours
        kernel = kernel if twin is None else twin.kernel
        set_theta = theta_setter(kernel)
        shared = {}  # what does not depend on theta (distances), kept between evaluations
        arena = Arena()  # and the memory of each evaluation's matrices

        def obj_func(theta, eval_gradient=True):
            set_theta(theta if order is None else np.asarray(theta)[order])
            if not eval_gradient:
                return -log_marginal_likelihood(kernel, X, Y, alpha)
            with arena.evaluation():
                lml, grad = log_marginal_likelihood(kernel, X, Y, alpha, eval_gradient=True,
                                                    shared=shared)
            if order is not None:  # back to the scikit-learn order
                grad = grad[np.argsort(order)]
            return -lml, -grad

        optima = []

        def report(theta, fmin):
            optima.append(fmin)
            bar.set_postfix_str(f"best log ML {-min(optima):.4g}")
            bar.update()

        with single_threaded(X.shape[0] <= SERIAL_BLAS_MAX_N), \
                progress_bar(self.verbose, total=1 + self.n_restarts_optimizer,
                             desc="GP restarts") as bar:
            theta, _ = minimize_with_restarts(
                obj_func, self.kernel_.theta, self.kernel_.bounds, self.optimizer,
                self.n_restarts_optimizer, rng, minimize=self._constrained_optimization,
                on_optimum=report)
        return np.asarray(theta, dtype=float)

    def _constrained_optimization(self, obj_func, initial_theta, bounds):
        # scikit-learn's name for one start of the optimizer (the shared single start)
        return minimize_once(obj_func, initial_theta, bounds, self.optimizer)

    # ------------------------------------------------------------- predict
    def predict(self, X, return_std: bool = False, return_cov: bool = False):
        """Posterior (or, before fit, prior) mean, and optionally its std or covariance.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        return_std : bool, default=False
            Also return the predictive standard deviation of f (noise-free latent values).
        return_cov : bool, default=False
            Also return the joint predictive covariance.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,) or (n_samples, n_targets)
        y_std : ndarray of shape (n_samples,) or (n_samples, n_targets), optional
        y_cov : ndarray of shape (n_samples, n_samples) or (n_samples, n_samples, n_targets),
            optional
        """
        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        X = validate_data(self, X, reset=False, **self._input_spec())
        if not hasattr(self, "X_train_"):
            return self._predict_prior(X, return_std, return_cov)
        kernel = self._fitted_kernel()
        n_train = self.X_train_.shape[0]
        m = X.shape[0]
        A = self.alpha_.reshape(n_train, -1)
        if return_cov:
            Ks = kernel(X, self.X_train_)
            mean = Ks @ A
            V = self._factor().solve(Ks.T)
            cov = kernel(X)  # R&W eq. 2.24: K(X_*, X_*) - V^T V
            cov -= V.T @ V
            # its diagonal by the very operations of the return_std path, so that
            # std == sqrt(diag(cov)) holds to rounding even where both cancel badly
            cov[np.diag_indices_from(cov)] = (np.asarray(kernel.diag(X), dtype=np.float64)
                                              - np.einsum("ij,ij->j", V, V))
            return self._unnormalize(mean), self._scale_cov(cov)
        mean = np.empty((m, A.shape[1]))
        var = kernel.diag(X).astype(np.float64) if return_std else None
        # test rows in blocks within working memory (one BLAS-3 call per block)
        step = block_rows(n_train, 8 * (2 if return_std else 1))
        for start in range(0, m, step):
            sl = slice(start, min(start + step, m))
            Ks = kernel(X[sl], self.X_train_)  # (rows, n_train)
            mean[sl] = gram(Ks, A.T)  # posterior mean K_* a
            if return_std:
                # R&W eq. 2.26: var = k(x, x) - ||L^-1 k_*||^2, by a triangular solve (the
                # same V = L^-1 K_*^T as the covariance) written over k_* (Ks^T is
                # Fortran-ordered, as BLAS wants it)
                V = self._factor().solve(Ks.T, overwrite_b=True)
                var[sl] -= np.einsum("ij,ij->j", V, V)
        mean = self._unnormalize(mean)
        if not return_std:
            return mean
        var = self._clip_variance(var, kernel.diag(X))
        std = np.sqrt(np.outer(var, np.atleast_1d(self._y_train_std) ** 2))
        return mean, (std[:, 0] if std.shape[1] == 1 and mean.ndim == 1 else std)

    @staticmethod
    def _clip_variance(var, prior_var):
        neg = var < 0
        if np.any(neg):
            # rounding makes tiny negatives near training points; warn only when material
            if np.any(var < -1e-8 * np.maximum(prior_var, np.finfo(float).tiny)):
                warnings.warn(
                    f"Predicted variances down to {var.min():.3g} < 0 set to 0; the factor "
                    "of K + alpha I is inaccurate: increase alpha.",
                    UserWarning, stacklevel=3,
                )
            var = np.where(neg, 0.0, var)
        return var

    def _unnormalize(self, mean):
        mean = self._y_train_std * mean + self._y_train_mean
        # one target, also as an (n, 1) column: 1-D output, as scikit-learn
        if mean.ndim > 1 and mean.shape[1] == 1:
            mean = mean[:, 0]
        return mean

    def _scale_cov(self, cov):
        s2 = np.atleast_1d(self._y_train_std) ** 2
        out = cov[:, :, None] * s2
        return out[:, :, 0] if out.shape[2] == 1 else out

    def _predict_prior(self, X, return_std, return_cov):
        kernel = self._prior_kernel(_n_features(X), fixed=True)
        t = self.n_targets if self.n_targets is not None else 1
        mean = np.zeros((X.shape[0], t)).squeeze()
        if return_cov:
            cov = kernel(X)
            return mean, (np.repeat(cov[:, :, None], t, axis=2) if t > 1 else cov)
        if return_std:
            var = np.asarray(kernel.diag(X), dtype=float)
            var = np.repeat(var[:, None], t, axis=1) if t > 1 else var
            return mean, np.sqrt(var)
        return mean

    def sample_y(self, X, n_samples: int = 1, random_state=0, *, method: str = "cholesky",
                 n_components: int = 1000) -> np.ndarray:
        """Draw functions from the posterior (or from the prior before fit) at ``X``.

        Parameters
        ----------
        X : array of shape (n_samples_X, n_features)
        n_samples : int, default=1
        random_state : int, RandomState or None, default=0
        method : {"cholesky", "pathwise"}, default="cholesky"
            "cholesky": mean + L z with L the Cholesky factor of the predictive covariance
            (jitter with a JitterWarning when rounding makes it indefinite); O(m^2)
            memory, O(m^3) time. "pathwise": Matheron's rule with a random-Fourier-feature
            draw from the prior (stationary kernels), O(m) memory per sample; its prior
            part is exact only as ``n_components`` grows.
        n_components : int, default=1000
            Random features of the prior draw for "pathwise". Its sample covariance is
            exact in expectation over the features; one draw of D features errs by about
            1 / sqrt(D) of the prior variance (a few percent of the posterior variance
            near the data at D = 1000: raise D where that matters).

        Returns
        -------
        ndarray of shape (n_samples_X, n_samples) or (n_samples_X, n_targets, n_samples)

        Notes
        -----
        Same distribution as scikit-learn's ``sample_y`` (which takes an SVD of the
        covariance), not the same numbers for a given ``random_state``.
        """
        rng = check_random_state(random_state)
        if method == "cholesky":
            mean, cov = self.predict(X, return_cov=True)
            return sample_from_covariance(mean, cov, n_samples, rng)
        if method != "pathwise":
            raise ValueError(f"method must be 'cholesky' or 'pathwise'; got {method!r}.")
        if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral) \
                or n_components < 1:
            raise ValueError(f"n_components must be a positive integer; got {n_components!r}.")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if not hasattr(self, "X_train_"):
            t = 1 if self.n_targets is None else self.n_targets
            out = pathwise_samples(self._prior_kernel(X.shape[1], fixed=True), X, n_samples,
                                   rng, n_components=n_components, n_targets=t)
        else:
            t = 1 if self.y_train_.ndim == 1 else self.y_train_.shape[1]
            noise = self._check_alpha(len(self.X_train_)) + self.jitter_
            train = (self.X_train_, self._factor(), noise, self.alpha_, self._y_train_mean,
                     self._y_train_std)
            out = pathwise_samples(self._fitted_kernel(), X, n_samples, rng,
                                   n_components=n_components, n_targets=t, train=train)
        return out[:, 0, :] if t == 1 else out

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                                clone_kernel: bool = True):
        """Log marginal likelihood of ``theta`` (log hyperparameters) on the training data.

        Parameters
        ----------
        theta : array of shape (n_dims,), optional
            ``None`` returns ``log_marginal_likelihood_value_``.
        eval_gradient : bool, default=False
            Also return the gradient with respect to theta.
        clone_kernel : bool, default=True
            Evaluate on a copy of ``kernel_`` (``False`` sets theta on ``kernel_`` itself).

        Returns
        -------
        lml : float
        grad : ndarray of shape (n_dims,), only with ``eval_gradient``
        """
        check_is_fitted(self, "X_train_")
        if theta is None:
            if eval_gradient:
                raise ValueError("Gradient can only be evaluated for theta!=None")
            return self.log_marginal_likelihood_value_
        kernel = resolve_kernel(clone(self.kernel_) if clone_kernel else self.kernel_)
        kernel.theta = theta
        Y = self.y_train_.reshape(len(self.X_train_), -1)
        out = log_marginal_likelihood(kernel, self.X_train_, Y,
                                      self._check_alpha(len(self.X_train_)), eval_gradient)
        # NumPy float64 scalars, as scikit-learn (a Python float would let NumPy 2 promote
        # lml - np.float32(eps) to float32)
        return (np.float64(out[0]), out[1]) if eval_gradient else np.float64(out)


    # ------------------------------------------------------------- online
    def partial_fit(self, X, y) -> GaussianProcessRegressor:
        """Add training points, keeping the hyperparameters (R&W Alg. 2.1 on all the data).

        The Cholesky factor of ``K + alpha I`` is extended by a block row (O(n^2 k) for k new
        points, never a new (n + k)^3 factorization, and the n x n factor is neither copied
        nor moved: :class:`~kernelkit.linalg.BlockCholesky`; the new block gets the fit's
        ``jitter_`` and adaptive jitter, with a warning, if it needs more), then the dual
        coefficients are re-solved (O(n^2)). The result equals a fit on all the data with
        ``kernel=kernel_`` and ``optimizer=None``, also with ``normalize_y`` (the target
        mean and scale are recomputed on all targets). Needs a scalar ``alpha``.

        Parameters
        ----------
        X : array of shape (n_new, n_features)
        y : array of shape (n_new,) or (n_new, n_targets)

        Returns
        -------
        self
        """
        self._validate_params()
        check_is_fitted(self, "L_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        y = check_new_targets(y, X.shape[0], self.y_train_)
        noise = scalar_noise(self.alpha, "partial_fit")
        self._chol, extra = extend_gp_posterior(self._fitted_kernel(), self.X_train_,
                                                self._factor(), self.jitter_, noise, X)
        self.jitter_ += extra
        self.X_train_ = np.vstack([self.X_train_, X])
        y_raw = np.concatenate([self.y_train_ * self._y_train_std + self._y_train_mean, y])
        if self.normalize_y:  # the normalization of fit, on all targets
            self._y_train_mean = np.mean(y_raw, axis=0)
            std = np.std(y_raw, axis=0)
            self._y_train_std = np.where(std < 10 * np.finfo(float).eps, 1.0, std)
        self.y_train_ = (y_raw - self._y_train_mean) / self._y_train_std
        self.alpha_ = self._chol.cho_solve(self.y_train_)  # a = (K + alpha I)^-1 y
        self.log_marginal_likelihood_value_ = gp_log_marginal_likelihood_value(
            self._chol.diagonal(), self.y_train_, self.alpha_)
        return self

    def condition_on(self, X, y) -> GaussianProcessRegressor:
        """A new model that also observed ``(X, y)`` (e.g. fantasy points); self unchanged.

        Parameters
        ----------
        X : array of shape (n_new, n_features)
        y : array of shape (n_new,) or (n_new, n_targets)

        Returns
        -------
        GaussianProcessRegressor
            Fitted on the training data plus ``(X, y)``, same hyperparameters
            (see :meth:`partial_fit`).
        """
        check_is_fitted(self, "L_")
        # a shallow copy: partial_fit replaces the fitted arrays, it never writes into them
        return copy.copy(self).partial_fit(X, y)

def _n_features(X):
    """Feature count of a 2-D X; None for the 1-D inputs of non-vector kernels."""
    return X.shape[1] if getattr(X, "ndim", 1) == 2 else None
