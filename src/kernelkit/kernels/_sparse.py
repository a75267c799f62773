"""Kernel primitives on ``scipy.sparse`` rows (CSR), never densifying the input.

Every kernel whose formula needs only inner products, norms or L1 distances works on
sparse rows through these:

- :func:`as_sparse_rows`: any scipy sparse matrix/array as canonical CSR (COO, LIL, DOK,
  CSC converted once; duplicate entries summed and indices sorted, as scipy does);
- :func:`sparse_gram`: the dense block ``X Y^T`` of two sparse row sets (Gustavson's
  row-by-row product into a dense output, parallel over the rows of X), or of a sparse and
  a dense set;
- :class:`SparseRowProducts`: rows of ``X X^T`` (or of the RBF ``exp(-||x - y||^2 / 2)``)
  for a few rows at a time, from the columns of X (CSC) kept once: the kernel rows of the
  dual solvers;
- :func:`sparse_row_norms_sq`: ``||x||^2`` per row from the stored values only;
- :func:`sparse_manhattan`: ``||x - y||_1`` by a merge of the sorted column indices of two
  rows (exact: a column stored in only one row contributes ``|x_k|``);
- :func:`scale_columns`: ``X diag(s)`` (ARD length scales), same sparsity pattern.

Only the dense *output* blocks are formed (their size is the caller's block plan).

Examples
--------
>>> import numpy as np
>>> import scipy.sparse as sp
>>> from kernelkit.kernels._sparse import sparse_gram, sparse_manhattan
>>> X = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
>>> sparse_gram(X, X)
array([[5., 0.],
       [0., 9.]])
>>> sparse_manhattan(X, X)
array([[0., 6.],
       [6., 0.]])
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

__all__ = [
    "is_sparse",
    "as_sparse_rows",
    "sparse_gram",
    "SparseRowProducts",
    "sparse_row_norms_sq",
    "sparse_manhattan",
    "scale_columns",
]


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array."""
    return sp.issparse(X)


def as_sparse_rows(X):
    """``X`` as canonical CSR (sorted indices, no duplicates) in float32 or float64.

    CSR input already canonical and of a float dtype is returned as is (no copy); COO,
    LIL, DOK, CSC, BSR and DIA are converted once. The class (``csr_matrix`` or
    ``csr_array``) follows the input's.
    """
    if np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(
            "Kernel input must be real; got complex values. Pass the real part (X.real) "
            "or split real and imaginary parts into separate features."
        )
    if X.ndim != 2:
        raise ValueError(f"Kernel input must be 2-D (n_samples, n_features); got shape "
                         f"{X.shape}.")
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    X = X.tocsr() if X.format != "csr" else X
    if X.dtype != dtype:
        X = X.astype(dtype)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # sums duplicate entries and sorts the indices, as scipy does
    return X


@njit(parallel=True, cache=True)
def _csr_gram(xp, xi, xv, tp, ti, tv, out):  # pragma: no cover - numba
    # out[i, j] = sum_k X[i, k] Y[j, k], with Y^T in CSR (tp, ti, tv): Gustavson's product,
    # row i of X scattering into the dense row out[i]
    n = out.shape[0]
    for i in prange(n):
        row = out[i]
        for p in range(xp[i], xp[i + 1]):
            k = xi[p]
            v = xv[p]
            for q in range(tp[k], tp[k + 1]):
                row[ti[q]] += v * tv[q]


@njit(parallel=True, cache=True)
def _csr_gram_few(xp, xi, xv, yp, yi, yv, d, out):  # pragma: no cover - numba
    # out[i, j] = <x_i, y_j> for a few rows x_i: x_i scattered into a dense d-vector, then
    # every row of Y gathers from it (O(d + nnz(Y)) per x_i, no transpose of Y)
    buf = np.zeros(d, dtype=out.dtype)
    for i in range(out.shape[0]):
        for p in range(xp[i], xp[i + 1]):
            buf[xi[p]] = xv[p]
        for j in prange(out.shape[1]):
            s = 0.0
            for q in range(yp[j], yp[j + 1]):
                s += buf[yi[q]] * yv[q]
            out[i, j] = s
        for p in range(xp[i], xp[i + 1]):
            buf[xi[p]] = 0.0


# below this many rows of X, X Y^T scatters each row instead of transposing Y (kernel rows
# fetched one at a time by the dual solvers)
_FEW_ROWS = 32


