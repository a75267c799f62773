"""Linear model of coregionalization (LMC): parameters, observed pairs, likelihood on them.

Outputs ``f_t(x) = sum_q sum_r W_q[t, r] u_qr(x) + sqrt(kappa_q[t]) v_qt(x)`` with independent
``u_qr, v_qt ~ GP(0, k_q)`` have the covariance (Alvarez, Rosasco & Lawrence 2012, eq. 15)

    cov(f_t(x), f_s(x')) = sum_q B_q[t, s] k_q(x, x'),   B_q = W_q W_q^T + diag(kappa_q),

the intrinsic coregionalization model (ICM) when Q = 1. Observations ``y_t(x) = f_t(x) + eps``
with ``eps ~ N(0, sigma_t^2)`` (one noise variance per output).

With N observed pairs ``(x_{r_k}, t_k)`` (missing outputs simply absent) the likelihood is the
GP one on the N x N matrix ``K[k, l] = sum_q B_q[t_k, t_l] k_q(x_{r_k}, x_{r_l}) + sigma_{t_k}^2
delta_kl``; its gradient ``1/2 sum_kl Wt_kl dK_kl`` (``Wt = a a^T - K^-1``, R&W eq. 5.9) is
contracted into

- an n x n matrix ``M_q[i, j] = sum_{r_k = i, r_l = j} Wt_kl B_q[t_k, t_l]`` per kernel, handed to
  ``k_q.gradient_dot`` (never an (n, n, p) tensor), and
- a T x T matrix ``G_q[t, s] = sum_{t_k = t, t_l = s} Wt_kl k_q(x_{r_k}, x_{r_l})`` per B_q:
  ``d lml / d B_q = 1/2 G_q``, so ``d/dW_q = G_q W_q`` and
  ``d/dlog kappa_q = 1/2 diag(G_q) kappa_q``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..linalg import cho_inverse, cho_solve
from ._marginal_likelihood import factorize

__all__ = ["Coregionalization", "ObservedPairs", "dense_log_marginal_likelihood",
           "coregionalized_gram"]

_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass
class Coregionalization:
    """The LMC's hyperparameters and their packing into the optimizer's vector ``theta``.

    ``theta = [theta(k_1), ..., theta(k_Q), vec W_1, log kappa_1, ..., vec W_Q, log kappa_Q,
    log sigma^2]`` (the kappa and sigma^2 blocks only when they are learned). W is unbounded;
    the others are log values with bounds.
    """

    kernels: list
    W: list  # Q arrays (T, rank)
    kappa: np.ndarray  # (Q, T)
    noise: np.ndarray  # (T,)
    kappa_bounds: np.ndarray | None  # (2,) value bounds, None when fixed
    noise_bounds: np.ndarray | None

    @property
    def n_outputs(self) -> int:
        return self.noise.shape[0]

    def B(self, q: int) -> np.ndarray:
        """``B_q = W_q W_q^T + diag(kappa_q)``."""
        W = self.W[q]
        B = W @ W.T
        B[np.diag_indices_from(B)] += self.kappa[q]
        return B

    def Bs(self) -> np.ndarray:
        return np.stack([self.B(q) for q in range(len(self.kernels))])

    @property
    def theta(self) -> np.ndarray:
        parts = [k.theta for k in self.kernels]
        for q, W in enumerate(self.W):
            parts.append(W.ravel())
            if self.kappa_bounds is not None:
                parts.append(np.log(self.kappa[q]))
        if self.noise_bounds is not None:
            parts.append(np.log(self.noise))
        return np.concatenate(parts)

    @theta.setter
    def theta(self, theta) -> None:
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.n_dims,):
            raise ValueError(f"theta must have shape ({self.n_dims},); got {theta.shape}.")
        i = 0
        for k in self.kernels:
            nk = k.n_dims
            k.theta = theta[i:i + nk]
            i += nk
        self.set_tail(theta[i:])

    def set_tail(self, tail) -> None:
        """Set the entries of ``theta`` past the kernels' (``vec W_q``, ``log kappa_q``,
        ``log sigma^2``) and leave the kernels alone: the profiled search's inner steps,
        thousands per fit, where setting an unchanged kernel's theta was most of the
        Python time of a step."""
        tail = np.asarray(tail, dtype=float)
        T = self.n_outputs
        i = 0
        for q, W in enumerate(self.W):
            self.W[q] = tail[i:i + W.size].reshape(W.shape).copy()
            i += W.size
            if self.kappa_bounds is not None:
                self.kappa[q] = np.exp(tail[i:i + T])
                i += T
        if self.noise_bounds is not None:
            self.noise = np.exp(tail[i:i + T])
            i += T
        if i != tail.shape[0]:
            raise ValueError(f"the tail of theta has {tail.shape[0]} entries; expected {i}.")

    @property
    def n_dims(self) -> int:
        T = self.n_outputs
        return (sum(k.n_dims for k in self.kernels) + sum(W.size for W in self.W)
                + T * len(self.W) * (self.kappa_bounds is not None)
                + T * (self.noise_bounds is not None))

    @property
    def bounds(self) -> np.ndarray:
        """Bounds of ``theta`` (log space; ``-inf, inf`` for the entries of W)."""
        T = self.n_outputs
        parts = [k.bounds for k in self.kernels]
        for W in self.W:
            parts.append(np.tile([-np.inf, np.inf], (W.size, 1)))
            if self.kappa_bounds is not None:
                parts.append(np.tile(np.log(self.kappa_bounds), (T, 1)))
        if self.noise_bounds is not None:
            parts.append(np.tile(np.log(self.noise_bounds), (T, 1)))
        return np.vstack([p.reshape(-1, 2) for p in parts])

    def pack_gradient(self, g_kernels, dB, d_log_noise) -> np.ndarray:
        """theta-gradient from ``d lml/d theta(k_q)``, ``D_q = d lml / d B_q`` (symmetric, so
        ``d lml = sum D_q * dB_q``) and ``d lml / d log sigma^2``."""
        parts = list(g_kernels)
        for q, W in enumerate(self.W):
            parts.append((2.0 * dB[q] @ W).ravel())  # dB = dW W^T + W dW^T
            if self.kappa_bounds is not None:
                parts.append(np.diagonal(dB[q]) * self.kappa[q])  # dB = kappa dlog kappa
        if self.noise_bounds is not None:
            parts.append(d_log_noise)
        return np.concatenate(parts)


class ObservedPairs:
    """The observed ``(x_{r_k}, t_k)`` pairs of a target matrix with NaN for missing entries.

    Pairs are ordered output by output (all of output 0, then output 1, ...).
    """

    def __init__(self, Y: np.ndarray):
        n, T = Y.shape
        obs = ~np.isnan(Y)
        outs, rows = np.nonzero(obs.T)  # output-major order
        self.rows = rows.astype(np.intp)
        self.outs = outs.astype(np.intp)
        self.y = Y[self.rows, self.outs]
        self.n, self.n_outputs = n, T
        self.complete = bool(obs.all())
        # rows -> pairs (CSR), for the race-free parallel gradient contraction
        self.order = np.argsort(self.rows, kind="stable").astype(np.intp)
        self.starts = np.concatenate([[0], np.cumsum(np.bincount(self.rows, minlength=n))]
                                     ).astype(np.intp)
        # output t's pairs are out_starts[t]:out_starts[t + 1]
        self.out_starts = np.concatenate([[0], np.cumsum(np.bincount(self.outs, minlength=T))]
                                         ).astype(np.intp)

    def to_grid(self, v: np.ndarray) -> np.ndarray:
        """An (n, T) matrix with ``v`` at the observed pairs and 0 elsewhere."""
        out = np.zeros((self.n, self.n_outputs))
        out[self.rows, self.outs] = v
        return out


@njit(parallel=True, cache=True)
def _lmc_gram(Ks, Bs, rows, outs, out_starts, out, both):  # pragma: no cover - numba
    # K[k, l] = sum_q B_q[t_k, t_l] K_q[r_k, r_l] for l >= k (row k from its diagonal: the
    # lower triangle of the Fortran view that LAPACK factorizes), and l < k when ``both``;
    # the pairs l of one output s are a contiguous run, on which B_q[t_k, s] is one number
    N = rows.shape[0]
    T = out_starts.shape[0] - 1
    Q = Ks.shape[0]
    for k in prange(N):
        rk, ok = rows[k], outs[k]
        for s in range(ok, T):
            lo = max(k, out_starts[s])
            hi = out_starts[s + 1]
            for l in range(lo, hi):
                out[k, l] = 0.0
            for q in range(Q):
                b = Bs[q, ok, s]
                for l in range(lo, hi):
                    out[k, l] += b * Ks[q, rk, rows[l]]
            if both:
                for l in range(lo, hi):
                    out[l, k] = out[k, l]


@njit(parallel=True, cache=True)
def _lmc_contract(P, a, Ks, Bs, rows, outs, out_starts, order, starts, M, Gp):  # pragma: no cover
    # With Wt = a a^T - K^-1 (P: K^-1, read at l >= k only), the halves of the symmetric
    # contractions: M_q[i, r_l] += w B_q[t_k, s] and G_q[t_k, s] += w K_q[i, r_l] over
    # the pairs k at input i and l >= k, w = Wt[k, l] (half of it at l = k); the caller adds
    # the transposes. The pairs l of one output s are a contiguous run (output-major order):
    # B_q[t_k, s] is one number there and G_q[t_k, s] one running sum. Every thread owns
    # rows i of M (and its slice of Gp): no races.
    n = M.shape[1]
    T = out_starts.shape[0] - 1
    Q = Ks.shape[0]
    for i in prange(n):
        for p in range(starts[i], starts[i + 1]):
            k = order[p]
            ok = outs[k]
            ak = a[k]
            w0 = 0.5 * (ak * ak - P[k, k])  # l = k: half of Wt[k, k]
            for q in range(Q):
                M[q, i, i] += w0 * Bs[q, ok, ok]
                Gp[i, q, ok, ok] += w0 * Ks[q, i, i]
            for s in range(ok, T):
                lo = max(k + 1, out_starts[s])
                hi = out_starts[s + 1]
                for q in range(Q):
                    b = Bs[q, ok, s]
                    g = 0.0
                    for l in range(lo, hi):
                        w = ak * a[l] - P[k, l]
                        rl = rows[l]
                        M[q, i, rl] += w * b
                        g += w * Ks[q, i, rl]
                    Gp[i, q, ok, s] += g


def coregionalized_gram(Ks: np.ndarray, Bs: np.ndarray, pairs: ObservedPairs,
                        both: bool = True) -> np.ndarray:
    """``sum_q B_q[t_k, t_l] K_q[r_k, r_l]`` over the observed pairs, shape (N, N).

    ``both=False`` fills ``l >= k`` only (what the Cholesky factorization reads; the other
    triangle is left undefined).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1.0, np.nan], [2.0, 3.0]])
    >>> pairs = ObservedPairs(Y)
    >>> K = coregionalized_gram(np.eye(2)[None], np.array([[[1.0, 0.5], [0.5, 2.0]]]), pairs)
    >>> K.tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.5, 2.0]]
    """
    N = pairs.rows.shape[0]
    out = np.empty((N, N))
    _lmc_gram(np.ascontiguousarray(Ks), np.ascontiguousarray(Bs), pairs.rows, pairs.outs,
              pairs.out_starts, out, both)
    return out


def dense_log_marginal_likelihood(params: Coregionalization, X, pairs: ObservedPairs,
                                  eval_gradient: bool = False, *, jitter: bool = False):
    """LMC log marginal likelihood on the observed pairs (Cholesky of the N x N matrix).

    ``lml = -1/2 y^T a - sum log L_ii - N/2 log 2 pi`` (R&W eq. 2.30) with
    ``K = L L^T``, ``a = K^-1 y``. Returns ``lml`` (``-inf`` when K is not numerically
    positive definite), ``(lml, grad)`` with ``eval_gradient``, or with ``jitter=True`` the
    factorization for prediction: ``(lml, L, a, jitter_used)``.
    """
    Ks = np.stack([k(X) for k in params.kernels])
    Bs = params.Bs()
    # a retry with jitter restores the factorized triangle from the other one
    K = coregionalized_gram(Ks, Bs, pairs, both=jitter)
    L, jit = factorize(K, params.noise[pairs.outs], jitter=jitter)
    if L is None:
        return (-np.inf, np.zeros(params.n_dims)) if eval_gradient else -np.inf
    a = cho_solve(L, pairs.y)
    N = pairs.y.shape[0]
    lml = -0.5 * float(pairs.y @ a) - float(np.sum(np.log(np.diagonal(L)))) - 0.5 * N * _LOG_2PI
    if jitter:
        return lml, L, a, jit
    if not eval_gradient:
        return lml
    # K^-1 in the memory of L (Fortran order, lower triangle): its C-ordered transpose
    # holds K^-1 at l >= k, which is all the contraction reads
    P = cho_inverse(L, overwrite_l=True, full=False).T
    Q, n = Ks.shape[0], Ks.shape[1]
    M = np.zeros((Q, n, n))
    Gp = np.zeros((n, Q, params.n_outputs, params.n_outputs))
    _lmc_contract(P, a, Ks, Bs, pairs.rows, pairs.outs, pairs.out_starts, pairs.order,
                  pairs.starts, M, Gp)
    del Ks
    M += M.transpose(0, 2, 1)  # the halves over l >= k, plus their transposes
    G = Gp.sum(axis=0)
    G += G.transpose(0, 2, 1)
    # 1/2 sum_kl Wt_kl dK_kl for each block of theta (Wt = a a^T - K^-1, R&W eq. 5.9)
    g_kernels = [0.5 * k.gradient_dot(X, M[q]) for q, k in enumerate(params.kernels)]
    dB = 0.5 * G
    wt_diag = a * a - np.diagonal(P)
    d_noise = 0.5 * np.bincount(pairs.outs, weights=wt_diag, minlength=params.n_outputs)
    return lml, params.pack_gradient(g_kernels, dB, d_noise * params.noise)
