"""Regression losses: squared, absolute, epsilon-insensitive, Huber, quantile (pinball).

Every loss here has a quadratic-box conjugate (see :mod:`kernelkit.losses.base`):
``C l*(y, -b/C) = -y b + c2 b^2/(2C) + eps |b|`` on a box, so the dual coordinate step is
closed form. Residual ``r = y - f`` throughout.
"""

from __future__ import annotations

import numpy as np

from .base import Loss, _inf_outside

__all__ = ["Squared", "Absolute", "EpsilonInsensitive", "Huber", "Quantile"]


def _yf(y, f):
    return np.asarray(y, dtype=float), np.asarray(f, dtype=float)


class _RegressionLoss(Loss):
    is_regression = True


class Squared(_RegressionLoss):
    """Squared loss ``l(y, f) = (y - f)^2`` (no 1/2, as in the notes' least squares).

    Conjugate ``l*(y, s) = s y + s^2 / 4``; the regressor with this loss and penalty
    ``alpha`` is kernel ridge regression with ridge ``m alpha``.

    Examples
    --------
    >>> from kernelkit.losses import Squared
    >>> float(Squared().value(1.0, 3.0))
    4.0
    """

    name = "squared"
    smooth = True
    dual_quadratic = (0.5, 0.0)  # C l*(-b/C) = -y b + b^2/(4C)

    def value(self, y, f):
        y, f = _yf(y, f)
        return (y - f) ** 2

    def derivative(self, y, f):
        y, f = _yf(y, f)
        return 2.0 * (f - y)

    def second_derivative(self, y, f):
        y, f = _yf(y, f)
        return np.full(np.broadcast(y, f).shape, 2.0)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        return s * y + 0.25 * s**2  # sup_f s f - (y - f)^2 at f = y + s/2

    def conjugate_domain(self, y):
        y = np.asarray(y, dtype=float)
        return np.full(y.shape, -np.inf), np.full(y.shape, np.inf)


class Absolute(_RegressionLoss):
    """Absolute loss ``l(y, f) = |y - f|`` (median regression).

    Conjugate ``l*(y, s) = s y`` on ``|s| <= 1``.

    Examples
    --------
    >>> from kernelkit.losses import Absolute
    >>> float(Absolute().value(1.0, -1.0))
    2.0
    """

    name = "absolute"
    dual_quadratic = (0.0, 0.0)

    def value(self, y, f):
        y, f = _yf(y, f)
        return np.abs(y - f)

    def derivative(self, y, f):
        y, f = _yf(y, f)
        return np.sign(f - y)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        return _inf_outside(s * y, np.abs(s) <= 1.0)

    def conjugate_domain(self, y):
        y = np.asarray(y, dtype=float)
        return np.full(y.shape, -1.0), np.full(y.shape, 1.0)


class EpsilonInsensitive(_RegressionLoss):
    """Vapnik's epsilon-insensitive loss ``l(y, f) = max(0, |y - f| - epsilon)`` (SVR).

    Conjugate ``l*(y, s) = s y + epsilon |s|`` on ``|s| <= 1``.

    Parameters
    ----------
    epsilon : float, default=0.1
        Width of the insensitive tube (>= 0).

    Examples
    --------
    >>> from kernelkit.losses import EpsilonInsensitive
    >>> float(EpsilonInsensitive(0.5).value(1.0, 2.0))
    0.5
    """

    name = "epsilon_insensitive"

    def __init__(self, epsilon: float = 0.1):
        if not np.isfinite(epsilon) or epsilon < 0:
            raise ValueError(f"epsilon must be a finite number >= 0; got {epsilon!r}.")
        self.epsilon = float(epsilon)

    @property
    def dual_quadratic(self):
        return (0.0, self.epsilon)

    def value(self, y, f):
        y, f = _yf(y, f)
        return np.maximum(0.0, np.abs(y - f) - self.epsilon)

    def derivative(self, y, f):
        y, f = _yf(y, f)
        r = y - f
        return np.where(np.abs(r) > self.epsilon, -np.sign(r), 0.0)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        return _inf_outside(s * y + self.epsilon * np.abs(s), np.abs(s) <= 1.0)

    def conjugate_domain(self, y):
        y = np.asarray(y, dtype=float)
        return np.full(y.shape, -1.0), np.full(y.shape, 1.0)


class Huber(_RegressionLoss):
    """Huber loss: ``r^2 / 2`` for ``|r| <= delta``, ``delta (|r| - delta / 2)`` beyond.

    Conjugate ``l*(y, s) = s y + s^2 / 2`` on ``|s| <= delta``.

    Parameters
    ----------
    delta : float, default=1.0
        Where the loss turns from quadratic to linear (> 0).

    Examples
    --------
    >>> from kernelkit.losses import Huber
    >>> float(Huber(1.0).value(0.0, 3.0))
    2.5
    """

    name = "huber"
    smooth = True

    def __init__(self, delta: float = 1.0):
        if not np.isfinite(delta) or delta <= 0:
            raise ValueError(f"delta must be a finite number > 0; got {delta!r}.")
        self.delta = float(delta)

    dual_quadratic = (1.0, 0.0)  # C l*(-b/C) = -y b + b^2/(2C), |b| <= C delta

    def value(self, y, f):
        y, f = _yf(y, f)
        r = np.abs(y - f)
        d = self.delta
        return np.where(r <= d, 0.5 * r**2, d * (r - 0.5 * d))

    def derivative(self, y, f):
        y, f = _yf(y, f)
        return np.clip(f - y, -self.delta, self.delta)

    def second_derivative(self, y, f):
        y, f = _yf(y, f)
        return (np.abs(y - f) <= self.delta).astype(float)

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        return _inf_outside(s * y + 0.5 * s**2, np.abs(s) <= self.delta)

    def conjugate_domain(self, y):
        y = np.asarray(y, dtype=float)
        return np.full(y.shape, -self.delta), np.full(y.shape, self.delta)


class Quantile(_RegressionLoss):
    """Pinball loss ``l(y, f) = max(q r, (q - 1) r)``, ``r = y - f`` (q-quantile regression).

    Conjugate ``l*(y, s) = s y`` on ``-q <= s <= 1 - q``.

    Parameters
    ----------
    q : float, default=0.5
        The quantile, in (0, 1).

    Examples
    --------
    >>> from kernelkit.losses import Quantile
    >>> loss = Quantile(0.9)
    >>> [round(float(loss.value(1.0, 0.0)), 6), round(float(loss.value(0.0, 1.0)), 6)]
    [0.9, 0.1]
    """

    name = "quantile"
    dual_quadratic = (0.0, 0.0)

    def __init__(self, q: float = 0.5):
        if not np.isfinite(q) or not 0.0 < q < 1.0:
            raise ValueError(f"q must lie in (0, 1); got {q!r}.")
        self.q = float(q)

    def value(self, y, f):
        y, f = _yf(y, f)
        r = y - f
        return np.maximum(self.q * r, (self.q - 1.0) * r)

    def derivative(self, y, f):
        y, f = _yf(y, f)
        r = y - f
        return np.where(r > 0, -self.q, np.where(r < 0, 1.0 - self.q, 0.0))

    def conjugate(self, y, s):
        y, s = _yf(y, s)
        return _inf_outside(s * y, (s >= -self.q) & (s <= 1.0 - self.q))

    def conjugate_domain(self, y):
        y = np.asarray(y, dtype=float)
        return np.full(y.shape, -self.q), np.full(y.shape, 1.0 - self.q)
