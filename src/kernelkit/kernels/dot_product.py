"""Dot-product kernels: Linear, Polynomial and DotProduct."""

from __future__ import annotations

import functools

import numpy as np

from . import _distances as dist
from ._sparse import SparseRowProducts, as_sparse_rows, is_sparse
from .base import Kernel
from .kernel import TileFactors

__all__ = ["Linear", "Polynomial", "DotProduct"]


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

    def sparse_row_products(self, X):
        # rows of X X^T from X's columns (sparse X only)
        return SparseRowProducts(as_sparse_rows(X)) if is_sparse(X) else None

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

    def tile_factors(self, X, Y=None):
        # (gamma x.y + coef0)^degree = ([gamma x, coef0] . [y, 1])^degree
        Yr = X if Y is None else Y
        if not all(isinstance(Z, np.ndarray) and Z.ndim == 2
                   and Z.dtype in (np.float32, np.float64) for Z in (X, Yr)):
            return None
        if X.dtype != Yr.dtype or not float(self.gamma) > 0:
            return None
        A = np.empty((X.shape[0], X.shape[1] + 1), dtype=X.dtype)
        A[:, :-1] = X
        A[:, :-1] *= self.gamma
        A[:, -1] = self.coef0
        B = np.empty((Yr.shape[0], Yr.shape[1] + 1), dtype=X.dtype)
        B[:, :-1] = Yr
        B[:, -1] = 1.0
        return TileFactors(A, B, None,
                           functools.partial(dist.tile_power, degree=float(self.degree)))

    def _compute(self, X, Y):
        G = dist.gram(X, Y)
        dist.power_affine(G, float(self.gamma), float(self.coef0), float(self.degree),
                          work=G.size)
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


class DotProduct(Kernel):
    """Dot-product kernel with an inhomogeneous offset: k(x, y) = sigma_0^2 + x . y.

    The posterior of a GP with this kernel is that of Bayesian linear regression with a
    N(0, sigma_0^2) prior on the intercept and N(0, I) on the weights. ``sigma_0`` is a
    (log-space) hyperparameter, as in scikit-learn's ``DotProduct``.

    Parameters
    ----------
    sigma_0 : float, default=1.0
    sigma_0_bounds : pair of float or "fixed", default=(1e-5, 1e5)

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import DotProduct
    >>> DotProduct(sigma_0=2.0)(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[15.]])
    """

    _hyperparameters = ("sigma_0",)

    def __init__(self, sigma_0=1.0, sigma_0_bounds=(1e-5, 1e5)):
        self.sigma_0 = sigma_0
        self.sigma_0_bounds = sigma_0_bounds

    def _compute(self, X, Y):
        G = dist.gram(X, Y)
        G += self.sigma_0**2
        return G

    def diag(self, X):
        X = self._check_input(X)
        return dist.row_norms_sq(X) + self.sigma_0**2

    def _gradient(self, X, K, name):
        # dK/dlog sigma_0 = 2 sigma_0^2 11^T
        yield np.full((len(X), len(X)), 2.0 * self.sigma_0**2)

    def gradient_dot(self, X, W, K=None, parts=None):
        # sum W * dK/dlog sigma_0 = 2 sigma_0^2 sum W
        return np.array([2.0 * self.sigma_0**2 * float(np.sum(W))] if self.n_dims else [])
