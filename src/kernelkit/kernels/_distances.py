"""Pairwise distances and fused elementwise kernel maps (BLAS + numba or NumPy, in place).

Squared Euclidean distances use the expansion ||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y
(one GEMM), clipped at 0. The elementwise maps that turn a Gram/distance matrix into
a kernel matrix run in place, in parallel numba loops (or, for the RBF and rational
quadratic maps with their derivatives, NumPy's SIMD ufuncs written into the outputs), so
a kernel matrix costs one output-sized array and no temporaries.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._core import blas as _blas
from .._core.interpreted import INTERPRETED_WORK, pick
from .._core.scratch import scratch_empty
from .._core.twin import twin
from . import _sparse

__all__ = [
    "augmented",
    "row_norms_sq",
    "sq_euclidean",
    "manhattan",
    "gram",
    "rbf_weighted_sums",
    "rq_weighted_sums",
    "exp_sine_weighted_sums",
    "exp_sine_1d_and_derivatives",
    "centre_pair",
    "tile_exp",
    "tile_exp_clipped",
    "exp_tile_map",
    "tile_l1",
    "tile_matern",
    "tile_neg_exp",
    "tile_power",
]


def gram(X, Y=None) -> np.ndarray:
    """Plain inner products ``X @ Y.T`` as a dense C-contiguous block: one GEMM for dense
    rows, the sparse product for sparse rows (the input is never densified)."""
    if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
        return _sparse.sparse_gram(X, X if Y is None else Y)
    return _blas.gram(X, Y)


def row_norms_sq(X) -> np.ndarray:
    """Squared Euclidean norm of each row, in the dtype of ``X`` (dense or sparse)."""
    if _sparse.is_sparse(X):
        return _sparse.sparse_row_norms_sq(X)
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


def centre_pair(X: np.ndarray, Y: np.ndarray | None = None):
    """``X`` and ``Y`` both minus the mean of their rows: the differences, hence every
    distance, are unchanged, while the cancellation in ||x||^2 + ||y||^2 - 2 x.y shrinks
    for data far from the origin (calendar years, say)."""
    if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
        return X, Y  # shifting sparse rows would fill them in: the expansion as given
    if X.dtype != np.float64 or (Y is not None and Y.dtype != np.float64):
        return X, Y  # float32 stays as given: shifted float32 coordinates would be rounded
    # the mean of all rows of X and Y: the same point for (X, Y) and (Y, X), so that
    # K(X, Y) = K(Y, X)^T holds to the last bit as without centring
    total = X.sum(axis=0, dtype=np.float64)
    if Y is not None:
        total = total + Y.sum(axis=0, dtype=np.float64)
    mu = (total / (len(X) + (0 if Y is None else len(Y)))).astype(X.dtype)
    return X - mu, (None if Y is None else Y - mu)


def sq_euclidean(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distance matrix, clipped at 0, zero diagonal when ``Y is None``."""
    symmetric = Y is None
    if X.size:
        X, Y = centre_pair(X, Y)
    Y = X if Y is None else Y
    G = gram(X, Y)
    # a small matrix interpreted until the loop is compiled (_core/interpreted.py)
    pick(_sqdist_from_gram, G.size, INTERPRETED_WORK)(G, row_norms_sq(X), row_norms_sq(Y),
                                                      symmetric)
    return G


@twin
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
    """L1 (city-block) distance matrix (sparse rows: a merge of their sorted indices)."""
    Y = X if Y is None else Y
    if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
        return _sparse.sparse_manhattan(X, Y)
    out = np.empty((X.shape[0], Y.shape[0]), dtype=np.result_type(X, Y))
    _manhattan(X, Y, out, work=out.size * X.shape[1])
    return out


# --- fused maps: Gram matrix G = X Y^T  ->  kernel matrix, in place -------------------


@njit(parallel=True, cache=True)
def exp_neg_scaled(D, gamma):  # pragma: no cover - numba
    """In place: D_ij <- exp(-gamma * D_ij)."""
    n, m = D.shape
    for i in prange(n):
        for j in range(m):
            D[i, j] = np.exp(-gamma * D[i, j])


