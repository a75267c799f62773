"""The optional fast paths a kernel may offer to blockwise code (the kernel seam's
capabilities): each returns None unless the kernel has that form, so callers ask instead of
testing types."""

from __future__ import annotations

import numpy as np

__all__ = ["FastPaths", "times_constant"]


def times_constant(factors, c):
    """The tile factors of ``c * k`` from those of ``k`` (None stays None)."""
    if factors is None:
        return None
    kind, A, B, param, scale = factors
    return kind, A, B, param, scale * float(c)


class FastPaths:
    """Default (absent) fast paths of :class:`~kernelkit.kernels.Kernel`."""

    def exp_factors(self, X, Y=None) -> tuple[np.ndarray, np.ndarray] | None:
        """``(A, B)`` with ``K(X, Y) = exp(min(A B^T, 0))`` when this kernel is the
        exponential of one matrix product (the RBF: its fast Gram path), else None. Lets
        blockwise code form any tile of K with one GEMM and an in-place exp (row caches,
        tiled Gram matrices) without knowing the kernel's type."""
        return None

    def tile_factors(self, X, Y=None):
        """How a tile of ``K(X, Y)`` is formed from one product of factor rows, or None.

        Returns ``(kind, A, B, param, scale)`` for dense float rows (``Y=None``: X with
        itself): ``kind`` "exp" gives ``scale * exp(A B^T)``; "matern" gives
        ``scale * Matern_nu(r)`` with ``r^2 = -2 A B^T`` (``param`` = 2 nu); "power" gives
        ``scale * (A B^T)^param``; "l1" gives ``scale * exp(-||a - b||_1)`` over the rows of
        A and B. :mod:`kernelkit.linalg.fused` forms products tile by tile from these
        without knowing the kernel's type; kernels without such a form return None.
        """
        return None

    def sparse_row_products(self, X):
        """For sparse X, an object whose ``into(out, rows, slots)`` writes rows of K(X, X)
        (Linear, RBF: ``SparseRowProducts``), else None: rows come from :meth:`block`."""
        return None
