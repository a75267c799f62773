"""Sparse Gaussian-process regression: Titsias' (2009) collapsed variational bound (SGPR).

M inducing points Z summarize the n training rows. Hyperparameters (kernel, noise and
optionally Z) maximize the collapsed ELBO (``_collapsed_bound.py``) by L-BFGS-B with
analytic gradients; every sum over rows is taken in row blocks (in memory) or per Dask
chunk (on a cluster), O(n M^2) time and O(block M) memory per evaluation.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.optimize
from scipy.linalg import solve_triangular
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.progress import progress_bar
from .._core.threads import single_threaded
from .._core.validation import check_is_fitted
from ..exceptions import JitterWarning, NumericalError
from ..kernels import RBF, Constant, resolve_estimator_kernel
from ..linalg import as_rows, check_rows
from ._collapsed_bound import collapsed_bound, kernel_blocks
from ._inducing import candidate_count, select_inducing
from ._optimize import OPTIMIZER_CONSTRAINTS
from ._optimizer_warnings import warn_lbfgs_stop
from ._rows import TrainingRows, rows_per_block
from ._sgpr_data import prepare_rows
from ._sgpr_predict import predict_rows

__all__ = ["SparseGaussianProcessRegressor"]

# Up to this much work per evaluation (n M^2) the bound runs on one BLAS and one numba
# thread: its many small LAPACK calls and numba loops cost more in thread wake-ups than
# they save (badly so on a loaded machine), as in GaussianProcessRegressor.
SERIAL_MAX_WORK = 2e8
# scipy's default L-BFGS-B ftol (factr 1e7 times the machine epsilon)
_LBFGS_FTOL = 1e7 * float(np.finfo(float).eps)


class SparseGaussianProcessRegressor(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Sparse GP regression with Titsias' collapsed variational bound (SGPR).

    The training targets are ``y = f(X) + eps``, ``f ~ GP(0, k)``, ``eps ~ N(0, s I)``;
    ``M`` inducing points ``Z`` carry the approximation. Kernel hyperparameters, the noise
    variance ``s`` and (optionally) ``Z`` maximize

        ELBO = log N(y | 0, Q_nn + s I) - tr(K_nn - Q_nn) / (2 s),  Q_nn = K_nM K_MM^-1 K_Mn

    (a lower bound on the exact log marginal likelihood, equal to it when Z = X) by
    L-BFGS-B with analytic gradients. Each evaluation is O(n M^2) time and O(block M)
    memory: the rows are visited in blocks (or per chunk on a Dask cluster). Numerically
    stable forms: ``L = chol(K_MM + jitter)``, ``A = L^-1 K_Mn / sigma``, ``B = I + A A^T``.

    Parameters
    ----------
    kernel : Kernel, sklearn GP kernel or str, optional
        Prior covariance of f, *without* the noise. ``None`` means ``Constant(1.0) *
        RBF(1.0)``.
    n_inducing : int, default=512
        M, when ``inducing_points`` is None. ``M > n`` uses all n rows (with a warning):
        then the bound is the exact log marginal likelihood.
    inducing_points : array of shape (M, n_features), optional
        Start (or fixed) inducing locations; overrides ``n_inducing`` and ``inducing``.
    inducing : {"kmeans", "random", "greedy"}, default="kmeans"
        How to choose Z from the rows: k-means centres, distinct random rows, or greedy
        variance selection (pivoted Cholesky). Chosen among at most
        ``max(10000, 50 M)`` rows drawn at random (``random_state``).
    optimize_inducing : bool, default=False
        Also learn Z (M x d more parameters; needs a kernel with input gradients: RBF,
        Linear, Constant, White, and sums / products / scales of them).
    noise_variance : float, default=1.0
        Start value of the noise variance s (> 0).
    noise_variance_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
        As in GaussianProcessRegressor: a callable ``optimizer(obj_func, initial_theta,
        bounds) -> (theta_opt, func_min)`` minimizing the negative ELBO; ``None`` keeps
        the starting values.
    n_restarts_optimizer : int, default=0
        Extra starts of the kernel hyperparameters and noise, drawn log-uniformly within
        their bounds (Z starts where it is).
    max_iter : int, default=15000
        L-BFGS-B iterations per start.
    normalize_y : bool, default=False
    random_state : int, RandomState or None
    verbose : int, default=0
        A progress bar over the optimizer's iterations showing the ELBO.

    Attributes
    ----------
    kernel_ : Kernel
    noise_variance_ : float
    inducing_points_ : ndarray of shape (M, n_features)
    elbo_ : float
        The bound at the fitted parameters (on normalized targets when ``normalize_y``).
    log_marginal_likelihood_value_ : float
        The same number (scikit-learn's name).
    n_iter_ : int
        L-BFGS-B iterations of the best start (0 without optimization).
    jitter_ : float
        Diagonal jitter that K_MM needed at the optimum (0.0 normally).
    L_ : ndarray of shape (M, M)
        ``chol(K_MM + jitter_ I)``.
    X_train_, y_train_ : arrays
        The training rows (normalized targets); dask arrays after a Dask fit.
    n_features_in_ : int

    Notes
    -----
    ``predict`` returns the predictive distribution of the latent f (as scikit-learn's
    GaussianProcessRegressor, ``return_std`` excludes the noise; add ``noise_variance_``
    for that of a new observation)::

        mean = K_*M L^-T L_B^-T c / sigma,
        var  = k(x, x) - |L^-1 k_M(x)|^2 + |L_B^-1 L^-1 k_M(x)|^2.

    Differences from scikit-learn
    -----------------------------
    scikit-learn has no sparse GP. Compared with its GaussianProcessRegressor: the noise
    is the parameter ``noise_variance`` (learned), not ``alpha``; ``log_marginal_likelihood``
    returns the ELBO and takes ``theta = [kernel_.theta, log noise_variance_]`` (the latter
    only when not fixed); there is no prior prediction before ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import SparseGaussianProcessRegressor
    >>> from kernelkit.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=2000)
    >>> gp = SparseGaussianProcessRegressor(RBF(1.0), n_inducing=10, noise_variance=0.1,
    ...                                     random_state=0).fit(X, y)
    >>> mean, std = gp.predict(np.array([[0.5]]), return_std=True)
    >>> bool(abs(mean[0] - np.sin(0.5)) < 0.05), round(float(np.sqrt(gp.noise_variance_)), 1)
    (True, 0.1)
    """

    _test_params = [dict(), dict(n_inducing=10, inducing="greedy")]

    # scikit-learn's parameter validation (GaussianProcessRegressor's constraints for the
    # parameters it shares); the noise bounds are checked against noise_variance in fit
    _parameter_constraints: dict = {
        **OPTIMIZER_CONSTRAINTS,
        "kernel": [None, str, callable],
        "n_inducing": [Interval(Integral, 1, None, closed="left")],
        "inducing_points": ["array-like", None],
        "inducing": [StrOptions({"kmeans", "random", "greedy"})],
        "optimize_inducing": ["boolean"],
        "noise_variance": [Interval(Real, 0, np.inf, closed="neither")],  # finite
        "noise_variance_bounds": [StrOptions({"fixed"}), "array-like"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "normalize_y": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel=None,
        *,
        n_inducing: int = 512,
        inducing_points=None,
        inducing: str = "kmeans",
        optimize_inducing: bool = False,
        noise_variance: float = 1.0,
        noise_variance_bounds=(1e-5, 1e5),
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer: int = 0,
        max_iter: int = 15000,
        normalize_y: bool = False,
        random_state=None,
        verbose: int = 0,
    ):
        self.kernel = kernel
        self.n_inducing = n_inducing
        self.inducing_points = inducing_points
        self.inducing = inducing
        self.optimize_inducing = optimize_inducing
        self.noise_variance = noise_variance
        self.noise_variance_bounds = noise_variance_bounds
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter = max_iter
        self.normalize_y = normalize_y
        self.random_state = random_state
        self.verbose = verbose

    # ---------------------------------------------------------------- checks
    def _noise_bounds(self, s: float):
        """Log bounds of the noise variance, or None when it is fixed."""
        b = self.noise_variance_bounds
        if isinstance(b, str):
            if b != "fixed":
                raise ValueError(f"noise_variance_bounds must be 'fixed' or a (low, high) "
                                 f"pair; got {b!r}.")
            return None
        b = np.asarray(b, dtype=float)
        if b.shape != (2,) or not (0 < b[0] <= b[1]) or not np.all(np.isfinite(b)):
            raise ValueError(f"noise_variance_bounds must be 'fixed' or a (low, high) pair "
                             f"with 0 < low <= high; got {self.noise_variance_bounds!r}.")
        if not b[0] <= s <= b[1]:
            raise ValueError(f"noise_variance={s!r} lies outside noise_variance_bounds="
                             f"{self.noise_variance_bounds!r}; move the start inside the "
                             "bounds or widen them.")
        return np.log(b)

    def _prior_kernel(self, n_features: int):
        if self.kernel is None:
            return Constant(1.0) * RBF(1.0)
        return clone(resolve_estimator_kernel(self, n_features))

    def _initial_inducing(self, rows, kernel, rng) -> np.ndarray:
        n, d = rows.shape
        if self.inducing_points is not None:
            Z = np.asarray(self.inducing_points)
            if Z.ndim != 2 or Z.shape[1] != d or Z.shape[0] < 1:
                raise ValueError(f"inducing_points must have shape (M, {d}) (one column per "
                                 f"feature of X); got shape {Z.shape}.")
            if not np.issubdtype(Z.dtype, np.number) or not np.all(np.isfinite(Z)):
                raise ValueError("inducing_points must be finite numbers.")
            return np.array(Z, dtype=np.float64)
        m = int(self.n_inducing)
        if m > n:
            warnings.warn(f"n_inducing={m} is larger than the number of samples n={n}; using "
                          f"all {n} samples as inducing points (the exact GP).", UserWarning,
                          stacklevel=3)
            m = n
        cand = rows.sample(min(n, candidate_count(m)), rng)
        return select_inducing(self.inducing, cand, m, kernel, rng)

    # ------------------------------------------------------------------- fit
    def fit(self, X, y) -> SparseGaussianProcessRegressor:
        """Choose the inducing points, maximize the ELBO, store the posterior.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), or a dask array
        y : array of shape (n_samples,) or (n_samples, n_targets), or a dask array
            With dask arrays a ``dask.distributed`` Client must be running; every sum
            over rows runs on the workers.

        Returns
        -------
        self
        """
        self._validate_params()
        log_bounds = self._noise_bounds(float(self.noise_variance))
        rows, self._y_train_mean, self._y_train_std, y_ndim = prepare_rows(self, X, y)
        rng = check_random_state(self.random_state)
        kernel = self._prior_kernel(rows.shape[1])
        Z = self._initial_inducing(rows, kernel, rng)
        rows.rows = rows_per_block(len(Z))  # row blocks of O(block M) memory
        if self.optimize_inducing:
            _check_input_gradient(kernel, Z)
        s = float(self.noise_variance)
        self.n_iter_ = 0
        with single_threaded(rows.shape[0] * len(Z) ** 2 <= SERIAL_MAX_WORK):
            if self.optimizer is not None:
                kernel, s, Z = self._optimize(rows, kernel, s, Z, log_bounds, rng)
            bound = collapsed_bound(kernel, Z, s, rows)  # warns here if K_MM needs jitter
        self._store(rows, kernel, s, Z, bound, y_ndim)
        return self

    def _store(self, rows, kernel, s, Z, bound, y_ndim):
        self.kernel_, self.noise_variance_, self.inducing_points_ = kernel, float(s), Z
        self.elbo_ = self.log_marginal_likelihood_value_ = float(bound.value)
        self.L_, self.jitter_ = bound.posterior.L, float(bound.posterior.jitter)
        self._LB, self._weights = bound.posterior.LB, bound.posterior.weights
        self._y_ndim = y_ndim
        self.X_train_ = rows.X
        self.y_train_ = rows.Y[:, 0] if y_ndim == 1 else rows.Y

    # -------------------------------------------------------------- optimize
    def _pack(self, kernel, s, Z, log_bounds):
        parts = [kernel.theta] + ([np.log([s])] if log_bounds is not None else [])
        bounds = [kernel.bounds] + ([log_bounds[None, :]] if log_bounds is not None else [])
        if self.optimize_inducing:
            parts.append(Z.ravel())
            bounds.append(np.full((Z.size, 2), np.nan))
        return np.concatenate(parts), np.vstack(bounds)

    def _unpack(self, x, kernel, s, Z, log_bounds):
        p = kernel.n_dims
        kernel = kernel.clone_with_theta(x[:p])
        if log_bounds is not None:
            s = float(np.exp(x[p]))
            p += 1
        if self.optimize_inducing:
            Z = x[p:].reshape(Z.shape)
        return kernel, s, Z

    def _objective(self, rows, kernel, s, Z, log_bounds):
        """``obj_func(x, eval_gradient=True) -> (-ELBO, -grad)`` on the packed vector (its
        evaluations share one store of kernel blocks: :class:`KernelBlocks`)."""
        blocks = kernel_blocks(rows, len(Z))

        def obj_func(x, eval_gradient=True):
            k, noise, inducing = self._unpack(np.asarray(x, dtype=float), kernel, s, Z,
                                              log_bounds)
            try:
                with warnings.catch_warnings():  # jitter is warned once, at the optimum
                    warnings.simplefilter("ignore", JitterWarning)
                    b = collapsed_bound(k, inducing, noise, rows, gradient=eval_gradient,
                                        inducing_gradient=eval_gradient
                                        and self.optimize_inducing, blocks=blocks)
            except NumericalError:
                return (np.inf, np.zeros(len(x))) if eval_gradient else np.inf
            if not eval_gradient:
                return -b.value
            g = [b.grad_theta] + ([[b.grad_log_noise]] if log_bounds is not None else [])
            if self.optimize_inducing:
                g.append(b.grad_inducing.ravel())
            return -b.value, -np.concatenate(g)
        return obj_func

    def _optimize(self, rows, kernel, s, Z, log_bounds, rng):
        x0, bounds = self._pack(kernel, s, Z, log_bounds)
        if not len(x0):
            return kernel, s, Z
        obj_func = self._objective(rows, kernel, s, Z, log_bounds)
        starts = [x0]
        n_hyp = kernel.n_dims + (log_bounds is not None)
        if self.n_restarts_optimizer > 0:
            hb = bounds[:n_hyp]
            if not np.isfinite(hb).all():
                raise ValueError("n_restarts_optimizer > 0 needs finite bounds on every "
                                 "hyperparameter.")
            for _ in range(self.n_restarts_optimizer):  # log-uniform within the bounds
                x = x0.copy()
                x[:n_hyp] = rng.uniform(hb[:, 0], hb[:, 1])
                starts.append(x)
        best = None
        with progress_bar(self.verbose, total=None, desc="SGPR L-BFGS") as bar:
            for x in starts:
                res = self._minimize(obj_func, x, bounds, bar, rows.shape[0] * rows.n_targets)
                if best is None or res[1] < best[1]:
                    best = res
        self.n_iter_ = int(best[2])
        return self._unpack(best[0], kernel, s, Z, log_bounds)

    def _minimize(self, obj_func, x0, bounds, bar, n_terms: int):
        if callable(self.optimizer):
            sb = np.where(np.isnan(bounds), None, bounds)
            theta, fmin = self.optimizer(obj_func, x0, bounds=sb)
            return np.asarray(theta, dtype=float), float(fmin), 0
        # L-BFGS-B sees the bound per observation (-ELBO / (n t)), divided once more by the
        # norm of its gradient at the start: in a box (every parameter bounded) its first
        # trial step is the raw gradient, and a gradient of norm 7 sent the noise from 0.1 to
        # 160 (n = 20,000: 30 evaluations to converge, 21 with the first step of unit length,
        # which is what L-BFGS-B takes where a parameter is unbounded). The tolerances are
        # divided by the same factor: the stopping rule is the per-observation one.
        f0, g0 = obj_func(x0)
        g_norm = float(np.linalg.norm(g0)) / n_terms
        scale = 1.0 / (n_terms * (g_norm if np.isfinite(g_norm) and g_norm > 1.0 else 1.0))
        tol = scale * n_terms  # 1 / (gradient norm), or 1
        start = [(f0, g0)]  # the start's evaluation, reused once

        def scaled(x):
            f, g = start.pop() if start and np.array_equal(x, x0) else obj_func(x)
            start.clear()
            return f * scale, g * scale

        def report(intermediate_result):
            bar.update()
            bar.set_postfix_str(f"ELBO {-intermediate_result.fun / scale:.6g}")

        sb = [(None if np.isnan(lo) else lo, None if np.isnan(hi) else hi) for lo, hi in bounds]
        res = scipy.optimize.minimize(
            scaled, x0, method="L-BFGS-B", jac=True, bounds=sb,
            options={"maxiter": int(self.max_iter), "gtol": 1e-5 * tol,
                     "ftol": _LBFGS_FTOL * tol},
            callback=report if self.verbose else None)
        # the objective is per observation: a line-search stop (status 2) with every
        # gradient component below 1e-4 is an optimum within rounding, not a failure
        at_optimum = res.status == 2 and np.max(np.abs(res.jac), initial=0.0) < 1e-4 * tol
        if not res.success and not at_optimum:
            warn_lbfgs_stop(res)
        return res.x, float(res.fun) / scale, int(res.nit)

    # --------------------------------------------------------------- predict
    def predict(self, X, return_std: bool = False, return_cov: bool = False):
        """Predictive mean of f at X, and optionally its std or covariance (noise-free).

        Parameters
        ----------
        X : array of shape (n_samples, n_features), or a dask array (mean / std computed on
            the workers of the running Client; ``return_cov`` needs numpy X)
        return_std : bool, default=False
            Also return the standard deviation of the latent f (without the noise).
        return_cov : bool, default=False
            Also return the joint covariance of f at X.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,) or (n_samples, n_targets)
        y_std : ndarray, optional
        y_cov : ndarray of shape (n_samples, n_samples) (per target in a last axis), optional
        """
        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        check_is_fitted(self)
        rows = check_rows(self, X, reset=False, work_dtype=np.float64, dtype=np.float64)
        if not return_cov:
            return predict_rows(self, rows, return_std)
        if not rows.in_memory:
            raise ValueError("return_cov=True needs an in-memory X (the n x n covariance "
                             "is dense); use return_std with dask arrays.")
        X = rows.X
        Ks = self.kernel_(X, self.inducing_points_)
        V1 = solve_triangular(self.L_, Ks.T, lower=True, check_finite=False)
        V2 = solve_triangular(self._LB, V1, lower=True, check_finite=False)
        cov = self.kernel_(X) - V1.T @ V1 + V2.T @ V2  # K** - Q** + K*M Sigma^-1 KM*
        return self._unnormalize(Ks @ self._weights), self._scale_cov(cov)

    def _unnormalize(self, mean):
        mean = self._y_train_std * mean + self._y_train_mean
        return mean[:, 0] if self._y_ndim == 1 else mean

    def _scale_cov(self, cov):
        out = cov[:, :, None] * self._y_train_std**2
        return out[:, :, 0] if out.shape[2] == 1 else out

    def sample_y(self, X, n_samples: int = 1, random_state=0) -> np.ndarray:
        """Draw functions f from the predictive distribution at ``X``.

        Returns
        -------
        ndarray of shape (n_samples_X, n_samples) or (n_samples_X, n_targets, n_samples)
        """
        rng = check_random_state(random_state)
        mean, cov = self.predict(X, return_cov=True)
        if mean.ndim == 1:
            return rng.multivariate_normal(mean, cov, n_samples).T
        return np.hstack([rng.multivariate_normal(mean[:, k], cov[..., k], n_samples).T[:, None]
                          for k in range(mean.shape[1])])

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                                clone_kernel: bool = True):
        """The ELBO at ``theta = [kernel_.theta, log noise_variance_]`` (inducing points
        fixed at ``inducing_points_``; the noise entry only when its bounds are not "fixed").

        Parameters
        ----------
        theta : array, optional
            ``None`` returns ``elbo_``.
        eval_gradient : bool, default=False
            Also return the gradient with respect to theta.
        clone_kernel : bool, default=True
            Kept for scikit-learn's signature (the kernel is never modified).

        Returns
        -------
        elbo : float
        grad : ndarray, only with ``eval_gradient``
        """
        check_is_fitted(self)
        if theta is None:
            if eval_gradient:
                raise ValueError("The gradient can only be evaluated for a given theta.")
            return self.elbo_
        log_bounds = self._noise_bounds(self.noise_variance_)
        theta = np.asarray(theta, dtype=float)
        k = self.kernel_.n_dims
        expected = k + (log_bounds is not None)
        if theta.shape != (expected,):
            raise ValueError(f"theta must have shape ({expected},): the kernel's theta and "
                             "the log noise variance; got shape {theta.shape}.")
        kernel = self.kernel_.clone_with_theta(theta[:k])
        s = float(np.exp(theta[k])) if log_bounds is not None else self.noise_variance_
        b = collapsed_bound(kernel, self.inducing_points_, s, self._training_rows(),
                            gradient=eval_gradient)
        if not eval_gradient:
            return b.value
        g = [b.grad_theta] + ([[b.grad_log_noise]] if log_bounds is not None else [])
        return b.value, np.concatenate(g)

    def _training_rows(self):
        Y = self.y_train_.reshape(self.y_train_.shape[0], -1)
        source = as_rows(self.X_train_, what=type(self).__name__)
        return TrainingRows(source, Y, rows_per_block(len(self.inducing_points_)))


def _check_input_gradient(kernel, Z):
    try:
        kernel.input_gradient_dot(Z[:1], Z[:1], np.ones((1, 1)))
    except NotImplementedError as exc:
        raise ValueError(f"optimize_inducing=True: {exc}") from None
