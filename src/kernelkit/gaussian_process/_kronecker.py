"""ICM likelihood on a complete grid: the Kronecker fast path, O(n^3 + T^3) per evaluation.

With every output observed at every input and Q = 1, ``vec Y`` (outputs stacked, index
``t n + i``) has covariance

    K = B (x) K_x + D (x) I_n,     D = diag(sigma_1^2, ..., sigma_T^2).

Per-output noise is not a multiple of the identity, so ``B (x) K_x`` and the noise do not share
eigenvectors as they stand; whitening by the noise makes them (exactly, no approximation):

    K = (D^1/2 (x) I) (B~ (x) K_x + I) (D^1/2 (x) I),   B~ = D^-1/2 B D^-1/2 = U Lam U^T,
    K_x = V S V^T   =>   B~ (x) K_x + I = (U (x) V) (Lam (x) S + I) (U (x) V)^T.

With ``Den[i, t] = s_i lam_t + 1`` and ``Z = V^T (Y D^-1/2) U`` (n x T):

    y^T K^-1 y = sum Z^2 / Den,   log det K = n sum_t log sigma_t^2 + sum log Den,

and ``alpha = K^-1 y`` is the matrix ``A = V (Z / Den) U^T D^-1/2``. The gradient
``1/2 tr((alpha alpha^T - K^-1) dK)`` needs only n x n and T x T matrices:

- kernel: ``dK = B (x) dK_x`` contracts with ``W_x = A B A^T - V diag(c) V^T``,
  ``c_i = sum_t lam_t / Den[i, t]`` (handed to ``kernel.gradient_dot``);
- B: ``d lml / dB = 1/2 D^-1/2 U (A_z^T S A_z - diag(e)) U^T D^-1/2``, ``A_z = Z / Den``,
  ``e_t = sum_i s_i / Den[i, t]``;
- noise: ``d lml / d log sigma_t^2 = 1/2 [U (A_z^T A_z - diag(f)) U^T]_tt``,
  ``f_t = sum_i 1 / Den[i, t]``.

In the operator algebra the whitened system is
``K_x (x) B~ + I = KroneckerEigen(s, V, lam, U) + 1`` on the (n, T) matrices in row-major
``vec`` (outputs inner: a permutation of the stacking above, which changes neither the
quadratic form nor the determinant); its ``values`` are ``Den``, its ``logdet`` the second
term of log det K and its ``Q = V (x) U`` the rotation.

Every identity is checked against the dense Cholesky path in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh
from scipy.linalg.blas import dsyrk

from ..linalg.algebra import KroneckerEigen
from ._coregionalization import Coregionalization

__all__ = ["KroneckerFactors", "kernel_eigen", "kronecker_log_marginal_likelihood"]

_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass
class KroneckerFactors:
    """Eigendecompositions behind one evaluation (kept by the estimator for prediction)."""

    E: KroneckerEigen  # K_x (x) B~ + I = (V (x) U) (S (x) Lam + I) (V (x) U)^T
    d: np.ndarray  # (T,) sigma^-1
    Az: np.ndarray  # (n, T) Z / Den

    s = property(lambda self: self.E.wa)  # (n,) eigenvalues of K_x
    V = property(lambda self: self.E.Qa)  # (n, n) eigenvectors of K_x
    lam = property(lambda self: self.E.wb)  # (T,) eigenvalues of B~
    U = property(lambda self: self.E.Qb)  # (T, T) eigenvectors of B~
    Den = property(lambda self: self.E.values)  # (n, T) s_i lam_t + 1

    def alpha(self) -> np.ndarray:
        """``K^-1 vec Y`` as an (n, T) matrix: ``Q A_z D^-1/2``, ``Q A_z = V (A_z U^T)``."""
        return self.E.Q.matmul(self.Az.ravel()).reshape(self.Az.shape) * self.d


def kernel_eigen(kernel, X, Y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(S, V, V^T Y)``: the eigendecomposition ``K_x = V S V^T`` (O(n^3)) and the rotated
    targets (O(n^2 T)), everything of an evaluation that depends on the kernel alone."""
    s, V = eigh(kernel(X), overwrite_a=True, check_finite=False, driver="evd")
    s = np.maximum(s, 0.0)  # K_x is PSD: negative eigenvalues are rounding
    return s, V, V.T @ Y


