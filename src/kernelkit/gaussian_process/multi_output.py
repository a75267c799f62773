"""Multi-output Gaussian-process regression: the linear model of coregionalization (LMC).

Covariance ``cov(f_t(x), f_s(x')) = sum_q B_q[t, s] k_q(x, x')`` with
``B_q = W_q W_q^T + diag(kappa_q)`` (the intrinsic coregionalization model when Q = 1) and one
noise variance per output; missing outputs (NaN) are left out of the likelihood and predicted.
The hyperparameters (kernels, every ``W_q`` and ``kappa_q``, the noise variances) maximize the
log marginal likelihood by L-BFGS-B with analytic gradients (``_coregionalization.py``, and
``_kronecker.py`` for the complete-grid fast path).
"""

from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, clone
from sklearn.utils import check_array, check_consistent_length, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.memory import require_memory
from .._core.progress import progress_bar
from .._core.threads import single_threaded
from .._core.validation import check_is_fitted, check_target_magnitude, validate_data
from ..kernels import RBF, resolve_kernel
from ..linalg import block_rows, jitter_cholesky
from ._coregionalization import Coregionalization, ObservedPairs, dense_log_marginal_likelihood
from ._kronecker import kronecker_log_marginal_likelihood
from ._kronecker_profile import profiled_minimize
from ._lmc_init import initial_coregionalization, restart_theta
from ._lmc_posterior import DensePosterior, KroneckerPosterior, prior_covariance, prior_variance
from ._lmc_search import SearchSpace, search_minimize
from ._optimize import OPTIMIZER_CONSTRAINTS, minimize_with_restarts
from .gpr import SERIAL_BLAS_MAX_N

__all__ = ["MultiOutputGaussianProcessRegressor"]

# the Cholesky path's evaluations (a factor and an explicit inverse of N x N, two numba
# contractions) run on one thread up to this many observed pairs: on this 2-core VM with
# other work on it, the factor and inverse took 0.19 s on one thread against 1.43 s on two
# at N = 1,044 (0.65 against 2.22 s at N = 1,854): threads that wait for each other at
# every LAPACK block lose far more under load than they gain idle
_SERIAL_MAX_PAIRS = 2000


