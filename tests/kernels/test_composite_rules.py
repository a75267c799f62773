"""The composites' gradient rules, nested three deep, against dense finite differences.

Sums, products, scales and powers take every gradient contraction (``gradient``,
``gradient_dot``, ``cross_gradient_dot``, ``diag_gradient_dot``, ``input_gradient_dot``)
from their parts through one rule each (``kernels/composite.py``). Each contraction of each
composite below is checked against central differences of the dense matrices in ``theta``
(log space) or in the rows of ``Y``; fixed hyperparameters and a constant factor on either
side of a product are among them.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from kernelkit.kernels import (
    RBF,
    Constant,
    Exponentiation,
    Laplacian,
    Linear,
    Matern,
    Polynomial,
    RationalQuadratic,
    Scale,
    White,
)
from tests.reference.kernels import finite_difference_input_gradient

COMPOSITES = {
    # every leaf here has an input gradient: all five contractions are checked
    "scale(product(ard, sum))": lambda: (
        2.0 * (RBF([0.7, 1.3, 2.0]) * (Constant(1.5) + 0.5 * Linear())) + White(0.1)),
    "power(sum) * scale(product)": lambda: (
        Exponentiation(RBF(0.9) + Constant(0.4), 2.0) * Scale(RBF(1.4) * RBF(2.0), 1.7)),
    "product(const second) + sum": lambda: RBF(0.8) * Constant(1.7) + (White(0.3) + RBF(2.5)),
    "fixed scale(product(fixed const))": lambda: (
        Scale(RBF(1.0) * Constant(2.0, value_bounds="fixed"), 1.5, scale_bounds="fixed")
        + Constant(0.3) * RBF([0.5, 1.0, 2.0])),
    # leaves without an input gradient: the four theta contractions are checked
    "product(sum(scale), sum)": lambda: (
        (Constant(0.8) * RBF(1.1) + 0.5 * Matern(1.4, nu=2.5))
        * (RationalQuadratic(0.9, alpha=1.3) + White(0.2))),
    "sum(product(power, scale), product)": lambda: (
        Exponentiation(Matern([0.9, 1.2, 1.6], nu=1.5), 3.0) * Scale(Polynomial(2, 0.3, 1.2), 1.7)
        + Laplacian(1.3) * Constant(2.0)),
}
WITH_INPUT_GRADIENT = list(COMPOSITES)[:4]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(11, 3)), rng.normal(size=(6, 3)), rng.normal(size=(11, 6))


def _fd_theta(kernel, f, h=1e-6):
    """Central differences of ``f(kernel)`` in each entry of ``theta``."""
    theta = kernel.theta
    out = []
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = h
        out.append((f(kernel.clone_with_theta(theta + e))
                    - f(kernel.clone_with_theta(theta - e))) / (2 * h))
    return out


@pytest.fixture(params=list(COMPOSITES))
def case(request):
    return request.param, COMPOSITES[request.param]()


def test_gradient_matrices(case):
    _, k = case
    X, _, _ = _data()
    grads = list(k.gradient(X))
    fd = _fd_theta(k, lambda kk: kk(X))
    assert len(grads) == len(fd) == k.n_dims > 0
    for G, F in zip(grads, fd):
        np.testing.assert_allclose(G, F, rtol=1e-6, atol=1e-7)
    # the kernel's own K passed in gives the same matrices
    for G, H in zip(grads, k.gradient(X, k(X))):
        np.testing.assert_allclose(H, G, rtol=1e-12, atol=1e-12)


def test_gradient_dot(case):
    _, k = case
    X, _, _ = _data(1)
    W = np.random.default_rng(2).normal(size=(len(X),) * 2)
    W = W + W.T
    ref = _fd_theta(k, lambda kk: float(np.sum(W * kk(X))))
    g = k.gradient_dot(X, W)
    np.testing.assert_allclose(g, ref, rtol=1e-6, atol=1e-7)
    # from the parts that matrix_parts records at the same hyperparameters
    parts = {}
    np.testing.assert_allclose(k.matrix_parts(X, parts), k(X), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(k.gradient_dot(X, W, parts=parts), g, rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(k.gradient_dot(X, W, k(X)), g, rtol=1e-10, atol=1e-11)


def test_cross_gradient_dot(case):
    _, k = case
    X, Y, W = _data(3)
    ref = _fd_theta(k, lambda kk: float(np.sum(W * kk(X, Y))))
    g = k.cross_gradient_dot(X, Y, W)
    np.testing.assert_allclose(g, ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(k.cross_gradient_dot(X, Y, W, k(X, Y)), g, rtol=1e-10,
                               atol=1e-11)


def test_diag_gradient_dot(case):
    _, k = case
    X, _, _ = _data(4)
    w = np.random.default_rng(5).normal(size=len(X))
    ref = _fd_theta(k, lambda kk: float(w @ kk.diag(X)))
    np.testing.assert_allclose(k.diag_gradient_dot(X, w), ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", WITH_INPUT_GRADIENT)
def test_input_gradient_dot(name):
    k = clone(COMPOSITES[name]())
    X, Y, W = _data(6)
    G = k.input_gradient_dot(X, Y, W)
    ref = finite_difference_input_gradient(k, X, Y, W)
    np.testing.assert_allclose(G, ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(k.input_gradient_dot(X, Y, W, k(X, Y)), G, rtol=1e-10,
                               atol=1e-11)


@pytest.mark.parametrize("name", sorted(set(COMPOSITES) - set(WITH_INPUT_GRADIENT)))
def test_input_gradient_dot_names_the_part_without_one(name):
    X, Y, W = _data()
    with pytest.raises(NotImplementedError, match="no gradient with respect to its inputs"):
        COMPOSITES[name]().input_gradient_dot(X, Y, W)


def test_theta_order_follows_the_parts():
    # a constant factor's entry sits where the constant sits: before or after the other's
    X, _, _ = _data()
    W = np.ones((len(X), len(X)))
    first = (Constant(2.0) * RBF(1.0)).gradient_dot(X, W)
    second = (RBF(1.0) * Constant(2.0)).gradient_dot(X, W)
    np.testing.assert_allclose(first, second[::-1], rtol=1e-12)
    assert (Constant(2.0) * RBF(1.0)).theta.tolist() == pytest.approx(
        [np.log(2.0), 0.0])
