"""THE block plan: how many rows of a kernel matrix fit in working memory, one blockwise
map over row blocks and one partial-sum reduction.

Every kernel block in kernelkit is planned here: ``KernelOperator`` products, the kernel
rows of the dual solvers (:mod:`kernelkit.linalg.rows`), GP prediction, KernelPCA's
transform and the structured field. A block of ``rows x n_cols`` entries of ``itemsize``
bytes stays within ``working_memory`` MiB (scikit-learn's ``working_memory`` by default):

    rows = floor(working_memory * 2^20 / (itemsize * n_cols)),   at least 1.

Products that are sums over row blocks b,

    K^T (K V) = sum_b K_b^T (K_b V),    K^T U = sum_b K_b^T U_b,

are formed by :func:`map_blocks` (blocks on as many Python threads as BLAS threads are
allowed, one BLAS thread each, results in block order) and added by :func:`sum_partials`
in block order, so a sum does not depend on thread timing. Sums of several statistics at
once (a tuple of partial sums per block, as the sparse GP's bound needs) go through
:func:`reduce_row_blocks` and :func:`sum_partial_tuples`, in block order too.

Examples
--------
>>> from kernelkit.linalg.blocks import block_rows, block_slices
>>> block_rows(1000, itemsize=8, working_memory=1.0)  # 1 MiB of float64 rows of 1000
131
>>> block_rows(100, itemsize=4, working_memory=1.0, n_rows=10**6, quantum=64)
2560
>>> block_slices(10, 4)
[slice(0, 4, None), slice(4, 8, None), slice(8, 10, None)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np
import sklearn

from .._core.threads import blas_threads, limit_blas, numba_threads, pool

__all__ = [
    "PARALLEL_MIN_ENTRIES",
    "ROW_QUANTUM",
    "working_memory_bytes",
    "fits_in_memory",
    "block_rows",
    "block_slices",
    "parallel_threads",
    "map_blocks",
    "sum_partials",
    "sum_partial_tuples",
    "reduce_row_blocks",
]

# products with fewer kernel entries than this run on the calling thread
PARALLEL_MIN_ENTRIES = 200_000
# fixed block heights are rounded down to a multiple of this (round chunk sizes align)
ROW_QUANTUM = 64


def working_memory_bytes(working_memory: float | None = None) -> float:
    """``working_memory`` MiB in bytes (scikit-learn's ``working_memory`` when None)."""
    wm = sklearn.get_config()["working_memory"] if working_memory is None else working_memory
    return float(wm) * 2**20


def fits_in_memory(n_bytes: float, working_memory: float | None = None,
                   budgets: float = 1.0) -> bool:
    """Whether ``n_bytes`` fit in ``budgets`` times the working memory."""
    return n_bytes <= budgets * working_memory_bytes(working_memory)


def block_rows(n_cols: int, itemsize: int = 8, working_memory: float | None = None, *,
               n_rows: int | None = None, quantum: int = 1) -> int:
    """Rows per block so that a ``rows x n_cols`` block fits in working memory (MiB).

    ``n_rows`` caps the result at the number of rows there are; ``quantum`` rounds it down
    to a multiple of ``quantum`` when that many fit (fixed blocks that depend on the sizes
    only, so that every process blocks the same data the same way).
    """
    rows = max(1, int(working_memory_bytes(working_memory) // (itemsize * max(n_cols, 1))))
    if quantum > 1 and rows >= quantum:
        rows -= rows % quantum
    if n_rows is not None:
        rows = max(1, min(rows, n_rows))
    return rows


def block_slices(n: int, rows: int) -> list[slice]:
    """``[0, rows), [rows, 2 rows), ...`` up to n."""
    return [slice(a, min(a + rows, n)) for a in range(0, n, rows)]


def parallel_threads(n_entries: int) -> int:
    """Threads for a blockwise pass over ``n_entries`` kernel entries: the BLAS threads
    allowed for a large pass, 1 for a small one."""
    return blas_threads() if n_entries >= PARALLEL_MIN_ENTRIES else 1


def map_blocks(fn: Callable, items: Iterable, threads: int = 1, *,
               pin_blas: bool = False) -> Iterator:
    """``fn(item)`` for every item, yielded in order.

    With ``threads > 1`` the calls run on that many Python threads with one BLAS thread
    and one numba thread each: one synchronization per block instead of one per BLAS
    panel, and NumPy's single-threaded maps run in parallel. ``pin_blas`` keeps one BLAS
    thread on the serial path too, so that every block is computed the same way whatever
    the thread count.
    """
    items = list(items)
    threads = min(threads, len(items))
    if threads <= 1 and not pin_blas:
        for item in items:
            yield fn(item)
        return
    with limit_blas(1):
        if threads <= 1:
            for item in items:
                yield fn(item)
            return
        yield from pool(threads).map(_one_numba_thread(fn), items)


def _one_numba_thread(fn: Callable) -> Callable:
    # numba's thread count is per thread: a worker's parallel twins stay serial (no
    # oversubscription when two workers reach a parallel loop at once)
    def call(item):
        with numba_threads(1):
            return fn(item)
    return call


def sum_partials(parts: Iterable[np.ndarray], out: np.ndarray | None = None,
                 dtype=np.float64) -> np.ndarray:
    """``sum_b parts[b]`` added in the given order, into ``out`` if given (else a new
    array of ``dtype``, float64 by default)."""
    for p in parts:
        if out is None:
            out = np.array(p, dtype=dtype)
        else:
            out += p
    return out


def sum_partial_tuples(parts: Iterable[tuple]) -> list[np.ndarray]:
    """Element-wise ``sum_b parts[b]`` of tuples of partial sums (arrays or numbers), added
    in float64 in the given order; ``[]`` for no parts."""
    total: list[np.ndarray] | None = None
    for part in parts:
        if total is None:
            total = [np.array(p, dtype=np.float64) for p in part]
        else:
            for acc, p in zip(total, part):
                acc += p
    return total if total is not None else []


def reduce_row_blocks(fn: Callable, X, T, rows: int, args: tuple = (),
                      threads: int = 1) -> list[np.ndarray]:
    """``sum_b fn(X_b, T_b, *args)`` over the blocks of ``rows`` rows of ``X`` and of ``T``
    (an array aligned with X's rows), in block order (:func:`sum_partial_tuples`).

    ``fn`` returns a tuple of partial sums for its block. X may be any array that row
    slicing serves, a CSR matrix included. With ``threads > 1`` the blocks run on that many
    threads (:func:`map_blocks`, one BLAS thread each); the sum is the same.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg.blocks import reduce_row_blocks
    >>> X, T = np.arange(10.0).reshape(5, 2), np.ones((5, 1))
    >>> xs, n = reduce_row_blocks(lambda x, t: (x.sum(axis=0), t.sum()), X, T, rows=2)
    >>> xs.tolist(), float(n)
    ([20.0, 25.0], 5.0)
    """
    return sum_partial_tuples(map_blocks(lambda sl: fn(X[sl], T[sl], *args),
                                         block_slices(X.shape[0], rows), threads,
                                         pin_blas=threads > 1))
