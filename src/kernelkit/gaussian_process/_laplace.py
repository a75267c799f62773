"""The Laplace approximation for binary GP classification with the logistic likelihood.

Rasmussen & Williams (2006), with targets t in {0, 1}, pi = sigma(f), W = diag(pi (1 - pi)):

- Algorithm 3.1 (mode): Newton steps ``f <- K a`` with ``B = I + W^1/2 K W^1/2 = L L^T``,
  ``b = W f + (t - pi)``, ``a = b - W^1/2 L^T \\ (L \\ (W^1/2 K b))``, until the approximate
  log marginal likelihood ``-1/2 a^T f + sum log p(t|f) - sum log L_ii`` (eq. 3.32) stops
  increasing.
- Algorithm 5.1 (gradient in the log hyperparameters): with ``Z = W^1/2 B^-1 W^1/2``,
  ``s2 = -1/2 diag((K^-1 + W)^-1) dW/df`` and, for each theta_j with ``C = dK/dtheta_j``,
  ``d lml = 1/2 a^T C a - 1/2 tr(Z C) + s2^T (I - K Z) C (t - pi)``. All p terms are one
  contraction ``sum_ik M_ik C_ik`` with the symmetric
  ``M = 1/2 a a^T - 1/2 Z + 1/2 (r u^T + u r^T)``, ``u = t - pi``, ``r = (I - Z K) s2``,
  taken by ``kernel.gradient_dot`` (never an (n, n, p) tensor). ``W_ii (K^-1 + W)^-1_ii =
  1 - (B^-1)_ii`` (Woodbury), so s2 needs only the diagonal of ``B^-1``.
- Algorithm 3.2 (prediction): latent mean ``k_*^T (t - pi)``, variance
  ``k(x_*, x_*) - ||L \\ (W^1/2 k_*)||^2``; the class probability
  ``int sigma(z) N(z | mean, var) dz`` by the probit approximation below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dger
from scipy.special import erf, expit

from .._core.blas import matvec, symv
from ..linalg import cho_inverse, cho_solve, jitter_cholesky, tril_inplace

__all__ = ["LaplaceMode", "posterior_mode", "laplace_log_marginal_likelihood",
           "latent_predictive", "logistic_gaussian_integral"]

# sigma(x) ~ sum_i c_i Phi(sqrt(2) lambda_i x): the logistic as a mixture of five error
# functions (R&W Sec. 3.9; Williams & Barber 1998), the same constants as scikit-learn, so
# that sum_i c_i Phi(...) integrates against a Gaussian in closed form (eq. 3.82 style).
_LAMBDAS = np.array([0.41, 0.4, 0.37, 0.44, 0.39])
_COEFS = np.array([-1854.8214151, 3516.89893646, 221.29346712, 128.12323805,
                   -2010.49422654])

# Newton stops when the approximate log marginal likelihood rises by less than this
# (scikit-learn's rule) or when the step moved no latent value by more than _STEP_TOL
# (quadratic convergence: the next step would be of order _STEP_TOL^2).
_LML_TOL = 1e-10
_STEP_TOL = 1e-7


class LaplaceMode(NamedTuple):
    """The Laplace approximation at the mode: what prediction and the gradient need."""

    f: np.ndarray  # the mode f_hat
    pi: np.ndarray  # sigma(f_hat)
    W_sr: np.ndarray  # sqrt(pi (1 - pi))
    L: np.ndarray  # lower Cholesky factor of B = I + W^1/2 K W^1/2
    a: np.ndarray  # K^-1 f_hat (= t - pi at the mode)
    lml: float  # approximate log marginal likelihood, eq. 3.32
    n_iter: int


@njit(parallel=True, cache=True)
def _sandwich_plus_identity(K, s, B):  # pragma: no cover - numba
    # B = I + S K S with S = diag(s)  (R&W Alg. 3.1 line 5), one pass over K
    n = K.shape[0]
    for i in prange(n):
        si = s[i]
        for j in range(n):
            B[i, j] = si * K[i, j] * s[j]
        B[i, i] += 1.0


def _factor_B(K, W_sr, B):
    """The lower factor of B = I + W^1/2 K W^1/2 in B's memory; its strict upper triangle
    is left as it is (every use reads the lower one: :func:`posterior_mode` zeroes it once)."""
    _sandwich_plus_identity(K, W_sr, B)
    # B >= I is positive definite; jitter (with its warning) only against NaN-free rounding
    L, _ = jitter_cholesky(B, overwrite_a=True, clean=False,
                           what="Laplace matrix I + W^1/2 K W^1/2",
                           hint="check the kernel hyperparameters")
    return L


def _log_lik(t, f):
    # sum_i log sigma((2 t_i - 1) f_i) = -sum log(1 + exp(-(2t - 1) f))  (R&W eq. 3.15)
    return -float(np.sum(np.logaddexp(0.0, -(2.0 * t - 1.0) * f)))


def posterior_mode(K: np.ndarray, t: np.ndarray, f0: np.ndarray | None = None,
                   max_iter: int = 100) -> LaplaceMode:
    """Mode of p(f | X, t) by Newton's method (R&W Algorithm 3.1).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance of the latent values (not modified).
    t : ndarray of shape (n,)
        Targets in {0, 1}.
    f0 : ndarray of shape (n,), optional
        Starting point (zeros by default); the mode is unique, so only the iteration
        count depends on it.
    max_iter : int, default=100

    Returns
    -------
    LaplaceMode

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.gaussian_process._laplace import posterior_mode
    >>> X = np.linspace(0, 1, 8)[:, None]; t = (X[:, 0] > 0.5).astype(float)
    >>> K = RBF(0.3)(X)
    >>> m = posterior_mode(K, t)
    >>> bool(np.allclose(m.f, K @ (t - m.pi)))  # f = K grad log p(t|f) at the mode
    True
    """
    n = K.shape[0]
    f = np.zeros(n) if f0 is None else np.array(f0, dtype=float)
    B = np.empty_like(K, dtype=np.float64)
    lml_old = -np.inf
    n_iter = 0
    while n_iter < max(int(max_iter), 1):
        n_iter += 1
        pi = expit(f)
        W = pi * (1.0 - pi)
        W_sr = np.sqrt(W)
        L = _factor_B(K, W_sr, B)
        b = W * f + (t - pi)  # Alg. 3.1 line 6
        a = b - W_sr * cho_solve(L, W_sr * symv(K, b))  # line 7
        f_new = symv(K, a)  # line 8
        # eq. 3.32 (Alg. 3.1 line 10), with L of the step's W as in R&W
        lml = -0.5 * float(a @ f_new) + _log_lik(t, f_new) - float(np.sum(np.log(np.diag(L))))
        step = float(np.max(np.abs(f_new - f))) if n else 0.0
        f = f_new
        if lml - lml_old < _LML_TOL or step < _STEP_TOL:
            break
        lml_old = lml
    return LaplaceMode(f, pi, W_sr, tril_inplace(L), a, lml, n_iter)


def laplace_log_marginal_likelihood(kernel, X, t, f0=None, max_iter: int = 100,
                                    eval_gradient: bool = False):
    """Approximate log marginal likelihood (eq. 3.32) and its gradient (R&W Algorithm 5.1).

    Parameters
    ----------
    kernel : Kernel
    X : ndarray of shape (n, d)
    t : ndarray of shape (n,) in {0, 1}
    f0 : ndarray of shape (n,), optional
        Newton's starting point.
    max_iter : int
    eval_gradient : bool

    Returns
    -------
    lml : float
    grad : ndarray of shape (n_dims,), only with ``eval_gradient``
    mode : LaplaceMode
    """
    K = kernel(X)
    mode = posterior_mode(K, t, f0, max_iter)
    if not eval_gradient:
        return mode.lml, mode
    u = t - mode.pi
    Binv = cho_inverse(mode.L)  # B^-1 (LAPACK potri)
    # s2 = -1/2 Sigma_ii dW_ii/df_i, W_ii Sigma_ii = 1 - (B^-1)_ii, dW/df = W (1 - 2 pi)
    s2 = -0.5 * (1.0 - np.diag(Binv)) * (1.0 - 2.0 * mode.pi)
    # Z = W^1/2 B^-1 W^1/2 (R&W's R), in the memory of B^-1
    Z = Binv
    Z *= mode.W_sr[:, None]
    Z *= mode.W_sr[None, :]
    r = s2 - symv(Z, symv(K, s2))  # r = (I - Z K) s2
    del K
    # M = 1/2 a a^T - 1/2 Z + 1/2 (r u^T + u r^T), rank-1 updates in place (BLAS ger)
    M = Z
    M *= -0.5
    Mf = M if M.flags.f_contiguous else M.T  # symmetric: either layout is M
    Mf = dger(0.5, mode.a, mode.a, a=Mf, overwrite_a=1)
    Mf = dger(0.5, r, u, a=Mf, overwrite_a=1)
    Mf = dger(0.5, u, r, a=Mf, overwrite_a=1)
    return mode.lml, kernel.gradient_dot(X, Mf), mode


def latent_predictive(kernel, X_train, t, pi, W_sr, L, X, *, return_var: bool):
    """Latent mean ``k_*^T (t - pi)`` and variance (R&W Algorithm 3.2 lines 4-6).

    ``pi``, ``W_sr`` and ``L`` are those of the mode (:class:`LaplaceMode`).
    """
    Ks = kernel(X_train, X)  # (n, m)
    mean = matvec(Ks.T, t - pi)
    if not return_var:
        return mean, None
    V = solve_triangular(L, W_sr[:, None] * Ks, lower=True, overwrite_b=True,
                         check_finite=False)
    var = kernel.diag(X) - np.einsum("ij,ij->j", V, V)
    return mean, np.maximum(var, 0.0)


def logistic_gaussian_integral(mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """``int sigma(z) N(z | mean, var) dz`` by the error-function mixture (R&W Sec. 3.9).

    With ``sigma(x) ~ sum_i c_i (1 + erf(lambda_i x)) / 2``:
    ``int (1 + erf(lambda z)) / 2 N(z | m, v) dz``
    ``= (1 + erf(lambda m / sqrt(1 + 2 lambda^2 v))) / 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.gaussian_process._laplace import logistic_gaussian_integral
    >>> round(float(logistic_gaussian_integral(np.array([0.0]), np.array([1.0]))[0]), 6)
    0.5
    """
    lam = _LAMBDAS[:, None]
    z = lam * mean[None, :] / np.sqrt(1.0 + 2.0 * lam**2 * var[None, :])
    return 0.5 * (_COEFS.sum() + _COEFS @ erf(z))
