"""The Nystrom preconditioner: the kernel matrix approximated on m landmarks, one object
for kernel ridge's CG and for Falkon.

With landmarks L (m rows), T T^T = K_LL + eps m I (T lower) and the Nystrom features
U = K_nL T^-T of the n rows (so that K ~ U U^T), the Nystrom KRR normal matrix

    H = K_nL^T K_nL + lambda n K_LL = n T (U^T U / n + lambda I) T^T                  (1)

is inverted through its two triangular factors: A A^T = G + lambda I with G an estimate of
U^T U / n, and

    B = n^-1/2 T^-T A^-T,    B B^T = H^-1 (when G = U^T U / n exactly).              (2)

G comes from one of two places (Rudi, Carratino & Rosasco, 2017, for the first):

- the landmarks stand for the rows (Falkon, no K_nL at all): the landmarks' own features
  are U_L = K_LL T^-T = T^T (up to the jitter), so G = T^T T / m (LAPACK lauum);
- the rows are given (kernel ridge's CG, K_nL of n x m held): G = U^T U / n.

Falkon runs CG on ``B^T H B`` (:func:`~kernelkit.solvers.nystrom.solve_falkon`). Kernel
ridge preconditions ``K + a I`` by the Woodbury inverse of ``U U^T + a I``: with
lambda = a / n,

    (U U^T + a I)^-1 R = (R - U (U^T U + a I)^-1 U^T R) / a = (R - K_nL B B^T K_Ln R) / a   (3)

(:func:`nystrom_woodbury`). Jitter on either factor only changes the preconditioner (CG
then needs more iterations), never the solution of the system it preconditions: it is
added silently.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dlauum
from sklearn.utils import check_random_state

from .._core.threads import limit_blas
from ..exceptions import JitterWarning
from ..linalg import KernelOperator, jitter_cholesky
from ..linalg.algebra import LinearMap, LowRankPlusIdentity

__all__ = ["NystromPreconditioner", "PreconditionerMap", "nystrom_woodbury"]


def _cholesky(A: np.ndarray, what: str):
    """Lower factor of A in place, jitter warnings silenced (a preconditioner only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)
        return jitter_cholesky(A, overwrite_a=True, what=what)


def _default_epsilon(dtype) -> float:
    # 1e-13 in float64 (as the Falkon library); the machine epsilon in float32
    return 1e-13 if dtype == np.float64 else float(np.finfo(dtype).eps)


