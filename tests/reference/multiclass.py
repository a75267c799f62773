"""Naive references for the multiclass SVM: dense QPs solved by SLSQP, loops for losses."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog, minimize


def loss_value(y: int, F: np.ndarray, kind: str) -> float:
    """Loop definition: WW sum / CS max over r != y of (1 - (F_y - F_r))_+."""
    terms = [max(0.0, 1.0 - (F[y] - F[r])) for r in range(len(F)) if r != y]
    return float(sum(terms) if kind == "weston_watkins" else max(terms))


def conjugate_lp(y: int, s: np.ndarray, kind: str) -> float:
    """``sup_F <s, F> - l(y, F)`` by linear programming (epigraph form); inf if unbounded.

    Variables (F_1..F_k, t_1..t_{k-1}); l(F) <= sum t (WW: t_r >= 0, t_r >= 1 + F_r - F_y)
    or l(F) <= t (CS: t >= 0, t >= 1 + F_r - F_y for every r != y).
    """
    k = len(s)
    rivals = [r for r in range(k) if r != y]
    n_t = len(rivals) if kind == "weston_watkins" else 1
    c = np.concatenate([-s, np.ones(n_t)])  # minimise -<s, F> + sum t
    A, b = [], []
    for q, r in enumerate(rivals):
        row = np.zeros(k + n_t)
        row[r], row[y] = 1.0, -1.0
        row[k + (q if n_t > 1 else 0)] = -1.0
        A.append(row)
        b.append(-1.0)  # 1 + F_r - F_y - t <= 0
    bounds = [(None, None)] * k + [(0, None)] * n_t
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    if res.status == 3:
        return np.inf
    assert res.status == 0, res.message
    return float(-res.fun)


def block_qp(v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """argmin ||a - v||^2 s.t. sum a = 0, lo <= a <= hi (SLSQP)."""
    k = len(v)
    bounds = [(None if np.isinf(lo_) else lo_, None if np.isinf(hi_) else hi_)
              for lo_, hi_ in zip(lo, hi)]
    x0 = np.clip(np.zeros(k), np.where(np.isinf(lo), -1e300, lo), np.where(np.isinf(hi), 1e300, hi))
    res = minimize(lambda a: 0.5 * np.sum((a - v) ** 2), x0, jac=lambda a: a - v,
                   bounds=bounds, method="SLSQP",
                   constraints=[{"type": "eq", "fun": lambda a: a.sum(),
                                 "jac": lambda a: np.ones(k)}],
                   options=dict(ftol=1e-15, maxiter=1000))
    return res.x


def multiclass_dual(K: np.ndarray, y: np.ndarray, n_classes: int, C: float, kind: str):
    """Maximise sum_i A[i, y_i] - 1/2 sum_j A[:, j]^T K A[:, j] over the block sets (SLSQP).

    CS: A[i, j] <= C [j = y_i]; WW: -C <= A[i, j] <= 0 (j != y_i); sum_j A[i, j] = 0.
    Returns (A, D).
    """
    n, k = len(y), n_classes
    E = np.zeros((n, k))
    E[np.arange(n), y] = 1.0

    def neg(a):
        A = a.reshape(n, k)
        KA = K @ A
        return -(np.sum(A * E) - 0.5 * np.sum(A * KA)), -(E - KA).ravel()

    bounds = []
    for i in range(n):
        for j in range(k):
            if kind == "crammer_singer":
                bounds.append((None, C if j == y[i] else 0.0))
            else:
                bounds.append((None, None) if j == y[i] else (-C, 0.0))
    Aeq = np.kron(np.eye(n), np.ones((1, k)))
    res = minimize(neg, np.zeros(n * k), jac=True, bounds=bounds, method="SLSQP",
                   constraints=[{"type": "eq", "fun": lambda a: Aeq @ a,
                                 "jac": lambda a: Aeq}],
                   options=dict(ftol=1e-14, maxiter=2000))
    A = res.x.reshape(n, k)
    return A, -neg(res.x)[0]
