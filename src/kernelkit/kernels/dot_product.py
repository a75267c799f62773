"""Dot-product kernels: Linear and Polynomial."""

from __future__ import annotations

import numpy as np

from . import _distances as dist
from .base import Kernel

__all__ = ["Linear", "Polynomial"]


class Linear(Kernel):
    """Linear kernel ``k(x, y) = <x, y>`` (the kernel of ordinary/ridge regression).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Linear
    >>> Linear()(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[11.]])
    """

    def __init__(self):
        pass

    def _compute(self, X, Y):
        return dist.gram(X, Y)

    def diag(self, X):
        X = self._check_input(X)
        return dist.row_norms_sq(X)

    def input_gradient_dot(self, X, Y, W, K=None):
        # d (x . y)/dy = x, so G = W^T X
        return np.asarray(W, dtype=np.float64).T @ self._check_input(X)


class Polynomial(Kernel):
    """Polynomial kernel ``k(x, y) = (gamma <x, y> + coef0)^degree``.

    ``gamma`` and ``coef0`` are hyperparameters (log space); ``degree`` is not.
    ``coef0 = 0`` (homogeneous kernel) is kept fixed since it has no logarithm.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Polynomial
    >>> Polynomial(degree=2, gamma=1.0, coef0=1.0)(np.array([[1.0]]), np.array([[2.0]]))
    array([[9.]])
    """

    _hyperparameters = ("gamma", "coef0")

    def __init__(
        self,
        degree=3,
        gamma=1.0,
        coef0=1.0,
        gamma_bounds=(1e-5, 1e5),
        coef0_bounds=(1e-5, 1e5),
    ):
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.gamma_bounds = gamma_bounds
        self.coef0_bounds = coef0_bounds

    def _compute(self, X, Y):
        G = dist.gram(X, Y)
        dist.power_affine(G, float(self.gamma), float(self.coef0), float(self.degree))
        return G

    def diag(self, X):
        X = self._check_input(X)
        return (self.gamma * dist.row_norms_sq(X) + self.coef0) ** self.degree

    def _gradient(self, X, K, name):
        # with u = gamma x.y + coef0: dK/dlog gamma = d u^(d-1) gamma x.y,
        # dK/dlog coef0 = d u^(d-1) coef0
        G = dist.gram(X)
        U = self.gamma * G + self.coef0
        U **= self.degree - 1
        U *= self.degree
        if name == "gamma":
            U *= self.gamma * G
        else:
            U *= self.coef0
        yield U
