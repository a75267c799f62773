"""Extend a Cholesky factor by a block of new rows and columns, in O(n^2 k).

For ``A = [[A11, A12], [A21, A22]]`` with ``A11 = L11 L11^T`` known:
``L21 = (L11^-1 A12)^T`` (one triangular solve with k right-hand sides, n^2 k flops),
the Schur complement ``S = A22 - L21 L21^T`` and ``L22 = chol(S)`` (k^3 / 3 flops), so that
``[[L11, 0], [L21, L22]]`` is the factor of ``A``, never refactorizing the (n + k)^3 matrix.
``L22`` goes through :func:`~kernelkit.linalg.jitter_cholesky` (adaptive jitter on the new
block, with its warning) when S is not numerically positive definite.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from .._core.blas import matmul
from .cholesky import jitter_cholesky

__all__ = ["cholesky_append"]


def cholesky_append(
    L: np.ndarray,
    A12: np.ndarray,
    A22: np.ndarray,
    *,
    what: str = "kernel matrix",
    hint: str = "increase alpha (the noise / regularization) or check the kernel",
) -> tuple[np.ndarray, float]:
    """Lower factor of ``[[L L^T, A12], [A12^T, A22]]`` from the lower factor ``L``.

    Parameters
    ----------
    L : ndarray of shape (n, n)
        Lower Cholesky factor of the leading block, zero above the diagonal (not
        modified).
    A12 : ndarray of shape (n, k)
        Cross block.
    A22 : ndarray of shape (k, k)
        New diagonal block (symmetric; overwritten by its Schur complement's factor).
    what, hint : str
        For the jitter warning / error of the new block.

    Returns
    -------
    L_ext : ndarray of shape (n + k, n + k)
        Lower factor, Fortran-ordered, with ``L`` as its leading block.
    jitter : float
        Jitter added to the new block's diagonal (0.0 if none).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import cholesky_append
    >>> A = np.array([[4.0, 2.0, 1.0], [2.0, 3.0, 0.5], [1.0, 0.5, 2.0]])
    >>> L2 = np.linalg.cholesky(A[:2, :2])
    >>> L3, jitter = cholesky_append(L2, A[:2, 2:], A[2:, 2:].copy())
    >>> bool(np.allclose(L3, np.linalg.cholesky(A))), jitter
    (True, 0.0)
    """
    n, k = A12.shape
    if L.shape != (n, n) or A22.shape != (k, k):
        raise ValueError(
            f"Shapes do not fit: L {L.shape}, A12 {A12.shape}, A22 {A22.shape}."
        )
    # one pass over the n x n block: copy L (its strict upper triangle is zero) into the
    # leading block, zero only the n x k upper-right block
    out = np.empty((n + k, n + k), order="F", dtype=np.result_type(L, A12, A22))
    out[:n, :n] = L
    out[:n, n:] = 0.0
    # L21^T = L11^-1 A12  (n^2 k)
    L21T = solve_triangular(L, A12, lower=True, check_finite=False)
    # S = A22 - L21 L21^T  (n k^2), then its factor with adaptive jitter (k^3 / 3)
    # the jitter is relative to the new block's own diagonal, as in a fit on all points:
    # the Schur complement's is rounding error when the new points duplicate old ones
    scale = float(np.mean(np.diagonal(A22))) if k else None
    S = A22
    S -= matmul(L21T.T, L21T)
    L22, jitter = jitter_cholesky(
        S, overwrite_a=True, what=what + " (block of the new points)", hint=hint,
        scale=scale,
        min_pivot=(n + k) * float(np.finfo(out.dtype).eps),
    )
    out[n:, :n] = L21T.T
    out[n:, n:] = L22
    return out, jitter
