"""KernelOperator: products with a kernel matrix computed in row blocks.

No block is larger than ``sklearn.get_config()["working_memory"]`` MiB, so ``K @ V`` for
n = 200,000 needs O(block) memory instead of an n x n matrix (Falkon's ``mmv``). The block
plan, the threaded map over blocks and the partial sums are :mod:`kernelkit.linalg.blocks`.

Two ways to cut the rows: adaptive blocks (as large as working memory allows, one per
thread) for plain products, or *fixed* blocks (``block_rows``, starting at row 0, whatever
the threads) whose transposed products are float64 sums of the per-block partials in
block order: the same floating-point operations in one process, on any number of threads
and on a dask cluster (:mod:`kernelkit.linalg.dask_rows`), bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..kernels import resolve_kernel
from . import fused
from .blocks import (
    block_rows,
    block_slices,
    map_blocks,
    parallel_threads,
    sum_partial_tuples,
    sum_partials,
)
from .homes import home_of

__all__ = ["KernelOperator", "block_rows"]


def _n_rows(X) -> int:
    """Rows of an input: ``shape[0]`` for arrays and scipy.sparse rows (no ``len``)."""
    shape = getattr(X, "shape", None)
    return shape[0] if shape is not None and len(shape) else len(X)


class KernelOperator:
    """The kernel matrix ``K(X, Y)`` as an operator; blocks are formed on demand.

    Parameters
    ----------
    kernel : Kernel or anything :func:`~kernelkit.kernels.resolve_kernel` accepts
    X : array of shape (n, d)
    Y : array of shape (m, d), optional
        Defaults to ``X`` (a symmetric operator whose diagonal is ``kernel.diag(X)``).
    working_memory : float, optional
        MiB per block; defaults to ``sklearn.get_config()["working_memory"]``.
    block_rows : int, optional, keyword-only
        Fixed blocks of this many rows (see :func:`~kernelkit.linalg.blocks.block_rows`
        with ``quantum``): the blocks are formed in X's dtype (``block_dtype``; float32
        stays float32), ``V`` and ``U`` are cast to it, and ``t_matmul`` /
        ``normal_matmul`` return float64 sums of the per-block partials in block order
        (``dtype`` is float64), the same whatever the number of threads.
    keep_blocks : bool, default=False, keyword-only
        With ``block_rows``: form the blocks once, at the first product, and keep them for
        the next ones (all of ``K(X, Y)`` in memory: for when it fits).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg import KernelOperator
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> op = KernelOperator(RBF(), X)
    >>> v = np.ones(500)
    >>> bool(np.allclose(op @ v, op.to_dense() @ v))
    True

    Fixed blocks give float64 sums of the partials, block after block:

    >>> fixed = KernelOperator(RBF(), X, X[:10], block_rows=64)
    >>> adaptive = KernelOperator(RBF(), X, X[:10])
    >>> fixed.dtype, bool(np.allclose(fixed.t_matmul(v), adaptive.t_matmul(v)))
    (dtype('float64'), True)

    Products with at most ``fused.MAX_FUSED_COLUMNS`` (64) columns form the kernel tile by
    tile in the L2 cache for the kernels that offer ``tile_factors`` (RBF, Laplacian, Matern,
    Polynomial and their constant multiples; :mod:`kernelkit.linalg.fused`): no block of
    working-memory size is allocated, and each tile is formed once.

    A dask array ``X`` (rows in chunks, with a running ``dask.distributed`` Client) gives
    an operator whose products run chunk by chunk on the workers and are reduced on the
    client (see :mod:`kernelkit.linalg.dask_rows`); ``Y`` then stays in memory.
    """

    __array_ufunc__ = None  # ``ndarray @ op`` defers to __rmatmul__

    # rows computed in this process (any array); a row home's operator (rows in dask
    # chunks, :mod:`kernelkit.linalg.dask_rows`) computes where its rows are
    in_memory = True

    def __new__(cls, kernel=None, X=None, Y=None, working_memory=None, **kwargs):
        # the data seam's one table says where X lives (:mod:`kernelkit.linalg.homes`)
        if cls is KernelOperator and (home := home_of(X)) is not None:
            return super().__new__(home.operator_class)
        return super().__new__(cls)

    def __init__(self, kernel, X, Y=None, working_memory: float | None = None, *,
                 block_rows: int | None = None, keep_blocks: bool = False):
        self.kernel = resolve_kernel(kernel, n_features=np.shape(X)[1] if np.ndim(X) == 2 else None)
        self.X = self.kernel.check_input(X)
        self.symmetric = Y is None
        self.Y = self.X if Y is None else self.kernel.check_input(Y)
        if Y is not None:
            self.kernel.check_pair(self.X, self.Y)
        self.working_memory = working_memory
        self.block_rows = None if block_rows is None else int(block_rows)
        self.keep_blocks = bool(keep_blocks)
        self._kept = None
        self._plan = False  # not looked up yet

    # ---------------------------------------------------------------- basics
    @property
    def shape(self) -> tuple[int, int]:
        return (_n_rows(self.X), _n_rows(self.Y))

    @property
    def fixed_blocks(self) -> bool:
        """Whether the rows are cut in fixed blocks with float64 partial sums."""
        return self.block_rows is not None

    @property
    def block_dtype(self):
        """The dtype of the kernel blocks (X's: float32 stays float32)."""
        return np.dtype(getattr(self.X, "dtype", np.float64))

    @property
    def dtype(self):
        """The dtype of the products: float64 sums with fixed blocks, else X's."""
        return np.dtype(np.float64) if self.fixed_blocks else self.block_dtype

    def _rows(self) -> int:
        return block_rows(self.shape[1], self.block_dtype.itemsize, self.working_memory)

    def _slices(self, min_blocks: int = 1) -> list[slice]:
        if self.fixed_blocks:
            return block_slices(self.shape[0], self.block_rows)
        # with min_blocks blocks in flight at once (one per thread), each gets 1/min_blocks
        # of the working memory, so the blocks alive together still fit in it
        n, step = self.shape[0], self._rows()
        step = max(1, min(step // min_blocks, -(-n // min_blocks)))
        return block_slices(n, step)

    def _block(self, sl: slice, diag: np.ndarray | None) -> np.ndarray:
        """``K[sl, :]``; ``diag`` is ``kernel.diag(X)`` for a blocked symmetric operator."""
        if self.symmetric and sl.stop - sl.start == self.shape[0]:
            return self.kernel.block(self.X, None)
        Kb = self.kernel.block(self.X[sl], self.Y)
        if diag is not None:
            # diagonal of K(X, X) is kernel.diag (e.g. White noise), not K(x_i, x_i) cross
            idx = np.arange(sl.start, sl.stop)
            Kb[idx - sl.start, idx] = diag[sl]
        return Kb

    def _diag_for_blocks(self, slices) -> np.ndarray | None:
        return self.kernel.diag(self.X) if self.symmetric and len(slices) > 1 else None

    def blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(rows, K[rows, :])`` blocks, each within working memory."""
        slices = self._slices()
        diag = self._diag_for_blocks(slices)
        for sl in slices:
            Kb = self._block(sl, diag)
            yield sl, Kb
            del Kb  # free this block before the next one is formed

    def _map_blocks(self, fn) -> Iterator:
        """``fn(rows, K[rows, :])`` for every row block, yielded in block order.

        With several BLAS threads allowed (threadpoolctl / OMP_NUM_THREADS), blocks are
        formed and multiplied on that many Python threads with one BLAS thread each (see
        :func:`~kernelkit.linalg.blocks.map_blocks`). Fixed blocks always run on one BLAS
        thread each, so each partial is computed the same way whatever the thread count;
        with ``keep_blocks`` they are formed at the first product and kept.
        """
        n, m = self.shape
        threads = parallel_threads(n * m) if n > 1 else 1
        slices = self._slices(min_blocks=1 if self.fixed_blocks else threads)
        if self.fixed_blocks and self.keep_blocks:
            kept = self._kept_blocks(slices, threads)
            return map_blocks(lambda i: fn(slices[i], kept[i]), range(len(slices)), threads,
                              pin_blas=True)
        diag = self._diag_for_blocks(slices)
        return map_blocks(lambda sl: fn(sl, self._block(sl, diag)), slices, threads,
                          pin_blas=self.fixed_blocks)

    def _in_memory_cross(self) -> bool:
        """Whether the rows are dense or any array in memory (not another row home) and the
        operator is not symmetric: the fixed-block products of :mod:`fused` serve it."""
        return not self.symmetric and self.in_memory

    def _kept_blocks(self, slices, threads) -> list:
        """The fixed blocks, formed at the first call and kept: as :func:`fused.block_values`
        forms them (the strips the other products form) where :meth:`_fixed_partials`
        serves, else by :meth:`_block`."""
        if self._kept is None:
            if self._in_memory_cross():
                def form(sl):
                    return fused.block_values(self.kernel, self.X[sl], self.Y)
            else:
                def form(sl):
                    return self._block(sl, None)
            self._kept = list(map_blocks(form, slices, threads, pin_blas=True))
        return self._kept

    def _cast(self, A, rows: int, name: str):
        """``A`` for the partial products: in the blocks' dtype with fixed blocks."""
        if A is None:
            return None
        A = np.asarray(A, dtype=self.block_dtype) if self.fixed_blocks else np.asarray(A)
        if A.shape[0] != rows:
            raise ValueError(f"Expected {rows} rows in {name}; got {A.shape[0]}.")
        return A

    def _sum(self, parts, like: np.ndarray) -> np.ndarray:
        """The partials added in block order: float64 with fixed blocks."""
        if self.fixed_blocks:
            return sum_partials(parts)
        out = np.zeros((self.shape[1],) + like.shape[1:], dtype=np.result_type(self.dtype, like))
        return sum_partials(parts, out)

    def to_dense(self) -> np.ndarray:
        """The full matrix (only when it fits in memory)."""
        return self.kernel.block(self.X, None if self.symmetric else self.Y)

    def diag(self) -> np.ndarray:
        """Diagonal of a square operator."""
        if not self.symmetric and self.shape[0] != self.shape[1]:
            raise ValueError("diag() needs a square operator.")
        if self.symmetric:
            return self.kernel.diag(self.X)
        # k(x_i, y_i) from the diagonals of 256 x 256 blocks K(X[b], Y[b]): O(256 n) work
        out = np.empty(self.shape[0], dtype=self.block_dtype)
        for sl in block_slices(self.shape[0], 256):
            out[sl] = np.diagonal(self.kernel.block(self.X[sl], self.Y[sl]))
        return out

    # ----------------------------------------------------------- fused tiles
    def _tile_plan(self, A=None):
        """The fused tile plan of the whole operator (:mod:`kernelkit.linalg.fused`) when
        the products of ``A`` (V or U) go through it, else None: a kernel with a plan,
        dense rows, at most ``MAX_FUSED_COLUMNS`` columns, blocks not kept."""
        if A is not None and (A.ndim > 2 or (A.ndim == 2 and A.shape[1] > fused.MAX_FUSED_COLUMNS)):
            return None
        if self.keep_blocks or not self.in_memory:
            return None
        if self._plan is False:
            self._plan = fused.tile_plan(self.kernel, self.X, None if self.symmetric else self.Y)
        return self._plan

    def _fixed_partials(self, V, U):
        """``sum_b K_b^T (K_b V + U_b)`` (``V=None``: ``K_b^T U_b``) over the fixed blocks in
        block order, each block strip by strip in cache where it can
        (:func:`fused.block_partial`, as the dask operator's chunks; kept blocks are read
        strip by strip the same way), or None for a symmetric operator (its diagonal) and
        other row homes."""
        if not self._in_memory_cross():
            return None
        Vt = None if V is None else np.asarray(V, dtype=self.block_dtype)
        slices = self._slices()
        threads = parallel_threads(self.shape[0] * self.shape[1]) if self.shape[0] > 1 else 1
        kept = self._kept_blocks(slices, threads) if self.keep_blocks else None

        def part(i):
            sl = slices[i]
            return fused.block_partial(self.kernel, self.X[sl], self.Y, Vt,
                                       None if U is None else U[sl],
                                       values=None if kept is None else kept[i])

        return sum_partials(map_blocks(part, range(len(slices)), threads, pin_blas=True))

    def normal_gram(self, U=None) -> tuple:
        """``(K^T K, K^T U)`` (``U=None``: the second is None), float64 sums of the per-block
        products in block order (:func:`fused.block_gram`), for fixed blocks (``block_rows``)
        of an in-memory cross operator: the normal matrix of least squares on the columns of
        K, the same bit for bit on any number of threads and on a dask cluster.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> from kernelkit.linalg import KernelOperator
        >>> X = np.random.default_rng(0).normal(size=(300, 2)); C = X[:20]
        >>> G, r = KernelOperator(RBF(), X, C, block_rows=64).normal_gram(np.ones(300))
        >>> K = RBF()(X, C)
        >>> bool(np.allclose(G, K.T @ K)), bool(np.allclose(r, K.T @ np.ones(300)))
        (True, True)
        """
        if not (self.fixed_blocks and self._in_memory_cross()):
            raise ValueError("normal_gram needs fixed blocks (block_rows=...) of K(X, Y) "
                             "with dense or in-memory rows X and a separate Y.")
        U = self._cast(U, self.shape[0], "U")
        slices = self._slices()
        threads = parallel_threads(self.shape[0] * self.shape[1]) if self.shape[0] > 1 else 1
        kept = self._kept_blocks(slices, threads) if self.keep_blocks else None

        def part(i):
            sl = slices[i]
            return fused.block_gram(self.kernel, self.X[sl], self.Y,
                                    None if U is None else U[sl],
                                    values=None if kept is None else kept[i])

        total = sum_partial_tuples(map_blocks(part, range(len(slices)), threads,
                                              pin_blas=True))  # in block order
        return total[0], (total[1] if U is not None else None)

    # --------------------------------------------------------------- products
    def matmul(self, V) -> np.ndarray:
        """``K @ V`` for V of shape (m,) or (m, k), blockwise over rows (fused tiles in
        cache for the kernels of :func:`~kernelkit.linalg.fused.tile_plan`)."""
        V = np.asarray(V)
        if V.shape[0] != self.shape[1]:
            raise ValueError(f"Operator has {self.shape[1]} columns but V has {V.shape[0]} rows.")
        plan = self._tile_plan(V)
        if plan is not None:
            return fused.fused_matmul(plan, V, acc_dtype=np.result_type(self.dtype, V))
        out = np.empty((self.shape[0],) + V.shape[1:], dtype=np.result_type(self.dtype, V))
        for sl, part in self._map_blocks(lambda sl, Kb: (sl, Kb @ V)):
            out[sl] = part  # (K V)[rows] = K[rows, :] V
        return out

    __matmul__ = matmul

    def __rmatmul__(self, U) -> np.ndarray:
        """``U @ K`` for U of shape (n,) or (k, n): ``(K^T U^T)^T``, blockwise."""
        U = np.asarray(U)
        return self.t_matmul(U) if U.ndim == 1 else self.t_matmul(U.T).T

    def t_matmul(self, U) -> np.ndarray:
        """``K.T @ U`` for U of shape (n,) or (n, k), the sum over row blocks."""
        U = np.asarray(U)
        if U.shape[0] != self.shape[0]:
            raise ValueError(f"Operator has {self.shape[0]} rows but U has {U.shape[0]} rows.")
        U = self._cast(U, self.shape[0], "U")
        if self.fixed_blocks:
            if (out := self._fixed_partials(None, U)) is not None:
                return out
        elif (plan := self._tile_plan(U)) is not None:
            return fused.fused_normal_matmul(plan, None, U,
                                             acc_dtype=np.result_type(self.dtype, U))
        return self._sum(self._map_blocks(lambda sl, Kb: Kb.T @ U[sl]), U)  # sum_b K_b^T U_b

    def normal_matmul(self, V, U=None) -> np.ndarray:
        """``K.T @ (K @ V) [+ K.T @ U]`` in one pass over the row blocks."""
        V = np.asarray(V)
        if self.fixed_blocks:
            V = self._cast(V, self.shape[1], "V")
        U = self._cast(U, self.shape[0], "U")
        if self.fixed_blocks:
            if (out := self._fixed_partials(V, U)) is not None:
                return out
        elif (plan := self._tile_plan(V)) is not None:
            return fused.fused_normal_matmul(plan, V, U, acc_dtype=np.result_type(self.dtype, V))

        def part(sl, Kb):
            W = Kb @ V
            if U is not None:
                W += U[sl]
            return Kb.T @ W  # K_b^T (K_b V + U_b)

        return self._sum(self._map_blocks(part), V)

    @property
    def T(self) -> LinearOperator:
        """The transpose as a scipy LinearOperator (products via :meth:`t_matmul`)."""
        n, m = self.shape
        return LinearOperator((m, n), matvec=self.t_matmul, matmat=self.t_matmul,
                              rmatvec=self.matmul, dtype=self.dtype)

    # scipy's aslinearoperator (hence scipy.sparse.linalg.cg/minres/eigsh) reads these
    def matvec(self, v) -> np.ndarray:
        """``K @ v`` (scipy's LinearOperator protocol)."""
        return self.matmul(v)

    def rmatvec(self, u) -> np.ndarray:
        """``K.T @ u`` (scipy's LinearOperator protocol)."""
        return self.t_matmul(u)

    def as_linear_operator(self) -> LinearOperator:
        """A scipy ``LinearOperator`` view (for scipy's iterative solvers)."""
        return LinearOperator(self.shape, matvec=self.matmul, matmat=self.matmul,
                              rmatvec=self.t_matmul, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"KernelOperator({self.kernel!r}, shape={self.shape})"

