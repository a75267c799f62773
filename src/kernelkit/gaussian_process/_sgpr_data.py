"""Training rows of the sparse GP: validated, optionally standardized, wherever they live."""

from __future__ import annotations

import numpy as np

from ..linalg import check_rows
from ._rows import TrainingRows, rows_per_block

__all__ = ["prepare_rows"]


def _standardize(rows, Y, normalize: bool):
    """``(Y - mean) / std`` per column (std 0 -> 1) when ``normalize``; returns the pair
    too (the moments are reductions over the rows, brought to this process)."""
    t = Y.shape[1]
    if not normalize:
        return Y, np.zeros(t), np.ones(t)
    mean = np.asarray(rows.gather(Y.mean(axis=0)), dtype=float)
    std = np.asarray(rows.gather(Y.std(axis=0)), dtype=float)
    std = np.where(std < 10 * np.finfo(float).eps, 1.0, std)
    return (Y - mean) / std, mean, std


def prepare_rows(estimator, X, y):
    """``(rows, y_mean, y_std, y_ndim)`` from the training data, wherever it lives.

    :func:`kernelkit.linalg.check_rows`: in memory, scikit-learn's validation
    (``validate_data``: finite, numeric, 2-D X, one target row per sample); dask arrays are
    checked on the workers (a running Client is required, the error of NystromKernelRidge
    otherwise; non-finite chunks named) and the standardized targets persisted there.
    """
    rows_per = rows_per_block(512)  # the caller resets it once M is known
    source, y = check_rows(estimator, X, y, work_dtype=np.float64, multi_output=True,
                           y_numeric=True, dtype=np.float64)
    y_ndim = y.ndim
    Y = y.reshape(source.n_rows, 1) if y_ndim == 1 else y
    Y, mean, std = _standardize(source, Y, estimator.normalize_y)
    # the standardized targets beside the rows, once (on the workers for dask rows)
    return TrainingRows(source, source.persist(Y), rows_per), mean, std, y_ndim
