"""Maximize a log marginal likelihood over log hyperparameters, with restarts.

scikit-learn's protocol: ``optimizer`` is "fmin_l_bfgs_b" (L-BFGS-B with the analytic
gradient), a callable ``optimizer(obj_func, initial_theta, bounds) -> (theta, func_min)``,
or None (keep theta); restarts start log-uniformly within the bounds.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.optimize
from sklearn.utils._param_validation import Interval, StrOptions

from ..kernels import Kernel
from ._optimizer_warnings import warn_lbfgs_stop

__all__ = ["OPTIMIZER_CONSTRAINTS", "minimize_once", "minimize_with_restarts",
           "log_uniform_starts", "theta_setter"]

# scikit-learn's parameter validation of the two optimizer parameters every GP shares (the
# constraints of scikit-learn's GaussianProcessRegressor)
OPTIMIZER_CONSTRAINTS: dict = {
    "optimizer": [StrOptions({"fmin_l_bfgs_b"}), callable, None],
    "n_restarts_optimizer": [Interval(Integral, 0, None, closed="left")],
}


def lbfgs_box(bounds) -> list:
    """``(low, high)`` pairs for L-BFGS-B, an infinite bound given as None."""
    return [(None if np.isinf(lo) else lo, None if np.isinf(hi) else hi)
            for lo, hi in np.asarray(bounds, dtype=float)]


def minimize_once(obj_func, theta0, bounds, optimizer):
    """``(theta, func_min)`` of one start: L-BFGS-B with the analytic gradient (a stop that
    is not convergence warns with its reason) or the user's ``optimizer`` callable."""
    if optimizer == "fmin_l_bfgs_b":
        box = lbfgs_box(bounds)
        res = scipy.optimize.minimize(obj_func, theta0, method="L-BFGS-B", jac=True,
                                      bounds=box)
        if not res.success:
            warn_lbfgs_stop(res)
        return np.asarray(res.x, dtype=float), float(res.fun)
    if callable(optimizer):
        theta, fmin = optimizer(obj_func, theta0, bounds=bounds)
        return np.asarray(theta, dtype=float), float(fmin)
    raise ValueError(
        f"optimizer must be 'fmin_l_bfgs_b', a callable or None; got {optimizer!r}."
    )


def theta_setter(kernel):
    """A function ``set(theta)`` equal to ``kernel.theta = theta``, for the optimizer's loop.

    The tree of kernels is walked once here, so that each call only writes the values
    ``exp(theta)`` onto the kernels that hold them (the ``theta`` property re-reads every
    hyperparameter of the tree at each evaluation). Valid while the kernel's structure and
    fixed hyperparameters do not change, as within one optimization.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, White
    >>> from kernelkit.gaussian_process._optimize import theta_setter
    >>> k = 2.0 * RBF(1.0) + White(0.1)
    >>> theta_setter(k)(np.log([3.0, 0.5, 0.2]))
    >>> bool(np.allclose(k.theta, np.log([3.0, 0.5, 0.2])))
    True
    """
    if type(kernel).theta is not Kernel.theta:  # a kernel with its own setter
        return lambda theta: setattr(kernel, "theta", theta)
    slots, start = [], 0
    for h in kernel.hyperparameters:
        if h.fixed:
            continue
        *path, name = h.name.split("__")
        owner = kernel
        for attr in path:
            owner = getattr(owner, attr)
        slots.append((owner, name, start, h.n_elements, np.ndim(getattr(owner, name)) == 0))
        start += h.n_elements

    def set_theta(theta):
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (start,):
            raise ValueError(f"theta must have shape ({start},); got {theta.shape}.")
        values = np.exp(theta)  # theta holds the logarithms of the values
        for owner, name, i, size, scalar in slots:
            setattr(owner, name, float(values[i]) if scalar else values[i:i + size].copy())

    return set_theta


def log_uniform_starts(bounds):
    """``rng -> theta`` log-uniform within ``bounds`` (theta is the log of the values): the
    restarts of scikit-learn's GPs; the bounds must be finite."""
    bounds = np.asarray(bounds, dtype=float)
    if not np.isfinite(bounds).all():
        raise ValueError(
            "Multiple optimizer restarts (n_restarts_optimizer>0) requires that all bounds "
            "are finite; give every hyperparameter finite bounds or set "
            "n_restarts_optimizer=0."
        )
    return lambda rng: rng.uniform(bounds[:, 0], bounds[:, 1])


def minimize_with_restarts(obj_func, theta0, bounds, optimizer, n_restarts: int, rng, *,
                           draw_start=None, minimize=None, on_optimum=None):
    """Best ``(theta, obj_func(theta))`` over a start at ``theta0`` and ``n_restarts`` more.

    Every start is drawn (in order, from ``rng``) before the first optimization; the best
    is the first with the smallest value.

    Parameters
    ----------
    obj_func : callable
        ``obj_func(theta, eval_gradient=True) -> (value, gradient)``, minimized.
    theta0 : ndarray of shape (p,)
    bounds : ndarray of shape (p, 2)
        In log space; must be finite for the default restarts.
    optimizer : "fmin_l_bfgs_b" or callable
    n_restarts : int
    rng : numpy.random.RandomState
    draw_start : callable, optional
        ``draw_start(rng) -> theta``, a restart's start; default
        :func:`log_uniform_starts` of ``bounds``.
    minimize : callable, optional
        ``minimize(obj_func, theta0, bounds) -> (theta, func_min)``, one start; default
        :func:`minimize_once` with ``optimizer`` (GaussianProcessRegressor passes its
        ``_constrained_optimization``, scikit-learn's hook).
    on_optimum : callable, optional
        ``on_optimum(theta, func_min)`` after each start (progress bars).

    Returns
    -------
    theta : ndarray of shape (p,)
    func_min : float

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.gaussian_process._optimize import minimize_with_restarts
    >>> f = lambda th, eval_gradient=True: (float(((th - 1) ** 2).sum()), 2 * (th - 1))
    >>> th, fmin = minimize_with_restarts(f, np.zeros(2), np.array([[-3, 3]] * 2),
    ...                                   "fmin_l_bfgs_b", 2, np.random.RandomState(0))
    >>> np.round(th, 4).tolist()
    [1.0, 1.0]
    """
    starts = [np.asarray(theta0, dtype=float)]
    if n_restarts > 0:
        draw = log_uniform_starts(bounds) if draw_start is None else draw_start
        starts += [draw(rng) for _ in range(n_restarts)]
    if minimize is None:
        def minimize(obj_func, theta0, bounds):
            return minimize_once(obj_func, theta0, bounds, optimizer)
    optima = []
    for th in starts:
        optima.append(minimize(obj_func, th, bounds))
        if on_optimum is not None:
            on_optimum(*optima[-1])
    best = int(np.argmin([fmin for _, fmin in optima]))
    return optima[best]
