"""Falkon: Nystrom kernel ridge regression by preconditioned conjugate gradients.

With M centers, K_nM = K(X, centers), K_MM = K(centers, centers) and the per-sample penalty
lambda, the Nystrom KRR coefficients solve (Rudi, Carratino & Rosasco, 2017)

    H alpha = K_nM^T y,    H = K_nM^T K_nM + lambda n K_MM.                          (1)

Falkon's preconditioner is built from K_MM only: T = chol(K_MM + eps M I) (upper),
A = chol(T T^T / M + lambda I) (upper) and B = n^-1/2 T^-1 A^-1, so that B B^T approximates
H^-1 (exactly when the centers are the whole sample): the
:class:`~kernelkit.solvers.preconditioners.NystromPreconditioner` with the centers as its
landmarks. CG runs on

    B^T H B beta = B^T K_nM^T y,    alpha = B beta,                                  (2)

whose condition number stays bounded as lambda -> 0. T^-1 and A^-1 are applied by
triangular solves (never formed). K_nM is never held: each CG iteration is one pass of
``K_nM^T (K_nM v)`` over row blocks (``normal_matmul`` of a
:class:`~kernelkit.linalg.KernelOperator`, or of its dask version on a cluster).

The exact alternative (:func:`solve_nystrom_cholesky`) forms H of (1) in one pass over the
row blocks (``K_b^T K_b`` summed in block order, ``normal_gram``; never the n x n matrix)
and factorizes it: n M^2 + M^3 / 3 flops against CG's passes, each memory-bound over the
n M entries of K_nM. :func:`choose_nystrom_solver` compares the two costs (rule in its
docstring).
"""

from __future__ import annotations

import math

import numpy as np

from .._core.result import Result
from ..linalg import cho_solve, fits_in_memory, jitter_cholesky, pcg
from ..linalg.algebra import LinearMap, Normal
from .preconditioners import NystromPreconditioner

__all__ = ["FalkonPreconditioner", "solve_falkon", "solve_nystrom_cholesky",
           "choose_nystrom_solver", "expected_cg_iterations", "NYSTROM_SOLVERS"]

NYSTROM_SOLVERS = ("auto", "cg", "cholesky")
# Costs of a kernel entry of K_nM in units of one flop of a large GEMM (measured on the
# development machine, 2 cores, n = 12,000-50,000, M = 500-2,000, d = 8-16): a CG pass over
# K_nM held in memory (two memory-bound products per entry) costs 45-58, forming an entry
# (GEMM of factor rows, then exp) 110-160 with d = 8-16.
PASS_FLOPS = 50.0
FORM_FLOPS = 60.0  # + 4 d, see _form_flops
# CG's iterations to a relative residual tol with sqrt(condition) = 6 for Falkon's system:
# k = sqrt(kappa) / 2 ln(2 / tol) (the textbook bound); 51 at tol = 1e-7, where Falkon took
# 58-94 iterations at lambda n = 1e-2 and about 20 at lambda n = 1
CG_SQRT_CONDITION = 6.0

# solve_falkon returns an earlier iterate when the last residual is this much larger
BEST_ITERATE_FACTOR = 10.0
STALL_ITERATIONS = 50  # iterations without a new smallest residual before CG gives up


class _Stalled(Exception):
    """Raised from the CG callback to end a solve that has stopped improving."""


# the preconditioner B of (2) is the shared Nystrom one (landmarks = the centers); the
# name FalkonPreconditioner is kept for callers that know it by it
FalkonPreconditioner = NystromPreconditioner


