"""The data seam: where the rows of X live, behind one small interface.

An estimator that passes over its data in row blocks (NystromKernelRidge; next the sparse
GP) asks a :class:`RowSource` for what it needs and never for how the rows are stored:

- ``n_rows``, ``n_features``, ``dtype``;
- ``take(indices)``: some rows in memory (the Nystrom centers);
- ``row_blocks(rows)``: the rows, a block at a time;
- ``kernel_operator(kernel, centers, block_rows, keep_blocks)``: ``K(X, centers)`` as a
  :class:`~kernelkit.linalg.KernelOperator` with fixed row blocks (float64 partial sums);
- ``predict(kernel, centers, coef, working_memory)``: ``K(X, centers) @ coef``;
- ``reduce(fn, targets, rows, *args)``: ``sum_b fn(X_b, T_b, *args)`` over row blocks with
  the aligned rows of ``targets`` (the sums over rows of the sparse GP's bound).

:class:`ArrayRows` holds them in memory; :class:`SparseRows` holds them in memory as a
``scipy.sparse`` CSR matrix (row blocks and taken rows stay CSR: the kernels evaluate sparse
rows without densifying them); :class:`~kernelkit.linalg.dask_rows.DaskRows` in the chunks
of a dask array on a cluster. :func:`in_memory_rows` picks the in-memory one for ``X``.

Examples
--------
>>> import numpy as np
>>> from kernelkit.kernels import RBF
>>> from kernelkit.linalg.sources import ArrayRows
>>> rows = ArrayRows(np.random.default_rng(0).normal(size=(300, 2)))
>>> centers = rows.take(np.arange(10))
>>> op = rows.kernel_operator(RBF(), centers, block_rows=64)
>>> rows.n_rows, op.shape, op.dtype
(300, (300, 10), dtype('float64'))
>>> f = rows.predict(RBF(), centers, np.ones(10))
>>> bool(np.allclose(f, RBF()(rows.take(np.arange(300)), centers).sum(axis=1)))
True
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import numpy as np

from .._core.threads import blas_threads
from .blocks import block_slices, reduce_row_blocks
from .operator import KernelOperator

__all__ = ["RowSource", "ArrayRows", "SparseRows", "in_memory_rows"]


@runtime_checkable
class RowSource(Protocol):
    """Where the rows of X live (in memory, dask chunks, later sparse rows)."""

    @property
    def n_rows(self) -> int: ...

    @property
    def n_features(self) -> int: ...

    @property
    def dtype(self) -> np.dtype: ...

    def take(self, indices) -> np.ndarray: ...

    def row_blocks(self, rows: int) -> Iterator[np.ndarray]: ...

    def kernel_operator(self, kernel, centers, block_rows: int,
                        keep_blocks: bool = False) -> KernelOperator: ...

    def predict(self, kernel, centers, coef, working_memory: float | None = None): ...

    def reduce(self, fn, targets, rows: int, *args) -> list[np.ndarray]: ...


class ArrayRows:
    """Rows held in memory as one array (already validated).

    Rows are read only by slicing and indexing (``X[sl]``, ``X[indices]``), which a CSR
    matrix supports as well: :class:`SparseRows` is this class on sparse rows.
    """

    def __init__(self, X: np.ndarray):
        self.X = X

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def dtype(self) -> np.dtype:
        return self.X.dtype

    def take(self, indices) -> np.ndarray:
        return self.X[indices]

    def row_blocks(self, rows: int) -> Iterator[np.ndarray]:
        for sl in block_slices(self.n_rows, rows):
            yield self.X[sl]

    def kernel_operator(self, kernel, centers, block_rows: int,
                        keep_blocks: bool = False) -> KernelOperator:
        return KernelOperator(kernel, self.X, centers, block_rows=block_rows,
                              keep_blocks=keep_blocks)

    def predict(self, kernel, centers, coef, working_memory: float | None = None):
        # f(X) = K(X, centers) coef, blockwise
        return KernelOperator(kernel, self.X, centers, working_memory=working_memory) @ coef

    def reduce(self, fn, targets, rows: int, *args) -> list[np.ndarray]:
        # sum_b fn(X_b, T_b, *args), float64 partials added in block order; the blocks on
        # as many threads as BLAS threads are allowed (one BLAS thread each)
        return reduce_row_blocks(fn, self.X, targets, rows, args, threads=blas_threads())


class SparseRows(ArrayRows):
    """Rows held in memory as a ``scipy.sparse`` matrix, kept as canonical CSR.

    COO, CSC, LIL and DOK input is converted to CSR once. ``take`` and ``row_blocks`` return
    CSR rows (the Nystrom centers stay sparse), and the kernel operators evaluate
    ``K(rows, centers)`` from sparse products, block by block: X is never densified.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.sources import SparseRows
    >>> X = sp.random(300, 50, density=0.05, format="coo", random_state=0)
    >>> rows = SparseRows(X)
    >>> centers = rows.take(np.arange(10))
    >>> centers.format, rows.kernel_operator(RBF(), centers, block_rows=64).shape
    ('csr', (300, 10))
    >>> f = rows.predict(RBF(), centers, np.ones(10))
    >>> bool(np.allclose(f, RBF()(X.toarray(), centers.toarray()).sum(axis=1)))
    True
    """

    def __init__(self, X):
        from ..kernels import Linear

        # the kernels' own sparse check: canonical CSR in float32/float64
        self.X = Linear().check_input(X)


def in_memory_rows(X) -> ArrayRows:
    """:class:`SparseRows` for a scipy sparse ``X``, else :class:`ArrayRows`."""
    import scipy.sparse as sp

    return SparseRows(X) if sp.issparse(X) else ArrayRows(X)
