"""Naive kernel references: one pair of points at a time, plain NumPy (slow on purpose)."""

from __future__ import annotations

import numpy as np


def pairwise(f, X, Y=None):
    Y = X if Y is None else Y
    return np.array([[f(x, y) for y in Y] for x in X])


def rbf(x, y, ls):
    return np.exp(-0.5 * np.sum(((x - y) / ls) ** 2))


def laplacian(x, y, ls):
    return np.exp(-np.sum(np.abs(x - y) / ls))


def matern(x, y, ls, nu):
    r = np.sqrt(np.sum(((x - y) / ls) ** 2))
    if nu == 0.5:
        return np.exp(-r)
    if nu == 1.5:
        return (1 + np.sqrt(3) * r) * np.exp(-np.sqrt(3) * r)
    return (1 + np.sqrt(5) * r + 5 * r**2 / 3) * np.exp(-np.sqrt(5) * r)


def rational_quadratic(x, y, ls, alpha):
    return (1 + np.sum((x - y) ** 2) / (2 * alpha * ls**2)) ** (-alpha)


def exp_sine_squared(x, y, ls, p):
    return np.exp(-2 * np.sin(np.pi * np.linalg.norm(x - y) / p) ** 2 / ls**2)


def polynomial(x, y, degree, gamma, coef0):
    return (gamma * x @ y + coef0) ** degree


def finite_difference_gradient(kernel, X, eps=1e-6):
    """Central differences of K(X) with respect to theta, shape (n, n, p)."""
    theta = kernel.theta.copy()
    out = []
    for j in range(len(theta)):
        tp, tm = theta.copy(), theta.copy()
        tp[j] += eps
        tm[j] -= eps
        out.append((kernel.clone_with_theta(tp)(X) - kernel.clone_with_theta(tm)(X)) / (2 * eps))
    return np.stack(out, axis=-1) if out else np.empty(X.shape[:1] * 2 + (0,))


def finite_difference_input_gradient(kernel, X, Y, W, h=1e-6):
    """Central differences of sum(W * K(X, Y)) with respect to each entry of Y, shape of Y."""
    ref = np.empty_like(Y, dtype=np.float64)
    for j in range(Y.shape[0]):
        for f in range(Y.shape[1]):
            Yp, Ym = Y.copy(), Y.copy()
            Yp[j, f] += h
            Ym[j, f] -= h
            ref[j, f] = (np.sum(W * kernel(X, Yp)) - np.sum(W * kernel(X, Ym))) / (2 * h)
    return ref
