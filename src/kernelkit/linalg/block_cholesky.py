"""A lower Cholesky factor held as block rows, so that appending points never copies it.

``L = [[D_0, 0, ...], [R_1, D_1, 0, ...], [R_2, D_2, ...]]`` is stored as its diagonal blocks
``D_i`` (k_i x k_i, lower triangular) and the block rows ``R_i`` left of them (k_i x N_i with
``N_i = k_0 + ... + k_(i-1)``). Appending k points costs one triangular solve with k
right-hand sides against the current factor (n^2 k) and the factor of a k x k Schur
complement (k^3 / 3), and allocates only the new k x (n + k) block row: the dense
(n + k) x (n + k) factor is never formed, so that an online GP update is not bound by
copying n^2 numbers. Solves run block row by block row (forward substitution with one GEMM
per block), with exactly the flops of the dense triangular solve.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from .._core.blas import matmul
from .cholesky import jitter_cholesky

__all__ = ["BlockCholesky"]


class BlockCholesky:
    """Lower Cholesky factor of ``A = L L^T`` as block rows; :meth:`append` extends it.

    Parameters
    ----------
    L : ndarray of shape (n, n)
        Lower Cholesky factor (zero above the diagonal), the first diagonal block. It is
        kept, not copied.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import BlockCholesky
    >>> A = np.array([[4.0, 2.0, 1.0], [2.0, 3.0, 0.5], [1.0, 0.5, 2.0]])
    >>> F = BlockCholesky(np.linalg.cholesky(A[:2, :2]))
    >>> F3, jitter = F.append(A[:2, 2:], A[2:, 2:].copy())
    >>> bool(np.allclose(F3.dense(), np.linalg.cholesky(A))), jitter, F3.shape
    (True, 0.0, (3, 3))
    >>> bool(np.allclose(F3.cho_solve(np.ones(3)), np.linalg.solve(A, np.ones(3))))
    True
    """

    def __init__(self, L: np.ndarray):
        if L.ndim != 2 or L.shape[0] != L.shape[1]:
            raise ValueError(f"L must be a square matrix; got shape {L.shape}.")
        self.diag_blocks = [L]
        self.row_blocks = [np.empty((L.shape[0], 0), dtype=L.dtype)]

    @property
    def shape(self) -> tuple[int, int]:
        n = sum(D.shape[0] for D in self.diag_blocks)
        return (n, n)

    @property
    def dtype(self):
        return self.diag_blocks[0].dtype

    def _offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([D.shape[0] for D in self.diag_blocks])])

    def diagonal(self) -> np.ndarray:
        """``diag(L)``."""
        return np.concatenate([np.diagonal(D) for D in self.diag_blocks])

    def dense(self) -> np.ndarray:
        """The dense lower factor (the first block itself while there is only one)."""
        if len(self.diag_blocks) == 1:
            return self.diag_blocks[0]
        off = self._offsets()
        L = np.zeros(self.shape, dtype=np.result_type(*self.diag_blocks), order="F")
        for i, (R, D) in enumerate(zip(self.row_blocks, self.diag_blocks)):
            L[off[i]:off[i + 1], :off[i]] = R
            L[off[i]:off[i + 1], off[i]:off[i + 1]] = D
        return L

    def solve(self, B: np.ndarray, trans: bool = False, overwrite_b: bool = False) -> np.ndarray:
        """``L^-1 B`` (or ``L^-T B`` with ``trans=True``), B of shape (n,) or (n, m)."""
        if len(self.diag_blocks) == 1:
            return solve_triangular(self.diag_blocks[0], B, lower=True, trans=int(trans),
                                    overwrite_b=overwrite_b, check_finite=False)
        X = np.array(B, dtype=np.result_type(self.dtype, B), copy=not overwrite_b)
        off = self._offsets()
        pairs = list(enumerate(zip(self.row_blocks, self.diag_blocks)))
        if not trans:  # forward substitution: x_i = D_i^-1 (b_i - R_i x_<i)
            for i, (R, D) in pairs:
                s, e = off[i], off[i + 1]
                if s:
                    X[s:e] -= matmul(R, X[:s])
                X[s:e] = solve_triangular(D, X[s:e], lower=True, check_finite=False)
        else:  # back substitution: x_i = D_i^-T (b_i - sum_{j > i} R_j[:, i]^T x_j)
            for i, (R, D) in reversed(pairs):
                s, e = off[i], off[i + 1]
                X[s:e] = solve_triangular(D, X[s:e], lower=True, trans=1, check_finite=False)
                if s:
                    X[:s] -= matmul(R.T, X[s:e])
        return X

    def cho_solve(self, B: np.ndarray) -> np.ndarray:
        """``(L L^T)^-1 B`` by the two triangular solves."""
        return self.solve(self.solve(B), trans=True, overwrite_b=True)

    def append(self, A12: np.ndarray, A22: np.ndarray, *, what: str = "kernel matrix",
               hint: str = "increase alpha (the noise / regularization) or check the kernel",
               ) -> tuple[BlockCholesky, float]:
        """Factor of ``[[L L^T, A12], [A12^T, A22]]`` as a new object sharing these blocks.

        ``R = (L^-1 A12)^T`` (n^2 k), ``D = chol(A22 - R R^T)`` (k^3 / 3) through
        :func:`~kernelkit.linalg.jitter_cholesky` (adaptive jitter with its warning when the
        Schur complement is not numerically positive definite). ``A22`` is overwritten.

        Returns
        -------
        factor : BlockCholesky
            The extended factor; self is unchanged.
        jitter : float
            Jitter added to the new block's diagonal (0.0 if none).
        """
        n, k = A12.shape
        if self.shape[0] != n or A22.shape != (k, k):
            raise ValueError(
                f"Shapes do not fit: L {self.shape}, A12 {A12.shape}, A22 {A22.shape}.")
        RT = self.solve(A12)  # R^T = L^-1 A12
        # the jitter is relative to the new block's own diagonal, as in a fit on all points:
        # the Schur complement's is rounding error when the new points duplicate old ones
        scale = float(np.mean(np.diagonal(A22))) if k else None
        S = A22
        S -= matmul(RT.T, RT)  # Schur complement A22 - R R^T
        D, jitter = jitter_cholesky(
            S, overwrite_a=True, what=what + " (block of the new points)", hint=hint,
            scale=scale,
            min_pivot=(n + k) * float(np.finfo(np.result_type(self.dtype, S)).eps))
        out = BlockCholesky.__new__(BlockCholesky)
        out.diag_blocks = [*self.diag_blocks, D]
        out.row_blocks = [*self.row_blocks, np.ascontiguousarray(RT.T)]
        return out, jitter