class MultiOutputGaussianProcessRegressor(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Gaussian-process regression of correlated outputs (linear model of coregionalization).

    ``cov(f_t(x), f_s(x')) = sum_q B_q[t, s] k_q(x, x')`` with ``B_q = W_q W_q^T +
    diag(kappa_q)``, ``W_q`` of shape (T, rank); observations ``y_t(x) = f_t(x) + eps_t``,
    ``eps_t ~ N(0, sigma_t^2)``. One kernel gives the intrinsic coregionalization model (ICM).
    Entries of ``Y`` that are NaN are missing outputs: every observed ``(x, t)`` pair enters
    the likelihood and the missing ones are predicted.

    Parameters
    ----------
    kernel : Kernel, sklearn GP kernel, str or list of them, optional
        ``k_q``; a list of Q kernels gives an LMC with Q terms. ``None`` means ``RBF(1.0)``
        (B carries the output scales, so the kernel needs no amplitude of its own).
    rank : int, default=1
        Columns of every ``W_q`` (0 <= rank <= T). ``rank=0`` gives ``B_q = diag(kappa_q)``.
    alpha : float, array of shape (T,) or None, default=None
        Initial noise variances ``sigma_t^2`` (learned within ``alpha_bounds``). ``None``
        starts each at a tenth of the output's mean square.
    alpha_bounds : pair of float or "fixed", default=(1e-6, 1e5)
    W_init : array of shape (T, rank), list of Q such arrays, or None
        Initial ``W_q``. ``None``: the top ``rank`` eigenvectors of the outputs' second
        moment matrix (split equally between the Q kernels, plus a small random
        perturbation from ``random_state`` so that the Q terms differ).
    kappa_init : float, array of shape (T,) or (Q, T), or None
        Initial ``kappa_q``; ``None``: what the rank-``rank`` part leaves of the second
        moments' diagonal (at least a tenth of it).
    kappa_bounds : pair of float or "fixed", default=(1e-6, 1e5)
    solver : {"auto", "kronecker", "cholesky"}, default="auto"
        "kronecker": eigendecompositions of ``K_x`` (n x n) and of the noise-whitened B
        (T x T), O(n^3 + T^3) per evaluation; needs one kernel and no missing output.
        "cholesky": the N x N covariance of the N observed pairs, O(N^3). "auto" takes
        "kronecker" whenever it applies.
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
        As in :class:`GaussianProcessRegressor`: a callable
        ``optimizer(obj_func, initial_theta, bounds) -> (theta_opt, func_min)``; ``None``
        keeps the initial hyperparameters.
    n_restarts_optimizer : int, default=0
        Extra starts: kernel hyperparameters log-uniform within their (finite) bounds, W
        Gaussian at the scale of the initial one, kappa and noise within a factor e^2 of
        theirs.
    normalize_y : bool, default=False
        Standardize every output (mean and standard deviation of its observed entries).
    copy_X_train : bool, default=True
    random_state : int, RandomState or None
    verbose : int, default=0

    Attributes
    ----------
    X_train_, y_train_ : ndarray
        Training data (``y_train_`` normalized when ``normalize_y``, NaN where missing).
    kernel_ : Kernel or list of Kernel
        Kernels with optimized hyperparameters (a list when ``kernel`` was a list).
    kernels_ : list of Kernel
    W_ : list of ndarray of shape (T, rank)
    kappa_ : ndarray of shape (Q, T)
    coregionalization_ : ndarray of shape (Q, T, T)
        The learned ``B_q``.
    noise_variance_ : ndarray of shape (T,)
        Learned ``sigma_t^2`` (of the normalized outputs when ``normalize_y``).
    theta_, bounds_ : ndarray
        The optimizer's vector (see :meth:`log_marginal_likelihood`) and its bounds.
    alpha_ : ndarray of shape (n_samples, T)
        ``K^-1 y`` on the (input, output) grid, 0 at missing pairs.
    log_marginal_likelihood_value_ : float
    solver_ : str
        "kronecker" or "cholesky".
    jitter_ : float
        Diagonal jitter that the final Cholesky factorization needed.
    n_outputs_ : int
    n_features_in_ : int

    Notes
    -----
    There is no scikit-learn peer. Its nearest relative, scikit-learn's
    ``GaussianProcessRegressor`` on an (n, T) target, fits T independent GPs with one kernel
    and one fixed ``alpha``: this model with ``rank=0``, ``kappa_init=1``,
    ``kappa_bounds="fixed"``, and ``alpha`` fixed is exactly that (tested). Predictive
    standard deviations and covariances are those of the noise-free ``f``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import MultiOutputGaussianProcessRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = np.linspace(0, 5, 40)[:, None]
    >>> Y = np.hstack([np.sin(X), 2 * np.sin(X) + 0.5]) + 0.05 * rng.normal(size=(40, 2))
    >>> Y[::3, 1] = np.nan  # missing outputs
    >>> gp = MultiOutputGaussianProcessRegressor(rank=1, random_state=0).fit(X, Y)
    >>> mean, std = gp.predict(X[:2], return_std=True)
    >>> mean.shape, std.shape, gp.coregionalization_.shape
    ((2, 2), (2, 2), (1, 2, 2))
    """

    # scikit-learn's parameter validation (GaussianProcessRegressor's constraints for the
    # parameters it shares); values are checked against the data in fit
    _parameter_constraints: dict = {
        **OPTIMIZER_CONSTRAINTS,
        "kernel": [None, str, callable, list, tuple],
        "rank": [Interval(Integral, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither"), "array-like", None],
        "alpha_bounds": [StrOptions({"fixed"}), "array-like"],
        "W_init": ["array-like", None],
        "kappa_init": [Interval(Real, 0, None, closed="neither"), "array-like", None],
        "kappa_bounds": [StrOptions({"fixed"}), "array-like"],
        "solver": [StrOptions({"auto", "kronecker", "cholesky"})],
        "normalize_y": ["boolean"],
        "copy_X_train": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel=None,
        *,
        rank: int = 1,
        alpha=None,
        alpha_bounds=(1e-6, 1e5),
        W_init=None,
        kappa_init=None,
        kappa_bounds=(1e-6, 1e5),
        solver: str = "auto",
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer: int = 0,
        normalize_y: bool = False,
        copy_X_train: bool = True,
        random_state=None,
        verbose: int = 0,
    ):
        self.kernel = kernel
        self.rank = rank
        self.alpha = alpha
        self.alpha_bounds = alpha_bounds
        self.W_init = W_init
        self.kappa_init = kappa_init
        self.kappa_bounds = kappa_bounds
        self.solver = solver
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.normalize_y = normalize_y
        self.copy_X_train = copy_X_train
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- validation
    def _validate_targets(self, X, y) -> tuple[np.ndarray, bool]:
        """``(Y of shape (n, T), whether y was 1-D)``; NaN (missing) only in a 2-D y."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target "
                             "y is None.")
        Y = check_array(y, ensure_2d=False, dtype=np.float64, input_name="y",
                        ensure_all_finite="allow-nan")
        check_consistent_length(X, Y)
        if Y.ndim not in (1, 2):
            raise ValueError(f"y must be 1-D or 2-D (n_samples, n_outputs); got shape {Y.shape}.")
        one_d = Y.ndim == 1
        if one_d and np.isnan(Y).any():
            raise ValueError("Input y contains NaN. NaN marks a missing output only in a 2-D "
                             "Y of shape (n, T); drop the rows of a 1-D y that have no value.")
        Y = Y.reshape(len(Y), -1)
        check_target_magnitude(self, Y)
        empty = np.flatnonzero(np.all(np.isnan(Y), axis=0))
        if empty.size:
            raise ValueError(
                f"Output column(s) {empty.tolist()} of Y have no observed value (all NaN); "
                "drop them: a GP cannot learn an output it never sees."
            )
        return Y, one_d

    def _kernels(self, n_features: int) -> list:
        spec = self.kernel
        if spec is None:
            return [RBF(1.0)]
        specs = list(spec) if isinstance(spec, (list, tuple)) else [spec]
        if not specs:
            raise ValueError("kernel must be a kernel or a non-empty list of kernels.")
        # clone: fitting never mutates the user's kernel objects
        return [clone(resolve_kernel(k, n_features=n_features)) for k in specs]

    def _check_rank(self, T: int) -> int:
        r = self.rank
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or not 0 <= r <= T:
            raise ValueError(
                f"rank must be an integer in [0, n_outputs={T}]; got {r!r}. A rank above the "
                "number of outputs adds nothing to B = W W^T + diag(kappa)."
            )
        return int(r)

    @staticmethod
    def _check_bounds(bounds, name: str):
        if isinstance(bounds, str):
            if bounds != "fixed":
                raise ValueError(f"{name} must be 'fixed' or a (low, high) pair; got {bounds!r}.")
            return None
        b = np.asarray(bounds, dtype=float)
        if b.shape != (2,) or not (np.all(np.isfinite(b)) and 0 < b[0] <= b[1]):
            raise ValueError(f"{name} must be 'fixed' or a (low, high) pair with 0 < low <= "
                             f"high; got {bounds!r}.")
        return b

    def _check_solver(self, Q: int, complete: bool) -> str:
        fast = Q == 1 and complete
        if self.solver == "kronecker" and not fast:
            raise ValueError("solver='kronecker' needs one kernel and every output observed at "
                             "every input; use solver='cholesky' (or 'auto').")
        return "kronecker" if self.solver == "kronecker" or (self.solver == "auto" and fast) \
            else "cholesky"

    # ------------------------------------------------------------------ fit
    def fit(self, X, y) -> MultiOutputGaussianProcessRegressor:
        """Learn the coregionalization matrices, kernels and noise, and factorize.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_outputs)
            NaN marks a missing output (2-D ``y`` only).

        Returns
        -------
        self
        """
        self._validate_params()
        X = validate_data(self, X, dtype=np.float64)
        Y, self._y_1d = self._validate_targets(X, y)
        n, T = Y.shape
        # K, its eigenvectors and the gradient's n x n contractions (observed rows only
        # when outputs are missing: at most n T of them)
        require_memory(8.0 * n * n * 3, f"A multi-output Gaussian process on {n:,} inputs",
                       "SparseGaussianProcessRegressor per output, or fewer inputs")
        rank = self._check_rank(T)
        kernels = self._kernels(X.shape[1])
        kappa_bounds = self._check_bounds(self.kappa_bounds, "kappa_bounds")
        noise_bounds = self._check_bounds(self.alpha_bounds, "alpha_bounds")
        if self.normalize_y:
            self._y_train_mean = np.nanmean(Y, axis=0)
            std = np.nanstd(Y, axis=0)
            self._y_train_std = np.where(std < 10 * np.finfo(float).eps, 1.0, std)
            Y = (Y - self._y_train_mean) / self._y_train_std
        else:
            self._y_train_mean, self._y_train_std = np.zeros(T), np.ones(T)
        pairs = ObservedPairs(Y)
        self.solver_ = self._check_solver(len(kernels), pairs.complete)
        rng = check_random_state(self.random_state)
        W, kappa, noise = initial_coregionalization(
            Y, X, kernels, rank, self.W_init, self.kappa_init, self.alpha, kappa_bounds,
            noise_bounds, rng)
        params = Coregionalization(kernels, W, kappa, noise, kappa_bounds, noise_bounds)
        self.X_train_ = np.copy(X) if self.copy_X_train else X
        self.y_train_ = Y
        if self.optimizer is not None and params.n_dims > 0:
            params.theta = self._optimize(params, X, Y, pairs, rng)
        with single_threaded(self._serial(X, pairs)):  # the last factorization as the others
            self._set_fitted(params, X, Y, pairs)
        return self

    def _serial(self, X, pairs) -> bool:
        """Whether the likelihood's factorizations run on one thread (module constants)."""
        if self.solver_ == "kronecker":
            return X.shape[0] <= SERIAL_BLAS_MAX_N
        return pairs.y.shape[0] <= _SERIAL_MAX_PAIRS

    def _set_fitted(self, params, X, Y, pairs) -> None:
        self.kernels_ = params.kernels
        self.kernel_ = params.kernels if isinstance(self.kernel, (list, tuple)) \
            else params.kernels[0]
        self.W_ = params.W
        self.kappa_ = params.kappa
        self.noise_variance_ = params.noise
        self.coregionalization_ = params.Bs()
        self.theta_ = params.theta
        self.bounds_ = params.bounds
        self.n_outputs_ = Y.shape[1]
        if self.solver_ == "kronecker":
            lml, F = kronecker_log_marginal_likelihood(params, X, Y, factors=True)
            self._posterior = KroneckerPosterior(F, self.coregionalization_[0])
            self.jitter_ = 0.0
        else:
            lml, L, a, self.jitter_ = dense_log_marginal_likelihood(params, X, pairs,
                                                                    jitter=True)
            self._posterior = DensePosterior(L, a, pairs, self.coregionalization_)
        self.alpha_ = self._posterior.alpha
        self.log_marginal_likelihood_value_ = float(lml)

    def _params(self) -> Coregionalization:
        """A copy of the fitted hyperparameters (kernels cloned)."""
        return Coregionalization(
            [clone(k) for k in self.kernels_], [W.copy() for W in self.W_],
            self.kappa_.copy(), self.noise_variance_.copy(),
            self._check_bounds(self.kappa_bounds, "kappa_bounds"),
            self._check_bounds(self.alpha_bounds, "alpha_bounds"))

    def _objective(self, params, X, Y, pairs, solver):
        def lml(theta, eval_gradient):
            params.theta = theta
            if solver == "kronecker":
                return kronecker_log_marginal_likelihood(params, X, Y, eval_gradient)
            return dense_log_marginal_likelihood(params, X, pairs, eval_gradient)
        return lml

    def _optimize(self, params, X, Y, pairs, rng) -> np.ndarray:
        work = Coregionalization([clone(k) for k in params.kernels], list(params.W),
                                 params.kappa.copy(), params.noise.copy(), params.kappa_bounds,
                                 params.noise_bounds)
        lml = self._objective(work, X, Y, pairs, self.solver_)

        def obj_func(theta, eval_gradient=True):
            if eval_gradient:
                value, grad = lml(theta, True)
                return -value, -grad
            return -lml(theta, False)

        search = None
        if self.solver_ == "kronecker" and self.optimizer == "fmin_l_bfgs_b":
            def search(obj_func, theta0, bounds):
                # one eigendecomposition per step in the kernel's theta only
                return profiled_minimize(work, X, Y, theta0, bounds)
        elif self.optimizer == "fmin_l_bfgs_b":
            space = SearchSpace(work)

            def search(obj_func, theta0, bounds):
                # standard deviations and W in a fixed gauge (_lmc_search.py)
                return search_minimize(obj_func, theta0, space)
        with single_threaded(self._serial(X, pairs)), \
                progress_bar(self.verbose, total=1 + self.n_restarts_optimizer,
                             desc="MOGP restarts") as bar:
            theta, _ = minimize_with_restarts(
                obj_func, params.theta, params.bounds, self.optimizer,
                self.n_restarts_optimizer, rng, draw_start=lambda r: restart_theta(params, r),
                minimize=search, on_optimum=lambda theta, fmin: bar.update())
        return theta

    # ------------------------------------------------------------- predict
    def predict(self, X, return_std: bool = False, return_cov: bool = False):
        """Posterior mean of every output, and optionally its std or the joint covariance.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        return_std : bool, default=False
            Also return the standard deviation of every ``f_t(x)`` (noise-free).
        return_cov : bool, default=False
            Also return the covariance of every two ``(x, t)`` pairs, across outputs.

        Returns
        -------
        y_mean : ndarray of shape (n_samples, n_outputs) (or (n_samples,) for a 1-D y)
        y_std : ndarray of the shape of ``y_mean``, optional
        y_cov : ndarray of shape (n_samples, n_outputs, n_samples, n_outputs) (or
            (n_samples, n_samples) for a 1-D y), optional
            ``y_cov[i, t, j, s] = cov(f_t(x_i), f_s(x_j))``.
        """
        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        check_is_fitted(self, "_posterior")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        post, kernels, Bs = self._posterior, self.kernels_, self.coregionalization_
        m, T = X.shape[0], self.n_outputs_
        if return_cov:
            Ks = [k(X, self.X_train_) for k in kernels]
            cov = prior_covariance([k(X) for k in kernels], Bs) - post.covariance_reduction(Ks)
            cov *= np.multiply.outer(self._y_train_std, self._y_train_std)[None, :, None, :]
            mean = self._unnormalize(post.mean(Ks))
            return (mean, cov[:, 0, :, 0]) if self._y_1d else (mean, cov)
        mean = np.empty((m, T))
        var = prior_variance([k.diag(X) for k in kernels], Bs) if return_std else None
        width = (post.L.shape[0] if isinstance(post, DensePosterior) else 1) * T
        step = block_rows(self.X_train_.shape[0] * len(kernels) + width)
        for start in range(0, m, step):  # test rows in blocks within working memory
            sl = slice(start, min(start + step, m))
            Ks = [k(X[sl], self.X_train_) for k in kernels]
            mean[sl] = post.mean(Ks)
            if return_std:
                var[sl] -= post.variance_reduction(Ks)
        mean = self._unnormalize(mean)
        if not return_std:
            return mean
        std = np.sqrt(np.maximum(var, 0.0)) * self._y_train_std
        return mean, (std[:, 0] if self._y_1d else std)

    def _unnormalize(self, mean):
        mean = mean * self._y_train_std + self._y_train_mean
        return mean[:, 0] if self._y_1d else mean

    def sample_y(self, X, n_samples: int = 1, random_state=0) -> np.ndarray:
        """Draw joint samples of every output from the posterior at ``X``.

        The joint covariance of all ``(x, t)`` pairs is factorized by Cholesky with adaptive
        jitter (warned about when needed).

        Parameters
        ----------
        X : array of shape (n_samples_X, n_features)
        n_samples : int, default=1
        random_state : int, RandomState or None, default=0

        Returns
        -------
        ndarray of shape (n_samples_X, n_outputs, n_samples) (or (n_samples_X, n_samples)
        for a 1-D y)
        """
        rng = check_random_state(random_state)
        mean, cov = self.predict(X, return_cov=True)
        m = mean.shape[0]
        size = mean.size
        L, _ = jitter_cholesky(cov.reshape(size, size), what="posterior covariance",
                               hint="increase the noise lower bound (alpha_bounds)")
        draws = mean.reshape(size, 1) + L @ rng.standard_normal((size, n_samples))
        return draws if self._y_1d else draws.reshape(m, -1, n_samples)

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False):
        """Log marginal likelihood at ``theta`` on the training data (and its gradient).

        ``theta = [theta(k_1), ..., theta(k_Q), vec W_1, log kappa_1, ..., vec W_Q,
        log kappa_Q, log sigma^2]`` (kappa and sigma^2 blocks only where they are learned),
        as in ``theta_``.

        Parameters
        ----------
        theta : array of shape (n_dims,), optional
            ``None`` returns ``log_marginal_likelihood_value_``.
        eval_gradient : bool, default=False

        Returns
        -------
        lml : float
        grad : ndarray of shape (n_dims,), only with ``eval_gradient``
        """
        check_is_fitted(self, "_posterior")
        if theta is None:
            if eval_gradient:
                raise ValueError("The gradient can only be evaluated for a given theta.")
            return self.log_marginal_likelihood_value_
        lml = self._objective(self._params(), self.X_train_, self.y_train_,
                              ObservedPairs(self.y_train_), self.solver_)
        return lml(theta, eval_gradient)
