"""Kernel rows for the dual solvers: the whole matrix when it fits, else an LRU row cache.

:class:`KernelRows` holds ``K = k(X, X)`` either densely (computed once, float64 when
``n^2 * 8`` bytes fit in ``working_memory``, else float32 when ``n^2 * 4`` do) or as a cache of
``n_slots`` rows (as many as fit in working memory) with least-recently-used eviction.

The numba loops of the solvers read rows through the cache's view
(:class:`~kernelkit.linalg.row_cache.RowsView`: ``data`` (slots x n), ``slot_of``,
``last_used``, ``tick``, ``diag``) and :func:`~kernelkit.linalg.row_cache.take_row`; when a
row is not in the cache the loop returns to Python with the row it needs, Python calls
:meth:`fetch`, and the loop resumes (see :func:`kernelkit.solvers.solve_smo`). Slot choice
and eviction are :class:`~kernelkit.linalg.row_cache.SlotCache`'s, for these rows and for
their restriction to a subset of columns (:meth:`KernelRows.restrict`,
:class:`RestrictedRows`), which exposes the same view.

Row blocks are planned by :mod:`kernelkit.linalg.blocks`; a kernel that is the exponential
of one matrix product (``Kernel.exp_factors``, the RBF) has its rows formed by one GEMM
of the precomputed factors and an in-place exp, without rescaling X for every row. Sparse
rows of the Linear and RBF kernels come from
``Kernel.sparse_row_products`` (X also kept by columns, once; one numba call per row block
with the exp fused), other kernels' from ``kernel.block``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._core.interpreted import pick
from .._core.memory import populate_rows, row_store, store_mapping
from .._core.twin import twin
from ..kernels import Kernel, Precomputed
from .blocks import (
    block_rows,
    fits_in_memory,
    map_blocks,
    parallel_threads,
    working_memory_bytes,
)
from .row_cache import SlotCache

__all__ = ["ColumnRows", "KernelRows", "RestrictedRows", "as_kernel_rows", "gather_rows"]

# rows are computed in blocks of at most this many MiB (in cache, one GEMM each)
ROW_BLOCK_MIB = 32


class KernelRows(SlotCache):
    """Rows of a symmetric kernel matrix for the dual solvers.

    Three modes: ``"dense"`` (a given matrix, every row available), ``"lazy"`` (room for the
    whole matrix, rows computed when first needed, so rows a solver never touches are never
    computed) and ``"lru"`` (a cache of as many rows as fit in working memory, least
    recently used evicted). Rows are computed in blocks (:meth:`fetch_many`), one GEMM each.

    Parameters
    ----------
    kernel : Kernel
    X : ndarray of shape (n, d)
    working_memory : float, optional
        MiB; defaults to ``sklearn.get_config()["working_memory"]``.
    dense : bool, optional
        Force (``True``) or forbid (``False``) storage for the whole matrix; by default it is
        used when it fits in working memory.
    dtype : dtype, optional
        Storage type of the rows; by default float64 if the whole matrix fits in float64,
        otherwise float32 (rows are then computed from float32 inputs).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.rows import KernelRows
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> rows = KernelRows(RBF(), X, dense=False, working_memory=0.004, dtype=np.float64)
    >>> rows.mode, rows.data.shape
    ('lru', (10, 50))
    >>> bool(np.allclose(rows.row(3), RBF()(X)[3]))
    True
    """

    def __init__(self, kernel: Kernel | None, X, *, working_memory: float | None = None,
                 dense: bool | None = None, dtype=None, matrix: np.ndarray | None = None):
        if isinstance(kernel, Precomputed):  # the input is the matrix
            kernel, matrix = None, np.asarray(X)
        self.kernel, self._source, self._operator = kernel, X, None  # X as given: operator()
        budget = working_memory_bytes(working_memory)
        if matrix is not None:
            n = matrix.shape[0]
            self.n, self.X, self.mode, self._factors = n, None, "dense", None
            self._sparse = None
            self.data = np.ascontiguousarray(matrix)
            self._mapping = None
            self.diag = np.ascontiguousarray(np.diag(matrix), dtype=np.float64)
            self._init_slots(n, n, identity=True)
            return
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        self.n = n
        # blocks of kernel rows formed outside the cache (rows_dot) take at most an eighth
        # of the budget, so that the cache, X's copies and a block stay within it
        self._block_mib = max(0.25, min(2 * ROW_BLOCK_MIB, budget / 8 / 2**20))
        self.diag = np.ascontiguousarray(kernel.diag(X), dtype=np.float64)
        if dtype is None:
            dtype = np.float64 if n * n * 8 <= budget else np.float32
        dtype = np.dtype(dtype)
        # rows in float32 storage are computed from float32 inputs (half the GEMM cost)
        self.X = X.astype(dtype, copy=False) if getattr(X, "dtype", None) in (
            np.float32, np.float64) and not isinstance(kernel, Precomputed) else X
        if dense is None:
            dense = n * n * dtype.itemsize <= budget
        self._factors = None if kernel is None else kernel.exp_factors(self.X)
        if self._factors is not None:  # B^T kept contiguous: a row's GEMV reads it in order
            A, B = self._factors  # (20 us for 16,000 x 18 float32, 44 us through B.T)
            self._factors = (A, np.ascontiguousarray(B.T))
        # sparse X: rows of kernels that offer them straight from X's columns (Linear, RBF)
        self._sparse = None if kernel is None else kernel.sparse_row_products(self.X)
        n_slots = n if dense else int(min(n, max(2, budget // (dtype.itemsize * max(n, 1)))))
        self.mode = "lazy" if dense else "lru"
        self.data = row_store((n_slots, n), dtype)  # rows as asked: small pages
        self._mapping = store_mapping(self.data)
        self._init_slots(n, n_slots)

    def fetch(self, r: int) -> None:
        """Make row ``r`` available."""
        if self.slot_of[r] >= 0:
            return
        if self._sparse is not None:
            self.fetch_many(np.array([r]))
            return
        # the solvers' usual request: straight into its slot, without fetch_many's array
        # bookkeeping (~20 of a row's ~90 us); a slot never written has its pages mapped
        # at once (populate_rows)
        rows = np.array([r])
        slots = self._free_slots(rows)
        s = int(slots[0])
        if self.row_of_slot[s] < 0:
            populate_rows(self._mapping, self.data, s)
        self._block(rows, out=self.data[s : s + 1])
        self._placed(rows, slots)

    def fetch_many(self, rows) -> None:
        """Compute the missing rows among ``rows`` (one kernel block per chunk).

        In LRU mode at most ``n_slots // 2`` rows are fetched (the first ones), and rows
        used most recently are never evicted by the same call.
        """
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[self.slot_of[rows] < 0]
        if len(rows) > 1:  # distinct, first occurrences kept in order
            _, first = np.unique(rows, return_index=True)
            rows = rows[np.sort(first)]
        if len(rows) == 0:
            return
        if self.mode != "lazy":
            rows = rows[: max(1, self.n_slots // 2)]
        slots = self._free_slots(rows)
        if self._sparse is not None:  # straight into the slots, no block copied
            self._sparse.into(self.data, rows, slots)
            self.data[slots, rows] = self.diag[rows]  # diagonal of k(X, X) is diag
        else:
            self._compute_blocks(rows, slots)
        self._placed(rows, slots)

    def _block(self, rr, out=None) -> np.ndarray:
        """Rows ``rr`` of K (len(rr) x n, in the storage dtype), into ``out`` when given:
        the sparse rows' CSC products, one GEMM of the exp factors and an in-place exp, or
        the kernel's block; the diagonal entries are ``diag`` exactly."""
        if self._sparse is not None:
            out = np.empty((len(rr), self.n), self.dtype) if out is None else out
            self._sparse.into(out, rr, np.arange(len(rr)))
        elif self._factors is not None:
            A, Bt = self._factors
            out = np.matmul(A[rr], Bt, out=out)  # the exponent, one GEMM
            _exp_clipped(out)
        elif out is None:
            out = self.kernel.block(self.X[rr], self.X)
        else:
            out[...] = self.kernel.block(self.X[rr], self.X)
        out[np.arange(len(rr)), rr] = self.diag[rr]  # diagonal of k(X, X) is diag
        return out

    def _compute_blocks(self, rows, slots) -> None:
        """Rows into their slots, a block of at most ROW_BLOCK_MIB at a time (in place when
        the slots are consecutive: a single row, or the whole matrix)."""
        step = block_rows(self.n, 8, ROW_BLOCK_MIB)

        def one(start):
            rr, ss = rows[start : start + step], slots[start : start + step]
            s0 = int(ss[0])
            if np.array_equal(ss, np.arange(s0, s0 + len(ss))):  # consecutive: in place
                self._block(rr, out=self.data[s0 : s0 + len(ss)])
            else:
                self.data[ss] = self._block(rr)

        # dense blocks on parallel threads (one BLAS thread each): NumPy's exp of a block
        # then runs beside the other's, not after one multi-threaded GEMM (sparse rows
        # are already formed in parallel by their numba loop)
        threads = 1 if self._sparse is not None else parallel_threads(len(rows) * self.n)
        for _ in map_blocks(one, range(0, len(rows), step), threads):
            pass

    def fetch_all(self) -> np.ndarray:
        """The whole matrix (needs ``dense`` storage)."""
        if not self.dense:
            raise ValueError("The kernel matrix does not fit in working memory.")
        if self.mode == "lazy" and self.n_computed == 0:  # written whole: pages mapped at
            self.data = row_store(self.data.shape, self.dtype, populate=True)  # once
            self._mapping = store_mapping(self.data)
        self.fetch_many(np.flatnonzero(self.slot_of < 0))
        return self.data

    def row(self, r: int) -> np.ndarray:
        """Row ``r`` of K (fetched if needed)."""
        self.fetch(r)
        return self.data[self.slot_of[r]]

    def columns(self, cols) -> ColumnRows:
        """Rows of K restricted to the columns ``cols`` (sorted, distinct), one at a time:
        for a solver whose active set has shrunk (see :class:`ColumnRows`)."""
        return ColumnRows(self, cols)

    def restrict(self, cols, previous: RestrictedRows | None = None, *,
                 in_place: bool = False) -> RestrictedRows:
        """A cache of the same rows at the columns ``cols`` only (sorted, distinct), with
        the memory of this one; rows held here (and by ``previous``, an earlier
        restriction of these rows) are copied in, not formed again. For a solver whose
        active set has shrunk (see :class:`RestrictedRows`; ``in_place``: into the storage
        of ``previous``, which is then spent)."""
        return RestrictedRows(self, cols, previous, in_place)

    def matrix(self) -> np.ndarray:
        """The whole matrix K (every row formed once; needs ``dense`` storage)."""
        return self.fetch_all()

    def operator(self):
        """K for products (Newton's solver): the matrix given, else K in float64 when it
        fits in working memory, else a blockwise :class:`KernelOperator`; formed once (the
        problems of a one-vs-rest fit share it)."""
        if self.mode == "dense":
            return np.asarray(self.data, dtype=np.float64)
        if self._operator is None:
            from .sources import as_rows

            op = as_rows(self._source, kernel=self.kernel).gram_operator(self.kernel)
            self._operator = op.to_dense() if fits_in_memory(self.n * self.n * 8) else op
        return self._operator

    def rows_dot(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> np.ndarray:
        """``K[rows][:, cols] @ vals``, read as ``sum_c vals_c K[cols_c, rows]`` (symmetry).

        Uses the stored rows of ``cols`` when they are (or can be) held, else kernel blocks.
        """
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.asarray(vals, dtype=np.float64)
        out = np.zeros(len(rows))
        if len(cols) == 0 or len(rows) == 0:
            return out
        if self.dense or len(cols) <= self.n_slots // 2:
            self.fetch_many(cols)
            if 4 * len(rows) >= self.n:  # most of each row: whole rows summed, then read
                acc = np.zeros(self.n)  # at ``rows`` (a vectorized pass, not a gather
                # per entry: 1.5x faster); a small problem interpreted (_core/interpreted.py)
                pick(_cols_sum, self.n)(self.data, self.slot_of, cols, vals, acc)
                return acc[rows]
            pick(_cols_dot, self.n)(self.data, self.slot_of, rows, cols, vals, out)
            return out
        if self._sparse is not None or 2 * len(cols) >= self.n:
            # blocks against every row, vals scattered to length n: no copy of X[cols]
            # (most of X when the support is large); sparse rows come straight from the
            # CSC products into the block, without a sparse temporary
            w = np.zeros(self.n)
            np.add.at(w, cols, vals)
            step = block_rows(self.n, 8, self._block_mib)
            for start in range(0, len(rows), step):
                rr = rows[start : start + step]
                out[start : start + step] = self._block(rr) @ w
            return out
        Xc = self.X[cols]
        col_pos = np.full(self.n, -1, dtype=np.int64)
        col_pos[cols] = np.arange(len(cols))
        step = block_rows(len(cols), 8, self._block_mib)
        for start in range(0, len(rows), step):
            rr = rows[start : start + step]
            Kb = self.kernel.block(self.X[rr], Xc)
            j = col_pos[rr]
            hit = np.flatnonzero(j >= 0)
            Kb[hit, j[hit]] = self.diag[rr[hit]]
            out[start : start + step] = Kb @ vals
        return out


class ColumnRows:
    """``K[r, cols]`` for single rows ``r`` of a :class:`KernelRows`.

    A row held by the KernelRows is gathered; another is formed at the columns only: one
    GEMV of the exp factors on a contiguous copy of their ``cols`` columns and an exp
    (the RBF), the kernel's block against ``X[cols]`` (others), or a full sparse row then
    gathered. The diagonal entry, when ``r`` is among ``cols``, is ``diag[r]`` exactly.
    """

    def __init__(self, rows: KernelRows, cols):
        self.rows = rows
        self.cols = np.ascontiguousarray(cols, dtype=np.int64)
        self.pos = np.full(rows.n, -1, dtype=np.int64)  # row -> its place in cols, or -1
        self.pos[self.cols] = np.arange(len(self.cols))
        self._Bt = self._Xc = None
        if rows.mode != "dense" and rows._sparse is None:
            if rows._factors is not None:
                self._Bt = np.ascontiguousarray(rows._factors[1][:, self.cols])
            else:
                self._Xc = rows.X[self.cols]

    def into(self, r: int, out: np.ndarray) -> None:
        """``out[:] = K[r, cols]`` (``out`` of length ``len(cols)``, the rows' dtype)."""
        rows = self.rows
        s = rows.slot_of[r]
        if s >= 0:
            np.take(rows.data[s], self.cols, out=out)
        elif self._Bt is not None:
            np.matmul(rows._factors[0][r], self._Bt, out=out)
            _exp_clipped(out)
        elif self._Xc is not None:
            out[:] = rows.kernel.block(rows.X[r : r + 1], self._Xc)[0]
        else:  # sparse rows: the full row (one CSC product), then its columns
            np.take(rows._block(np.array([r]))[0], self.cols, out=out)
        p = self.pos[r]
        if p >= 0:
            out[p] = rows.diag[r]


class RestrictedRows(SlotCache):
    """Rows of a :class:`KernelRows` at the columns ``cols`` only, a cache of its own
    (the same :class:`~kernelkit.linalg.row_cache.SlotCache`, hence the same view).

    Row ``c`` here is kernel row ``cols[c]`` at ``cols``: once shrinking has left a fraction
    of a solver's variables active, each step reads two rows at the active columns only, and
    rows of length n would cost a read of n entries for a few (libsvm swaps the active
    variables to the front of its rows for this). The rows already held (by ``previous``,
    most recently used first, then by the full rows) are narrowed in one pass; the others
    are formed at those columns only (:class:`ColumnRows`). ``diag`` is ``K[cols, cols]``.
    The slots take as much memory as the full rows were given: when the m x m block fits
    in it, the mode is ``"lazy"`` (row c in slot c: ``data`` is ``K[np.ix_(cols, cols)]``
    in column order once every row is held, as it is at once when the full rows hold
    them), else ``"lru"``.

    ``in_place=True`` takes over the storage of ``previous`` (which is then spent: its
    rows are overwritten): a lazy restriction to a subset of its columns is narrowed where
    it lies (no second block beside it; the multiclass solver's later shrinks), another
    one is written into that storage when it is large enough (:attr:`capacity`).
    """

    def __init__(self, rows: KernelRows, cols, previous: RestrictedRows | None = None,
                 in_place: bool = False):
        m = len(cols)
        self.rows, self.at = rows, rows.columns(cols)
        self.cols, self.pos = self.at.cols, self.at.pos  # kernel row -> its column, or -1
        self.diag = np.ascontiguousarray(rows.diag[self.cols])
        budget = rows.data.nbytes
        n_slots = int(min(m, max(2, budget // max(1, m * rows.dtype.itemsize))))
        self.mode = "lazy" if n_slots == m else "lru"  # lazy: row c in slot c
        full = self.mode == "lazy" and bool(np.all(rows.slot_of[self.cols] >= 0))
        store = previous._store if in_place and previous is not None else None
        if store is None or store.dtype != rows.dtype or store.shape[0] < n_slots * m:
            store = row_store((n_slots * m,), rows.dtype, populate=full)  # written whole
        self._store = store  # flat: a later restriction in place reuses it
        self.data = store[: n_slots * m].reshape(n_slots, m)
        self._init_slots(m, n_slots)
        self._free = 0
        # previous's rows serve when cols are among its columns (a shrink)
        among = previous is not None and bool(np.all(previous.pos[self.cols] >= 0))
        if among and store is previous._store:
            self._narrow(previous)
        elif among:
            have = np.flatnonzero(previous.row_of_slot >= 0)
            have = have[np.argsort(-previous.last_used[have], kind="stable")]
            c = self.pos[previous.cols[previous.row_of_slot[have]]]
            self._take(previous.data, have[c >= 0], c[c >= 0], previous.pos[self.cols])
        held = rows.slot_of[self.cols]
        c = np.flatnonzero((held >= 0) & (self.slot_of < 0))
        self._take(rows.data, held[c], c, self.cols)

    @property
    def capacity(self) -> int:
        """Entries of the storage (a restriction ``in_place`` of ``m`` columns that fits
        the budget reuses it when ``m * m <= capacity``)."""
        return int(self._store.shape[0])

    def _narrow(self, previous: RestrictedRows) -> None:
        """This restriction written over ``previous``'s block in the same storage (``cols``
        among its columns), where both are lazy (row c in slot c); else nothing is taken
        from it (its storage may be overwritten as it is read)."""
        loc = previous.pos[self.cols]  # increasing, as both ``cols`` are sorted
        if previous.mode != "lazy" or self.mode != "lazy":
            return
        _narrow_in_place(self._store, previous.n_slots, loc)
        c = np.flatnonzero(previous.slot_of[loc] >= 0)  # rows held there are held here
        self._placed(c, c, computed=False)

    def _take(self, source, source_slots, positions, columns) -> None:
        """Rows ``source[source_slots]`` at ``columns`` as rows ``positions`` here, into
        their own slots (lazy) or free ones (as many as there are)."""
        lazy = self.mode == "lazy"
        k = len(positions) if lazy else min(len(positions), self.n_slots - self._free)
        if k <= 0:
            return
        slots = positions[:k] if lazy else np.arange(self._free, self._free + k)
        gather_rows(source, np.ascontiguousarray(source_slots[:k], dtype=np.int64),
                    np.ascontiguousarray(columns, dtype=np.int64), self.data,
                    np.ascontiguousarray(slots, dtype=np.int64), work=k * len(columns))
        self._placed(positions[:k], slots, computed=False)
        self._free += 0 if lazy else k

    def fetch(self, c: int) -> None:
        """Make row ``c`` (kernel row ``cols[c]`` at ``cols``) available."""
        if self.slot_of[c] >= 0:
            return
        if self.mode == "lazy":  # its own slot
            s = c
        elif self._free < self.n_slots:  # slots never used fill in order (no argmin)
            s = self._free
            self._free += 1
        else:
            s = self._slot_for_one()
        self.at.into(int(self.cols[c]), self.data[s])
        self._placed_one(c, s)


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


def _exp_clipped(G):
    """``G <- exp(min(G, 0))`` in place: the exponent -1/2 ||x - y||^2 <= 0 up to rounding.
    NumPy's SIMD exp: 16,000 float32 entries in about 10 us, against 60 us for a numba
    loop of scalar exps."""
    np.minimum(G, 0.0, out=G)
    np.exp(G, out=G)


@twin
def gather_rows(source, source_rows, columns, out, out_rows):  # pragma: no cover - numba
    """``out[out_rows[q]] = source[source_rows[q], columns]`` for every q (rows in parallel
    when the work is large: ``gather_rows(..., work=len(source_rows) * len(columns))``).
    Narrows held kernel rows to a subset of their columns (a solver's active set)."""
    for q in prange(source_rows.shape[0]):
        src = source[source_rows[q]]
        dst = out[out_rows[q]]
        for c in range(columns.shape[0]):
            dst[c] = src[columns[c]]


@njit(cache=True)
def _narrow_in_place(flat, m_old, loc):  # pragma: no cover - numba
    """``B[loc][:, loc]`` written over ``B = flat[:m_old^2].reshape(m_old, m_old)``, as
    ``flat[:m^2]``; ``loc`` increasing, so that each entry's write position q m + c is at
    most its read position loc[q] m_old + loc[c], and both increase: no entry still to be
    read is overwritten."""
    m = loc.shape[0]
    for q in range(m):
        src = loc[q] * m_old
        dst = q * m
        for c in range(m):
            flat[dst + c] = flat[src + loc[c]]


@njit(cache=True)
def _cols_sum(data, slot_of, cols, vals, acc):  # pragma: no cover - numba
    # acc = sum_c vals[c] K[cols[c]]  (whole rows)
    for c in range(cols.shape[0]):
        row = data[slot_of[cols[c]]]
        v = vals[c]
        for u in range(acc.shape[0]):
            acc[u] += v * row[u]


@njit(cache=True)
def _cols_dot(data, slot_of, rows, cols, vals, out):
    # out[k] = sum_c vals[c] K[cols[c], rows[k]]  (= (K[rows][:, cols] @ vals)[k] by symmetry)
    for c in range(cols.shape[0]):
        row = data[slot_of[cols[c]]]
        v = vals[c]
        for k in range(rows.shape[0]):
            out[k] += v * row[rows[k]]
