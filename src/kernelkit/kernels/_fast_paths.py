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
    A, B, pair, apply = factors
    c = float(c)

    def scaled(T):
        apply(T)
        T *= c

    return A, B, pair, scaled


class FastPaths:
    """Default (absent) fast paths of :class:`~kernelkit.kernels.Kernel`."""

    def exp_factors(self, X, Y=None) -> tuple[np.ndarray, np.ndarray] | None:
        """``(A, B)`` with ``K(X, Y) = exp(min(A B^T, 0))`` when this kernel is the
        exponential of one matrix product (the RBF: its fast Gram path), else None. Lets
        blockwise code form any tile of K with one GEMM and an in-place exp (row caches,
        tiled Gram matrices) without knowing the kernel's type."""
        return None

    def tile_factors(self, X, Y=None):
        """How a tile of ``K(X, Y)`` is formed from factor rows, or None.

        Returns ``(A, B, pair, apply)`` for dense float rows (``Y=None``: X with itself): a
        tile of rows I and columns J is ``pair(A[I], B[J], T)`` written into T (``pair``
        None: the product ``A[I] B[J]^T``), then ``apply(T)`` in place, a serial map that
        worker threads may run side by side. :mod:`kernelkit.linalg.fused` forms products
        tile by tile from these without knowing the kernel's type; kernels without such a
        form return None.
        """
        return None

    def sparse_row_products(self, X):
        """For sparse X, an object whose ``into(out, rows, slots)`` writes rows of K(X, X)
        (Linear, RBF: ``SparseRowProducts``), else None: rows come from :meth:`block`."""
        return None
