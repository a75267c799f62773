"""Elementwise power of a kernel: ``K = K_inner ** p`` with a fixed exponent ``p``."""

from __future__ import annotations

from .base import Kernel
from .composite import _Wrapper
from .kernel import ALGEBRA

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

    def _contract(self, kind, X, Y, W, K=None, parts=None):
        # chain rule: d k^p = p k^(p-1) dk (elementwise), so L_W(d k^p) = L_{W p k^(p-1)}(dk)
        Ki = kind.factor(self.kernel, X, Y)
        F = Ki ** (self.exponent - 1.0)
        F *= self.exponent
        return kind.of(self.kernel, X, Y, kind.weigh(W, F)[0], Ki, None)


ALGEBRA["power"] = Exponentiation  # what k ** p builds (see Kernel.__pow__)
