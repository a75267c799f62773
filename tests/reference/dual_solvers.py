"""Naive reference solvers for the kernel-machine duals (scipy.optimize, small n only)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def dual_objective(loss, K, y, a, C) -> float:
    """-D(a) = 1/2 a^T K a + sum_i C l*(y_i, -a_i/C) (what solve_dual_cd minimises)."""
    a = np.asarray(a, dtype=float)
    return float(0.5 * a @ K @ a + np.sum(C * loss.conjugate(y, -a / C)))


def dual_box_reference(loss, K, y, C) -> np.ndarray:
    """Minimise -D(a) by L-BFGS-B on the box; eps |a| handled by splitting a = u - v."""
    n = len(y)
    lo, hi = loss.dual_box(y, C)
    lo, hi = np.broadcast_to(lo, (n,)), np.broadcast_to(hi, (n,))
    if loss.dual_quadratic is None:  # logistic: t = y a / C in (0, 1)
        def fun(t):
            a = y * C * t
            ent = t * np.log(t) + (1 - t) * np.log(1 - t)
            val = 0.5 * a @ K @ a + C * ent.sum()
            grad = y * C * (K @ a) + C * np.log(t / (1 - t))
            return val, grad

        res = minimize(fun, np.full(n, 0.5), jac=True, method="L-BFGS-B",
                       bounds=[(1e-12, 1 - 1e-12)] * n,
                       options=dict(maxiter=50_000, ftol=1e-15, gtol=1e-11))
        return y * C * res.x
    c2, eps = loss.dual_quadratic

    def fun(w):
        u, v = w[:n], w[n:]
        a = u - v
        Ka = K @ a
        val = 0.5 * a @ Ka - y @ a + c2 * (a @ a) / (2 * C) + eps * (u + v).sum()
        g = Ka - y + c2 * a / C
        return val, np.concatenate([g + eps, -g + eps])

    bounds = ([(0, max(h, 0) if np.isfinite(h) else None) for h in hi]
              + [(0, max(-lo_, 0) if np.isfinite(lo_) else None) for lo_ in lo])
    res = minimize(fun, np.zeros(2 * n), jac=True, method="L-BFGS-B", bounds=bounds,
                   options=dict(maxiter=50_000, ftol=1e-15, gtol=1e-11, maxcor=50))
    return res.x[:n] - res.x[n:]


def libsvm_reference(K, p, ys, lower, upper, idx=None, const=0.0, x0=None) -> np.ndarray:
    """min 1/2 b^T Q b + p^T b, ys^T b = const, lower <= b <= upper by SLSQP (n <= ~200)."""
    n_var = len(p)
    idx = np.arange(n_var) if idx is None else idx
    Q = np.outer(ys, ys) * K[np.ix_(idx, idx)]
    x0 = np.zeros(n_var) if x0 is None else x0
    res = minimize(lambda b: (0.5 * b @ Q @ b + p @ b, Q @ b + p), x0,
                   jac=True, method="SLSQP",
                   bounds=list(zip(np.broadcast_to(lower, (n_var,)),
                                   np.broadcast_to(upper, (n_var,)))),
                   constraints=[dict(type="eq", fun=lambda b: ys @ b - const, jac=lambda b: ys)],
                   options=dict(maxiter=2000, ftol=1e-14))
    return res.x


def primal_reference(loss, K, y, C, fit_intercept=False):
    """min_{beta, b} 1/2 beta^T K beta + C sum l(y, K beta + b) by L-BFGS (smooth losses)."""
    n = len(y)

    def fun(w):
        beta, b = w[:n], (w[n] if fit_intercept else 0.0)
        f = K @ beta + b
        gl = C * loss.derivative(y, f)
        val = 0.5 * beta @ K @ beta + np.sum(C * loss.value(y, f))
        return val, np.concatenate([K @ beta + K @ gl, [gl.sum() if fit_intercept else 0.0]])

    res = minimize(fun, np.zeros(n + 1), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=50_000, ftol=1e-15, gtol=1e-12))
    return res.x[:n], (res.x[n] if fit_intercept else 0.0), res.fun
