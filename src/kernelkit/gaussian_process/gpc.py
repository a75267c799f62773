"""Gaussian-process classification by the Laplace approximation (R&W Chapter 3).

Binary problems: the mode of p(f | X, t) by Newton (Algorithm 3.1), predictions by
Algorithm 3.2 with the probit-style approximation of the logistic-Gaussian integral, and
hyperparameters by maximizing the approximate marginal likelihood with the analytic
gradient of Algorithm 5.1 (all in ``_laplace.py``). More classes: one-vs-rest or
one-vs-one committees of binary problems, as scikit-learn.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.memory import require_memory
from .._core.threads import single_threaded
from .._core.validation import (
    check_classification_targets,
    check_is_fitted,
    check_two_classes,
    validate_data,
)
from ..kernels import RBF, Constant, resolve_estimator_kernel
from ..linalg import block_rows
from ._laplace import (
    laplace_log_marginal_likelihood,
    latent_predictive,
    logistic_gaussian_integral,
    posterior_mode,
)
from ._optimize import OPTIMIZER_CONSTRAINTS, minimize_with_restarts
from ._optimizer_warnings import warn_close_to_bounds

# Up to this many training points the binary fit runs on one BLAS and one numba thread
# (as GaussianProcessRegressor's optimizer): its chain of small LAPACK calls and kernel
# loops loses more to thread synchronization than it gains, badly so on a loaded machine.
SERIAL_MAX_N = 1000



__all__ = ["GaussianProcessClassifier"]


def _default_kernel():
    # scikit-learn's default for classification: 1.0 * RBF(1.0), both *fixed*
    return Constant(1.0, value_bounds="fixed") * RBF(1.0, length_scale_bounds="fixed")


class _BinaryLaplaceGPC(ClassifierMixin, BaseEstimator):
    """One binary GP classifier (logistic likelihood, Laplace approximation)."""

    def __init__(self, kernel=None, *, optimizer="fmin_l_bfgs_b", n_restarts_optimizer=0,
                 max_iter_predict=100, warm_start=False, copy_X_train=True,
                 random_state=None):
        self.kernel = kernel
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_predict = max_iter_predict
        self.warm_start = warm_start
        self.copy_X_train = copy_X_train
        self.random_state = random_state

    def fit(self, X, y):
        with single_threaded(len(X) <= SERIAL_MAX_N):
            return self._fit(X, y)

    def _fit(self, X, y):
        n = len(X)  # K, B = I + W^1/2 K W^1/2 and its factor: n x n each
        require_memory(8.0 * n * n * 3, f"Gaussian process classification on {n:,} points",
                       "a kernel machine (KernelClassifier) on Nystroem features, or fewer "
                       "points")
        if self.kernel is None:
            self.kernel_ = _default_kernel()
        else:
            d = X.shape[1] if getattr(X, "ndim", 1) == 2 else None
            self.kernel_ = clone(resolve_estimator_kernel(self, d))
        self.X_train_ = np.copy(X) if self.copy_X_train else X
        encoder = LabelEncoder()
        self.y_train_ = encoder.fit_transform(y).astype(np.float64)
        self.classes_ = encoder.classes_
        if self.classes_.size != 2:
            raise ValueError(
                f"{type(self).__name__} supports only binary classification; y contains "
                f"{self.classes_.size} classes."
            )
        f0 = None
        if self.warm_start and getattr(self, "f_cached_", np.empty(0)).shape == (len(X),):
            f0 = self.f_cached_
        if self.optimizer is not None and self.kernel_.n_dims > 0:
            f0 = self._optimize(f0)
        mode = posterior_mode(self.kernel_(self.X_train_), self.y_train_, f0,
                              self.max_iter_predict)
        self.f_cached_ = mode.f
        self.pi_, self.W_sr_, self.L_ = mode.pi, mode.W_sr, mode.L
        self.log_marginal_likelihood_value_ = np.float64(mode.lml)
        return self

    def _optimize(self, f0):
        kernel = clone(self.kernel_)
        # Newton starts from the previous evaluation's mode: the mode is unique, only the
        # number of Newton steps changes
        last = {"f": f0}

        def obj_func(theta, eval_gradient=True):
            kernel.theta = theta
            out = laplace_log_marginal_likelihood(
                kernel, self.X_train_, self.y_train_, last["f"], self.max_iter_predict,
                eval_gradient=eval_gradient)
            last["f"] = out[-1].f
            return (-out[0], -out[1]) if eval_gradient else -out[0]

        rng = check_random_state(self.random_state)
        theta, _ = minimize_with_restarts(obj_func, self.kernel_.theta, self.kernel_.bounds,
                                          self.optimizer, self.n_restarts_optimizer, rng)
        self.kernel_.theta = theta
        warn_close_to_bounds(self.kernel_)  # after any optimizer, as scikit-learn's GPC
        return last["f"]

    def log_marginal_likelihood(self, theta=None, eval_gradient=False, clone_kernel=True):
        if theta is None:
            if eval_gradient:
                raise ValueError("Gradient can only be evaluated for theta!=None")
            return self.log_marginal_likelihood_value_
        kernel = self.kernel_.clone_with_theta(theta) if clone_kernel else self.kernel_
        if not clone_kernel:
            kernel.theta = theta
        with single_threaded(len(self.X_train_) <= SERIAL_MAX_N):
            out = laplace_log_marginal_likelihood(kernel, self.X_train_, self.y_train_, None,
                                                  self.max_iter_predict, eval_gradient)
        lml = np.float64(out[0])  # as scikit-learn: NumPy float64 (keeps float64 arithmetic)
        return (lml, out[1]) if eval_gradient else lml

    def _latent(self, X, return_var):
        # test rows in blocks of at most working_memory MiB per (n_train x rows) block
        m, n = len(X), len(self.X_train_)
        step = block_rows(n, 16)
        with single_threaded(n <= SERIAL_MAX_N):
            parts = [latent_predictive(self.kernel_, self.X_train_, self.y_train_, self.pi_,
                                       self.W_sr_, self.L_, X[s:s + step],
                                       return_var=return_var)
                     for s in range(0, m, step)]
        mean = np.concatenate([p[0] for p in parts]) if parts else np.empty(0)
        var = np.concatenate([p[1] for p in parts]) if return_var and parts else None
        return mean, var

    def predict(self, X):
        check_is_fitted(self)
        mean, _ = self._latent(X, return_var=False)
        # sigma(mean) > 1/2 (the MAP class; R&W Sec. 3.4.2)
        return np.where(mean > 0, self.classes_[1], self.classes_[0])

    def predict_proba(self, X):
        check_is_fitted(self)
        mean, var = self._latent(X, return_var=True)
        p1 = logistic_gaussian_integral(mean, var)  # R&W Alg. 3.2 line 7
        return np.column_stack([1.0 - p1, p1])


class GaussianProcessClassifier(ClassifierMixin, BaseEstimator):
    """Gaussian-process classification (Laplace approximation); scikit-learn's drop-in.

    A latent function f ~ GP(0, k) and p(y = 1 | f) = sigma(f) (logistic). The posterior
    mode is found by Newton's method (Rasmussen & Williams Algorithm 3.1), class
    probabilities average sigma over the Gaussian approximation of the latent posterior
    (Algorithm 3.2, with the logistic written as a mixture of five error functions), and
    kernel hyperparameters maximize the Laplace approximation of the log marginal
    likelihood (eq. 3.32) by L-BFGS-B with its analytic gradient (Algorithm 5.1, one
    ``gradient_dot`` contraction for all hyperparameters). More than two classes: one
    binary problem per class (one-vs-rest) or per pair (one-vs-one).

    Parameters
    ----------
    kernel : Kernel, sklearn GP kernel or str, optional
        Prior covariance of the latent function. ``None`` means
        ``Constant(1.0, "fixed") * RBF(1.0, "fixed")`` (not optimized), as scikit-learn.
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
        A callable ``optimizer(obj_func, initial_theta, bounds) -> (theta_opt, func_min)``
        as in scikit-learn; ``None`` keeps the kernel's hyperparameters.
    n_restarts_optimizer : int, default=0
        Extra starts drawn log-uniformly within the (finite) bounds.
    max_iter_predict : int, default=100
        Maximum Newton steps to the posterior mode.
    warm_start : bool, default=False
        Start Newton at the last fit's mode (when the training size is the same).
    copy_X_train : bool, default=True
    random_state : int, RandomState or None
        Draws the optimizer's restarts.
    multi_class : {"one_vs_rest", "one_vs_one"}, default="one_vs_rest"
    n_jobs : int, optional
        Binary problems fitted in parallel (joblib), for more than two classes.

    Attributes
    ----------
    base_estimator_ : estimator
        The binary classifier, or the one-vs-rest / one-vs-one committee of them.
    kernel_ : Kernel
        The learned kernel; for more than two classes scikit-learn's ``CompoundKernel`` of
        the binary problems' kernels.
    log_marginal_likelihood_value_ : float
        Approximate log marginal likelihood (mean over binary problems).
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    - During hyperparameter optimization Newton starts each evaluation at the previous
      evaluation's mode (the mode is unique, so only the step count changes), and the fit
      runs the mode search once at the final hyperparameters (scikit-learn runs it again
      from zero). Newton also stops when no latent value moved by more than 1e-7.
    - The binary estimator is kernelkit's own; its attributes (``pi_``, ``W_sr_``, ``L_``,
      ``X_train_``, ``y_train_``, ``kernel_``) mirror scikit-learn's, and the warm-start
      mode is ``f_cached_`` (scikit-learn: ``f_cached``).
    - ``predict_proba`` solves with the triangular factor (scikit-learn calls a general
      solve) and processes test points in blocks within ``working_memory``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from kernelkit import GaussianProcessClassifier
    >>> from kernelkit.kernels import RBF
    >>> X, y = load_iris(return_X_y=True)
    >>> gpc = GaussianProcessClassifier(1.0 * RBF(1.0), random_state=0).fit(X, y)
    >>> gpc.predict_proba(X[:2]).shape
    (2, 3)
    >>> bool(gpc.score(X, y) > 0.9)
    True
    """

    # scikit-learn's parameter validation (its GaussianProcessClassifier's constraints;
    # kernel also a kernelkit kernel or a name)
    _parameter_constraints: dict = {
        **OPTIMIZER_CONSTRAINTS,
        "kernel": [None, str, callable],
        "max_iter_predict": [Interval(Integral, 1, None, closed="left")],
        "warm_start": ["boolean"],
        "copy_X_train": ["boolean"],
        "random_state": ["random_state"],
        "multi_class": [StrOptions({"one_vs_rest", "one_vs_one"})],
        "n_jobs": [Integral, None],
    }

    def __init__(self, kernel=None, *, optimizer="fmin_l_bfgs_b", n_restarts_optimizer=0,
                 max_iter_predict=100, warm_start=False, copy_X_train=True,
                 random_state=None, multi_class="one_vs_rest", n_jobs=None):
        self.kernel = kernel
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_predict = max_iter_predict
        self.warm_start = warm_start
        self.copy_X_train = copy_X_train
        self.random_state = random_state
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    def _vector_input(self) -> bool:
        return self.kernel is None or getattr(self.kernel, "requires_vector_input", True)

    def fit(self, X, y) -> GaussianProcessClassifier:
        """Fit the binary problem(s): hyperparameters, then the Laplace mode.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        from sklearn.gaussian_process.kernels import CompoundKernel

        self._validate_params()
        if isinstance(self.kernel, CompoundKernel):
            raise ValueError("kernel cannot be a CompoundKernel: give one kernel, shared "
                             "in form by every binary problem.")
        if self._vector_input():
            X, y = validate_data(self, X, y, dtype=np.float64)
        else:
            X, y = validate_data(self, X, y, ensure_2d=False, dtype=None)
        check_classification_targets(y)
        base = _BinaryLaplaceGPC(
            kernel=self.kernel, optimizer=self.optimizer,
            n_restarts_optimizer=self.n_restarts_optimizer,
            max_iter_predict=self.max_iter_predict, warm_start=self.warm_start,
            copy_X_train=self.copy_X_train, random_state=self.random_state)
        self.classes_ = check_two_classes(self, y)
        self.n_classes_ = self.classes_.size
        if self.n_classes_ > 2:
            wrapper = (OneVsRestClassifier if self.multi_class == "one_vs_rest"
                       else OneVsOneClassifier)
            base = wrapper(base, n_jobs=self.n_jobs)
        self.base_estimator_ = base.fit(X, y)
        if self.n_classes_ > 2:
            self.log_marginal_likelihood_value_ = np.mean(
                [e.log_marginal_likelihood_value_ for e in self.base_estimator_.estimators_])
        else:
            self.log_marginal_likelihood_value_ = self.base_estimator_.log_marginal_likelihood()
        return self

    def _check_X(self, X):
        check_is_fitted(self)
        if self._vector_input():
            return validate_data(self, X, reset=False, dtype=np.float64)
        return validate_data(self, X, reset=False, ensure_2d=False, dtype=None)

    def predict(self, X) -> np.ndarray:
        """Most probable class (the sign of the latent mean for two classes).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        return self.base_estimator_.predict(X)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (R&W Algorithm 3.2; one-vs-rest normalized over classes).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X = self._check_X(X)
        if self.n_classes_ > 2 and self.multi_class == "one_vs_one":
            raise ValueError(
                "one_vs_one multi-class mode does not support predicting probability "
                "estimates. Use one_vs_rest mode instead."
            )
        return self.base_estimator_.predict_proba(X)

    @property
    def kernel_(self):
        """The learned kernel (a ``CompoundKernel`` of one per binary problem past 2 classes)."""
        if self.n_classes_ == 2:
            return self.base_estimator_.kernel_
        from sklearn.gaussian_process.kernels import CompoundKernel

        return CompoundKernel([e.kernel_ for e in self.base_estimator_.estimators_])

    def latent_mean_and_variance(self, X):
        """Mean and variance of the Gaussian approximation of the latent f at ``X``.

        R&W Algorithm 3.2 lines 4-6 (binary problems only).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        latent_mean, latent_var : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        if self.n_classes_ > 2:
            raise ValueError(
                "Returning the mean and variance of the latent function f is only "
                "supported for binary classification, received "
                f"{self.n_classes_} classes."
            )
        X = self._check_X(X)
        return self.base_estimator_._latent(X, return_var=True)

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                                clone_kernel: bool = True):
        """Approximate log marginal likelihood (R&W eq. 3.32) of ``theta``.

        Parameters
        ----------
        theta : array of shape (n_dims,) or (n_dims * n_classes,), optional
            Log hyperparameters; one set shared by every binary problem, or one per problem
            (one-vs-rest). ``None`` returns ``log_marginal_likelihood_value_``.
        eval_gradient : bool, default=False
            Also return the gradient (two classes only).
        clone_kernel : bool, default=True

        Returns
        -------
        lml : float
        grad : ndarray of shape (n_dims,), only with ``eval_gradient``
        """
        check_is_fitted(self)
        if theta is None:
            if eval_gradient:
                raise ValueError("Gradient can only be evaluated for theta!=None")
            return self.log_marginal_likelihood_value_
        theta = np.asarray(theta, dtype=float)
        if self.n_classes_ == 2:
            return self.base_estimator_.log_marginal_likelihood(theta, eval_gradient,
                                                                clone_kernel=clone_kernel)
        if eval_gradient:
            raise NotImplementedError(
                "Gradient of log-marginal-likelihood not implemented for multi-class GPC.")
        estimators = self.base_estimator_.estimators_
        p = estimators[0].kernel_.n_dims
        if theta.shape[0] == p:  # one theta shared by every binary problem
            parts = [theta] * len(estimators)
        elif theta.shape[0] == p * self.n_classes_:  # one theta per binary problem
            parts = [theta[p * i:p * (i + 1)] for i in range(self.n_classes_)]
        else:
            raise ValueError(
                f"Shape of theta must be either {p} or {p * self.n_classes_}. Obtained "
                f"theta with shape {theta.shape[0]}."
            )
        return np.mean([e.log_marginal_likelihood(th, clone_kernel=clone_kernel)
                        for e, th in zip(estimators, parts)])