def sparse_gram(X, Y):
    """The dense ``X @ Y.T`` where ``X`` and/or ``Y`` is sparse (C-contiguous output).

    Two sparse sets: one Gustavson pass per row of X over the columns of Y (Y transposed
    to CSR once, O(nnz(Y))), written straight into the dense block. One sparse and one
    dense set: scipy's sparse-dense product.
    """
    dtype = np.result_type(X.dtype, Y.dtype)
    if not sp.issparse(Y):
        return np.ascontiguousarray(X @ np.asarray(Y, dtype=dtype).T, dtype=dtype)
    if not sp.issparse(X):
        return np.ascontiguousarray((Y @ np.asarray(X, dtype=dtype).T).T, dtype=dtype)
    X = as_sparse_rows(X)
    out = np.zeros((X.shape[0], Y.shape[0]), dtype=dtype)
    if X.shape[0] <= _FEW_ROWS:
        Y = as_sparse_rows(Y)
        if X.nnz and Y.nnz:
            _csr_gram_few(X.indptr, X.indices, X.data.astype(dtype, copy=False), Y.indptr,
                          Y.indices, Y.data.astype(dtype, copy=False), X.shape[1], out)
        return out
    Yt = sp.csr_matrix(as_sparse_rows(Y).T)  # columns of Y, i.e. the CSC of Y
    if X.nnz and Yt.nnz:
        _csr_gram(X.indptr, X.indices, X.data.astype(dtype, copy=False), Yt.indptr,
                  Yt.indices, Yt.data.astype(dtype, copy=False), out)
    return out


@njit(cache=True)
def _csc_row(xp, xi, xv, r, cp, ci, cv, h, s, rbf, lo, hi, o):  # pragma: no cover - numba
    # o[j] = <x_r, x_j> for lo <= j < hi, with X also held by columns (CSC: cp, ci, cv):
    # every stored x_rk scatters column k into o, so the cost is the non-zeros of the
    # columns x_r touches, not nnz(X); for lo > 0 each column's sorted row indices are
    # entered by binary search. rbf: exp(min(s <x_r, x_j> - h_r - h_j, 0)) with s = 2 gamma,
    # h = gamma ||x||^2 (-gamma ||x - y||^2 expanded, clipped at 0)
    o[lo:hi] = 0.0
    for p in range(xp[r], xp[r + 1]):
        k = xi[p]
        v = xv[p]
        q = cp[k]
        if lo > 0:
            q += np.searchsorted(ci[cp[k]:cp[k + 1]], lo)
        while q < cp[k + 1] and ci[q] < hi:
            o[ci[q]] += v * cv[q]
            q += 1
    if rbf:
        for j in range(lo, hi):
            g = s * o[j] - h[r] - h[j]
            o[j] = np.exp(g) if g < 0.0 else 1.0


@njit(cache=True)
def _csc_rows_serial(xp, xi, xv, rows, slots, cp, ci, cv, h, s, rbf,
                     out):  # pragma: no cover - numba
    # out[slots[t]] = row rows[t], one after the other (no thread start-up for one row)
    for t in range(rows.shape[0]):
        _csc_row(xp, xi, xv, rows[t], cp, ci, cv, h, s, rbf, 0, out.shape[1], out[slots[t]])