class NystromPreconditioner:
    """The factors of (2): ``B = n^-1/2 T^-T A^-T`` with ``T T^T = K_LL + eps m I`` and
    ``A A^T = G + lambda I``.

    Parameters
    ----------
    kmm : ndarray of shape (m, m)
        Kernel matrix of the landmarks (Falkon's centers); not modified.
    penalty : float
        The per-sample ridge penalty lambda of (1).
    n_samples : int
        n, the number of rows the landmarks approximate.
    epsilon : float, optional
        Relative jitter eps on ``K_LL``. Defaults to 1e-13 for float64 ``kmm`` (the
        machine epsilon, 2.2e-16, left Falkon's CG stalled on fast-decaying spectra such as
        a 1-D RBF, where T^-1 amplified rounding) and to the machine epsilon for float32.
        Factors are computed in float64; more jitter is added if needed (it changes the
        preconditioner only, never the solution of the system it preconditions).
    knm : ndarray of shape (n, m), optional
        The rows' kernel values against the landmarks (as the preconditioned system sees
        them, e.g. weighted and centred): then ``G = U^T U / n`` with ``U = K_nL T^-T``.
        Without it ``G = T^T T / m`` (the landmarks stand for the rows, Falkon).

    Attributes
    ----------
    L_T, L_A : ndarray of shape (m, m)
        The lower factors T and A (Falkon's upper factors are their transposes).
    jitter : tuple of float
        Total jitter on ``K_LL`` (eps m plus any adaptive jitter) and on ``G + lambda I``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.solvers.preconditioners import NystromPreconditioner
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> K, lam, n = RBF()(X), 1e-2, 30
    >>> # landmarks = all of X and (almost) no jitter: B B^T = H^-1
    >>> P = NystromPreconditioner(K, penalty=lam, n_samples=n, epsilon=1e-16)
    >>> H = K @ K + lam * n * K
    >>> bool(np.allclose(P.apply_t(H @ P.apply(np.eye(n))), np.eye(n), atol=1e-6))
    True
    """

    def __init__(self, kmm: np.ndarray, penalty: float, n_samples: int,
                 epsilon: float | None = None, knm: np.ndarray | None = None):
        kmm = np.asarray(kmm)
        m = kmm.shape[0]
        eps = _default_epsilon(kmm.dtype) if epsilon is None else float(epsilon)
        self.penalty = float(penalty)
        self.n_samples = int(n_samples)
        self.dtype = kmm.dtype
        # The per-iteration m x m work (triangular solves with a few vectors) runs on one
        # BLAS thread: those kernels sync their threads at every row block, and on a busy
        # machine two threads were several times slower than one. The O(m^3) set-up below
        # and the passes over the data keep the caller's BLAS threads.
        F = np.array(kmm, dtype=np.float64, order="C")
        F[np.diag_indices(m)] += eps * m
        self.L_T, jit_t = _cholesky(F, "landmark kernel matrix")  # T T^T = K_LL + eps m I
        G = self._gram(knm)
        G[np.diag_indices(m)] += self.penalty
        self.L_A, jit_a = _cholesky(G, "Nystrom preconditioner matrix")  # A A^T = G + lam I
        self.jitter = (eps * m + jit_t, jit_a)

    def _gram(self, knm) -> np.ndarray:
        """G of (2), float64, lower triangle (at least) filled."""
        if knm is None:  # G = T^T T / m: LAPACK lauum, m^3/3 flops, lower triangle only
            G, info = dlauum(self.L_T, lower=1)
            if info != 0:  # pragma: no cover - L_T is a valid factor
                raise RuntimeError(f"LAPACK lauum failed (info={info}).")
            return np.divide(G, self.L_T.shape[0], out=G)
        self.features = U = self.features_of(knm)
        return (U.T @ U) / self.n_samples  # G = U^T U / n

    def features_of(self, knm) -> np.ndarray:
        """The Nystrom features ``U = K_nL T^-T`` of the rows ``knm`` (``U U^T`` approximates
        their kernel matrix)."""
        return solve_triangular(self.L_T, np.asarray(knm, dtype=np.float64).T, lower=True,
                                check_finite=False).T

    @property
    def shape(self) -> tuple[int, int]:
        return self.L_T.shape

    def one_thread(self):
        """Context manager: one BLAS thread (for the small m x m operations)."""
        return limit_blas(1)

    def apply(self, v: np.ndarray) -> np.ndarray:
        """``B v = n^-1/2 T^-T A^-T v`` (two triangular solves)."""
        w = np.asarray(v, dtype=np.float64)
        with self.one_thread():
            w = solve_triangular(self.L_A, w, lower=True, trans="T", check_finite=False)
            w = solve_triangular(self.L_T, w, lower=True, trans="T", check_finite=False)
        w /= np.sqrt(self.n_samples)
        return self._cast_like(w, v)

    def apply_t(self, u: np.ndarray) -> np.ndarray:
        """``B^T u = n^-1/2 A^-1 T^-1 u`` (two triangular solves)."""
        w = np.asarray(u, dtype=np.float64)
        with self.one_thread():
            w = solve_triangular(self.L_T, w, lower=True, check_finite=False)  # T^-1 u
            w = solve_triangular(self.L_A, w, lower=True, check_finite=False)  # A^-1
        w /= np.sqrt(self.n_samples)
        return self._cast_like(w, u)

    def _cast_like(self, w, ref):
        dt = np.result_type(np.asarray(ref).dtype, self.dtype, np.float32)
        return w.astype(dt, copy=False)

    def as_map(self, dtype=np.float64) -> PreconditionerMap:
        """``B`` of (2) as a :class:`~kernelkit.linalg.algebra.LinearMap` with results in
        ``dtype`` (its ``.T`` is ``B^T``)."""
        return PreconditionerMap(self, dtype)


class PreconditionerMap(LinearMap):
    """``B = n^-1/2 T^-T A^-T`` of (2) in the operator algebra: ``B @ v`` is
    :meth:`NystromPreconditioner.apply`, ``B.T @ u`` :meth:`~NystromPreconditioner.apply_t`,
    both cast to ``dtype``."""

    def __init__(self, P: NystromPreconditioner, dtype=np.float64):
        self.P, self.shape, self.dtype = P, P.shape, np.dtype(dtype)

    def matmul(self, V):
        return self.P.apply(V).astype(self.dtype, copy=False)

    def t_matmul(self, V):
        return self.P.apply_t(V).astype(self.dtype, copy=False)


def nystrom_woodbury(kernel, X, a: float, left=None, random_state=None,
                     n_landmarks: int = 300) -> LowRankPlusIdentity:
    """``U U^T + a I`` on m uniform landmarks, whose ``solve`` is (3): ``U = left K_nL T^-T``
    the Nystrom features of :class:`NystromPreconditioner` (jitter added silently), the rows
    ``K_nL`` mapped by ``left`` (a
    :class:`~kernelkit.linalg.algebra.LinearMap`, e.g. the scaling and projection of the
    system it preconditions).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.solvers.preconditioners import nystrom_woodbury
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> M = nystrom_woodbury(RBF(), X, 0.1, n_landmarks=40)  # every row a landmark
    >>> R = np.ones((40, 1))
    >>> bool(np.allclose(M.solve(R), np.linalg.solve(RBF()(X) + 0.1 * np.eye(40), R),
    ...                  atol=1e-6))
    True
    """
    n = X.shape[0]
    rng = check_random_state(random_state)
    m = min(n, n_landmarks)
    idx = np.sort(rng.choice(n, m, replace=False))
    Knm = KernelOperator(kernel, X, X[idx]).to_dense()
    if left is not None:
        Knm = left @ Knm
    # lambda = a / n makes n A A^T = U^T U + a I, the m x m matrix of (3): its factor
    P = NystromPreconditioner(kernel(X[idx]), a / n, n, epsilon=0.0, knm=Knm)
    return LowRankPlusIdentity(P.features, a, factor=np.sqrt(n) * P.L_A)  # (3)
