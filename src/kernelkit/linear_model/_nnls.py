"""Non-negative (ridge) least squares: Lawson-Hanson NNLS, L-BFGS-B when capped.

Shared by the dense path (least_squares.py, on the centred design) and the sparse path
(_sparse.py, on a square factor of the centred Gram matrix).
"""

from __future__ import annotations

import numpy as np
import scipy.optimize

__all__ = ["nnls_solve"]


def nnls_solve(Xc, Yc, alpha, max_iter=None):
    """Coefficients >= 0 minimizing ``||Xc c - y||^2 + alpha ||c||^2``, one target at a time.

    Non-negative least squares on the stacked system ``[Xc; sqrt(alpha) I] c = [y; 0]``
    (scipy.optimize.nnls, Lawson-Hanson active set).
    """
    d = Xc.shape[1]
    coef = np.empty((d, Yc.shape[1]))
    for j in range(Yc.shape[1]):
        A, b = Xc, Yc[:, j]
        if alpha[j] > 0:  # ||Xc c - y||^2 + alpha ||c||^2 = ||[Xc; sqrt(a) I] c - [y; 0]||^2
            A = np.vstack([Xc, np.sqrt(alpha[j]) * np.eye(d)])
            b = np.concatenate([b, np.zeros(d)])
        try:
            coef[:, j] = scipy.optimize.nnls(A, b, maxiter=max_iter)[0]
        except RuntimeError:  # max_iter reached: max_iter bounded L-BFGS-B steps instead
            coef[:, j] = _bounded_lbfgs(A, b, max_iter)
    return coef


def _bounded_lbfgs(A, b, max_iter):
    """min ||A c - b||^2 s.t. c >= 0 by at most ``max_iter`` L-BFGS-B steps (the iterate)."""
    import warnings

    from ..exceptions import ConvergenceWarning

    def f(c):  # ||A c - b||^2 / 2 and its gradient A^T (A c - b)
        r = A @ c - b
        return 0.5 * float(r @ r), A.T @ r

    res = scipy.optimize.minimize(f, np.zeros(A.shape[1]), jac=True, method="L-BFGS-B",
                                  bounds=[(0.0, None)] * A.shape[1],
                                  options=dict(maxiter=max_iter))
    if not res.success:
        warnings.warn(f"The positive (non-negative) solve did not converge in max_iter="
                      f"{max_iter} iterations ({res.message}); returning its last iterate. "
                      "Increase max_iter.", ConvergenceWarning, stacklevel=5)
    return res.x
