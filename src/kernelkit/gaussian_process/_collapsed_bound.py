"""Titsias' (2009) collapsed variational bound of sparse GP regression and its gradient.

With inducing points Z (M of them), K_MM = L L^T (+ jitter), A = L^-1 K_Mn / sigma,
B = I + A A^T = L_B L_B^T and c = L_B^-1 A Y / sigma (t target columns, summed):

    ELBO = log N(Y | 0, Q_nn + s I) - t tr(K_nn - Q_nn) / (2 s),   Q_nn = K_nM K_MM^-1 K_Mn
         = -n t/2 log(2 pi s) - t sum log diag L_B - |Y|^2 / (2 s) + |c|^2 / 2
           - t sum_i k(x_i, x_i) / (2 s) + t tr(A A^T) / 2,                    s = sigma^2.

The rows enter only through sums over row blocks b: P = sum_b (L^-1 K_Mb)(L^-1 K_Mb)^T
(= s A A^T), p = sum_b L^-1 K_Mb Y_b, |Y|^2 and sum_i k(x_i, x_i) (one pass, O(n M^2)).

Gradient (derived by matrix differentials of the form above; with Phi = A A^T,
v = L_B^-T c and H = t (I - B^-1) - v v^T):

    dELBO = tr(G_MM dK_MM) + sum_ij (G_nM)_ij (dK_nM)_ij - t/(2 s) sum_i dk(x_i, x_i)
    G_MM = L^-T (H - t Phi) L^-1 / 2,      G_nM = K_nM C_1 + Y C_2^T,
    C_1 = L^-T H L^-1 / s,                 C_2 = L^-T v / s,
    s dELBO/ds = -n t/2 + t/2 tr(B^-1 Phi) + |Y|^2/(2 s) - |c|^2 + tr(v^T Phi v)/2
                 + t sum_i k(x_i, x_i)/(2 s) - t/2 tr(Phi).

The second pass contracts G_nM block by block with the kernel's derivatives
(``cross_gradient_dot``, ``input_gradient_dot`` for Z, ``diag_gradient_dot``): no (n, M, p)
tensor is formed, and the n x M matrix is held only when it fits scikit-learn's
``working_memory`` (the first pass's kernel blocks then serve the second pass; otherwise they
are computed again, block by block).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dsyrk

from ..linalg import cho_inverse, fits_in_memory, jitter_cholesky

__all__ = ["Bound", "collapsed_bound", "Posterior"]

_LOG_2PI = float(np.log(2.0 * np.pi))


class Posterior(NamedTuple):
    """What prediction needs: ``L`` (chol K_MM + jitter), ``LB`` (chol B), ``weights``
    ``w = L^-T v`` (mean = K_*M w) and the jitter used."""

    L: np.ndarray
    LB: np.ndarray
    weights: np.ndarray
    jitter: float


class Bound(NamedTuple):
    """The ELBO and (when asked) its gradient in the kernel's theta, in log s and in Z."""

    value: float
    grad_theta: np.ndarray | None
    grad_log_noise: float | None
    grad_inducing: np.ndarray | None
    posterior: Posterior


