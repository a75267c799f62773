"""Binary classification losses on labels ``y`` in {-1, +1}: hinge, squared hinge, logistic.

Margins ``u = y f``. Hinge and squared hinge have quadratic-box conjugates (closed-form dual
step, see :mod:`kernelkit.losses.base`); the logistic conjugate is the binary entropy and its
dual step is a one-dimensional safeguarded Newton solve (:func:`logistic_dual_step`).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.special import expit, xlogy

from .base import Loss, _inf_outside

__all__ = ["Hinge", "SquaredHinge", "Logistic", "logistic_dual_step"]


def _yf(y, f):
    return np.asarray(y, dtype=float), np.asarray(f, dtype=float)


class _BinaryLoss(Loss):
    is_classification = True

    def conjugate_domain(self, y):
        # y s in [-1, 0]: s in [-1, 0] for y = +1 and [0, 1] for y = -1
        y = np.asarray(y, dtype=float)
        return np.minimum(-y, 0.0), np.maximum(-y, 0.0)


class Hinge(_BinaryLoss):
    """Hinge loss ``l(y, f) = max(0, 1 - y f)`` (the SVM).

    Conjugate ``l*(y, s) = y s`` on ``y s in [-1, 0]``. In the dual, ``alpha_i = y_i a_i``
    lies in ``[0, C]`` with ``C = 1 / (2 alpha m)``: libsvm's C-SVC.

    Examples
    --------
    >>> from kernelkit.losses import Hinge
    >>> Hinge().value([1, -1], [0.5, 0.5]).tolist()
    [0.5, 1.5]
    """

    name = "hinge"
    dual_quadratic = (0.0, 0.0)

    def value(self, y, f):
        y, f = _yf(y, f)
        return np.maximum(0.0, 1.0 - y * f)

    def derivative(self, y, f):
        y, f = _yf(y, f)
        return np.where(y * f < 1.0, -y, 0.0)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        t = y * s
        return _inf_outside(t, (t >= -1.0) & (t <= 0.0))


class SquaredHinge(_BinaryLoss):
    """Squared hinge ``l(y, f) = max(0, 1 - y f)^2`` (the L2-SVM).

    Conjugate ``l*(y, s) = y s + (y s)^2 / 4`` on ``y s <= 0``.

    Examples
    --------
    >>> from kernelkit.losses import SquaredHinge
    >>> SquaredHinge().value([1, -1], [0.5, 0.5]).tolist()
    [0.25, 2.25]
    """

    name = "squared_hinge"
    smooth = True
    dual_quadratic = (0.5, 0.0)  # C l*(-b/C) = -y b + b^2/(4C), y b >= 0

    def value(self, y, f):
        y, f = _yf(y, f)
        return np.maximum(0.0, 1.0 - y * f) ** 2

    def derivative(self, y, f):
        y, f = _yf(y, f)
        return -2.0 * y * np.maximum(0.0, 1.0 - y * f)

    def second_derivative(self, y, f):
        y, f = _yf(y, f)
        return np.where(y * f < 1.0, 2.0, 0.0)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        t = y * s
        return _inf_outside(t + 0.25 * t**2, t <= 0.0)

    def conjugate_domain(self, y):
        y = np.asarray(y, dtype=float)
        return np.where(y > 0, -np.inf, 0.0), np.where(y > 0, 0.0, np.inf)


@njit(cache=True)
def logistic_dual_step(y, a, g, q, C):
    """Coordinate step of the logistic dual (a 1-D strictly convex problem on (0, C)).

    With ``t = y b / C`` the scaled conjugate is ``C [t log t + (1 - t) log(1 - t)]``; in
    ``z = y b`` we solve ``q (z - z0) + y g + log(z / (C - z)) = 0`` by Newton's method
    safeguarded with bisection, and return ``b = y z``.
    """
    z0 = y * a
    lo, hi = 0.0, C
    z = min(max(z0, 1e-12 * C), C * (1.0 - 1e-12))
    for _ in range(100):
        h = q * (z - z0) + y * g + np.log(z / (C - z))
        if h > 0.0:
            hi = z
        else:
            lo = z
        dh = q + C / (z * (C - z))
        zn = z - h / dh
        if not (lo < zn < hi):
            zn = 0.5 * (lo + hi)
        if abs(zn - z) <= 1e-13 * C:
            z = zn
            break
        z = zn
    return y * z


class Logistic(_BinaryLoss):
    """Logistic loss ``l(y, f) = log(1 + exp(-y f))`` (kernel logistic regression).

    Conjugate ``l*(y, s) = t log t + (1 - t) log(1 - t)`` with ``t = -y s`` in ``[0, 1]``.
    ``P(y = 1 | x) = 1 / (1 + exp(-f(x)))`` gives ``predict_proba``.

    Examples
    --------
    >>> from kernelkit.losses import Logistic
    >>> round(float(Logistic().value(1.0, 0.0)), 6)  # log 2
    0.693147
    """

    name = "logistic"
    smooth = True

    def value(self, y, f):
        y, f = _yf(y, f)
        return np.logaddexp(0.0, -y * f)

    def derivative(self, y, f):
        y, f = _yf(y, f)
        return -y * expit(-y * f)

    def second_derivative(self, y, f):
        y, f = _yf(y, f)
        p = expit(y * f)
        return p * (1.0 - p)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        t = -y * s
        inside = (t >= 0.0) & (t <= 1.0)
        tc = np.clip(t, 0.0, 1.0)
        return _inf_outside(xlogy(tc, tc) + xlogy(1.0 - tc, 1.0 - tc), inside)

    def dual_step(self, y, a, g, q, C):
        y, a, g, q = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (y, a, g, q)))
        out = np.empty(y.shape)
        for k in np.ndindex(y.shape):
            out[k] = logistic_dual_step(y[k], a[k], g[k], q[k], float(C))
        return out

    @property
    def has_dual_step(self) -> bool:
        return True
