"""Naive references for kernelkit.structured: brute-force enumeration, plain NumPy.

Everything here enumerates the output space explicitly (tiny problems only) and is
written for obviousness, not speed.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize

__all__ = [
    "all_sequences",
    "chain_score",
    "brute_viterbi",
    "chain_joint_kernel",
    "structured_dual_qp",
    "crammer_singer_dual_qp",
    "perceptron",
]


def all_sequences(T: int, S: int) -> list[np.ndarray]:
    """Every label sequence of length T over S states."""
    return [np.array(z) for z in itertools.product(range(S), repeat=T)]


def chain_score(G, W, z) -> float:
    """sum_t G[t, z_t] + sum_t W[z_t, z_t+1]."""
    return float(sum(G[t, z[t]] for t in range(len(z)))
                 + sum(W[z[t], z[t + 1]] for t in range(len(z) - 1)))


def brute_viterbi(G, W, z_true=None, normalize=True):
    """argmax over all sequences of [Hamming(z_true, z) (/ T) +] chain score, and the max."""
    T, S = G.shape
    best, arg = -np.inf, None
    for z in all_sequences(T, S):
        v = chain_score(G, W, z)
        if z_true is not None:
            v += np.mean(z != z_true) if normalize else np.sum(z != z_true)
        if v > best:
            best, arg = v, z
    return arg, best


def chain_joint_kernel(kx, x1, z1, x2, z2) -> float:
    """k((x1,z1),(x2,z2)) = sum_{t,u} kx(x1_t, x2_u)[z1_t = z2_u] + #matching bigrams pairs."""
    v = 0.0
    for t in range(len(z1)):
        for u in range(len(z2)):
            if z1[t] == z2[u]:
                v += kx(x1[t], x2[u])
    for t in range(len(z1) - 1):
        for u in range(len(z2) - 1):
            if z1[t] == z2[u] and z1[t + 1] == z2[u + 1]:
                v += 1.0
    return v


def structured_dual_qp(joint_kernel, X, Y, outputs, loss, C):
    """Solve the margin-rescaled SSVM dual with every output enumerated (SLSQP).

    max sum_{i,y} a_iy Delta(y_i, y) - 1/2 sum a_iy a_jy' <psi_i(y), psi_j(y')>,
    a >= 0, sum_y a_iy <= C, where <psi_i(y), psi_j(y')> = J(i y_i, j y'_j) - J(i y_i, j y')
    - J(i y, j y'_j) + J(i y, j y') with J the joint kernel. Returns (dual value, alpha,
    pairs) with pairs = [(i, y)].
    """
    pairs = [(i, y) for i in range(len(X)) for y in outputs[i]
             if not np.array_equal(y, Y[i])]
    m = len(pairs)
    Q = np.zeros((m, m))
    for p, (i, y) in enumerate(pairs):
        for q, (j, yy) in enumerate(pairs):
            Q[p, q] = (joint_kernel(X[i], Y[i], X[j], Y[j]) - joint_kernel(X[i], Y[i], X[j], yy)
                       - joint_kernel(X[i], y, X[j], Y[j]) + joint_kernel(X[i], y, X[j], yy))
    d = np.array([loss(Y[i], y) for i, y in pairs])
    owner = np.array([i for i, _ in pairs])
    cons = [{"type": "ineq", "fun": (lambda a, i=i: C - a[owner == i].sum()),
             "jac": (lambda a, i=i: -(owner == i).astype(float))} for i in range(len(X))]
    res = minimize(lambda a: 0.5 * a @ Q @ a - d @ a, np.zeros(m), jac=lambda a: Q @ a - d,
                   bounds=[(0, None)] * m, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 2000})
    return -res.fun, res.x, pairs


def crammer_singer_dual_qp(K, y, n_classes, C):
    """The Crammer-Singer dual, written as the SSVM dual with the delta label kernel.

    k((x_i, a), (x_j, b)) = K[i, j] [a = b] and the 0/1 loss; the optimum equals the
    Crammer-Singer dual max sum_i alpha_{i y_i} - 1/2 sum_j alpha_{:j}^T K alpha_{:j}.
    """
    idx = np.arange(len(y))
    outputs = [list(range(n_classes)) for _ in idx]
    jk = lambda i, a, j, b: K[i, j] * float(a == b)
    return structured_dual_qp(jk, list(idx), list(y), outputs, lambda a, b: float(a != b), C)


def perceptron(joint_kernel, X, Y, outputs, order, averaged):
    """Kernelized structured perceptron by brute force; returns f(i, y) on X as a function.

    w is a list of (example, output, coefficient); argmax by enumeration of ``outputs``.
    """
    terms = []  # w = sum c phi(x_j, y)
    history = []  # iterates w_k as term counts, for averaging

    def f(x, y, ts):
        return sum(c * joint_kernel(X[j], yy, x, y) for j, yy, c in ts)

    for i in order:
        scores = [f(X[i], y, terms) for y in outputs[i]]
        yhat = outputs[i][int(np.argmax(scores))]
        if not np.array_equal(yhat, Y[i]):
            terms = terms + [(i, Y[i], 1.0), (i, yhat, -1.0)]
        history.append(terms)
    if averaged:
        K = len(history)
        terms = [(j, yy, c / K) for ts in history for j, yy, c in ts]
    return lambda x, y: f(x, y, terms)
