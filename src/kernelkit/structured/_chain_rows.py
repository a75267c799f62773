"""Kernel rows of the chain pass a group of examples at a time (the chunked kernel mode).

When the input kernel matrix K (N x N) does not fit in ``cache_size``, the chain pass of
:mod:`kernelkit.structured._chain_bcfw` still runs exactly: a visit of block i reads K only
in the rows of block i's parts (its gram K_ii, and the score update A^T += dU^T K[rows]
over all N parts; the scores themselves are read from A = K U). So the pass's order is cut
into consecutive groups of examples whose parts total at most R rows, the group's rows
K[group rows, :] are formed once (one GEMM and an in-place exp for an RBF-type kernel,
:meth:`~kernelkit.kernels.Kernel.exp_factors`; the kernel's block otherwise; k(x, x) is
``kernel.diag`` on the diagonal entries), and the numba pass runs over the group's examples,
finding part p's row at ``local[p]``. A = K U stays exact, as in the cached mode (which is
the one group of all rows, ``local`` the identity); a pass forms N^2 kernel entries and
holds R x N of them at a time.
"""

from __future__ import annotations

import numpy as np

from ..linalg import block_slices, map_blocks
from ..linalg.blocks import parallel_threads

__all__ = ["GroupRows", "group_parts"]

# rows of K per tile of a group's block
_TILE_ROWS = 256


class GroupRows:
    """K[rows, :] for the parts of a group of examples, in one reusable (R, N) buffer.

    Parameters
    ----------
    kernel : Kernel
    parts : ndarray of shape (N, d)
        The training parts (float32 parts give float32 rows, as the cached mode).
    diag : ndarray of shape (N,)
        k(x_p, x_p), written on the diagonal entries.
    max_rows : int
        R, the rows held at a time (at least the longest example's length).
    """

    def __init__(self, kernel, parts: np.ndarray, diag: np.ndarray, max_rows: int):
        self.kernel, self.parts = kernel, parts
        N = len(parts)
        self.dtype = np.float32 if parts.dtype == np.float32 else np.float64
        self.diag = np.asarray(diag, dtype=self.dtype)
        self.R = int(min(N, max_rows))
        self.buf = np.empty((self.R, N), dtype=self.dtype)
        self.local = np.full(N, -1, dtype=np.int64)  # part -> row of buf (-1: not at hand)
        f = kernel.exp_factors(parts)  # K = exp(min(A B^T, 0)), or None
        self.factors = None if f is None else (
            np.ascontiguousarray(f[0], dtype=self.dtype),
            np.ascontiguousarray(f[1].T, dtype=self.dtype))

    def groups(self, order: np.ndarray, lengths: np.ndarray) -> list[slice]:
        """Consecutive slices of ``order`` whose examples total at most R parts each."""
        cum = np.cumsum(lengths[order])
        out, start, base = [], 0, 0
        while start < len(order):
            stop = int(np.searchsorted(cum, base + self.R, side="right"))
            stop = max(stop, start + 1)  # an example longer than R: a group of its own
            out.append(slice(start, stop))
            base, start = int(cum[stop - 1]), stop
        return out

    def form(self, rows: np.ndarray) -> np.ndarray:
        """K[rows, :] into the buffer (its first len(rows) rows); ``local[rows]`` set."""
        m = len(rows)
        if m > self.R:  # a single example longer than R
            self.R = m
            self.buf = np.empty((m, len(self.parts)), dtype=self.dtype)
        out = self.buf[:m]

        def tile(sl):  # one GEMM and an in-place exp (or the kernel's block) per tile
            rr, o = rows[sl], out[sl]
            if self.factors is not None:
                A, Bt = self.factors
                np.matmul(A[rr], Bt, out=o)  # the exponent, -gamma ||x - y||^2 up to rounding
                np.minimum(o, 0.0, out=o)
                np.exp(o, out=o)
            else:
                o[...] = self.kernel.block(self.parts[rr], self.parts)

        # tiles on parallel threads, one BLAS thread each: a tile's exp runs beside another's
        # GEMM (2,000 x 47,535 float32 rows: 0.225 s against 0.280 s as one threaded GEMM)
        for _ in map_blocks(tile, block_slices(m, _TILE_ROWS),
                            parallel_threads(m * len(self.parts))):
            pass
        out[np.arange(m), rows] = self.diag[rows]  # k(x, x) as kernel.diag
        self.local[rows] = np.arange(m)
        return out

    def release(self, rows: np.ndarray) -> None:
        """Mark ``rows`` as no longer at hand."""
        self.local[rows] = -1


def group_parts(offsets: np.ndarray, examples: np.ndarray) -> np.ndarray:
    """The parts of ``examples``, example after example (offsets[i]:offsets[i + 1])."""
    a, lens = offsets[examples], offsets[examples + 1] - offsets[examples]
    ends = np.cumsum(lens)
    return np.repeat(a - ends + lens, lens) + np.arange(ends[-1] if len(ends) else 0)