@njit(parallel=True, cache=True)
def _csc_rows_parallel(xp, xi, xv, rows, slots, cp, ci, cv, h, s, rbf, n_chunks,
                       out):  # pragma: no cover - numba
    # the same, one task per (row, range of n_chunks output columns)
    m = out.shape[1]
    for task in prange(rows.shape[0] * n_chunks):
        t = task // n_chunks
        c = task % n_chunks
        _csc_row(xp, xi, xv, rows[t], cp, ci, cv, h, s, rbf, c * m // n_chunks,
                 (c + 1) * m // n_chunks, out[slots[t]])


# at most this many rows per call are computed on one thread (the dual solvers' single-row
# fetches: a parallel region costs more than a row, worse on a loaded machine)
_SERIAL_ROWS = 8


class SparseRowProducts:
    """Rows of ``X X^T``, or of ``exp(-gamma ||x_i - x_j||^2)``, for sparse ``X``, a few at
    a time.

    X is kept twice, by rows (the input) and by columns (one CSC copy, made once), so that
    row i costs the non-zeros of the columns that ``x_i`` touches (one scatter per stored
    value) instead of a pass over all of X, and no Python work per row beyond one call.
    A few rows are computed on one thread, a block of rows in parallel.

    Parameters
    ----------
    X : sparse matrix of shape (n, d)
        Converted to canonical CSR (:func:`as_sparse_rows`); its dtype (float32 or float64)
        is that of the rows computed.
    gamma : float, optional
        Rows of the RBF kernel ``exp(-gamma ||x - y||^2)`` of X instead of inner products
        (for ARD length scales, scale the columns of X first and pass ``gamma=0.5``).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from kernelkit.kernels._sparse import SparseRowProducts
    >>> X = sp.random(6, 5, density=0.4, format="csr", random_state=0)
    >>> out = np.zeros((6, 6))
    >>> SparseRowProducts(X).into(out, np.array([4, 1]), np.array([0, 1]))
    >>> bool(np.allclose(out[:2], (X @ X.T).toarray()[[4, 1]]))
    True
    """

    def __init__(self, X, gamma: float | None = None):
        from numba import get_num_threads

        self.X = as_sparse_rows(X)
        cols = self.X.tocsc()
        cols.sort_indices()  # row indices increasing within every column
        self._cols = cols
        self.rbf = gamma is not None
        g = 0.0 if gamma is None else float(gamma)
        self._s = 2.0 * g
        # gamma ||x||^2 per row (the distance expansion), in the dtype of the rows
        self._h = (g * sparse_row_norms_sq(self.X)).astype(self.X.dtype, copy=False) \
            if self.rbf else np.zeros(1, self.X.dtype)
        self._threads = get_num_threads()

    @property
    def nbytes(self) -> int:
        """Bytes held beyond the input: the CSC copy (and the half norms)."""
        c = self._cols
        return c.data.nbytes + c.indices.nbytes + c.indptr.nbytes + self._h.nbytes

    def into(self, out: np.ndarray, rows, slots) -> None:
        """``out[slots[t]] = K[rows[t]]`` (rows of length n, in ``out``'s dtype)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        if out.dtype != self.X.dtype or out.ndim != 2 or out.shape[1] != self.X.shape[0]:
            raise ValueError(f"out must have {self.X.shape[0]} columns of dtype "
                             f"{self.X.dtype}; got {out.shape}, {out.dtype}.")
        if len(rows) == 0:
            return
        X, C = self.X, self._cols
        args = (X.indptr, X.indices, X.data, rows, slots, C.indptr, C.indices, C.data,
                self._h, self._s, self.rbf)
        if len(rows) <= _SERIAL_ROWS or self._threads == 1:
            _csc_rows_serial(*args, out)
        else:
            n_chunks = max(1, -(-self._threads // len(rows)))  # every thread busy
            _csc_rows_parallel(*args, n_chunks, out)


def sparse_row_norms_sq(X) -> np.ndarray:
    """``||x_i||^2`` for every row of a sparse ``X``, from the stored values only."""
    X = as_sparse_rows(X)
    sq = X.data * X.data
    # sums of consecutive runs of the stored squares, one run per row (empty rows give 0)
    out = np.zeros(X.shape[0], dtype=X.dtype)
    nonempty = np.flatnonzero(np.diff(X.indptr))
    if nonempty.size:
        out[nonempty] = np.add.reduceat(sq, X.indptr[nonempty])
    return out


@njit(parallel=True, cache=True)
def _csr_manhattan(xp, xi, xv, yp, yi, yv, out):  # pragma: no cover - numba
    # ||x - y||_1 by merging the sorted column indices of the two rows: a column stored in
    # one row only contributes |value|, one stored in both |x_k - y_k|
    n, m = out.shape
    for i in prange(n):
        for j in range(m):
            p, pe, q, qe = xp[i], xp[i + 1], yp[j], yp[j + 1]
            s = 0.0
            while p < pe and q < qe:
                a, b = xi[p], yi[q]
                if a == b:
                    s += abs(xv[p] - yv[q])
                    p += 1
                    q += 1
                elif a < b:
                    s += abs(xv[p])
                    p += 1
                else:
                    s += abs(yv[q])
                    q += 1
            while p < pe:
                s += abs(xv[p])
                p += 1
            while q < qe:
                s += abs(yv[q])
                q += 1
            out[i, j] = s


def sparse_manhattan(X, Y):
    """L1 distance matrix between the rows of two sets, at least one of them sparse."""
    X = as_sparse_rows(X if sp.issparse(X) else sp.csr_matrix(X))
    Y = as_sparse_rows(Y if sp.issparse(Y) else sp.csr_matrix(Y))
    out = np.empty((X.shape[0], Y.shape[0]), dtype=np.result_type(X.dtype, Y.dtype))
    _csr_manhattan(X.indptr, X.indices, X.data, Y.indptr, Y.indices, Y.data, out)
    return out


def scale_columns(X, scale):
    """``X diag(scale)`` for sparse ``X`` (a scalar or one factor per column), CSR kept,
    the sparsity pattern unchanged."""
    scale = np.asarray(scale, dtype=X.dtype).reshape(-1)
    if scale.size == 1:
        return X * scale[0]
    Xs = X.copy()
    Xs.data *= scale[Xs.indices]  # column k of every row times scale[k]
    return Xs
