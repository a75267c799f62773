"""Naive reference for the notes' one-class SVM dual: a box-constrained QP by L-BFGS-B."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def one_class_dual(K: np.ndarray, C: float):
    """Maximise sum(a) - 1/2 a^T K a over 0 <= a_i <= C/m; returns (a, D)."""
    m = K.shape[0]

    def neg(a):
        Ka = K @ a
        return -(a.sum() - 0.5 * a @ Ka), -(1.0 - Ka)

    res = minimize(neg, np.full(m, 0.5 * C / m), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, C / m)] * m,
                   options=dict(ftol=1e-16, gtol=1e-13, maxiter=20_000, maxcor=50))
    return res.x, -res.fun
