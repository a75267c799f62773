"""The kernelized score model shared by the structured SVM and perceptron.

By the representer theorem every weight vector the solvers build is a combination of
joint features of training (example, output) pairs; because the joint kernel decomposes
over parts (see :mod:`kernelkit.structured.base`) its unary half is

    w_unary = sum_p phi_X(x_p) (x) (sum_s U[p, s] psi_Y(s))      (one row of U per part)

so the unary scores of every training part are G = K U L (K the input kernel between
parts, L the label kernel). :class:`UnaryField` keeps U and A = K U up to date under
block updates U[rows] += dU with one matrix product per update (A += K[:, rows] dU, on
the states dU touches; A is stored transposed so that those are contiguous rows): the
input kernel matrix is cached when it fits in ``cache_size`` MiB, its rows are recomputed
otherwise, and for the linear kernel (or a FeatureMap) the explicit weights W = Phi^T U
are kept instead. Nothing loops over (example, output) pairs.

Updates of A are deferred: up to ``_MAX_PENDING`` changed rows are queued, a block's
scores are the stored ones plus K[rows, queued] dU_queued (a small product), and the
queue is applied in one matrix product A^T += dU_q^T K[queued, :] (compute-bound instead
of one memory-bound pass over A per update).
"""

from __future__ import annotations

import numpy as np

from ..kernels import FeatureMap, Linear
from ..linalg import KernelOperator, as_rows, fits_in_memory, is_precomputed

__all__ = ["UnaryField", "unary_scores"]

_MAX_PENDING = 1024


