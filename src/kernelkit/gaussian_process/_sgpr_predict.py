"""Prediction of the sparse GP in test-row blocks, wherever the test rows live."""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from ._rows import rows_per_block

__all__ = ["predict_block", "predict_rows"]


def predict_block(X, kernel, Z, L, LB, weights, return_std):
    """Mean (and latent variance) at X, in test-row blocks of O(block M) memory."""
    m = X.shape[0]
    mean = np.empty((m, weights.shape[1]))
    var = np.empty(m) if return_std else None
    step = rows_per_block(len(Z))
    for a in range(0, m, step):
        sl = slice(a, min(a + step, m))
        Ks = kernel(X[sl], Z)
        mean[sl] = Ks @ weights  # K_*M L^-T v
        if return_std:
            # k** - |L^-1 k_M*|^2 + |L_B^-1 L^-1 k_M*|^2
            V1 = solve_triangular(L, Ks.T, lower=True, check_finite=False)
            V2 = solve_triangular(LB, V1, lower=True, check_finite=False)
            var[sl] = kernel.diag(X[sl]) - np.einsum("ij,ij->j", V1, V1) \
                + np.einsum("ij,ij->j", V2, V2)
    return mean, var


def _chunk_predict(x, kernel, Z, L, LB, weights, return_std, y_mean, y_std):
    mean, var = predict_block(np.asarray(x, dtype=np.float64), kernel, Z, L, LB, weights,
                              return_std)
    mean = y_std * mean + y_mean
    if not return_std:
        return mean
    std = np.sqrt(np.outer(np.maximum(var, 0.0), y_std**2))
    return np.hstack([mean, std])


def predict_rows(est, rows, return_std: bool):
    """Mean (and std) of a fitted sparse GP at the test rows ``rows`` (a RowSource): one
    pass of :func:`predict_block` over the rows (per chunk on the workers for dask rows,
    whose result is then a lazy dask array)."""
    t = est._weights.shape[1]
    width = 2 * t if return_std else t
    out = rows.map_rows(_chunk_predict, width, est.kernel_, est.inducing_points_, est.L_,
                        est._LB, est._weights, return_std, est._y_train_mean,
                        est._y_train_std)
    mean = out[:, :t] if return_std else out
    mean = mean[:, 0] if est._y_ndim == 1 else mean
    if not return_std:
        return mean
    std = out[:, t:]
    return mean, (std[:, 0] if t == 1 else std)
