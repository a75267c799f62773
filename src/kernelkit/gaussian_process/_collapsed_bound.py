"""Titsias' (2009) collapsed variational bound of sparse GP regression and its gradient.

With inducing points Z (M of them), K_MM = L L^T (+ jitter), A = L^-1 K_Mn / sigma,
B = I + A A^T = L_B L_B^T and c = L_B^-1 A Y / sigma (t target columns, summed):

    ELBO = log N(Y | 0, Q_nn + s I) - t tr(K_nn - Q_nn) / (2 s),   Q_nn = K_nM K_MM^-1 K_Mn
         = -n t/2 log(2 pi s) - t sum log diag L_B - |Y|^2 / (2 s) + |c|^2 / 2
           - t sum_i k(x_i, x_i) / (2 s) + t tr(A A^T) / 2,                    s = sigma^2.

The rows enter only through sums over row blocks b: P = sum_b (L^-1 K_Mb)(L^-1 K_Mb)^T
(= s A A^T), p = sum_b L^-1 K_Mb Y_b, |Y|^2 and sum_i k(x_i, x_i) (one pass, O(n M^2)).
L^-1 K_Mb is formed from each block (not P from sum_b K_Mb K_bM, whose rounding
L^-1 ... L^-T amplifies by cond(K_MM): 1e-5 relative error at cond 1e12 against 1e-11),
by GEMMs with the triangular inverse L^-1 (OpenBLAS's triangular solve runs at about a
fifth of GEMM's rate; the inverse's result is within a factor of 2-8 of the solve's error).

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
are computed again, block by block). Row blocks of ``rows_per_block`` rows (about 4 MiB of
kernel entries) run on as many threads as BLAS threads are allowed, each with one BLAS
thread; their partial sums are added in block order.
"""

from __future__ import annotations

import contextlib
import threading
from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dgemm
from scipy.linalg.lapack import dtrtri

from .._core.scratch import Arena, scratch_empty
from .._core.threads import single_threaded
from ..linalg import cho_inverse, fits_in_memory, jitter_cholesky
from ..linalg.fused import tile_plan

__all__ = ["Bound", "KernelBlocks", "collapsed_bound", "kernel_blocks", "Posterior"]

_LOG_2PI = float(np.log(2.0 * np.pi))
# up to this many inducing points the M x M algebra runs on one BLAS thread
SMALL_M = 512


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


class KernelBlocks:
    """The memory of the kernel blocks K(X_b, Z) across the evaluations of one fit.

    ``keep``: the first pass of an evaluation writes K_bM here and the gradient pass reads
    it back (each evaluation computes a kernel block once); the next evaluation writes
    into the same memory. Each worker thread also gets an :class:`~kernelkit._core.scratch.Arena`
    for a block's temporaries (A_b, G_bM, the kernel's contraction). From the second
    evaluation on no page is new: fresh pages cost a page fault each, and made the
    blockwise passes about 1.3x slower. Without ``keep`` (K_nM does not fit in working
    memory) the gradient pass computes each block again, into the arena.

    Only for rows in this process: a store is never sent to Dask workers.
    """

    def __init__(self, keep: bool):
        self.keep = bool(keep)
        self._kept: dict = {}
        self._arenas: dict = {}  # thread id -> Arena (dict updates are atomic)

    def arena(self) -> Arena:
        """This thread's arena (its buffers live as long as this store)."""
        tid = threading.get_ident()
        arena = self._arenas.get(tid)
        if arena is None:
            arena = self._arenas[tid] = Arena()
        return arena

    def first(self, kernel, Xb, Z) -> np.ndarray:
        """K(X_b, Z) computed into this block's kept memory (or the thread's scratch)."""
        key, shape = _block_key(Xb), (Xb.shape[0], Z.shape[0])
        out = self._kept.get(key) if self.keep else scratch_empty(shape)
        K = _kernel_into(kernel, Xb, Z, np.empty(shape) if out is None else out)
        if self.keep:
            self._kept[key] = K
        return K

    def again(self, kernel, Xb, Z) -> np.ndarray:
        """The block of the first pass if kept, else computed again into scratch."""
        K = self._kept.get(_block_key(Xb)) if self.keep else None
        return K if K is not None else _kernel_into(kernel, Xb, Z,
                                                    scratch_empty((Xb.shape[0], Z.shape[0])))


def _kernel_into(kernel, Xb, Z, out) -> np.ndarray:
    """K(X_b, Z) written into ``out`` (float64) as one tile of the kernel's tile plan (a
    GEMM of its factor rows and its in-place map); kernels without one return a new array."""
    plan = tile_plan(kernel, Xb, Z)
    if plan is None or out.shape != plan.shape:
        return np.asarray(kernel(Xb, Z), dtype=np.float64)
    plan.tile(slice(0, out.shape[0]), slice(0, out.shape[1]), out)  # the whole of out
    return out


def stats_part(Xb, Yb, kernel, Z, Linv, blocks=None):
    """One block's ``(P_b, p_b, |Y_b|^2, sum_i k(x_i, x_i))``.

    ``blocks`` (a :class:`KernelBlocks`, or None: no memory is reused, nothing is kept).
    """
    with _evaluation(blocks):
        Kb = kernel(Xb, Z) if blocks is None else blocks.first(kernel, Xb, Z)  # (b, M)
        # A_b = L^-1 K_Mb by GEMMs with the triangular inverse (OpenBLAS's triangular
        # solve runs at a fifth of GEMM's rate, and is as accurate to within a small
        # factor); Fortran-ordered (M, b): P_b = A_b A_b^T by SYRK
        Abt = _times_upper(Kb, Linv.T, scratch_empty(Kb.shape))
        return (Abt.T @ Abt, Abt.T @ Yb, float(np.einsum("ij,ij->", Yb, Yb)),
                float(np.sum(kernel.diag(Xb))))