class UnaryField:
    """Unary coefficients ``U`` (N, S) on the training parts and their scores ``K U``."""

    def __init__(self, kernel, parts: np.ndarray, n_states: int, cache_size: float):
        self.kernel = kernel
        self.parts = parts
        self.cache_size = cache_size
        N = len(parts)
        self.U = np.zeros((N, n_states))
        self._rows_key = None
        self._n_pend = 0
        self._pend_rows = np.zeros(_MAX_PENDING, dtype=np.int64)
        self._pend_dU = np.zeros((_MAX_PENDING, n_states))
        if isinstance(kernel, Linear | FeatureMap):
            self.mode = "explicit"
            Phi = parts if isinstance(kernel, Linear) else kernel.features(parts)
            self.Phi = np.asarray(Phi, dtype=np.float64)
            self.W = np.zeros((self.Phi.shape[1], n_states))  # W = Phi^T U
            return
        # float32 inputs keep the kernel cache and the scores in float32 (half the memory
        # traffic of the score updates); U, the duals and all objectives stay float64
        self.dtype = np.float32 if parts.dtype == np.float32 else np.float64
        self.AT = np.zeros((n_states, N), dtype=self.dtype)  # A^T = (K U)^T, row per state
        if fits_in_memory(N * N * np.dtype(self.dtype).itemsize, cache_size):
            self.mode = "cached"
            self.K = np.asarray(kernel.block(parts, None), dtype=self.dtype)
        else:
            self.mode = "stream"
            self.diag = np.asarray(kernel.diag(parts), dtype=self.dtype)

    def cache_rows(self) -> int:
        """Kernel rows (of N entries, in the scores' dtype) that fit in ``cache_size``."""
        row = len(self.parts) * np.dtype(self.dtype).itemsize
        return max(1, int(self.cache_size * 2**20 // row))

    # ------------------------------------------------------------------ reads
    def _rows(self, a: int, b: int) -> np.ndarray:
        """K[a:b, :] (stream mode: recomputed, and kept for the matching update)."""
        if self.mode == "cached":
            return self.K[a:b]
        if self._rows_key != (a, b):
            R = np.asarray(self.kernel.block(self.parts[a:b], self.parts), dtype=self.dtype)
            t = np.arange(b - a)
            R[t, a + t] = self.diag[a:b]  # k(x, x) as kernel.diag (matters for White noise)
            self._rows_cache, self._rows_key = R, (a, b)
        return self._rows_cache

    def scores(self, a: int, b: int) -> np.ndarray:
        """(K U)[a:b] for the parts of one example."""
        if self.mode == "explicit":
            return self.Phi[a:b] @ self.W
        G = self.AT[:, a:b].T.astype(np.float64)
        p = self._n_pend
        if p:  # + K[a:b, queued] dU_queued
            G += self._rows(a, b)[:, self._pend_rows[:p]] @ self._pend_dU[:p]
        return G

    def all_scores(self) -> np.ndarray:
        """K U for every training part."""
        if self.mode == "explicit":
            return self.Phi @ self.W
        self.flush()
        return self.AT.T.astype(np.float64)

    def gram(self, a: int, b: int) -> np.ndarray:
        """K[a:b, a:b], the input kernel among one example's parts."""
        if self.mode == "explicit":
            P = self.Phi[a:b]
            return P @ P.T
        return self._rows(a, b)[:, a:b]

    def sq_norm(self, L: np.ndarray) -> float:
        """||w_unary||^2 = tr(U^T K U L)."""
        if self.mode == "explicit":
            return float(np.sum((self.W @ L) * self.W))
        self.flush()
        return float(np.sum(self.U * (self.AT.T @ L)))

    # ---------------------------------------------------------------- updates
    def update(self, a: int, b: int, dU: np.ndarray) -> None:
        """U[a:b] += dU and the scores with it (A += K[:, a:b] dU)."""
        self.U[a:b] += dU
        if self.mode == "explicit":
            self.W += self.Phi[a:b].T @ dU
            return
        T, p = b - a, self._n_pend
        if p + T > len(self._pend_rows):
            self.flush()
            p = 0
            if T > len(self._pend_rows):
                self._pend_rows = np.zeros(T, dtype=np.int64)
                self._pend_dU = np.zeros((T, self.U.shape[1]))
        self._pend_rows[p:p + T] = np.arange(a, b)
        self._pend_dU[p:p + T] = dU
        self._n_pend = p + T

    def flush(self) -> None:
        """Apply the queued updates: A^T += dU_q^T K[queued, :]."""
        p = self._n_pend
        if not p:
            return
        rows = self._pend_rows[:p]
        if self.mode == "cached":
            R = self.K[rows]
        else:
            R = np.asarray(self.kernel.block(self.parts[rows], self.parts), dtype=self.dtype)
            R[np.arange(p), rows] = self.diag[rows]
        self.AT += self._pend_dU[:p].T.astype(self.dtype) @ R
        self._n_pend = 0

    def kernel_times(self, a: int, b: int, M: np.ndarray) -> np.ndarray:
        """K[:, a:b] @ M for a (b - a, S) matrix M: the scores of a change of U[a:b]."""
        if self.mode == "explicit":
            return self.Phi @ (self.Phi[a:b].T @ M)
        return self._rows(a, b).T @ M

    def set_coef(self, U: np.ndarray) -> None:
        """Replace U and recompute the scores A = K U (blockwise when K is not cached)."""
        self.U = np.array(U, dtype=np.float64)
        self._n_pend = 0
        if self.mode == "explicit":
            self.W = self.Phi.T @ self.U
        elif self.mode == "cached":
            self.AT = (self.U.T @ self.K).astype(self.dtype)  # K is symmetric
        else:
            KU = KernelOperator(self.kernel, self.parts) @ self.U
            self.AT = np.ascontiguousarray(KU.T, dtype=self.dtype)

    def get_state(self) -> list[np.ndarray]:
        """The arrays that define w_unary (copies): U and its scores (A, or W)."""
        if self.mode != "explicit":
            self.flush()
        return [self.U.copy(), (self.W if self.mode == "explicit" else self.AT).copy()]

    def set_state(self, state: list[np.ndarray]) -> None:
        """Restore arrays from :meth:`get_state` (no copy)."""
        self._n_pend = 0
        self.U = state[0]
        if self.mode == "explicit":
            self.W = state[1]
        else:
            self.AT = state[1]

    def support(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices of parts with a nonzero coefficient row, and those rows."""
        sv = np.flatnonzero(np.any(self.U != 0.0, axis=1))
        return sv, self.U[sv].copy()


def unary_scores(kernel, support_parts, coef, L, parts, support=None) -> np.ndarray:
    """G = k_X(parts, support_parts) coef L (blockwise), shape (len(parts), S).

    For a precomputed kernel ``parts`` are kernel rows against all training parts and
    ``support`` the training indices of the support parts.
    """
    if len(support_parts) == 0:
        return np.zeros((len(parts), coef.shape[1]))
    if isinstance(kernel, Linear):
        return (parts @ (support_parts.T @ coef)) @ L  # primal form of the linear kernel
    if isinstance(kernel, FeatureMap):  # primal form: phi(parts) (phi(support)^T coef)
        return (kernel.features(parts) @ (kernel.features(support_parts).T @ coef)) @ L
    # blockwise K(parts, support) coef; precomputed: the kernel rows' support columns
    rows = as_rows(np.asarray(parts, dtype=np.float64) if is_precomputed(kernel) else parts,
                   kernel=kernel)
    return rows.predict(kernel, support_parts, coef, index=support) @ L
