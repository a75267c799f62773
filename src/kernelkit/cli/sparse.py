"""Sparse data files for the ``kernelkit`` command: ``.npz`` and LibSVM/SVMlight text.

- ``.npz``: a matrix written by ``scipy.sparse.save_npz`` (read without pickle). Its target
  is a companion file given with ``--target FILE``: ``.npy`` (a 1-D array) or a CSV/Parquet
  file with exactly one column (header row first, as every data file of the command).
- ``.svm``, ``.svmlight``, ``.libsvm``: LibSVM/SVMlight text read by
  ``sklearn.datasets.load_svmlight_file``; the labels are in the file (``--target`` is not
  needed). Whether feature indices start at 0 or 1 is detected when fitting (as
  ``zero_based="auto"``: one-based unless an index 0 appears) and kept in the model file,
  so that ``predict``/``evaluate`` read their files the same way.

The matrix stays sparse (CSR) all the way to the estimator.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .info import CLIError

__all__ = ["SPARSE_SUFFIXES", "SVMLIGHT_SUFFIXES", "is_sparse_file", "read_sparse",
           "sparse_target"]

SPARSE_SUFFIXES = {".npz"}
SVMLIGHT_SUFFIXES = {".svm", ".svmlight", ".libsvm"}


def is_sparse_file(path: str) -> bool:
    return Path(path).suffix.lower() in SPARSE_SUFFIXES | SVMLIGHT_SUFFIXES


def _svmlight(path: str, n_features, zero_based):
    from sklearn.datasets import load_svmlight_file

    if zero_based is None:  # one-based unless an index 0 appears (sklearn's "auto")
        try:
            X, y = load_svmlight_file(path, n_features=n_features, zero_based=False)
            return X, y, False
        except ValueError as exc:
            if "index 0" not in str(exc).lower() and "invalid index" not in str(exc).lower():
                raise
        zero_based = True
    X, y = load_svmlight_file(path, n_features=n_features, zero_based=zero_based)
    return X, y, zero_based


def read_sparse(path: str, *, n_features: int | None = None, zero_based: bool | None = None):
    """(X as CSR, labels or None, meta): a sparse data file, with one-line errors."""
    import scipy.sparse as sp

    p = Path(path)
    if not p.is_file():
        raise CLIError(f"data file not found: {path}")
    svm = p.suffix.lower() in SVMLIGHT_SUFFIXES
    try:
        if svm:
            X, y, zero_based = _svmlight(path, n_features, zero_based)
        else:
            X, y = sp.load_npz(p), None
    except Exception as exc:  # noqa: BLE001 - any reader error becomes one line
        kind = "LibSVM/SVMlight text" if svm else "a scipy.sparse .npz (save_npz)"
        raise CLIError(f"cannot read {path} as {kind}: {' '.join(str(exc).split())}") from None
    X = sp.csr_matrix(X)
    if X.shape[0] == 0:
        raise CLIError(f"data file {path} has no rows")
    if n_features is not None and X.shape[1] != n_features:
        raise CLIError(f"the model expects {n_features} features; {path} has {X.shape[1]}")
    meta = {"data_format": "svmlight" if svm else "npz", "n_features": int(X.shape[1])}
    if svm:
        meta["svmlight_zero_based"] = bool(zero_based)
    return X, y, meta


def sparse_target(target: str | None, labels, n: int, data: str, kind: str, table):
    """The target of a sparse data file: ``--target FILE`` or the LibSVM labels.

    ``table(path)`` reads a CSV/Parquet file (the command's reader); ``kind`` is the
    estimator's kind ("regressor" needs numbers).
    """
    if target is None:
        if labels is None:
            raise CLIError(f"{data} holds no targets: give the target file with --target "
                           "(a .npy array or a one-column CSV/Parquet file)")
        y = labels
    elif Path(target).suffix.lower() == ".npy":
        if not Path(target).is_file():
            raise CLIError(f"target file not found: {target}")
        try:
            y = np.load(target, allow_pickle=False)
        except Exception as exc:  # noqa: BLE001
            raise CLIError(f"cannot read {target} as .npy: {' '.join(str(exc).split())}"
                           ) from None
        if y.ndim != 1:
            raise CLIError(f"target file {target} must hold a 1-D array; got shape {y.shape}")
    else:
        df = table(target)
        if df.shape[1] != 1:
            raise CLIError(f"target file {target} must have exactly one column; it has "
                           f"{df.shape[1]} ({', '.join(map(repr, list(df.columns)[:5]))})")
        col = df.iloc[:, 0]
        if col.isna().any():
            raise CLIError(f"target file {target} has missing values; fill or drop them")
        y = col.to_numpy()
        if y.dtype == object:
            y = y.astype(str)
    if len(y) != n:
        raise CLIError(f"the target has {len(y)} values but {data} has {n} rows")
    if kind == "regressor":
        if y.dtype.kind not in "iuf":
            raise CLIError(f"the target in {target or data} is not numeric; a regressor "
                           "needs numbers")
        y = y.astype(np.float64)
    return y
