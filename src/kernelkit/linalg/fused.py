"""Fused blockwise kernel products: ``K @ V`` with every kernel tile touched once, in cache.

A product ``K(X, Y) @ V`` is a sum over tiles ``K[I, J] V[J]``. Formed tile by tile, each tile
``T = K[I, J]`` of ``rows x cols`` entries is

1. one GEMM of the kernel's *factor rows* (``A[I] B[J]^T``): for the RBF,
   ``A = [x, ||x||^2, 1]`` and ``B = [y, -1/2, -||y||^2/2]`` (scaled by the length scales)
   give ``-||x - y||^2 / 2``; for the polynomial, ``A = [gamma x, coef0]`` and ``B = [y, 1]``
   give ``gamma x.y + coef0`` (the Laplacian's L1 distances come from its own pair loop);
2. the kernel's elementwise map in place (NumPy's SIMD ``exp``, or a serial numba loop);
3. ``acc[I] += T @ V[J]``,

all while the tile stays in the core's L2 cache: the tile size comes from the cache size
the machine reports (:func:`tile_shape`), not a constant. A row block ``I`` is summed over
its column tiles in column order on one thread, so a product does not depend on the number
of threads or their timing. Row blocks run on as many Python threads as BLAS threads are
allowed, each with one BLAS thread.

The kernel says how, through ``Kernel.tile_factors``: ``RBF``, ``Laplacian`` (L1
distances), ``Matern`` (nu = 1/2, 3/2, 5/2), ``Polynomial``, their ARD forms, and any of
them times a constant (``Constant * k``, ``k * Constant``, ``Scale``). Other kernels and
sparse rows keep the plain blockwise path of :class:`~kernelkit.linalg.KernelOperator`.

Examples
--------
>>> import numpy as np
>>> from kernelkit.kernels import RBF
>>> from kernelkit.linalg.fused import fused_matmul, tile_plan
>>> rng = np.random.default_rng(0)
>>> X, Y, V = rng.normal(size=(300, 4)), rng.normal(size=(200, 4)), rng.normal(size=(200, 3))
>>> plan = tile_plan(RBF(1.5), X, Y)
>>> bool(np.allclose(fused_matmul(plan, V), RBF(1.5)(X, Y) @ V))
True
"""

from __future__ import annotations

import functools
import os

import numpy as np
from numba import njit

from .._core.threads import blas_threads, limit_blas, pool
from .blocks import block_slices

__all__ = ["cache_bytes", "tile_shape", "TilePlan", "tile_plan", "fused_matmul",
           "fused_normal_matmul", "normal_strip_rows", "block_values", "block_partial",
           "block_gram", "MAX_FUSED_COLUMNS"]

#: products with more columns than this are GEMM-bound: the plain blockwise path serves
MAX_FUSED_COLUMNS = 64
_DEFAULT_L2 = 1 << 20  # when the machine does not say