def grad_part(Xb, Yb, kernel, Z, C1, C2, want_inducing, blocks=None):
    """One block's ``(sum G * dK_bM/dtheta, sum d k(x_i, x_i)/dtheta, dZ part)``."""
    with _evaluation(blocks):
        Kb = kernel(Xb, Z) if blocks is None else blocks.again(kernel, Xb, Z)
        Gb = np.matmul(Kb, C1, out=scratch_empty(Kb.shape))  # G_bM = K_bM C_1 + Y_b C_2^T
        _add_outer(Gb, Yb, C2)
        g_theta = kernel.cross_gradient_dot(Xb, Z, Gb, Kb)
        g_diag = kernel.diag_gradient_dot(Xb, np.ones(Xb.shape[0]))
        g_z = kernel.input_gradient_dot(Xb, Z, Gb, Kb) if want_inducing else np.zeros(1)
        return g_theta, g_diag, g_z


def _times_upper(K, U, out, depth: int = 2):
    """``out = K @ U`` for an upper-triangular U, skipping its zero lower-left blocks:
    [K1 K2] [U11 U12; 0 U22] = [K1 U11, K U[:, h:]], recursively on K1 U11 (``depth``
    halvings: 3/4, then 11/16 of the GEMM's multiplications)."""
    m = U.shape[0]
    if depth == 0 or m < 128:
        return np.matmul(K, U, out=out)
    h = m // 2
    np.matmul(K, U[:, h:], out=out[:, h:])
    _times_upper(K[:, :h], U[:h, :h], out[:, :h], depth - 1)
    return out


def _evaluation(blocks):
    # the block's temporaries come from this thread's arena (a no-op without a store)
    return blocks.arena().evaluation() if blocks is not None else contextlib.nullcontext()


def _add_outer(G, Y, C):
    """``G += Y C^T`` in place: one BLAS call on the Fortran view ``G^T += C Y^T``."""
    Gt = dgemm(1.0, C, Y.T, beta=1.0, c=G.T, overwrite_c=True)
    if not np.shares_memory(Gt, G):  # (a copy was made: G not contiguous)
        G += Y @ C.T


# --------------------------------------------------------------------------- bound
def kernel_blocks(rows, m: int) -> KernelBlocks | None:
    """A store for the evaluations of a fit on ``rows`` (None for Dask rows). K_nM is kept
    between the two passes when the n x M float64 matrix fits scikit-learn's
    ``working_memory`` (else it is computed twice)."""
    if not rows.in_memory:
        return None
    return KernelBlocks(keep=fits_in_memory(rows.shape[0] * m * 8))


def collapsed_bound(kernel, Z: np.ndarray, noise: float, rows, *, gradient: bool = False,
                    inducing_gradient: bool = False,
                    blocks: KernelBlocks | None = None) -> Bound:
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
    blocks : KernelBlocks, optional
        The memory of a fit's evaluations (:func:`kernel_blocks`); None: a store for this
        evaluation only (for rows in this process).

    Returns
    -------
    Bound
    """
    n, t, s, m = rows.shape[0], rows.n_targets, float(noise), len(Z)
    with _small_blas(m):
        Kmm, L, jitter = factor_kmm(kernel, Z)
        Linv = dtrtri(L, lower=1)[0]  # L^-1 (lower triangular)
    if blocks is None and (gradient or inducing_gradient):
        blocks = kernel_blocks(rows, m)
    P, p, yy, kd = rows.reduce(stats_part, kernel, Z, Linv, blocks)
    with _small_blas(m):
        P = np.triu(P)
        P = P + np.triu(P, 1).T  # exactly symmetric
        Phi = P / s  # A A^T
        B = Phi + np.eye(m)
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
        H = t * (np.eye(m) - Binv) - v @ v.T
        # the sandwiches with L^-1 by GEMMs (as the first pass; four triangular solves
        # took a third of the M x M work of an evaluation at M = 512)
        QH = Linv.T @ (H @ Linv)
        Gmm = (QH - t * (Linv.T @ (Phi @ Linv))) / 2  # L^-T (H - t Phi) L^-1 / 2
        C1 = QH / s  # L^-T H L^-1 / s
        C1 = 0.5 * (C1 + C1.T)
        Gmm = 0.5 * (Gmm + Gmm.T)
        C2 = post.weights / s  # L^-T v / s
    g_nm, g_diag, g_z = rows.reduce(grad_part, kernel, Z, C1, C2, inducing_gradient, blocks)
    with _small_blas(m):
        grad_theta = kernel.gradient_dot(Z, Gmm, Kmm) + g_nm - 0.5 * t / s * g_diag
        vPhiv = float(np.sum(v * (Phi @ v)))
        grad_log_noise = (-0.5 * n * t + 0.5 * t * float(np.sum(Binv * Phi)) + 0.5 * yy / s
                          - cc + 0.5 * vPhiv + 0.5 * t * kd / s - 0.5 * t * tr_phi)
        grad_z = None
        if inducing_gradient:
            # d/dZ tr(G_MM K_MM) = 2 sum_a G_aj dk(z_a, z_j)/dz_j  (G_MM and k symmetric)
            grad_z = 2.0 * kernel.input_gradient_dot(Z, Z, Gmm, Kmm) + g_z
    return Bound(value, grad_theta, grad_log_noise, grad_z, post)


def _small_blas(m: int):
    """One BLAS (and numba) thread for the M x M algebra up to M = SMALL_M: with two it
    took up to 2x longer at M = 512 on 2 cores (measured; NumPy and SciPy each bring an
    OpenBLAS with its own thread pool, and their wake-ups alternate in this chain of small
    calls)."""
    return single_threaded(m <= SMALL_M)
