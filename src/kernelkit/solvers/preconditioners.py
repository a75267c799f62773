"""Nystrom preconditioners: the kernel matrix approximated on m landmarks.

With landmarks L (m rows of X), K ~ K_nL K_LL^-1 K_Ln = U U^T, U = K_nL T^-1 (T T^T = K_LL).
KernelRidge's CG preconditions ``K + a I`` by the Woodbury inverse of ``U U^T + a I``
(:func:`nystrom_woodbury`); Falkon preconditions its M-dimensional system with the same
factor T of the centers' matrix (:class:`~kernelkit.solvers.nystrom.FalkonPreconditioner`).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import solve_triangular
from sklearn.utils import check_random_state

from ..linalg import KernelOperator, cho_solve, jitter_cholesky

__all__ = ["nystrom_woodbury"]


def nystrom_woodbury(kernel, X, a: float, scale=None, project=None, random_state=None,
                     n_landmarks: int = 300):
    """``R -> (U U^T + a I)^-1 R`` for ``U = K_nm L_mm^-T`` on m uniform landmarks (then
    scaled and projected like the system it preconditions).

    Woodbury: ``(U U^T + a I)^-1 = (I - U (a I + U^T U)^-1 U^T) / a``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.solvers.preconditioners import nystrom_woodbury
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> M = nystrom_woodbury(RBF(), X, 0.1, n_landmarks=40)  # every row a landmark
    >>> R = np.ones((40, 1))
    >>> bool(np.allclose(M(R), np.linalg.solve(RBF()(X) + 0.1 * np.eye(40), R), atol=1e-6))
    True
    """
    n = X.shape[0]
    rng = check_random_state(random_state)
    m = min(n, n_landmarks)
    idx = np.sort(rng.choice(n, m, replace=False))
    Kmm = kernel(X[idx])
    with warnings.catch_warnings():  # a preconditioner only: jitter is harmless here
        warnings.simplefilter("ignore")
        Lm, _ = jitter_cholesky(Kmm, overwrite_a=True, what="landmark kernel matrix")
    Knm = KernelOperator(kernel, X, X[idx]).to_dense()
    U = solve_triangular(Lm, Knm.T, lower=True).T  # U = K_nm L^-T
    if scale is not None:
        U = scale(U)
    if project is not None:
        U = project(U)
    Lc, _ = jitter_cholesky(U.T @ U + a * np.eye(m), overwrite_a=True,
                            what="Nystrom preconditioner")

    def apply_M(R):
        return (R - U @ cho_solve(Lc, U.T @ R)) / a

    return apply_M
