"""Naive references for Nystrom KRR / Falkon, Nystroem features and random features.

Plain NumPy, dense matrices, no blocking: O(n^3) is fine here.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky


def rbf(X, Y, gamma):
    """k(x, y) = exp(-gamma ||x - y||^2) by explicit differences."""
    D = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * D)


def exact_krr_dual(K, y, alpha):
    """(K + alpha I)^-1 y."""
    return np.linalg.solve(K + alpha * np.eye(len(K)), y)


def nystrom_krr_dual(Knm, Kmm, y, lam):
    """The Nystrom KRR system (K_nM^T K_nM + lambda n K_MM) a = K_nM^T y, solved densely."""
    n = Knm.shape[0]
    H = Knm.T @ Knm + lam * n * Kmm
    return np.linalg.lstsq(H, Knm.T @ y, rcond=None)[0]


def falkon_T_A(Kmm, lam, eps=0.0):
    """Upper factors T = chol(K_MM + eps M I), A = chol(T T^T / M + lam I)."""
    M = len(Kmm)
    T = cholesky(Kmm + eps * M * np.eye(M), lower=False)
    A = cholesky(T @ T.T / M + lam * np.eye(M), lower=False)
    return T, A


def falkon_B(Kmm, lam, n, eps=0.0):
    """B = n^-1/2 T^-1 A^-1, formed explicitly with inverses (fine for a reference)."""
    T, A = falkon_T_A(Kmm, lam, eps)
    return np.linalg.inv(T) @ np.linalg.inv(A) / np.sqrt(n)


def plain_cg_iterates(H, b, n_iter):
    """Textbook CG on H x = b from x0 = 0; returns the list of iterates."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    out = []
    for _ in range(n_iter):
        Hp = H @ p
        a = (r @ r) / (p @ Hp)
        x = x + a * p
        r_new = r - a * Hp
        beta = (r_new @ r_new) / (r @ r)
        p = r_new + beta * p
        r = r_new
        out.append(x.copy())
    return out


def nystroem_features(Knm, Kmm):
    """Z = K_nM K_MM^-1/2 (SVD, singular values clipped at 1e-12, as scikit-learn)."""
    U, S, Vt = np.linalg.svd(Kmm)
    return Knm @ (U / np.sqrt(np.clip(S, 1e-12, None)) @ Vt).T
