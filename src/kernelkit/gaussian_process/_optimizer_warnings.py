"""Warnings after a hyperparameter optimization: optima at a bound, and L-BFGS-B stops.

Shared by every estimator that maximizes a (approximate) marginal likelihood over a
kernel's ``theta``; the wording follows scikit-learn's, so that code filtering on it keeps
working.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..exceptions import ConvergenceWarning
from ..kernels import SklearnKernel

__all__ = ["warn_close_to_bounds", "warn_lbfgs_stop", "BOUND_RTOL"]

# an optimum whose log value lies within this relative distance of a log bound is "at" it
BOUND_RTOL = 1e-2

# L-BFGS-B's status codes (scipy.optimize.minimize) -> the reason in words and what to do
_LBFGS_REASONS = {
    1: ("it reached the maximum number of function evaluations or iterations",
        "pass an optimizer callable with a larger maxiter, or better starting values"),
    2: ("the line search could not decrease the negative log marginal likelihood along "
        "the search direction (an inaccurate gradient or a badly scaled problem)",
        "normalize the targets (normalize_y=True), rescale X, or tighten the bounds"),
}


def warn_close_to_bounds(kernel, rtol: float = BOUND_RTOL) -> None:
    """Warn (ConvergenceWarning) for each optimized hyperparameter that ended at a bound.

    Works on kernelkit and scikit-learn kernels alike (``theta``, ``bounds`` and
    ``hyperparameters`` with ``name``, ``bounds``, ``n_elements``, ``fixed``).

    Examples
    --------
    >>> import warnings
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.gaussian_process._optimizer_warnings import warn_close_to_bounds
    >>> with warnings.catch_warnings(record=True) as rec:
    ...     warnings.simplefilter("always")
    ...     warn_close_to_bounds(RBF(1e-5))
    >>> "close to the specified lower bound 1e-05" in str(rec[0].message)
    True
    """
    if isinstance(kernel, SklearnKernel):
        # the user's scikit-learn kernel (it holds the learned values): its parameter names,
        # "length_scale" rather than the adapter's "kernel__length_scale", as scikit-learn
        kernel = kernel.kernel
    theta = np.asarray(kernel.theta, dtype=float)
    # |log bound - log value| <= rtol |log value| (+ a tiny absolute term for bounds at 1)
    close = np.isclose(np.asarray(kernel.bounds, dtype=float), theta[:, None],
                       rtol=rtol, atol=1e-8)
    idx = 0
    for hyp in kernel.hyperparameters:
        if hyp.fixed:
            continue
        for dim in range(hyp.n_elements):
            b = np.atleast_2d(hyp.bounds)[min(dim, len(np.atleast_2d(hyp.bounds)) - 1)]
            if close[idx, 0]:
                side, value, advice = "lower", b[0], "Decreasing"
            elif close[idx, 1]:
                side, value, advice = "upper", b[1], "Increasing"
            else:
                idx += 1
                continue
            warnings.warn(
                f"The optimal value found for dimension {dim} of parameter {hyp.name} is "
                f"close to the specified {side} bound {value}. {advice} the bound and "
                "calling fit again may find a better value.",
                ConvergenceWarning, stacklevel=3,
            )
            idx += 1


def warn_lbfgs_stop(result) -> None:
    """ConvergenceWarning for an L-BFGS-B result that did not converge, with its reason."""
    reason, advice = _LBFGS_REASONS.get(
        int(result.status),
        (str(result.message).strip() or f"status {result.status}",
         "try other starting values (n_restarts_optimizer)"),
    )
    warnings.warn(
        f"lbfgs failed to converge after {result.nit} iteration(s) (status={result.status}): "
        f"{reason} [scipy: {str(result.message).strip() or 'no message'}]. "
        f"The hyperparameters of the last iterate are used; {advice}.",
        ConvergenceWarning, stacklevel=4,
    )