@twin
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


@twin
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


# up to this many rows rbf_weighted_sums runs in NumPy: its n x n temporaries are at most
# 8 MiB, and a process that fits only small Gram matrices (the sparse GP's K_MM) never
# pays numba's first-call start-up (0.4 s)
RBF_SUMS_NUMPY_ROWS = 1024


def rbf_weighted_sums(Xs: np.ndarray, W: np.ndarray) -> tuple[float, np.ndarray]:
    """``sum_ij W_ij k_ij`` and ``sum_ij W_ij k_ij (x_if - x_jf)^2`` for every feature f,
    with ``k_ij = exp(-1/2 ||x_i - x_j||^2)`` on the already scaled (and centred) rows
    ``Xs`` and a symmetric ``W``. One fused pass over one triangle, no n x n temporary:
    the likelihood gradient of ``c * RBF`` (ARD) in closed form.
    """
    if Xs.shape[0] <= RBF_SUMS_NUMPY_ROWS:
        return _rbf_weighted_sums_numpy(np.asarray(Xs, dtype=np.float64),
                                        np.asarray(W, dtype=np.float64))
    Xs = np.ascontiguousarray(Xs, dtype=np.float64)
    Wc = W if W.flags.c_contiguous else W.T  # symmetric: the transpose is the same matrix
    Wc = np.ascontiguousarray(Wc, dtype=np.float64)
    R = np.zeros((Xs.shape[0], Xs.shape[1] + 1))
    _rbf_weighted_rows(Xs, Wc, R)
    sums = R.sum(axis=0)
    return float(sums[0]), sums[1:]


def _rbf_weighted_sums_numpy(Xs, W):
    # E = W * k; with E symmetric, sum_ij E_ij (x_if - x_jf)^2 = 2 sum_i r_i x_if^2
    # - 2 (X^T E X)_ff, r = E 1 (the expansion on centred rows, as the kernel's own GEMM)
    sq = np.einsum("ij,ij->i", Xs, Xs)
    E = Xs @ Xs.T
    E *= 2.0
    E -= sq[:, None]
    E -= sq[None, :]
    np.minimum(E, 0.0, out=E)  # -||x_i - x_j||^2, clipped at 0
    E *= 0.5
    np.exp(E, out=E)
    E *= W
    r = E.sum(axis=1)
    per_feature = 2.0 * (r @ Xs**2 - np.einsum("if,if->f", Xs, E @ Xs))
    return float(r.sum()), per_feature


# --- rational quadratic and periodic kernels: in-place maps and fused gradient sums -----


@njit(parallel=True, cache=True)
def rq_from_sqdist(D, alpha):  # pragma: no cover - numba
    """In place: D_ij <- (1 + D_ij / (2 alpha))^(-alpha) on scaled squared distances."""
    n, m = D.shape
    for i in prange(n):
        for j in range(m):
            D[i, j] = np.exp(-alpha * np.log1p(D[i, j] / (2.0 * alpha)))


@njit(parallel=True, cache=True)
def exp_sine_from_sqdist(D, freq, gamma):  # pragma: no cover - numba
    """In place: D_ij <- exp(-gamma sin^2(freq sqrt(D_ij))) on squared distances."""
    n, m = D.shape
    for i in prange(n):
        for j in range(m):
            s = np.sin(freq * np.sqrt(D[i, j]))
            D[i, j] = np.exp(-gamma * s * s)


@njit(cache=True)
def _pair_sqdist(X, i, j):  # pragma: no cover - numba
    sq = 0.0
    for f in range(X.shape[1]):
        t = X[i, f] - X[j, f]
        sq += t * t
    return sq


