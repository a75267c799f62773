"""Falkon: Nystrom kernel ridge regression by preconditioned conjugate gradients.

With M centers, K_nM = K(X, centers), K_MM = K(centers, centers) and the per-sample penalty
lambda, the Nystrom KRR coefficients solve (Rudi, Carratino & Rosasco, 2017)

    H alpha = K_nM^T y,    H = K_nM^T K_nM + lambda n K_MM.                          (1)

Falkon's preconditioner is built from K_MM only: T = chol(K_MM + eps M I) (upper),
A = chol(T T^T / M + lambda I) (upper) and B = n^-1/2 T^-1 A^-1, so that B B^T approximates
H^-1 (exactly when the centers are the whole sample). CG runs on

    B^T H B beta = B^T K_nM^T y,    alpha = B beta,                                  (2)

whose condition number stays bounded as lambda -> 0. T^-1 and A^-1 are applied by
triangular solves (never formed). K_nM is never held: each CG iteration is one pass of
``K_nM^T (K_nM v)`` over row blocks (``normal_matmul`` of a
:class:`~kernelkit.linalg.KernelOperator`, or of its dask version on a cluster).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dlauum

from .._result import Result
from .._threads import limit_blas
from ..exceptions import JitterWarning
from ..linalg import jitter_cholesky, pcg

__all__ = ["FalkonPreconditioner", "solve_falkon"]

# solve_falkon returns an earlier iterate when the last residual is this much larger
BEST_ITERATE_FACTOR = 10.0
STALL_ITERATIONS = 50  # iterations without a new smallest residual before CG gives up


class _Stalled(Exception):
    """Raised from the CG callback to end a solve that has stopped improving."""


def _cholesky(A: np.ndarray, what: str):
    """Lower factor of A in place, jitter warnings silenced.

    Jitter here only degrades the preconditioner; the system (1) stays exact.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)
        return jitter_cholesky(A, overwrite_a=True, what=what)


class FalkonPreconditioner:
    """The Falkon preconditioner ``B = n^-1/2 T^-1 A^-1`` built from ``K_MM``.

    Parameters
    ----------
    kmm : ndarray of shape (M, M)
        Kernel matrix of the centers (not modified).
    penalty : float
        The per-sample ridge penalty lambda of (1).
    n_samples : int
        n, the number of training rows.
    epsilon : float, optional
        Relative jitter: ``T = chol(K_MM + epsilon M I)``. Defaults to 1e-13 for float64
        ``kmm`` (the machine epsilon, 2.2e-16, left CG stalled on fast-decaying spectra such
        as a 1-D RBF, where T^-1 amplified rounding) and to the machine epsilon for float32.
        Factors are computed in float64; more jitter is added if needed (it changes the
        preconditioner only, never the solution of (1)).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.solvers.nystrom import FalkonPreconditioner
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> K, lam, n = RBF()(X), 1e-2, 30
    >>> # centers = all of X and (almost) no jitter: B B^T = H^-1
    >>> P = FalkonPreconditioner(K, penalty=lam, n_samples=n, epsilon=1e-16)
    >>> H = K @ K + lam * n * K
    >>> bool(np.allclose(P.apply_t(H @ P.apply(np.eye(n))), np.eye(n), atol=1e-6))
    True
    """

    def __init__(self, kmm: np.ndarray, penalty: float, n_samples: int,
                 epsilon: float | None = None):
        kmm = np.asarray(kmm)
        M = kmm.shape[0]
        if epsilon is None:  # 1e-13 in float64 (as the Falkon library); machine eps in float32
            eps = 1e-13 if kmm.dtype == np.float64 else float(np.finfo(kmm.dtype).eps)
        else:
            eps = float(epsilon)
        self.penalty = float(penalty)
        self.n_samples = int(n_samples)
        self.dtype = kmm.dtype
        # The per-iteration M x M work (triangular solves with one vector) runs on one BLAS
        # thread: those kernels sync their threads at every row block, and on a busy
        # machine two threads were several times slower than one. The O(M^3) set-up below
        # and the passes over the data keep the caller's BLAS threads.
        F = np.array(kmm, dtype=np.float64, order="C")
        F[np.diag_indices(M)] += eps * M
        self.L_T, jit_t = _cholesky(F, "center kernel matrix")  # T = chol(K_MM + eps M I)
        # T T^T = L^T L (T = L^T upper): LAPACK lauum, M^3/3 flops, lower triangle only
        G, info = dlauum(self.L_T, lower=1)
        if info != 0:  # pragma: no cover - L_T is a valid factor
            raise RuntimeError(f"LAPACK lauum failed (info={info}).")
        G /= M
        G[np.diag_indices(M)] += self.penalty
        self.L_A, jit_a = _cholesky(G, "Falkon matrix A")  # A = chol(T T^T / M + lam I)
        self.jitter = (eps * M + jit_t, jit_a)

    @property
    def shape(self) -> tuple[int, int]:
        return self.L_T.shape

    def one_thread(self):
        """Context manager: one BLAS thread (for the small M x M operations)."""
        return limit_blas(1)

    def apply(self, v: np.ndarray) -> np.ndarray:
        """``B v = n^-1/2 T^-1 A^-1 v`` (two triangular solves)."""
        w = np.asarray(v, dtype=np.float64)
        with self.one_thread():
            w = solve_triangular(self.L_A, w, lower=True, trans="T", check_finite=False)  # A^-1
            w = solve_triangular(self.L_T, w, lower=True, trans="T", check_finite=False)  # T^-1
        w /= np.sqrt(self.n_samples)
        return self._cast_like(w, v)

    def apply_t(self, u: np.ndarray) -> np.ndarray:
        """``B^T u = n^-1/2 A^-T T^-T u`` (two triangular solves)."""
        w = np.asarray(u, dtype=np.float64)
        with self.one_thread():
            w = solve_triangular(self.L_T, w, lower=True, check_finite=False)  # T^-T u
            w = solve_triangular(self.L_A, w, lower=True, check_finite=False)  # A^-T
        w /= np.sqrt(self.n_samples)
        return self._cast_like(w, u)

    def _cast_like(self, w, ref):
        dt = np.result_type(np.asarray(ref).dtype, self.dtype, np.float32)
        return w.astype(dt, copy=False)