def _factorize(params: Coregionalization, X, Y, eig=None
               ) -> tuple[KroneckerFactors, float, float]:
    n, T = Y.shape
    s, V, VtY = kernel_eigen(params.kernels[0], X, Y) if eig is None else eig
    d = 1.0 / np.sqrt(params.noise)
    lam, U = eigh(params.B(0) * np.outer(d, d), check_finite=False)
    lam = np.maximum(lam, 0.0)
    E = KroneckerEigen(s, V, lam, U, shift=1.0)  # K_x (x) B~ + I, eigenvalues Den
    # Q^T vec(Y D^-1/2) = vec(V^T (Y D^-1/2) U), with V^T Y kept from kernel_eigen
    Z = (VtY * d) @ U
    Az = Z / E.values  # (S (x) Lam + I)^-1 Q^T vec(Y D^-1/2)
    quad = float(np.einsum("it,it->", Z, Az))  # y^T K^-1 y
    # log det K = n sum_t log sigma_t^2 + log det(K_x (x) B~ + I)
    logdet = n * float(np.sum(np.log(params.noise))) + E.logdet()
    return KroneckerFactors(E, d, Az), quad, logdet


def kronecker_log_marginal_likelihood(params: Coregionalization, X, Y,
                                      eval_gradient: bool = False, *, factors: bool = False,
                                      eig=None, kernel_gradient: bool = True):
    """ICM log marginal likelihood of a complete (n, T) target matrix.

    Returns ``lml``, ``(lml, grad)`` with ``eval_gradient``, or ``(lml, KroneckerFactors)``
    with ``factors``. ``eig``, the :func:`kernel_eigen` of the current kernel, skips the
    O(n^3) eigendecomposition; ``kernel_gradient=False`` leaves the kernel's entries of the
    gradient at 0 and skips their O(n^3) contraction, so that an evaluation costs O(n T^2).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> p = Coregionalization([RBF(1.0)], [np.ones((2, 1))], np.ones((1, 2)),
    ...                       np.full(2, 0.1), np.array([1e-6, 1e5]), np.array([1e-6, 1e5]))
    >>> X = np.linspace(0, 1, 4)[:, None]; Y = np.hstack([np.sin(X), np.cos(X)])
    >>> lml, grad = kronecker_log_marginal_likelihood(p, X, Y, eval_gradient=True)
    >>> grad.shape == p.theta.shape
    True
    """
    n, T = Y.shape
    F, quad, logdet = _factorize(params, X, Y, eig)
    lml = -0.5 * quad - 0.5 * logdet - 0.5 * n * T * _LOG_2PI
    if factors:
        return lml, F
    if not eval_gradient:
        return lml
    g_kernel = (_kernel_gradient(params, X, F) if kernel_gradient
                else np.zeros(params.kernels[0].n_dims))
    # d lml / dB = 1/2 D^-1/2 U (A_z^T S A_z - diag e) U^T D^-1/2
    inner = F.Az.T @ (F.s[:, None] * F.Az)
    inner[np.diag_indices(T)] -= np.sum(F.s[:, None] / F.Den, axis=0)
    dB = 0.5 * (F.U @ inner @ F.U.T) * np.outer(F.d, F.d)
    # d lml / d log sigma^2 = 1/2 diag(U (A_z^T A_z - diag f) U^T)
    inner = F.Az.T @ F.Az
    inner[np.diag_indices(T)] -= np.sum(1.0 / F.Den, axis=0)
    d_log_noise = 0.5 * np.einsum("tu,uv,tv->t", F.U, inner, F.U)
    return lml, params.pack_gradient([g_kernel], [dB], d_log_noise)


def _kernel_gradient(params: Coregionalization, X, F: KroneckerFactors) -> np.ndarray:
    """``1/2 tr(W_x dK_x)`` for the kernel's theta (O(n^3): one SYRK and the contraction)."""
    n = X.shape[0]
    B = params.B(0)
    A = F.alpha()
    c = np.sum(F.lam / F.Den, axis=1)
    # W_x = A B A^T - V diag(c) V^T: contracts with dK_x for the kernel's gradient
    Wx = (A @ B) @ A.T
    # V diag(c) V^T = (V c^1/2)(V c^1/2)^T by BLAS syrk (c >= 0): half a GEMM's flops; it
    # fills one triangle (the other is 0), mirrored here
    C = dsyrk(1.0, F.V * np.sqrt(c))
    Wx -= C
    Wx -= C.T
    Wx[np.diag_indices(n)] += np.diagonal(C)
    del C
    return 0.5 * params.kernels[0].gradient_dot(X, Wx)
