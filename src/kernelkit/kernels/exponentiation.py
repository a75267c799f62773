"""Elementwise power of a kernel: ``K = K_inner ** p`` with a fixed exponent ``p``."""

from __future__ import annotations

import numpy as np

from .base import Kernel
from .composite import _Wrapper
from .kernel import ALGEBRA, _frobenius

__all__ = ["Exponentiation"]


class Exponentiation(_Wrapper):
    """``kernel ** exponent`` elementwise (PSD for a positive integer exponent, by the
    Schur product theorem); the exponent is not a hyperparameter.

    Parameters
    ----------
    kernel : Kernel
    exponent : float

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Exponentiation
    >>> X = np.array([[0.0], [1.0]])
    >>> bool(np.allclose(Exponentiation(RBF(1.0), 2)(X), RBF(1.0)(X) ** 2))
    True
    """

    def __init__(self, kernel: Kernel, exponent: float):
        self.kernel = kernel
        self.exponent = exponent

    def __repr__(self):
        return f"{self.kernel!r} ** {self.exponent}"

    @property
    def hyperparameters(self):
        return [h._replace(name="kernel__" + h.name) for h in self.kernel.hyperparameters]

    def _compute(self, X, Y):
        K = self.kernel._compute(X, Y)
        K **= self.exponent
        return K

    def diag(self, X):
        return self.kernel.diag(self._check_input(X)) ** self.exponent

    def _chain_factor(self, Ki):
        # dK/dtheta = p K_i^(p-1) dK_i/dtheta (chain rule, elementwise)
        F = Ki ** (self.exponent - 1.0)
        F *= self.exponent
        return F

    def gradient(self, X, K=None):
        X = self._check_input(X)
        if not self.n_dims:
            return
        Ki = self.kernel._compute(X, None)
        F = self._chain_factor(Ki)
        for dK in self.kernel.gradient(X, Ki):
            dK *= F
            yield dK

    def gradient_dot(self, X, W, K=None, parts=None):
        if not self.n_dims:
            return np.empty(0)
        X = self._check_input(X)
        Ki = self.kernel._compute(X, None)
        # sum W * (p K_i^(p-1) dK_i) = sum (W * p K_i^(p-1)) * dK_i
        F = self._chain_factor(Ki)
        F *= W
        return self.kernel.gradient_dot(X, F, Ki)

    def _value_and_gradient_dot(self, X, W, K=None, parts=None):
        if K is None:
            K = self._compute(self._check_input(X), None)
        return _frobenius(W, K), self.gradient_dot(X, W)


ALGEBRA["power"] = Exponentiation  # what k ** p builds (see Kernel.__pow__)