@functools.lru_cache(maxsize=4)
def cache_bytes(level: int = 2) -> int:
    """Size of one core's cache of this ``level``, as Linux reports it (sysfs); 1 MiB for
    the L2 when it does not say."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in sorted(os.listdir(base)):
            path = os.path.join(base, entry)
            with open(os.path.join(path, "level")) as f:
                if int(f.read()) != level:
                    continue
            with open(os.path.join(path, "type")) as f:
                if f.read().strip() not in ("Unified", "Data"):
                    continue
            with open(os.path.join(path, "size")) as f:
                text = f.read().strip().upper()
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
            return int(text.rstrip("KMG")) * scale
    except (OSError, ValueError):
        pass
    return _DEFAULT_L2


def tile_shape(n_rows: int, n_cols: int, itemsize: int, l2: int | None = None) -> tuple:
    """``(rows, cols)`` of a kernel tile: half of the L2 cache (the other half holds the
    factor rows, ``V`` and the accumulator), 2 KiB of rows (256 float64, 512 float32: about
    square tiles, the fastest on the development machine), columns a multiple of 64.

    Examples
    --------
    >>> from kernelkit.linalg.fused import tile_shape
    >>> tile_shape(10**6, 10**6, 8, l2=2 << 20)
    (256, 512)
    >>> tile_shape(10**6, 10**6, 4, l2=2 << 20)
    (512, 512)
    >>> tile_shape(10**6, 100, 8, l2=2 << 20)
    (256, 100)
    """
    l2 = cache_bytes(2) if l2 is None else l2
    rows = min(2048 // itemsize, max(1, n_rows))
    cols = (l2 // 2) // (itemsize * rows)
    cols = max(64, cols - cols % 64)
    return rows, min(cols, max(1, n_cols))


class TilePlan:
    """How to form tiles of ``K(X, Y)``: factor rows, a GEMM (or an L1 loop) and a map.

    Made by :func:`tile_plan` from the kernel's :meth:`~kernelkit.kernels.Kernel.tile_factors`;
    ``transpose()`` gives the plan of ``K(Y, X) = K(X, Y)^T``.
    """

    def __init__(self, kernel, X, Y, factors, diag=None):
        self.kernel, self.X, self.Y = kernel, X, Y
        self.A, self.B, self.pair, self.apply = factors
        self.diag = diag  # k(x_i, x_i) for a symmetric plan (Y is None), else None
        self._swap = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.A.shape[0], self.B.shape[0]

    @property
    def dtype(self):
        return self.A.dtype

    def transpose(self) -> TilePlan:
        """The plan of ``K(Y, X)``."""
        if self.Y is None:
            return self
        if self._swap is None:
            self._swap = tile_plan(self.kernel, self.Y, self.X)
            self._swap._swap = self
        return self._swap

    def tile(self, rows: slice, cols: slice, out: np.ndarray) -> np.ndarray:
        """``K[rows, cols]`` written into ``out`` (a scratch of at least that shape)."""
        T = out[: rows.stop - rows.start, : cols.stop - cols.start]
        if self.pair is None:
            np.matmul(self.A[rows], self.B[cols].T, out=T)
        else:
            self.pair(self.A[rows], self.B[cols], T)
        self.apply(T)  # the kernel's map, in place
        if self.diag is not None and rows.start < cols.stop and cols.start < rows.stop:
            lo, hi = max(rows.start, cols.start), min(rows.stop, cols.stop)
            idx = np.arange(lo, hi)
            T[idx - rows.start, idx - cols.start] = self.diag[lo:hi]  # k(x, x) exactly
        return T


def tile_plan(kernel, X, Y=None) -> TilePlan | None:
    """The tile plan of ``K(X, Y)`` (``Y=None``: the symmetric ``K(X, X)``), or None when
    the kernel has no tile factors for these rows (sparse rows, other kernels).

    ``X`` and ``Y`` are the kernel's checked inputs; the tiles are in their dtype.
    """
    factors = kernel.tile_factors(X, Y)
    if factors is None:
        return None
    A, B, pair, apply = factors
    factors = (np.ascontiguousarray(A), np.ascontiguousarray(B), pair, apply)
    diag = None if Y is not None else np.asarray(kernel.diag(X), dtype=factors[0].dtype)
    return TilePlan(kernel, X, Y, factors, diag)


def _threads_for(n_entries: int) -> int:
    from .blocks import PARALLEL_MIN_ENTRIES

    return blas_threads() if n_entries >= PARALLEL_MIN_ENTRIES else 1


def fused_matmul(plan: TilePlan, V, acc_dtype=None) -> np.ndarray:
    """``K(X, Y) @ V`` tile by tile (V of shape (m,) or (m, k)).

    ``acc_dtype`` is the dtype of the sums over column tiles and of the result (default:
    the tiles' dtype, float64 for float64 V with float32 tiles); each tile's product is in
    the tiles' dtype.
    """
    n, m = plan.shape
    V = np.asarray(V)
    if V.shape[0] != m:
        raise ValueError(f"Operator has {m} columns but V has {V.shape[0]} rows.")
    acc_dtype = np.result_type(plan.dtype, V) if acc_dtype is None else np.dtype(acc_dtype)
    Vt = np.ascontiguousarray(V, dtype=plan.dtype)
    out = np.empty((n,) + V.shape[1:], dtype=acc_dtype)
    br, bc = tile_shape(n, m, plan.dtype.itemsize)
    cols = block_slices(m, bc)

    def row_block(rows: slice) -> None:
        scratch = np.empty((br, bc), dtype=plan.dtype)
        acc = np.zeros((rows.stop - rows.start,) + V.shape[1:], dtype=acc_dtype)
        for c in cols:
            acc += plan.tile(rows, c, scratch) @ Vt[c]  # (K V)[I] = sum_J K[I, J] V[J]
        out[rows] = acc

    _run(row_block, block_slices(n, br), _threads_for(n * m))
    return out


def normal_strip_rows(plan: TilePlan) -> int:
    """Rows of a strip ``K[I, :]`` that fits in half the L2 cache (a multiple of 8), or 0
    when fewer than 16 rows fit (then a strip is no longer a tile)."""
    n, m = plan.shape
    rows = (cache_bytes(2) // 2) // (plan.dtype.itemsize * max(m, 1))
    if rows < 16:
        return 0
    return min(rows - rows % 8, max(n, 1))


def _normal_part(plan: TilePlan, rows: slice, Vt, U, acc_dtype, strip: int,
                 values=None) -> np.ndarray:
    """``sum_I K[I]^T W[I]`` over the strips ``I`` of ``rows`` in order, with
    ``W[I] = K[I] V + U[I]`` (``Vt=None``: ``W = U``); each strip formed once, or read from
    ``values`` (the rows' kernel values formed by :func:`block_values`, kept). A vector V
    (or one column) goes row by row (:func:`_rows_normal`), so kept values are read in one
    call and give the sums of the strips formed one at a time, bit for bit (strips of the
    block's BLAS-sized products read kept values at 1.6x the time of whole-block products)."""
    m = plan.shape[1]
    like = Vt if Vt is not None else U
    part = np.zeros((m,) + like.shape[1:], dtype=acc_dtype)
    # a vector V, or one column (CG's iterates): row by row into part's one column
    vector = (Vt is not None and part.dtype == np.float64
              and (Vt.ndim == 1 or Vt.shape[1] == 1))
    if vector:
        v, acc = np.ascontiguousarray(Vt).reshape(-1), part.reshape(-1)  # views
        u = (np.ascontiguousarray(U[rows]).reshape(-1) if U is not None
             else np.empty(0, plan.dtype))
        if values is not None:  # kept: every row of the block in one pass
            _rows_normal(values[rows], v, u, acc)
            return part
    scratch = (np.empty((min(strip, rows.stop - rows.start), m), dtype=plan.dtype)
               if values is None else None)
    every = slice(0, m)
    for r in block_slices(rows.stop - rows.start, strip):  # r: within rows, s: in X
        s = slice(rows.start + r.start, rows.start + r.stop)
        T = plan.tile(s, every, scratch) if values is None else values[s]
        if vector:
            _rows_normal(T, v, u[r] if u.shape[0] else u, acc)
            continue
        if Vt is None:
            W = np.asarray(U[s], dtype=plan.dtype)
        else:
            W = T @ Vt
            if U is not None:
                W += U[s]
        part += T.T @ W  # K[I]^T (K[I] V + U[I])
    return part


#: lanes of the row sums in :func:`_rows_normal` (column c adds into lane c mod _LANES)
_LANES = 32


@njit(cache=True, nogil=True)
def _rows_normal(T, v, u, part):  # pragma: no cover - numba
    """``part += T_i (T_i . v + u_i)`` for the rows i of ``T`` in order, four at a time
    (one pass over v and one over part per four rows; ``u`` empty: no u), into the float64
    ``part``, without the GIL (the block threads run it).

    Each row sum ``T_i . v`` is split over ``_LANES`` lanes by column (column c into lane
    c mod ``_LANES``), which the compiler turns into vector adds, then the lanes are added
    in order in float64 and the columns past the last whole group of lanes one by one. The
    lanes and the four rows' combination ``w_0 T_i + ... + w_3 T_i+3`` are in T's dtype
    (float32 rows: float32 vector arithmetic, within a float32 GEMV's rounding, which sums
    all columns or all rows in float32; float64 rows: float64; the last n mod 4 rows in
    float64). The order of every sum is written out here, so it depends on the rows'
    order and on where the groups of four start only: strips whose heights are multiples
    of 4, read one after another, give the sums of their rows in one call, bit for bit.
    No fastmath: a reduction the compiler reassociates itself depends on the arrays'
    alignment (the vector loop's peeled first elements), and so on the thread count and on
    kept vs formed storage. (One float64 sum per row was latency-bound: 4.5x a float32
    GEMV pair per strip; now 1.2x.)"""
    m = T.shape[1]
    n = T.shape[0]
    L = _LANES
    whole = (m // L) * L
    has_u = u.shape[0] > 0
    lanes = np.zeros(4 * L, dtype=T.dtype)
    i = 0
    while i + 4 <= n:
        r0, r1, r2, r3 = T[i], T[i + 1], T[i + 2], T[i + 3]
        lanes[:] = 0.0
        for c0 in range(0, whole, L):
            for j in range(L):  # vector adds: lane j of each row
                c = c0 + j
                vc = v[c]
                lanes[j] += r0[c] * vc
                lanes[L + j] += r1[c] * vc
                lanes[2 * L + j] += r2[c] * vc
                lanes[3 * L + j] += r3[c] * vc
        w0, w1 = _lane_sum(lanes, 0, L), _lane_sum(lanes, L, L)
        w2, w3 = _lane_sum(lanes, 2 * L, L), _lane_sum(lanes, 3 * L, L)
        for c in range(whole, m):
            vc = np.float64(v[c])
            w0 += r0[c] * vc
            w1 += r1[c] * vc
            w2 += r2[c] * vc
            w3 += r3[c] * vc
        if has_u:
            w0 += u[i]
            w1 += u[i + 1]
            w2 += u[i + 2]
            w3 += u[i + 3]
        # the four rows' weights in T's dtype: one vector combination per column
        x0, x1, x2, x3 = r0.dtype.type(w0), r0.dtype.type(w1), r0.dtype.type(w2), r0.dtype.type(w3)
        for c in range(m):
            part[c] += x0 * r0[c] + x1 * r1[c] + x2 * r2[c] + x3 * r3[c]
        i += 4
    while i < n:  # the last rows, one at a time
        w = 0.0
        for c in range(m):
            w += np.float64(T[i, c]) * np.float64(v[c])
        if has_u:
            w += u[i]
        for c in range(m):
            part[c] += w * T[i, c]
        i += 1


@njit(cache=True, inline="always")
def _lane_sum(lanes, start, L):  # pragma: no cover - numba
    s = 0.0  # float64
    for j in range(start, start + L):  # in lane order
        s += lanes[j]
    return s


def fused_normal_matmul(plan: TilePlan, V=None, U=None, acc_dtype=np.float64) -> np.ndarray:
    """``K^T (K V + U)`` (``V=None``: ``K^T U``) with each strip of rows formed once, when a
    strip fits in half the L2 cache (few columns, as ``K_nM`` with M centers); else by two
    fused passes (``K @ V``, then ``K^T @ W``).

    Runs of 32 strips are summed on the threads and their partial sums added in order (the
    same sums whatever the timing).
    """
    n, m = plan.shape
    acc_dtype = np.dtype(acc_dtype)
    Vt = None if V is None else np.ascontiguousarray(V, dtype=plan.dtype)
    strip = normal_strip_rows(plan)
    if not strip:
        W = U if Vt is None else fused_matmul(plan, V, acc_dtype=acc_dtype)
        if Vt is not None and U is not None:
            W = W + U
        return fused_matmul(plan.transpose(), W, acc_dtype=acc_dtype)
    blocks = block_slices(n, 32 * strip)
    threads = min(_threads_for(n * m), len(blocks))
    total = _run(lambda rows: _normal_part(plan, rows, Vt, U, acc_dtype, strip), blocks,
                 threads, add=True)  # partial sums added in block order
    if total is None:
        like = Vt if Vt is not None else U
        total = np.zeros((m,) + like.shape[1:], dtype=acc_dtype)
    return total


def _block_strip(kernel, x, Y):
    """``(plan, strip)`` of one fixed row block: its tile plan and strip height, or
    ``(None, 0)`` when the kernel has no tile factors for these rows or no strip fits."""
    plan = tile_plan(kernel, x, Y)
    strip = normal_strip_rows(plan) if plan is not None else 0
    return (plan, strip) if strip else (None, 0)


def block_values(kernel, x, Y) -> np.ndarray:
    """``K(x, Y)`` of one fixed row block, formed as :func:`block_partial` forms it: strip
    by strip from the tile plan (the same tiles, the same GEMMs and maps), else
    ``kernel.block(x, Y)``. An operator that keeps its blocks keeps these, so that its
    products equal those of one that forms them on every pass (and of the dask chunks)."""
    plan, strip = _block_strip(kernel, x, Y)
    if plan is None:
        return kernel.block(x, Y)
    out = np.empty(plan.shape, dtype=plan.dtype)
    every = slice(0, plan.shape[1])
    with limit_blas(1):
        for s in block_slices(x.shape[0], strip):
            plan.tile(s, every, out[s])  # the strip _normal_part forms, in place
    return out


def block_partial(kernel, x, Y, V=None, u=None, values=None) -> np.ndarray:
    """``K(x, Y)^T (K(x, Y) V + u)`` (``V=None``: ``K(x, Y)^T u``) for one fixed row block
    ``x``, summed in float64: strip by strip in cache when the kernel has tile factors for
    these rows, a strip fits and V has at most ``MAX_FUSED_COLUMNS`` columns, else from the
    whole block (:func:`block_values`). ``values``: that block's values kept from
    :func:`block_values`, read instead of formed (the same strips, the same products).

    The in-memory operator with fixed blocks (kept or not) and its dask twin all call this
    on the same blocks, so their sums agree bit for bit.
    """
    plan, strip = _block_strip(kernel, x, Y)
    if plan is None or not (V is None or np.ndim(V) < 2 or V.shape[1] <= MAX_FUSED_COLUMNS):
        Kb = block_values(kernel, x, Y) if values is None else values
        W = u if V is None else Kb @ V
        if V is not None and u is not None:
            W += u
        return Kb.T @ W  # K_b^T (K_b V + U_b)
    Vt = None if V is None else np.ascontiguousarray(V, dtype=plan.dtype)
    with limit_blas(1):
        return _normal_part(plan, slice(0, x.shape[0]), Vt, u, np.float64, strip, values)


def block_gram(kernel, x, Y, u=None, values=None) -> tuple:
    """``(K_b^T K_b, K_b^T u)`` in float64 for one fixed row block ``x`` (``K_b = K(x, Y)``
    from :func:`block_values`, or the kept ``values``; ``u=None``: ``(K_b^T K_b,)``).

    ``K_b^T K_b`` is one symmetric rank-k update (BLAS syrk through NumPy's ``A.T @ A``)
    of the block cast to float64. The in-memory operator and the dask chunks call this on
    the same blocks and add the results in block order: the same normal matrix bit for bit.
    """
    Kb = block_values(kernel, x, Y) if values is None else values
    Kb = np.asarray(Kb, dtype=np.float64)
    gram = Kb.T @ Kb  # K_b^T K_b (syrk)
    return (gram,) if u is None else (gram, Kb.T @ np.asarray(u, dtype=np.float64))


def _run(fn, items, threads: int, add: bool = False):
    """``fn`` over ``items`` on ``threads`` Python threads with one BLAS thread each; with
    ``add``, the sum of the results in the order of ``items`` (None for no items)."""
    total = None
    with limit_blas(1):
        if threads <= 1 or len(items) <= 1:
            results = map(fn, items)
        else:
            results = pool(threads).map(fn, items)  # yielded in order
        for r in results:
            if add:
                if total is None:
                    total = r
                else:
                    total += r
    return total