def solve_falkon(
    knm,
    kmm: np.ndarray,
    y,
    penalty: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-7,
    preconditioner: NystromPreconditioner | None = None,
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
    preconditioner : NystromPreconditioner, optional
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
    n, M = _check_system(knm, kmm, penalty)
    P = preconditioner or NystromPreconditioner(kmm, penalty, n)
    dtype = np.result_type(knm.dtype, np.float32)
    system = _preconditioned_system(knm, kmm, penalty * n, P, dtype)
    rhs = P.as_map(dtype).T @ np.asarray(knm.t_matmul(y))  # B^T K_nM^T y

    def report(it, beta, rel):  # the caller sees alpha = B beta
        if callback is not None:
            callback(it, P.apply(beta), rel)

    res, beta, it = _pcg_best_iterate(system, rhs, tol, max_iter, recompute_every, report)
    alpha = P.apply(beta).astype(dtype, copy=False)  # alpha = B beta
    info = dict(res.info, beta=beta, jitter=P.jitter, returned_iteration=it)
    return Result(alpha, res.n_iter, res.converged, res.history, info)


def _preconditioned_system(knm, kmm, lam_n, P, dtype) -> LinearMap:
    """``B^T H B`` of (2) as a map in ``dtype``: ``B^T (K_nM^T K_nM + lambda n K_MM) B``,
    one pass over the rows of K_nM per product, the m x m product on one BLAS thread."""
    B = P.as_map(dtype)
    H = Normal(knm) + lam_n * _OneThread(kmm, P)  # (1)
    return B.T @ H @ B


class _OneThread(LinearMap):
    """The matrix ``K`` (m x m, symmetric) with its products on one BLAS thread
    (``P.one_thread()``: the small per-iteration work of the preconditioner)."""

    symmetric = True

    def __init__(self, K, P):
        self.K, self.P, self.shape, self.dtype = K, P, K.shape, K.dtype

    def matmul(self, V):
        with self.P.one_thread():
            return self.K @ V


def _pcg_best_iterate(system, rhs, tol, max_iter, recompute_every, callback):
    """CG on (2), keeping the iterate with the smallest residual.

    Returns ``(res, beta, iteration)``: pcg's Result (not converged when 50 iterations
    brought no new smallest residual) and the iterate to return with its iteration: the
    last one, or the best one when the last residual is 10 times larger than the smallest.
    """
    best = {"rel": np.inf, "it": 0, "beta": None}
    history = [1.0]

    def cb(it, beta, rel):
        history.append(rel)
        if rel < best["rel"]:  # keep the iterate with the smallest residual (a copy)
            best.update(rel=rel, it=it, beta=np.array(beta, copy=True))
        callback(it, beta, rel)
        if it - best["it"] >= STALL_ITERATIONS:  # at the rounding floor: stop wandering
            raise _Stalled

    try:
        res = pcg(system, rhs, tol=tol, max_iter=max_iter, callback=cb,
                  recompute_every=recompute_every)
    except _Stalled:
        res = Result(best["beta"], len(history) - 1, False, history)
    # Past the rounding floor of (2) (ill-conditioned K_MM, tol below what the precision
    # reaches) CG wanders and its residual grows again; return the best iterate then
    if best["beta"] is not None and res.history[-1] > BEST_ITERATE_FACTOR * best["rel"]:
        return res, best["beta"], best["it"]
    return res, res.coef, res.n_iter


def _form_flops(n_features: int) -> float:
    # forming one entry k(x, c): a GEMM of factor rows (2 (d + 2) flops) and the kernel's map
    return FORM_FLOPS + 4.0 * n_features


def expected_cg_iterations(tol: float, max_iter: int) -> int:
    """CG iterations that ``"auto"`` expects: ``sqrt(kappa) / 2 ln(2 / tol)`` with
    ``sqrt(kappa) = 6`` (:data:`CG_SQRT_CONDITION`), at most ``max_iter``.

    Examples
    --------
    >>> from kernelkit.solvers.nystrom import expected_cg_iterations
    >>> expected_cg_iterations(1e-7, 1000), expected_cg_iterations(1e-7, 20)
    (51, 20)
    """
    if tol <= 0:
        return int(max_iter)
    # k = sqrt(kappa) / 2 * ln(2 / tol): CG's error bound 2 ((sqrt k - 1)/(sqrt k + 1))^k
    return int(min(max_iter, math.ceil(CG_SQRT_CONDITION / 2 * math.log(2.0 / tol))))


def choose_nystrom_solver(solver: str, n: int, M: int, n_features: int, *, keep: bool,
                          tol: float, max_iter: int, working_memory=None) -> str:
    """``"cg"`` or ``"cholesky"`` for the Nystrom KRR system (1); ``"auto"`` picks the
    cheaper by flop counts in units of one GEMM flop.

    - Cholesky: form K_nM once (``n M f``, ``f = 60 + 4 d`` per entry), ``K_nM^T K_nM``
      (``n M^2``, a symmetric rank-k update) and factorize ``H`` (``M^3 / 3``);
    - CG: ``k`` passes (:func:`expected_cg_iterations`) of ``n M p`` each (``p = 50``: two
      memory-bound products per entry), plus forming K_nM once when it is kept
      (``keep``), on every pass otherwise.

    Cholesky also needs its three M x M float64 matrices (H, K_MM, one block's product) to
    fit in ``working_memory``; else CG. A named solver is returned as it is.

    Examples
    --------
    >>> from kernelkit.solvers.nystrom import choose_nystrom_solver
    >>> kw = dict(keep=True, tol=1e-7, max_iter=1000)
    >>> choose_nystrom_solver("auto", 12_000, 2_000, 8, **kw)
    'cholesky'
    >>> choose_nystrom_solver("auto", 10**6, 5_000, 16, keep=False, tol=1e-7, max_iter=20)
    'cg'
    """
    if solver not in NYSTROM_SOLVERS:
        raise ValueError(f"solver must be one of {NYSTROM_SOLVERS}; got {solver!r}.")
    if solver != "auto":
        return solver
    if not fits_in_memory(3 * M * M * 8, working_memory):
        return "cg"
    form = n * M * _form_flops(n_features)
    exact = form + n * M * M + M**3 / 3  # form K_nM, K_nM^T K_nM (syrk), Cholesky of H
    k = expected_cg_iterations(tol, max_iter)
    passes = k * n * M * PASS_FLOPS + (form if keep else k * form)
    return "cholesky" if exact <= passes else "cg"


def _check_system(knm, kmm, penalty) -> tuple[int, int]:
    """``(n, M)`` of the Nystrom system (1), with K_MM's shape and the penalty checked."""
    n, M = knm.shape
    if kmm.shape != (M, M):
        raise ValueError(f"kmm must have shape ({M}, {M}); got {kmm.shape}.")
    if not penalty > 0:
        raise ValueError(f"penalty must be > 0; got {penalty!r}.")
    return n, M


def solve_nystrom_cholesky(knm, kmm: np.ndarray, y, penalty: float, *,
                           allow_jitter: bool = True) -> Result:
    """Solve the Nystrom KRR system (1) exactly: ``H = K_nM^T K_nM + lambda n K_MM`` formed
    in one pass over fixed row blocks, then factorized.

    Parameters
    ----------
    knm : KernelOperator of shape (n, M) with fixed blocks (``block_rows``)
        ``K(X, centers)``; only ``normal_gram`` is used (a dask operator: on the cluster,
        with the same sums as in memory).
    kmm : ndarray of shape (M, M)
    y : array of shape (n,) or (n, k)
    penalty : float
        Per-sample ridge penalty lambda (> 0).
    allow_jitter : bool, default=True
        Add diagonal jitter (with a JitterWarning) when H is not numerically positive
        definite; False raises :class:`~kernelkit.exceptions.NumericalError` instead (the
        caller then solves another way: NystromKernelRidge's ``solver="auto"`` takes CG).

    Returns
    -------
    Result
        ``coef`` = alpha (float64, shape (M,) or (M, k)), ``n_iter`` 1 (one pass over the
        data), ``history`` empty, ``info`` with the Cholesky ``"jitter"`` (a JitterWarning
        says when it is not 0).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg import KernelOperator
    >>> from kernelkit.solvers.nystrom import solve_nystrom_cholesky
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = np.sin(X[:, 0]); C = X[:20]
    >>> res = solve_nystrom_cholesky(KernelOperator(RBF(), X, C, block_rows=64), RBF()(C), y,
    ...                              1e-4)
    >>> Knm = RBF()(X, C)
    >>> H = Knm.T @ Knm + 1e-4 * 200 * RBF()(C)
    >>> bool(np.allclose(H @ res.coef, Knm.T @ y))
    True
    """
    n, M = _check_system(knm, kmm, penalty)
    H, rhs = knm.normal_gram(y)  # K_nM^T K_nM, K_nM^T y: float64 sums in block order
    kmm = np.asarray(kmm, dtype=np.float64)
    H += (penalty * n) * kmm  # H = K_nM^T K_nM + lambda n K_MM  (1)
    L, jitter = jitter_cholesky(
        H, overwrite_a=True, what="Nystrom normal matrix K_nM^T K_nM + alpha n K_MM",
        hint="increase alpha, use fewer centers or solver='cg'",
        max_relative_jitter=1e-4 if allow_jitter else 0.0)
    alpha = cho_solve(L, rhs)  # L L^T alpha = K_nM^T y
    return Result(alpha, 1, True, [], {"jitter": jitter})