def factor_kmm(kernel, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(K_MM, L, jitter)``: L = chol(K_MM + jitter I) by the adaptive jitter rule."""
    Kmm = kernel(Z)
    L, jitter = jitter_cholesky(
        Kmm, what="inducing-point covariance K_MM",
        hint="remove duplicated inducing points, use fewer of them or a shorter length scale",
        # a pivot of rounding size (duplicated points) counts as singular: jitter instead
        min_pivot=Z.shape[0] * float(np.finfo(np.float64).eps),
    )
    return Kmm, L, jitter


def _tri(L, B, trans="N"):
    return solve_triangular(L, B, lower=True, trans=trans, check_finite=False)


# ------------------------------------------------------------ per-block partial sums
def _block_key(Xb) -> tuple[int, int]:
    # a row block of an in-memory X: the same slice has the same address and length
    return Xb.__array_interface__["data"][0], Xb.shape[0]


def stats_part(Xb, Yb, kernel, Z, L, cache=None):
    """One block's ``(P_b, p_b, |Y_b|^2, sum_i k(x_i, x_i))`` (P_b upper triangle only).

    ``cache`` (a dict, or None): K_bM is kept there for the gradient pass of the same
    evaluation (:func:`grad_part`), so each evaluation computes the kernel block once.
    """
    Kb = kernel(Xb, Z)  # (b, M)
    if cache is not None:
        cache[_block_key(Xb)] = Kb
    # A_b = L^-1 K_Mb (in Kb's memory unless Kb is kept)
    Ab = solve_triangular(L, Kb.T, lower=True, overwrite_b=cache is None, check_finite=False)
    return (dsyrk(1.0, Ab), Ab @ Yb, float(np.einsum("ij,ij->", Yb, Yb)),
            float(np.sum(kernel.diag(Xb))))


def grad_part(Xb, Yb, kernel, Z, C1, C2, want_inducing, cache=None):
    """One block's ``(sum G * dK_bM/dtheta, sum d k(x_i, x_i)/dtheta, dZ part)``."""
    Kb = cache.pop(_block_key(Xb), None) if cache is not None else None
    if Kb is None:
        Kb = kernel(Xb, Z)
    Gb = Kb @ C1  # G_bM = K_bM C_1 + Y_b C_2^T
    Gb += Yb @ C2.T
    g_theta = kernel.cross_gradient_dot(Xb, Z, Gb, Kb)
    g_diag = kernel.diag_gradient_dot(Xb, np.ones(Xb.shape[0]))
    g_z = kernel.input_gradient_dot(Xb, Z, Gb, Kb) if want_inducing else np.zeros(1)
    return g_theta, g_diag, g_z


# --------------------------------------------------------------------------- bound
def _keeps_kernel_blocks(rows, m: int) -> bool:
    """Keep K_nM between the two passes when the rows are in this process and the n x M
    float64 matrix fits scikit-learn's ``working_memory`` (else it is computed twice)."""
    return rows.in_memory and fits_in_memory(rows.shape[0] * m * 8)


def collapsed_bound(kernel, Z: np.ndarray, noise: float, rows, *, gradient: bool = False,
                    inducing_gradient: bool = False) -> Bound:
    """Titsias' collapsed ELBO of the rows ``rows`` (see the module docstring).

    Parameters
    ----------
    kernel : Kernel
    Z : ndarray of shape (M, d)
    noise : float
        The noise variance s > 0.
    rows : TrainingRows
        The training rows (in memory or on Dask; see ``_rows.py``): ``reduce(fn, *args)``,
        ``shape``, ``n_targets``, ``in_memory``.
    gradient : bool
        Also return the gradient in ``kernel.theta`` and in ``log s``.
    inducing_gradient : bool
        Also return the gradient in ``Z``.

    Returns
    -------
    Bound
    """
    n, t, s = rows.shape[0], rows.n_targets, float(noise)
    Kmm, L, jitter = factor_kmm(kernel, Z)
    cache = {} if gradient and _keeps_kernel_blocks(rows, len(Z)) else None
    P, p, yy, kd = rows.reduce(stats_part, kernel, Z, L, cache)
    P = np.triu(P)
    P = P + np.triu(P, 1).T
    Phi = P / s  # A A^T
    B = Phi + np.eye(len(Z))
    LB, _ = jitter_cholesky(B, what="B = I + A A^T", max_relative_jitter=0.0)
    c = _tri(LB, p) / s  # c = L_B^-1 A Y / sigma
    cc = float(np.sum(c * c))
    tr_phi = float(np.trace(Phi))
    value = (-0.5 * n * t * (_LOG_2PI + np.log(s)) - t * float(np.sum(np.log(np.diag(LB))))
             - 0.5 * yy / s + 0.5 * cc - 0.5 * t * kd / s + 0.5 * t * tr_phi)
    v = _tri(LB, c, "T")  # v = L_B^-T c
    post = Posterior(L, LB, _tri(L, v, "T"), jitter)
    if not (gradient or inducing_gradient):
        return Bound(value, None, None, None, post)

    Binv = cho_inverse(LB)
    H = t * (np.eye(len(Z)) - Binv) - v @ v.T
    Gmm = _tri(L, _tri(L, H - t * Phi, "T").T, "T") / 2  # L^-T (H - t Phi) L^-1 / 2
    C1 = _tri(L, _tri(L, H, "T").T, "T") / s  # L^-T H L^-1 / s
    C1 = 0.5 * (C1 + C1.T)
    Gmm = 0.5 * (Gmm + Gmm.T)
    C2 = post.weights / s  # L^-T v / s
    g_nm, g_diag, g_z = rows.reduce(grad_part, kernel, Z, C1, C2, inducing_gradient, cache)
    grad_theta = kernel.gradient_dot(Z, Gmm, Kmm) + g_nm - 0.5 * t / s * g_diag
    vPhiv = float(np.sum(v * (Phi @ v)))
    grad_log_noise = (-0.5 * n * t + 0.5 * t * float(np.sum(Binv * Phi)) + 0.5 * yy / s - cc
                      + 0.5 * vPhiv + 0.5 * t * kd / s - 0.5 * t * tr_phi)
    grad_z = None
    if inducing_gradient:
        # d/dZ tr(G_MM K_MM) = 2 sum_a G_aj dk(z_a, z_j)/dz_j  (G_MM and k symmetric)
        grad_z = 2.0 * kernel.input_gradient_dot(Z, Z, Gmm, Kmm) + g_z
    return Bound(value, grad_theta, grad_log_noise, grad_z, post)
