"""Pairwise distances and fused elementwise kernel maps (BLAS + numba, in place).

Squared Euclidean distances use the expansion ||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y
(one GEMM), clipped at 0. The elementwise maps that turn a Gram/distance matrix into
a kernel matrix run in place, in parallel numba loops, so a kernel matrix costs one
output-sized array and no temporaries.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._blas import gram

__all__ = [
    "augmented",
    "row_norms_sq",
    "sq_euclidean",
    "manhattan",
    "gram",
    "rbf_weighted_sums",
]


def row_norms_sq(X: np.ndarray) -> np.ndarray:
    """Squared Euclidean norm of each row, in the dtype of ``X``."""
    return np.einsum("ij,ij->i", X, X)


def augmented(X: np.ndarray, left: bool) -> np.ndarray:
    """Rows ``[x, ||x||^2, 1]`` (left) or ``[y, -1/2, -1/2 ||y||^2]`` (right).

    Their product is ``x.y - ||x||^2/2 - ||y||^2/2 = -||x - y||^2 / 2``: one GEMM with
    ``d + 2`` inner terms gives the whole exponent of an RBF kernel block.
    """
    A = np.empty((X.shape[0], X.shape[1] + 2), dtype=X.dtype)
    A[:, :-2] = X
    norms = row_norms_sq(X)
    if left:
        A[:, -2] = norms
        A[:, -1] = 1.0
    else:
        A[:, -2] = -0.5
        A[:, -1] = -0.5 * norms
    return A


@njit(parallel=True, cache=True)
def _sqdist_from_gram(G, xn, yn, symmetric):  # pragma: no cover - numba
    # d_ij = max(||x_i||^2 + ||y_j||^2 - 2 <x_i, y_j>, 0), written over G
    n, m = G.shape
    for i in prange(n):
        for j in range(m):
            d = xn[i] + yn[j] - 2.0 * G[i, j]
            G[i, j] = d if d > 0.0 else 0.0
        if symmetric and i < m:
            G[i, i] = 0.0


def sq_euclidean(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distance matrix, clipped at 0, zero diagonal when ``Y is None``."""
    symmetric = Y is None
    Y = X if Y is None else Y
    G = gram(X, Y)
    _sqdist_from_gram(G, row_norms_sq(X), row_norms_sq(Y), symmetric)
    return G


@njit(parallel=True, cache=True)
def _manhattan(X, Y, out):  # pragma: no cover - numba
    n, d = X.shape
    m = Y.shape[0]
    for i in prange(n):
        for j in range(m):
            s = 0.0
            for k in range(d):
                s += abs(X[i, k] - Y[j, k])
            out[i, j] = s


def manhattan(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """L1 (city-block) distance matrix."""
    Y = X if Y is None else Y
    out = np.empty((X.shape[0], Y.shape[0]), dtype=np.result_type(X, Y))
    _manhattan(X, Y, out)
    return out


# --- fused maps: Gram matrix G = X Y^T  ->  kernel matrix, in place -------------------


@njit(parallel=True, cache=True)
def exp_neg_scaled(D, gamma):  # pragma: no cover - numba
    """In place: D_ij <- exp(-gamma * D_ij)."""
    n, m = D.shape
    for i in prange(n):
        for j in range(m):
            D[i, j] = np.exp(-gamma * D[i, j])


@njit(parallel=True, cache=True)
def matern_from_sqdist(D, nu2):  # pragma: no cover - numba
    """In place Matern map of scaled squared distances; nu2 = 2*nu in {1, 3, 5}."""
    n, m = D.shape
    for i in prange(n):
        for j in range(m):
            r = np.sqrt(D[i, j])
            if nu2 == 1:
                D[i, j] = np.exp(-r)
            elif nu2 == 3:
                s = np.sqrt(3.0) * r
                D[i, j] = (1.0 + s) * np.exp(-s)
            else:
                s = np.sqrt(5.0) * r
                D[i, j] = (1.0 + s + s * s / 3.0) * np.exp(-s)


@njit(parallel=True, cache=True)
def power_affine(G, gamma, coef0, degree):  # pragma: no cover - numba
    """In place: G_ij <- (gamma * G_ij + coef0) ** degree.

    Integer degrees use exponentiation by squaring (a few multiplies instead of pow).
    """
    n, m = G.shape
    d = int(degree)
    integral = d == degree and d >= 0
    for i in prange(n):
        for j in range(m):
            u = gamma * G[i, j] + coef0
            if integral:
                r = 1.0
                b = u
                e = d
                while e > 0:
                    if e & 1:
                        r *= b
                    b *= b
                    e >>= 1
                G[i, j] = r
            else:
                G[i, j] = u**degree


@njit(cache=True)
def _rbf_weighted_row(Xs, W, R, i):  # pragma: no cover - numba
    d = Xs.shape[1]
    acc = W[i, i]  # k_ii = 1 and no distance terms
    for j in range(i):
        sq = 0.0
        for f in range(d):
            t = Xs[i, f] - Xs[j, f]
            sq += t * t
        w = 2.0 * W[i, j] * np.exp(-0.5 * sq)  # the (i, j) and (j, i) terms
        acc += w
        for f in range(d):
            t = Xs[i, f] - Xs[j, f]
            R[i, 1 + f] += w * t * t
    R[i, 0] = acc


@njit(parallel=True, cache=True)
def _rbf_weighted_rows(Xs, W, R):  # pragma: no cover - numba
    n = Xs.shape[0]
    for p in prange((n + 1) // 2):  # rows p and n-1-p together balance the triangle
        _rbf_weighted_row(Xs, W, R, p)
        if n - 1 - p != p:
            _rbf_weighted_row(Xs, W, R, n - 1 - p)


def rbf_weighted_sums(Xs: np.ndarray, W: np.ndarray) -> tuple[float, np.ndarray]:
    """``sum_ij W_ij k_ij`` and ``sum_ij W_ij k_ij (x_if - x_jf)^2`` for every feature f,
    with ``k_ij = exp(-1/2 ||x_i - x_j||^2)`` on the already scaled rows ``Xs`` and a
    symmetric ``W``. One fused pass over one triangle, no n x n temporary:
    the likelihood gradient of ``c * RBF`` (ARD) in closed form.
    """
    Xs = np.ascontiguousarray(Xs, dtype=np.float64)
    Wc = W if W.flags.c_contiguous else W.T  # symmetric: the transpose is the same matrix
    Wc = np.ascontiguousarray(Wc, dtype=np.float64)
    R = np.zeros((Xs.shape[0], Xs.shape[1] + 1))
    _rbf_weighted_rows(Xs, Wc, R)
    sums = R.sum(axis=0)
    return float(sums[0]), sums[1:]