@njit(cache=True)
def _rq_weighted_row(Xs, W, alpha, R, i):  # pragma: no cover - numba
    v = W[i, i]  # k_ii = 1, both derivatives 0 on the diagonal
    gl = 0.0
    ga = 0.0
    for j in range(i):
        u = _pair_sqdist(Xs, i, j) / (2.0 * alpha)  # u = d^2 / (2 alpha l^2)
        lg = np.log1p(u)
        k = np.exp(-alpha * lg)
        w = 2.0 * W[i, j] * k  # the (i, j) and (j, i) terms
        v += w
        gl += w * 2.0 * alpha * u / (1.0 + u)  # dk/dlog l / k = 2 alpha u / (1 + u)
        ga += w * alpha * (u / (1.0 + u) - lg)  # dk/dlog alpha / k
    R[i, 0] = v
    R[i, 1] = gl
    R[i, 2] = ga


@njit(parallel=True, cache=True)
def _rq_weighted_rows(Xs, W, alpha, R):  # pragma: no cover - numba
    n = Xs.shape[0]
    for p in prange((n + 1) // 2):  # rows p and n-1-p together balance the triangle
        _rq_weighted_row(Xs, W, alpha, R, p)
        if n - 1 - p != p:
            _rq_weighted_row(Xs, W, alpha, R, n - 1 - p)


@njit(cache=True)
def _exp_sine_weighted_row(X, W, freq, gamma, R, i):  # pragma: no cover - numba
    v = W[i, i]
    gl = 0.0
    gp = 0.0
    for j in range(i):
        a = freq * np.sqrt(_pair_sqdist(X, i, j))  # a = pi d / p
        s = np.sin(a)
        w = 2.0 * W[i, j] * np.exp(-gamma * s * s)
        v += w
        gl += w * 2.0 * gamma * s * s  # dk/dlog l / k = 4 sin^2(a) / l^2
        gp += w * 2.0 * gamma * a * s * np.cos(a)  # dk/dlog p / k = 4 a sin cos / l^2
    R[i, 0] = v
    R[i, 1] = gl
    R[i, 2] = gp


@njit(parallel=True, cache=True)
def _exp_sine_weighted_rows(X, W, freq, gamma, R):  # pragma: no cover - numba
    n = X.shape[0]
    for p in prange((n + 1) // 2):
        _exp_sine_weighted_row(X, W, freq, gamma, R, p)
        if n - 1 - p != p:
            _exp_sine_weighted_row(X, W, freq, gamma, R, n - 1 - p)


def _weighted_sums(rows, X, W, *params) -> np.ndarray:
    X = np.ascontiguousarray(X, dtype=np.float64)
    Wc = W if W.flags.c_contiguous else W.T  # symmetric: the transpose is the same matrix
    Wc = np.ascontiguousarray(Wc, dtype=np.float64)
    R = np.zeros((X.shape[0], 3))
    rows(X, Wc, *params, R)
    return R.sum(axis=0)


def rq_weighted_sums(Xs: np.ndarray, W: np.ndarray, alpha: float) -> np.ndarray:
    """``[sum W K, sum W dK/dlog l, sum W dK/dlog alpha]`` of the rational quadratic kernel
    on already scaled rows ``Xs`` (``x / l``) and a symmetric ``W``: one pass over one
    triangle, no n x n temporary."""
    return _weighted_sums(_rq_weighted_rows, Xs, W, float(alpha))


def exp_sine_weighted_sums(X: np.ndarray, W: np.ndarray, length_scale: float,
                           periodicity: float) -> np.ndarray:
    """``[sum W K, sum W dK/dlog l, sum W dK/dlog p]`` of ExpSineSquared, one fused pass."""
    return _weighted_sums(_exp_sine_weighted_rows, X, W, np.pi / float(periodicity),
                          2.0 / float(length_scale) ** 2)


@njit(parallel=True, cache=True)
def _exp_sine_and_derivatives(D, freq, gamma, K, G1, G2):  # pragma: no cover - numba
    # lower triangle, mirrored: K, dK/dlog l in G1, dK/dlog p in G2 from the squared
    # distances D of one set to itself
    n = D.shape[0]
    for i in prange(n):
        for j in range(i + 1):
            a = freq * np.sqrt(D[i, j])
            s = np.sin(a)
            k = np.exp(-gamma * s * s)
            g1 = 2.0 * gamma * s * s * k
            g2 = 2.0 * gamma * a * s * np.cos(a) * k
            K[i, j] = k
            K[j, i] = k
            G1[i, j] = g1
            G1[j, i] = g1
            G2[i, j] = g2
            G2[j, i] = g2


def _outputs(D, count):
    # an optimizer's evaluation reuses the previous evaluation's matrices (kernelkit._core.scratch)
    return tuple(scratch_empty(D.shape) for _ in range(count))


def exp_sine_and_derivatives(D: np.ndarray, length_scale: float, periodicity: float):
    """ExpSineSquared's K and its two derivative matrices (log l, log p), new arrays, from
    the squared distances ``D`` of one set (left as they are): one pass of sines over one
    triangle."""
    K, G1, G2 = _outputs(D, 3)
    _exp_sine_and_derivatives(D, np.pi / float(periodicity), 2.0 / float(length_scale) ** 2,
                              K, G1, G2)
    return K, G1, G2


def exp_sine_1d_and_derivatives(x: np.ndarray, length_scale: float, periodicity: float,
                                need_length: bool = True, need_period: bool = True):
    """ExpSineSquared's K and its derivative matrices (log l, log p; None where not
    needed), new arrays, on one time axis ``x`` of shape (n,): no transcendental per pair.

    With a_i = pi x_i / p, s = sin(a), c = cos(a): sin(a_i - a_j) = s_i c_j - c_i s_j and
    cos(a_i - a_j) = c_i c_j + s_i s_j, two rank-2 products; then K = exp(-gamma S^2) with
    gamma = 2 / l^2, dK/dlog l = 2 gamma S^2 K and dK/dlog p = 2 gamma a S C K with
    a = pi (x_i - x_j) / p (S C a is even in x_i - x_j, so |d| and d give the same).
    The axis is centred and reduced modulo p first (exact in floating point; sin^2 and
    S C do not change), so the angles stay in (-pi, pi) at any offset of the time axis.
    """
    x = np.asarray(x, dtype=np.float64)
    x = x - x.mean()
    p = float(periodicity)
    freq, gamma = np.pi / p, 2.0 / float(length_scale) ** 2
    a = np.fmod(x, p) * freq
    s, c = np.sin(a), np.cos(a)
    n = x.shape[0]
    K, S = (scratch_empty((n, n)) for _ in range(2))
    np.matmul(np.stack([s, c], axis=1), np.stack([c, -s], axis=1).T, out=S)  # sin(a_i - a_j)
    G2 = None
    if need_period:
        G2 = scratch_empty((n, n))
        sc = np.stack([c, s], axis=1)
        np.matmul(sc, sc.T, out=G2)  # cos(a_i - a_j)
        G2 *= S
        xs = x * (2.0 * gamma * freq)
        G2 *= np.subtract.outer(xs, xs, out=K)  # 2 gamma a S C (K's memory as the temporary)
    S *= S
    np.multiply(S, -gamma, out=K)
    np.exp(K, out=K)
    if need_period:
        G2 *= K
    G1 = None
    if need_length:
        S *= 2.0 * gamma
        S *= K
        G1 = S
    return K, G1, G2


# The RBF and rational quadratic maps below are NumPy ufuncs written into their outputs (no
# n x n temporary): NumPy's exp and log1p are SIMD loops, 5-10x faster per element here
# than numba's scalar calls (numba vectorizes them only with Intel SVML). ExpSineSquared
# stays in numba: NumPy's float64 sin / cos are not vectorized.


def rq_and_derivatives(D: np.ndarray, length_scale: float, alpha: float):
    """RationalQuadratic's K and its derivative matrices (log l, log alpha), new arrays,
    from the unscaled squared distances ``D`` of one set (left as they are).

    With u = d^2 / (2 alpha l^2): K = (1 + u)^-alpha = exp(-alpha log1p(u)),
    dK/dlog l = 2 alpha u / (1 + u) K, dK/dlog alpha = alpha (u / (1 + u) - log1p(u)) K.
    """
    K, G1, G2 = _outputs(D, 3)
    alpha = float(alpha)
    np.multiply(D, 1.0 / (2.0 * alpha * float(length_scale) ** 2), out=G1)  # u
    np.log1p(G1, out=G2)  # log1p(u)
    np.add(G1, 1.0, out=K)
    np.divide(G1, K, out=G1)  # q = u / (1 + u)
    np.multiply(G2, -alpha, out=K)
    np.exp(K, out=K)  # K = exp(-alpha log1p(u))
    np.subtract(G1, G2, out=G2)
    G2 *= K
    G2 *= alpha  # alpha (q - log1p(u)) K
    G1 *= K
    G1 *= 2.0 * alpha  # 2 alpha q K
    return K, G1, G2


def rbf_and_derivative(D: np.ndarray, length_scale: float):
    """The isotropic RBF's K and dK/dlog l, new arrays, from the unscaled squared distances
    ``D`` of one set (left as they are): r^2 = d^2 / l^2, K = exp(-r^2 / 2), dK/dlog l =
    r^2 K."""
    K, G = _outputs(D, 2)
    np.multiply(D, 1.0 / float(length_scale) ** 2, out=G)  # r^2
    np.multiply(G, -0.5, out=K)
    np.exp(K, out=K)
    G *= K
    return K, G


# --- tile maps for kernelkit.linalg.fused: serial (the tiles run on worker threads) ---
# Each writes or maps one in-cache tile in place; the matching kernels' ``tile_factors``
# hand them to the fused products.


def tile_exp(T):
    """``T <- exp(T)`` (T holds -||x - y||^2 / 2 of the RBF's factor rows, whose rounding
    :func:`exp_tile_map` bounds)."""
    np.exp(T, out=T)


def tile_exp_clipped(T):
    """``T <- exp(min(T, 0))``: :func:`tile_exp` for rows whose expansion can round far above
    0 (float32 rows ~1e8 from the origin: -||x - x||^2 / 2 ~ +1e9, and exp overflowed)."""
    np.minimum(T, 0.0, out=T)
    np.exp(T, out=T)


#: largest bound on the exponent's rounding for which the tiles skip the clip at 0 (their
#: entries are then at most exp(1e-3) for x = y; far below it for typical data)
EXP_ROUNDING_SLACK = 1e-3


def exp_tile_map(A: np.ndarray, B: np.ndarray):
    """:func:`tile_exp`, or :func:`tile_exp_clipped` where the rounding of ``A B^T`` (the
    :func:`augmented` rows) could lift the exponent above ``EXP_ROUNDING_SLACK``.

    Each product sums d + 2 terms of magnitude at most ||x||^2 + ||y||^2 <= 2 M (M the
    largest squared row norm), so its rounding error is at most gamma_{d+2} 2 M with
    gamma_k = k u / (1 - k u) (Higham 2002, eq. 3.5); the true exponent is <= 0. The clip
    is a second pass over every tile (~20% of a float64 RBF product), so it runs only where
    the bound says it can matter.
    """
    if len(A) == 0 or len(B) == 0:
        return tile_exp
    k, u = A.shape[1], float(np.finfo(A.dtype).eps) / 2
    M = max(float(np.max(A[:, -2])), -2.0 * float(np.min(B[:, -1])))  # max ||x||^2, ||y||^2
    gamma = k * u / (1.0 - k * u)
    return tile_exp if gamma * 2.0 * M <= EXP_ROUNDING_SLACK else tile_exp_clipped


def tile_l1(A, B, out):
    """``out <- ||a_i - b_j||_1`` for the rows of A and B (the Laplacian's distances)."""
    _manhattan.seq(A, B, out)


def tile_neg_exp(T):
    """``T <- exp(-T)`` (the Laplacian's map of L1 distances)."""
    np.negative(T, out=T)
    np.exp(T, out=T)


def tile_matern(T, nu2):
    """``T <- Matern_nu(r)`` with ``r^2 = max(-2 T, 0)`` (T from the RBF's factor rows)."""
    T *= -2.0
    np.maximum(T, 0.0, out=T)
    matern_from_sqdist.seq(T, nu2)


def tile_power(T, degree):
    """``T <- T^degree`` (T holds gamma x.y + coef0 from the polynomial's factor rows)."""
    power_affine.seq(T, 1.0, 0.0, float(degree))

