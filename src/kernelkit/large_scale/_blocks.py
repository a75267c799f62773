"""Falkon's passes over the data in fixed row blocks, summed in float64 in block order.

Every product Falkon needs is a sum over row blocks b of ``K_nM``,

    K_nM^T (K_nM V) = sum_b K_b^T (K_b V),    K_nM^T U = sum_b K_b^T U_b,

where ``K_b = K(X[b], centers)``. Here the blocks are fixed: ``block_rows`` rows each,
starting at row 0 (the last one shorter), whatever the number of threads. Each partial
``K_b^T W_b`` is computed in the working precision (float32 stays float32) on one BLAS
thread, and the partials are added in float64 in block order. On a dask cluster
(:mod:`._dask`) each chunk returns its blocks' partials and the client adds them in the
same order, so when every chunk but the last is a whole number of blocks the two paths do
the same floating-point operations in the same order: the same coefficients, bit for bit,
in float32 as in float64.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..linalg.operator import (
    PARALLEL_MIN_ENTRIES,
    KernelOperator,
    _blas_threads,
    _controller,
    _executor,
)

__all__ = ["falkon_block_rows", "block_slices", "kernel_blocks", "block_partials",
           "sum_partials", "BlockKernelOperator"]

# block heights are rounded down to a multiple of this (so that round chunk sizes align)
ROW_QUANTUM = 64


def falkon_block_rows(n_rows: int, n_cols: int, itemsize: int, working_memory: float) -> int:
    """Rows per block: ``rows x n_cols`` entries within ``working_memory`` MiB.

    Depends on the sizes only (not on threads), so that every process that fits the same
    data blocks it the same way. Rounded down to a multiple of 64 rows when that many fit.
    """
    rows = max(1, int(working_memory * 2**20 // (itemsize * max(n_cols, 1))))
    if rows >= ROW_QUANTUM:
        rows -= rows % ROW_QUANTUM
    return max(1, min(rows, n_rows))


def block_slices(n: int, rows: int) -> list[slice]:
    """``[0, rows), [rows, 2 rows), ...`` up to n."""
    return [slice(a, min(a + rows, n)) for a in range(0, n, rows)]


def _map_blocks(fn, n_items: int, big: bool) -> Iterator:
    """``fn(i)`` for i < n_items, yielded in order; on as many Python threads as BLAS
    threads are allowed when ``big``, always with one BLAS thread per call."""
    n_threads = min(_blas_threads() if big else 1, n_items)
    with _controller().limit(limits=1, user_api="blas"):
        if n_threads <= 1:
            for i in range(n_items):
                yield fn(i)
            return
        yield from _executor(n_threads).map(fn, range(n_items))


def kernel_blocks(kernel, X, Y, rows: int) -> list[np.ndarray]:
    """The row blocks ``K(X[b], Y)`` of :func:`block_slices` (to keep across passes)."""
    slices = block_slices(X.shape[0], rows)
    return list(_map_blocks(lambda i: kernel._compute(X[slices[i]], Y), len(slices),
                            X.shape[0] * Y.shape[0] >= PARALLEL_MIN_ENTRIES))


def block_partials(kernel, X, Y, rows: int, V=None, U=None,
                   blocks: list | None = None) -> Iterator[np.ndarray]:
    """Yield the per-block partials in block order, each computed on one BLAS thread.

    ``V`` given: ``K_b^T (K_b V [+ U_b])``; ``V`` None: ``K_b^T U_b``. Blocks run on as many
    Python threads as BLAS threads are allowed (one BLAS thread each), so each partial is
    computed the same way whatever the thread count. ``blocks``: the kernel blocks kept
    from :func:`kernel_blocks` (else each is formed and dropped).
    """
    n, m = X.shape[0], Y.shape[0]
    slices = block_slices(n, rows)

    def part(i):
        sl = slices[i]
        Kb = kernel._compute(X[sl], Y) if blocks is None else blocks[i]
        if V is None:
            return Kb.T @ U[sl]  # K_b^T U_b
        W = Kb @ V
        if U is not None:
            W += U[sl]
        return Kb.T @ W  # K_b^T (K_b V + U_b)

    yield from _map_blocks(part, len(slices), n * m >= PARALLEL_MIN_ENTRIES)


def sum_partials(parts, out: np.ndarray | None = None) -> np.ndarray:
    """``sum_b parts[b]`` in float64, added in the given order (into ``out`` if given)."""
    for p in parts:
        if out is None:
            out = np.array(p, dtype=np.float64)
        else:
            out += p
    return out


class _FixedBlocks:
    """What the in-memory and dask block operators share: blocks in X's dtype
    (``block_dtype``), products returned as float64 sums (``dtype``), and a constructor
    signature of their own (``KernelOperator.__new__`` would read ``block_rows`` as its
    ``working_memory``)."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    @property
    def block_dtype(self):
        return np.dtype(self.X.dtype)

    @property
    def dtype(self):
        return np.dtype(np.float64)


class BlockKernelOperator(_FixedBlocks, KernelOperator):
    """``K(X, Y)`` whose transposed products are float64 sums over fixed row blocks.

    Parameters
    ----------
    kernel, X, Y :
        As :class:`~kernelkit.linalg.KernelOperator` (X in memory, Y the centers).
    block_rows : int
        Rows per block (see :func:`falkon_block_rows`).
    keep_blocks : bool, default=False
        Form the blocks once, at the first product, and keep them for the next ones (all
        of ``K(X, Y)`` in memory: for when it fits). The partials are the same either way.

    The blocks are formed in X's dtype (float32 stays float32); ``V`` and ``U`` are cast to
    it, and ``normal_matmul`` / ``t_matmul`` return float64 sums (``dtype`` is float64, the
    dtype of those results; ``block_dtype`` is X's).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import KernelOperator
    >>> from kernelkit.large_scale._blocks import BlockKernelOperator
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> op = BlockKernelOperator("rbf", X, X[:10], block_rows=64)
    >>> ref = KernelOperator("rbf", X, X[:10])
    >>> bool(np.allclose(op.normal_matmul(np.ones(10)), ref.normal_matmul(np.ones(10))))
    True
    """

    def __init__(self, kernel, X, Y, block_rows: int, keep_blocks: bool = False):
        super().__init__(kernel, X, Y)
        self.block_rows = int(block_rows)
        self.keep_blocks = bool(keep_blocks)
        self._kept = None

    def _blocks(self):
        if self.keep_blocks and self._kept is None:
            self._kept = kernel_blocks(self.kernel, self.X, self.Y, self.block_rows)
        return self._kept

    def _slices(self, min_blocks: int = 1) -> list[slice]:
        return block_slices(self.shape[0], self.block_rows)

    def _cast(self, A, rows: int, name: str):
        if A is None:
            return None
        A = np.asarray(A, dtype=self.block_dtype)
        if A.shape[0] != rows:
            raise ValueError(f"Expected {rows} rows in {name}; got {A.shape[0]}.")
        return A

    def normal_matmul(self, V, U=None) -> np.ndarray:
        """``K^T (K V [+ U])`` = sum over blocks, in float64."""
        V = self._cast(V, self.shape[1], "V")
        U = self._cast(U, self.shape[0], "U")
        return sum_partials(block_partials(self.kernel, self.X, self.Y, self.block_rows, V, U,
                                           self._blocks()))

    def t_matmul(self, U) -> np.ndarray:
        """``K^T U`` = sum over blocks, in float64."""
        U = self._cast(U, self.shape[0], "U")
        return sum_partials(block_partials(self.kernel, self.X, self.Y, self.block_rows, None, U,
                                           self._blocks()))
