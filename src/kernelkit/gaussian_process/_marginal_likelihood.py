"""Log marginal likelihood of a GP regression model and its gradient in log hyperparameters.

log p(y | X, theta) = -1/2 y^T K^-1 y - 1/2 log det K - n/2 log(2 pi),   K = K_theta + alpha I,

d/dtheta_j log p = 1/2 tr((a a^T - K^-1) dK/dtheta_j) = 1/2 sum_ij W_ij (dK/dtheta_j)_ij,
with a = K^-1 y and W = a a^T - K^-1 formed once per evaluation (K^-1 from the Cholesky
factor, LAPACK potri) and the contractions taken by ``kernel.gradient_dot``: closed forms
for sums, products, Constant, White and RBF, otherwise one (n, n) dK/dtheta_j at a time
(never an (n, n, p) tensor).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dger

from ..exceptions import NumericalError
from ..linalg import cho_inverse, cho_solve, jitter_cholesky

__all__ = ["log_marginal_likelihood", "factorize"]

_LOG_2PI = float(np.log(2.0 * np.pi))


def factorize(K: np.ndarray, alpha, *, jitter: bool, overwrite: bool = True):
    """Cholesky factor of ``K + alpha I`` (in place), or ``None`` if not PD and no jitter.

    With ``jitter=True`` the adaptive jitter of :func:`~kernelkit.linalg.jitter_cholesky`
    is used (and warned about); without it, failure returns ``(None, 0.0)`` so that the
    optimizer sees a log marginal likelihood of ``-inf`` (as scikit-learn does).
    """
    A = K if overwrite else K.copy()
    A[np.diag_indices_from(A)] += alpha
    try:
        return jitter_cholesky(
            A, overwrite_a=True, clean=jitter,
            what="GP covariance K + alpha I",
            hint="increase alpha (the noise variance), add a White kernel or remove "
            "duplicated inputs",
            max_relative_jitter=1e-4 if jitter else 0.0,
            # a pivot below n * eps (relative) is rounding error (duplicated inputs, no
            # noise): jitter and a warning rather than a meaningless solve
            min_pivot=A.shape[0] * float(np.finfo(A.dtype).eps) if jitter else 0.0,
        )
    except NumericalError:
        if jitter:
            raise
        return None, 0.0


def log_marginal_likelihood(kernel, X, Y, alpha, eval_gradient: bool = False,
                            shared: dict | None = None):
    """Log marginal likelihood (summed over the columns of ``Y``) and optionally its gradient.

    Parameters
    ----------
    kernel : Kernel
        kernelkit kernel at the hyperparameters of interest.
    X : ndarray of shape (n, d)
    Y : ndarray of shape (n, t)
    alpha : float or ndarray of shape (n,)
        Added to the diagonal (noise variance).
    eval_gradient : bool
    shared : dict, optional
        What does not depend on theta (the entries of ``matrix_parts`` keyed by a string,
        e.g. the squared distances of ``X``), kept here from one evaluation on ``X`` to the
        next: pass the same dict to every evaluation of one optimization.

    Returns
    -------
    lml : float
        ``-inf`` when ``K + alpha I`` is not numerically positive definite.
    grad : ndarray of shape (n_dims,), only with ``eval_gradient``

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.gaussian_process._marginal_likelihood import log_marginal_likelihood
    >>> X = np.linspace(0, 1, 5)[:, None]; Y = np.sin(X)
    >>> lml, grad = log_marginal_likelihood(RBF(0.5), X, Y, 1e-2, eval_gradient=True)
    >>> grad.shape
    (1,)
    """
    n, t = Y.shape
    # factorized in place; with the gradient, the factors of products are kept in `parts`
    # (each factor's matrix computed once per evaluation) and the rest recomputed from X
    parts = dict(shared or {}) if eval_gradient else None
    K = kernel.matrix_parts(X, parts) if eval_gradient else kernel(X)
    if eval_gradient and shared is not None:  # string keys: independent of theta
        shared.update((key, v) for key, v in parts.items() if isinstance(key, str))
    L, _ = factorize(K, alpha, jitter=False)
    if L is None:
        return (-np.inf, np.zeros(kernel.n_dims)) if eval_gradient else -np.inf
    a = cho_solve(L, Y)  # a = K^-1 y
    # -1/2 y^T a - sum log L_ii - n/2 log 2 pi, summed over targets
    lml = -0.5 * float(np.einsum("ik,ik->", Y, a)) - t * float(
        np.sum(np.log(np.diagonal(L)))) - 0.5 * n * t * _LOG_2PI
    if not eval_gradient:
        return lml
    W = cho_inverse(L, overwrite_l=True)  # K^-1 in the memory of L
    # W = sum_k a_k a_k^T - t K^-1 (rank-t update in place, BLAS ger)
    W *= -float(t)
    Wf = W if W.flags.f_contiguous else W.T  # symmetric: either layout is W
    for k in range(t):
        Wf = dger(1.0, a[:, k], a[:, k], a=Wf, overwrite_a=1)
    # 1/2 sum_ij W_ij (dK/dtheta_j)_ij for every j, without forming dK where the kernel knows how
    return lml, 0.5 * kernel.gradient_dot(X, Wf, parts=parts)
