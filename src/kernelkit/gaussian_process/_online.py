"""Online updates of a fitted GP regression: add points with the hyperparameters kept.

With ``K + alpha I = L L^T`` on the n training points, k new points extend the factor by a
block row (:meth:`~kernelkit.linalg.BlockCholesky.append`, O(n^2 k), the n x n factor not
copied); the dual coefficients
``a = (K + alpha I)^-1 y`` are then two triangular solves on all n + k targets (O(n^2)),
so that the model equals a fit on all the data with the same kernel (R&W Algorithm 2.1).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["extend_gp_posterior", "gp_log_marginal_likelihood_value", "check_new_targets",
           "scalar_noise"]

_LOG_2PI = float(np.log(2.0 * np.pi))


def check_new_targets(y_new, n_new: int, y_train: np.ndarray) -> np.ndarray:
    """``y_new`` as a float array shaped like ``y_train`` (1-D, or 2-D with as many targets)."""
    y_new = np.asarray(y_new, dtype=np.float64)
    if y_new.ndim == 2 and y_new.shape[1] == 1 and y_train.ndim == 1:
        y_new = y_new[:, 0]
    if y_new.shape[0] != n_new or y_new.shape[1:] != y_train.shape[1:]:
        raise ValueError(
            f"y has shape {y_new.shape} but X has {n_new} rows and the model was fitted "
            f"on targets of shape (n, {', '.join(map(str, y_train.shape[1:]))}); give one "
            "row of targets per new point."
        )
    if not np.all(np.isfinite(y_new)):
        raise ValueError("y contains NaN or infinity.")
    return y_new


def scalar_noise(alpha, what: str) -> float:
    """The noise variance as a scalar; per-sample noise cannot be extended to new points."""
    a = np.asarray(alpha, dtype=float)
    if a.size != 1 or isinstance(alpha, bool) or not (
            isinstance(alpha, numbers.Real) or a.ndim <= 1):
        raise ValueError(
            f"{what} supports a scalar alpha only (the noise of the new points is then "
            "known); with one alpha per sample, fit again on all the data."
        )
    return float(a.ravel()[0])


def extend_gp_posterior(kernel, X_train, factor, jitter, noise, X_new):
    """Factor of ``K + (noise + jitter) I`` on ``X_train`` then ``X_new``, from ``factor``
    (a :class:`~kernelkit.linalg.BlockCholesky`) on ``X_train`` (O(n^2 k)); returns
    ``(extended_factor, jitter_of_new_block)``."""
    A12 = kernel(X_train, X_new)  # K(X, X_new), (n, k)
    A22 = kernel(X_new)
    A22[np.diag_indices_from(A22)] += noise + jitter  # same diagonal as the fit's K
    return factor.append(
        A12, A22, what="GP covariance K + alpha I",
        hint="increase alpha (the noise variance), add a White kernel or remove "
        "duplicated inputs",
    )


def gp_log_marginal_likelihood_value(diag_L, Y, A) -> float:
    """``-1/2 y^T a - sum log L_ii - n/2 log 2 pi`` summed over targets (R&W eq. 2.30),
    from the factor's diagonal ``diag_L``."""
    n = Y.shape[0]
    Y = Y.reshape(n, -1)
    t = Y.shape[1]
    return float(-0.5 * np.sum(Y * A.reshape(n, -1)) - t * np.sum(np.log(diag_L))
                 - 0.5 * n * t * _LOG_2PI)
