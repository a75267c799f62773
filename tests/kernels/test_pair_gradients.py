"""Rectangular, diagonal and input contractions of kernel gradients, by finite differences.

``cross_gradient_dot(X, Y, W)``, ``diag_gradient_dot(X, w)`` and
``input_gradient_dot(X, Y, W)`` (what the sparse GP's ELBO gradient needs) are checked
against central differences of ``sum W * K(X, Y)``, ``sum w * diag K(X)`` in ``theta`` and
in the rows of ``Y``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.gaussian_process.kernels import RBF as SkRBF

from kernelkit.kernels import (
    RBF,
    Constant,
    Laplacian,
    Linear,
    Matern,
    Polynomial,
    RationalQuadratic,
    SklearnKernel,
    White,
)
from tests.reference.kernels import finite_difference_input_gradient

KERNELS = {
    "rbf": RBF(0.9),
    "rbf_ard": RBF([0.7, 1.3, 2.0]),
    "scaled_ard": 2.0 * RBF([0.7, 1.3, 2.0]),
    "const_times_rbf_plus_white": Constant(1.5) * RBF(1.2) + White(0.1),
    "product": RBF(1.1) * Matern(1.4, nu=2.5),
    "sum_linear": RBF(0.8) + 0.5 * Linear(),
    "laplacian": Laplacian(1.3),
    "matern": Matern([0.8, 1.0, 1.5], nu=1.5),
    "rq": RationalQuadratic(1.1, alpha=0.7),
    "poly": Polynomial(degree=2, gamma=0.3, coef0=1.2),
    "sklearn": SklearnKernel(SkRBF(1.2)),
}
INPUT_GRAD = ["rbf", "rbf_ard", "scaled_ard", "const_times_rbf_plus_white", "sum_linear"]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(13, 3)), rng.normal(size=(7, 3)), rng.normal(size=(13, 7))


def _fd_theta(kernel, f, h=1e-6):
    theta = kernel.theta
    g = np.empty(theta.size)
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = h
        g[j] = (f(kernel.clone_with_theta(theta + e)) - f(kernel.clone_with_theta(theta - e))) \
            / (2 * h)
    return g


@pytest.mark.parametrize("name", list(KERNELS))
def test_cross_gradient_dot_matches_finite_differences(name):
    k = clone(KERNELS[name])
    X, Y, W = _data()
    g = k.cross_gradient_dot(X, Y, W)
    ref = _fd_theta(k, lambda kk: float(np.sum(W * kk(X, Y))))
    np.testing.assert_allclose(g, ref, rtol=1e-6, atol=1e-7)
    # the same with the block passed in
    np.testing.assert_allclose(k.cross_gradient_dot(X, Y, W, k(X, Y)), g, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("name", list(KERNELS))
def test_diag_gradient_dot_matches_finite_differences(name):
    k = clone(KERNELS[name])
    X, _, _ = _data(1)
    w = np.random.default_rng(2).normal(size=len(X))
    g = k.diag_gradient_dot(X, w)
    ref = _fd_theta(k, lambda kk: float(w @ kk.diag(X)))
    np.testing.assert_allclose(g, ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", INPUT_GRAD)
def test_input_gradient_dot_matches_finite_differences(name):
    k = clone(KERNELS[name])
    X, Y, W = _data(3)
    G = k.input_gradient_dot(X, Y, W)
    ref = finite_difference_input_gradient(k, X, Y, W)
    np.testing.assert_allclose(G, ref, rtol=1e-6, atol=1e-7)


def test_input_gradient_dot_missing_is_a_clear_error():
    X, Y, W = _data()
    with pytest.raises(NotImplementedError, match="no gradient with respect to its inputs"):
        Matern(1.0).input_gradient_dot(X, Y, W)
