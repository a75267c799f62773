"""Posterior of the linear model of coregionalization at test inputs.

For a test pair ``(x*, t)`` the cross-covariances with the training pairs are
``c_{(x*, t), (x_j, s)} = sum_q B_q[t, s] k_q(x*, x_j)`` and (R&W eqs. 2.25-2.26)

    mean(x*, t) = c^T K^-1 y = sum_q [K_q(X*, X) A B_q]_{x*, t},   A = K^-1 y as an (n, T) grid,
    cov((x*, t), (x'*, s)) = sum_q B_q[t, s] k_q(x*, x'*) - c^T K^-1 c'.

Two factorizations of K give ``c^T K^-1 c'``: the dense Cholesky factor of the observed pairs,
and the Kronecker eigenbasis of a complete grid (see ``_kronecker.py``), where with
``P = U^T D^-1/2 B`` and ``Z* = K(X*, X) V``

    c^T K^-1 c' = sum_{u, j} P[u, t] P[u, s] Z*[x*, j] Z*[x'*, j] / Den[j, u].
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from ._coregionalization import ObservedPairs
from ._kronecker import KroneckerFactors

__all__ = ["DensePosterior", "KroneckerPosterior", "prior_variance", "prior_covariance"]


def prior_variance(diags, Bs) -> np.ndarray:
    """``sum_q k_q(x, x) B_q[t, t]``, shape (m, T)."""
    return sum(np.outer(dq, np.diagonal(B)) for dq, B in zip(diags, Bs))


def prior_covariance(Kss, Bs) -> np.ndarray:
    """``sum_q k_q(x, x') B_q[t, s]``, shape (m, T, m, T)."""
    return sum(np.einsum("ij,ts->itjs", K, B) for K, B in zip(Kss, Bs))


class DensePosterior:
    """Posterior from the Cholesky factor ``L`` of the observed pairs' covariance."""

    def __init__(self, L: np.ndarray, a: np.ndarray, pairs: ObservedPairs, Bs: np.ndarray):
        self.L = L
        self.rows = pairs.rows
        self.outs = pairs.outs
        self.alpha = pairs.to_grid(a)  # K^-1 y on the (n, T) grid, 0 where missing
        self.Bs = Bs

    def mean(self, Ks) -> np.ndarray:
        return sum(K @ self.alpha @ B for K, B in zip(Ks, self.Bs))

    def _reduction(self, Ks) -> np.ndarray:
        """``L^-1 c`` for every test pair, shape (N, m T)."""
        m, T = Ks[0].shape[0], self.Bs.shape[1]
        C = sum(K[:, None, self.rows] * B[None, :, self.outs] for K, B in zip(Ks, self.Bs))
        return solve_triangular(self.L, C.reshape(m * T, -1).T, lower=True,
                                overwrite_b=True, check_finite=False)

    def variance_reduction(self, Ks) -> np.ndarray:
        """``c^T K^-1 c`` for every test pair, shape (m, T)."""
        V = self._reduction(Ks)
        return np.einsum("ij,ij->j", V, V).reshape(Ks[0].shape[0], -1)

    def covariance_reduction(self, Ks) -> np.ndarray:
        """``c^T K^-1 c'`` for every two test pairs, shape (m, T, m, T)."""
        V = self._reduction(Ks)
        m = Ks[0].shape[0]
        return (V.T @ V).reshape(m, -1, m, V.shape[1] // m)


class KroneckerPosterior:
    """Posterior from the eigenbases of ``K_x`` and the whitened ``B`` (complete grid, Q = 1)."""

    def __init__(self, F: KroneckerFactors, B: np.ndarray):
        self.V = F.V
        self.inv_den = 1.0 / F.Den
        self.alpha = F.alpha()
        self.Bs = B[None]
        self.P = F.U.T @ (F.d[:, None] * B)  # P = U^T D^-1/2 B

    def mean(self, Ks) -> np.ndarray:
        return Ks[0] @ self.alpha @ self.Bs[0]

    def variance_reduction(self, Ks) -> np.ndarray:
        Zs = Ks[0] @ self.V
        return ((Zs * Zs) @ self.inv_den) @ (self.P * self.P)

    def covariance_reduction(self, Ks) -> np.ndarray:
        Zs = Ks[0] @ self.V
        G = np.stack([(Zs * self.inv_den[:, u]) @ Zs.T for u in range(self.P.shape[0])])
        return np.einsum("uij,ut,us->itjs", G, self.P, self.P)
