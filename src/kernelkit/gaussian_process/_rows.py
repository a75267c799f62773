"""Where the sparse GP's training rows live: in this process, or in Dask chunks.

Every quantity the collapsed bound needs from the n rows is a sum over rows, so both
places offer one operation, ``reduce(fn, *args)``: ``fn(X_b, Y_b, *args)`` returns a tuple
of partial sums for one row block, and the partials are added in float64 in block order.
In memory the blocks are row slices of at most ``block_rows`` rows; on Dask each task
runs the same block loop over its chunk and returns the chunk's partial, which the client
adds in chunk order (X and y never leave the workers).
"""

from __future__ import annotations

import numpy as np

from ..linalg import block_rows

__all__ = ["InMemoryRows", "DaskRows", "rows_per_block"]

# kernel blocks of a few tens of MiB: large enough for BLAS-3, small enough for the cache
# and for O(block M) memory
BLOCK_MIB = 32


def rows_per_block(n_inducing: int) -> int:
    """Rows per block so that an (rows, M) float64 block is at most ``BLOCK_MIB`` MiB."""
    return max(64, block_rows(n_inducing, 8, BLOCK_MIB))


def _add(total, part):
    if total is None:
        return [np.array(p, dtype=np.float64) for p in part]
    for acc, p in zip(total, part):
        acc += p
    return total


def reduce_blocks(X, Y, rows: int, fn, args) -> list:
    """``sum_b fn(X_b, Y_b, *args)`` over row blocks of ``rows`` rows, in block order."""
    total = None
    for a in range(0, X.shape[0], rows):
        total = _add(total, fn(X[a : a + rows], Y[a : a + rows], *args))
    return total


class InMemoryRows:
    """Training rows held as numpy arrays (X of shape (n, d), Y of shape (n, t))."""

    def __init__(self, X: np.ndarray, Y: np.ndarray, rows: int):
        self.X, self.Y, self.rows = X, Y, int(rows)

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    @property
    def n_targets(self) -> int:
        return self.Y.shape[1]

    def reduce(self, fn, *args) -> list:
        return reduce_blocks(self.X, self.Y, self.rows, fn, args)

    def sample(self, size: int, rng) -> np.ndarray:
        """``size`` distinct rows drawn uniformly (sorted), as an in-memory array."""
        idx = np.sort(rng.choice(self.X.shape[0], size=size, replace=False))
        return np.asarray(self.X[idx])


def _chunk_reduce(x, y, fn, args, rows):
    return reduce_blocks(np.asarray(x), np.asarray(y).reshape(len(x), -1), rows, fn, args)


class DaskRows:
    """Training rows in row chunks of dask arrays persisted on the workers of a Client."""

    def __init__(self, client, X, Y, rows: int):
        from ..linalg.dask_rows import persist_rows

        self.client, self.rows = client, int(rows)
        self.X, self._x_chunks, self.offsets = persist_rows(client, X)
        self.Y, self._y_chunks, _ = persist_rows(client, Y)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(int(s) for s in self.X.shape)

    @property
    def n_targets(self) -> int:
        return 1 if self.Y.ndim == 1 else int(self.Y.shape[1])

    def reduce(self, fn, *args) -> list:
        futs = self.client.map(_chunk_reduce, self._x_chunks, self._y_chunks, fn=fn,
                               args=args, rows=self.rows, pure=False)
        total = None
        for part in self.client.gather(futs):  # chunk order
            total = _add(total, part)
        return total

    def sample(self, size: int, rng) -> np.ndarray:
        idx = np.sort(rng.choice(self.shape[0], size=size, replace=False))
        return np.asarray(self.X[idx].compute())
