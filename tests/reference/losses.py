"""Naive references for losses: the convex conjugate by numerical maximisation."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar


def conjugate_numeric(loss, y: float, s: float, width: float = 60.0) -> float:
    """sup_f s f - l(y, f) by bounded scalar maximisation on [y - width, y + width]."""
    res = minimize_scalar(lambda f: -(s * f - float(loss.value(y, f))),
                          bounds=(y - width, y + width), method="bounded",
                          options=dict(xatol=1e-12, maxiter=2000))
    return -float(res.fun)


def dual_step_numeric(loss, y, a, g, q, C) -> float:
    """argmin_b 1/2 q (b - a)^2 + g (b - a) + C l*(y, -b / C) over the box, numerically."""
    lo, hi = loss.dual_box(np.array([y]), C)
    lo, hi = float(lo[0]), float(hi[0])
    lo_, hi_ = max(lo, a - 50.0), min(hi, a + 50.0)

    def obj(b):
        return 0.5 * q * (b - a) ** 2 + g * (b - a) + C * float(loss.conjugate(y, -b / C))

    if loss.dual_quadratic is None:  # logistic: open interval
        lo_, hi_ = lo_ + 1e-14 * C, hi_ - 1e-14 * C
    res = minimize_scalar(obj, bounds=(lo_, hi_), method="bounded",
                          options=dict(xatol=1e-12, maxiter=5000))
    cands = [res.x, lo_, hi_] + ([0.0] if lo_ <= 0.0 <= hi_ else [])
    return float(min(cands, key=obj))
