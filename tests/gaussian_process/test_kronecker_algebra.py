"""The multi-output GP's Kronecker path in the operator algebra: the factors it keeps are the
whitened system K_x (x) B~ + I, and alpha = K^-1 vec Y, against dense matrices."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.gaussian_process._coregionalization import Coregionalization
from kernelkit.gaussian_process._kronecker import kronecker_log_marginal_likelihood
from kernelkit.kernels import RBF

BOUNDS = np.array([1e-6, 1e5])


def test_factors_are_the_whitened_kronecker_system():
    rng = np.random.default_rng(1)
    n, T = 12, 3
    X = rng.uniform(-2, 2, size=(n, 2))
    Y = rng.normal(size=(n, T))
    p = Coregionalization([RBF(0.9)], [rng.normal(size=(T, 2))], rng.uniform(0.1, 1, (1, T)),
                          rng.uniform(0.05, 0.3, T), BOUNDS, BOUNDS)
    lml, F = kronecker_log_marginal_likelihood(p, X, Y, factors=True)
    Kx, B, noise = RBF(0.9)(X), p.B(0), p.noise
    d = 1.0 / np.sqrt(noise)
    # K_x (x) B~ + I, B~ = D^-1/2 B D^-1/2, on row-major vec of (n, T) matrices
    W = np.kron(Kx, B * np.outer(d, d)) + np.eye(n * T)
    np.testing.assert_allclose(F.E.to_dense(), W, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(F.E.logdet(), np.linalg.slogdet(W)[1], rtol=1e-10)
    # the full covariance K = K_x (x) B + I (x) D (outputs inner) and alpha = K^-1 vec Y
    K = np.kron(Kx, B) + np.kron(np.eye(n), np.diag(noise))
    np.testing.assert_allclose(F.alpha().ravel(), np.linalg.solve(K, Y.ravel()), rtol=1e-8)
    _, logdet = np.linalg.slogdet(K)
    dense = -0.5 * Y.ravel() @ np.linalg.solve(K, Y.ravel()) - 0.5 * logdet \
        - 0.5 * n * T * np.log(2 * np.pi)
    np.testing.assert_allclose(lml, dense, rtol=1e-10)


def test_set_tail_sets_what_theta_sets_and_leaves_the_kernel():
    # the profiled search's inner steps set W, kappa and the noise only (set_tail)
    rng = np.random.default_rng(3)
    T = 3

    def params():
        return Coregionalization([RBF(0.9)], [np.ones((T, 2))], np.full((1, T), 0.5),
                                 np.full(T, 0.1), BOUNDS, BOUNDS)

    a = params()
    theta = a.theta + rng.normal(scale=0.1, size=a.n_dims)
    a.theta = theta
    c = params()
    kernel_before = c.kernels[0].theta.copy()
    c.set_tail(theta[1:])  # theta[0]: the kernel's log length scale
    np.testing.assert_array_equal(c.kernels[0].theta, kernel_before)
    np.testing.assert_array_equal(c.theta[1:], a.theta[1:])
    np.testing.assert_array_equal(c.W[0], a.W[0])
    np.testing.assert_array_equal(c.noise, a.noise)
    with pytest.raises(ValueError, match="tail of theta has"):
        c.set_tail(theta[2:])
