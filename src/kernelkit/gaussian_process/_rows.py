"""The sparse GP's training rows: a RowSource, the targets beside it, the block height.

Every quantity the collapsed bound needs from the n rows is a sum over rows, so the bound
asks for one operation, ``reduce(fn, *args)``: ``fn(X_b, Y_b, *args)`` returns a tuple of
partial sums for one row block, and the partials are added in float64 in block order. Where
the rows live is the data seam's business: :func:`kernelkit.linalg.as_rows` gives the
:class:`~kernelkit.linalg.RowSource` (in this process, ``ArrayRows`` or ``SparseRows``; in
the chunks of a dask array on a cluster, ``DaskRows``, whose workers reduce their own
chunks: X and y never leave them). This module adds only the targets and the block height.
"""

from __future__ import annotations

import numpy as np

from ..linalg import as_rows, block_rows

__all__ = ["TrainingRows", "InMemoryRows", "rows_per_block"]

# kernel blocks of about 4 MiB: large enough for BLAS-3 at full rate, small enough that
# several run side by side on worker threads (at n = 20,000, M = 256 an evaluation took
# 160 ms with 2,048-row blocks on 2 threads, 200 ms with 16,384-row blocks)
BLOCK_MIB = 4


def rows_per_block(n_inducing: int) -> int:
    """Rows per block so that an (rows, M) float64 block is at most ``BLOCK_MIB`` MiB."""
    return max(64, block_rows(n_inducing, 8, BLOCK_MIB))


class TrainingRows:
    """X as a :class:`~kernelkit.linalg.sources.RowSource`, the targets ``Y`` of shape
    (n, t) aligned with its rows (a numpy array, or a dask array with X's row chunks), and
    ``rows``, the block height of the reductions."""

    def __init__(self, source, Y, rows: int):
        self.source, self.Y, self.rows = source, Y, int(rows)

    @property
    def X(self):
        return self.source.X

    @property
    def shape(self) -> tuple[int, int]:
        return self.source.n_rows, self.source.n_features

    @property
    def n_targets(self) -> int:
        return int(self.Y.shape[1])

    @property
    def in_memory(self) -> bool:
        return self.source.in_memory

    def reduce(self, fn, *args) -> list:
        """``sum_b fn(X_b, Y_b, *args)`` over row blocks, in block order."""
        return self.source.reduce(fn, self.Y, self.rows, *args)

    def sample(self, size: int, rng) -> np.ndarray:
        """``size`` distinct rows drawn uniformly (sorted), as an in-memory array."""
        idx = np.sort(rng.choice(self.shape[0], size=size, replace=False))
        return np.asarray(self.source.take(idx))


class InMemoryRows(TrainingRows):
    """Training rows from arrays (X of shape (n, d), Y of shape (n, t)): the source is
    ``as_rows(X)``."""

    def __init__(self, X, Y: np.ndarray, rows: int):
        super().__init__(as_rows(X), Y, rows)