def solve_falkon(
    knm,
    kmm: np.ndarray,
    y,
    penalty: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-7,
    preconditioner: FalkonPreconditioner | None = None,
    recompute_every: int | None = None,
    callback=None,
) -> Result:
    """Solve the Nystrom KRR system (1) by Falkon's preconditioned CG (2).

    Parameters
    ----------
    knm : KernelOperator of shape (n, M)
        ``K(X, centers)``; only ``normal_matmul`` and ``t_matmul`` are used, so a dask
        operator (products on a cluster) works the same.
    kmm : ndarray of shape (M, M)
        ``K(centers, centers)``.
    y : array of shape (n,) or (n, k)
        Targets, anything ``knm.t_matmul`` accepts (a dask array for a dask operator).
    penalty : float
        Per-sample ridge penalty lambda (> 0). Exact KRR ``(K + alpha I)^-1 y`` is the case
        M = n with ``alpha = lambda n``.
    max_iter : int, default=20
        CG iterations (each one pass over the data).
    tol : float, default=1e-7
        Stop when the relative residual of (2) is below ``tol``.
    preconditioner : FalkonPreconditioner, optional
        Built from ``kmm`` when not given.
    recompute_every : int, optional
        Recompute the CG residual from scratch every this many iterations (float32).
    callback : callable, optional
        ``callback(iteration, alpha, relative_residual)`` after each iteration.

    Returns
    -------
    Result
        ``coef`` = alpha of shape (M,) or (M, k); ``history`` = relative residual of (2)
        per iteration; ``info`` has ``"beta"``, the preconditioner ``"jitter"`` and
        ``"returned_iteration"``. ``coef`` is the last iterate, unless the residual grew
        past 10 times its smallest value (CG wandering at the rounding floor of an
        ill-conditioned system): then it is the iterate with the smallest residual. CG
        stops (not converged) when 50 iterations bring no new smallest residual.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg import KernelOperator
    >>> from kernelkit.solvers import solve_falkon
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = np.sin(X[:, 0])
    >>> C = X[:20]
    >>> res = solve_falkon(KernelOperator(RBF(), X, C), RBF()(C), y, 1e-4, max_iter=50)
    >>> res.converged
    True
    """
    n, M = knm.shape
    if kmm.shape != (M, M):
        raise ValueError(f"kmm must have shape ({M}, {M}); got {kmm.shape}.")
    if not penalty > 0:
        raise ValueError(f"penalty must be > 0; got {penalty!r}.")
    P = preconditioner or FalkonPreconditioner(kmm, penalty, n)
    dtype = np.result_type(knm.dtype, np.float32)
    lam_n = penalty * n

    def apply_H(beta):
        # B^T (K_nM^T K_nM + lambda n K_MM) B beta, one pass over the rows of K_nM
        v = P.apply(beta).astype(dtype, copy=False)
        u = knm.normal_matmul(v)
        with P.one_thread():
            u += lam_n * (kmm @ v)
        return P.apply_t(u).astype(dtype, copy=False)

    rhs = P.apply_t(np.asarray(knm.t_matmul(y))).astype(dtype, copy=False)  # B^T K_nM^T y
    best = {"rel": np.inf, "it": 0, "beta": None}
    history = [1.0]

    def cb(it, beta, rel):
        history.append(rel)
        if rel < best["rel"]:  # keep the iterate with the smallest residual (a copy)
            best.update(rel=rel, it=it, beta=np.array(beta, copy=True))
        if callback is not None:
            callback(it, P.apply(beta), rel)
        if it - best["it"] >= STALL_ITERATIONS:  # at the rounding floor: stop wandering
            raise _Stalled

    try:
        res = pcg(apply_H, rhs, tol=tol, max_iter=max_iter, callback=cb,
                  recompute_every=recompute_every)
    except _Stalled:
        res = Result(best["beta"], len(history) - 1, False, history)
    beta, it = res.coef, res.n_iter
    # Past the rounding floor of (2) (ill-conditioned K_MM, tol below what the precision
    # reaches) CG wanders and its residual grows again; return the best iterate then
    if best["beta"] is not None and res.history[-1] > BEST_ITERATE_FACTOR * best["rel"]:
        beta, it = best["beta"], best["it"]
    alpha = P.apply(beta).astype(dtype, copy=False)  # alpha = B beta
    info = dict(res.info, beta=beta, jitter=P.jitter, returned_iteration=it)
    return Result(alpha, res.n_iter, res.converged, res.history, info)
