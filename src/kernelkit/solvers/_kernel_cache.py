"""Kernel rows for the dual solvers: the whole matrix when it fits, else an LRU row cache.

:class:`KernelRows` holds ``K = k(X, X)`` either densely (computed once, float64 when
``n^2 * 8`` bytes fit in ``working_memory``, else float32 when ``n^2 * 4`` do) or as a cache of
``n_slots`` rows (as many as fit in working memory) with least-recently-used eviction.

The numba loops of the solvers read rows through the arrays ``data`` (slots x n),
``slot_of`` (row -> slot or -1), ``last_used`` (slot -> tick) and ``tick``; when a row is not
in the cache the loop returns to Python with the row it needs, Python calls :meth:`fetch`,
and the loop resumes (see :func:`kernelkit.solvers.solve_smo`).
"""

from __future__ import annotations

import numpy as np
import sklearn
from numba import njit

from ..kernels import Kernel

__all__ = ["KernelRows", "as_kernel_rows"]


class KernelRows:
    """Rows of a symmetric kernel matrix for the dual solvers.

    Parameters
    ----------
    kernel : Kernel
    X : ndarray of shape (n, d)
    working_memory : float, optional
        MiB; defaults to ``sklearn.get_config()["working_memory"]``.
    dense : bool, optional
        Force (``True``) or forbid (``False``) the dense matrix; by default dense when it fits.
    dtype : dtype, optional
        Storage type of the rows; by default float64 if the dense matrix fits in float64,
        otherwise float32.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.solvers._kernel_cache import KernelRows
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> rows = KernelRows(RBF(), X, dense=False, working_memory=0.004, dtype=np.float64)
    >>> rows.dense, rows.data.shape
    (False, (10, 50))
    >>> bool(np.allclose(rows.row(3), RBF()(X)[3]))
    True
    """

    def __init__(self, kernel: Kernel | None, X, *, working_memory: float | None = None,
                 dense: bool | None = None, dtype=None, matrix: np.ndarray | None = None):
        self.kernel, self.X = kernel, X
        wm = sklearn.get_config()["working_memory"] if working_memory is None else working_memory
        budget = float(wm) * 2**20
        if matrix is not None:
            n = matrix.shape[0]
            self.n = n
            self.data = np.ascontiguousarray(matrix)
            self.diag = np.ascontiguousarray(np.diag(matrix), dtype=np.float64)
            self._set_dense()
            return
        n = len(X)
        self.n = n
        self.diag = np.ascontiguousarray(kernel.diag(X), dtype=np.float64)
        if dtype is None:
            dtype = np.float64 if n * n * 8 <= budget else np.float32
        dtype = np.dtype(dtype)
        if dense is None:
            dense = n * n * dtype.itemsize <= budget
        if dense:
            self.data = _dense_kernel(kernel, X, dtype)
            self._set_dense()
        else:
            n_slots = int(min(n, max(2, budget // (dtype.itemsize * max(n, 1)))))
            self.dense = False
            self.data = np.empty((n_slots, n), dtype=dtype)
            self.slot_of = np.full(n, -1, dtype=np.int64)
            self.row_of_slot = np.full(n_slots, -1, dtype=np.int64)
            self.last_used = np.zeros(n_slots, dtype=np.int64)
            self.tick = np.zeros(1, dtype=np.int64)
            self.n_computed = 0

    def _set_dense(self):
        self.dense = True
        n = self.n
        self.slot_of = np.arange(n, dtype=np.int64)
        self.row_of_slot = np.arange(n, dtype=np.int64)
        self.last_used = np.zeros(n, dtype=np.int64)
        self.tick = np.zeros(1, dtype=np.int64)
        self.n_computed = n

    @property
    def dtype(self):
        return self.data.dtype

    def fetch(self, r: int) -> None:
        """Compute row ``r`` into the least-recently-used slot (no-op when present)."""
        if self.slot_of[r] >= 0:
            return
        s = int(np.argmin(self.last_used))
        old = self.row_of_slot[s]
        if old >= 0:
            self.slot_of[old] = -1
        self.data[s] = self.kernel._compute(self.X[r : r + 1], self.X)[0]
        self.data[s, r] = self.diag[r]  # diagonal of k(X, X) is kernel.diag (e.g. White)
        self.slot_of[r] = s
        self.row_of_slot[s] = r
        self.tick[0] += 1
        self.last_used[s] = self.tick[0]
        self.n_computed += 1

    def row(self, r: int) -> np.ndarray:
        """Row ``r`` of K (fetched if needed)."""
        self.fetch(r)
        return self.data[self.slot_of[r]]

    def rows_dot(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> np.ndarray:
        """``K[rows][:, cols] @ vals`` without forming more than a block of it."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.asarray(vals, dtype=np.float64)
        if len(cols) == 0 or len(rows) == 0:
            return np.zeros(len(rows))
        if self.dense:
            out = np.empty(len(rows))
            _dense_rows_dot(self.data, rows, cols, vals, out)
            return out
        out = np.empty(len(rows))
        Xc = self.X[cols]
        col_pos = np.full(self.n, -1, dtype=np.int64)
        col_pos[cols] = np.arange(len(cols))
        step = max(1, int(64 * 2**20 // (8 * len(cols))))
        for start in range(0, len(rows), step):
            rr = rows[start : start + step]
            Kb = self.kernel._compute(self.X[rr], Xc)
            # diagonal entries (row r, col r) are kernel.diag, as in the dense matrix
            j = col_pos[rr]
            hit = np.flatnonzero(j >= 0)
            Kb[hit, j[hit]] = self.diag[rr[hit]]
            out[start : start + step] = Kb @ vals
        return out


def as_kernel_rows(K, X=None, **kwargs) -> KernelRows:
    """A :class:`KernelRows` from a precomputed matrix, an existing KernelRows or a kernel."""
    if isinstance(K, KernelRows):
        return K
    if isinstance(K, Kernel):
        return KernelRows(K, X, **kwargs)
    K = np.asarray(K)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square kernel matrix; got shape {K.shape}.")
    if K.dtype not in (np.float32, np.float64):
        K = K.astype(np.float64)
    return KernelRows(None, None, matrix=K)


def _dense_kernel(kernel: Kernel, X, dtype) -> np.ndarray:
    """K = k(X, X) in ``dtype``; float32 is filled from float64 blocks (no n x n float64)."""
    n = len(X)
    if dtype == np.float64 or getattr(X, "dtype", None) == np.float32:
        K = kernel._compute(X, None)
        if K.dtype != dtype:
            K = K.astype(dtype)
        diag = kernel.diag(X)
        K[np.arange(n), np.arange(n)] = diag
        return np.ascontiguousarray(K)
    K = np.empty((n, n), dtype=dtype)
    step = max(1, int(128 * 2**20 // (8 * max(n, 1))))
    for start in range(0, n, step):
        sl = slice(start, min(start + step, n))
        K[sl] = kernel._compute(X[sl], X)
    K[np.arange(n), np.arange(n)] = kernel.diag(X)
    return K


@njit(cache=True)
def _dense_rows_dot(data, rows, cols, vals, out):
    # out[k] = sum_c K[rows[k], cols[c]] vals[c]
    for k in range(rows.shape[0]):
        row = data[rows[k]]
        s = 0.0
        for c in range(cols.shape[0]):
            s += row[cols[c]] * vals[c]
        out[k] = s

