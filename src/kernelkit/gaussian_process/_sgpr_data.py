"""Training rows of the sparse GP: validated, optionally standardized, in memory or on Dask."""

from __future__ import annotations

import numpy as np

from .._core.validation import validate_data
from ..linalg import is_dask_array
from ._rows import InMemoryRows, TrainingRows, rows_per_block

__all__ = ["is_dask", "prepare_rows"]


def is_dask(*arrays) -> bool:
    return any(is_dask_array(a) for a in arrays)


def _standardize(Y, normalize: bool):
    """``(Y - mean) / std`` per column (std 0 -> 1) when ``normalize``; returns the pair too."""
    t = Y.shape[1]
    if not normalize:
        return Y, np.zeros(t), np.ones(t)
    mean, std = Y.mean(axis=0), Y.std(axis=0)
    std = np.where(std < 10 * np.finfo(float).eps, 1.0, std)
    return (Y - mean) / std, mean, std


def prepare_rows(estimator, X, y):
    """``(rows, y_mean, y_std, y_ndim)`` from numpy or dask ``X`` and ``y``.

    numpy: scikit-learn's validation (``validate_data``: finite, numeric, 2-D X, one target
    row per sample). dask: the data seam's :meth:`DaskRows.for_fit
    <kernelkit.linalg.dask_rows.DaskRows.for_fit>` (a running Client is required, the
    error of NystromKernelRidge otherwise; the chunks are checked for NaN/inf on the workers
    and persisted there).
    """
    rows_per = rows_per_block(512)  # the caller resets it once M is known
    if not is_dask(X, y):
        X, y = validate_data(estimator, X, y, multi_output=True, y_numeric=True,
                             dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        Y, mean, std = _standardize(y.reshape(len(X), -1), estimator.normalize_y)
        return InMemoryRows(X, Y, rows_per), mean, std, y.ndim
    return _prepare_dask(estimator, X, y, rows_per)


def _prepare_dask(estimator, X, y, rows_per):
    from distributed import get_client

    from ..linalg.dask_rows import DaskRows

    source, Y = DaskRows.for_fit(X, y, lambda dtype: np.float64, type(estimator).__name__)
    n, d = source.n_rows, source.n_features
    y_ndim = Y.ndim
    Y = Y.reshape(n, 1) if y_ndim == 1 else Y
    estimator.n_features_in_ = int(d)
    if hasattr(estimator, "feature_names_in_"):  # from an earlier fit on a DataFrame
        del estimator.feature_names_in_
    if estimator.normalize_y:
        mean = np.asarray(Y.mean(axis=0).compute(), dtype=float)
        std = np.asarray(Y.std(axis=0).compute(), dtype=float)
        std = np.where(std < 10 * np.finfo(float).eps, 1.0, std)
        Y = (Y - mean) / std
    else:
        mean, std = np.zeros(Y.shape[1]), np.ones(Y.shape[1])
    Y = get_client().persist(Y)  # the standardized targets on the workers, once
    return TrainingRows(source, Y, rows_per), mean, std, y_ndim
