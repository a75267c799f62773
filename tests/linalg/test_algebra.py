"""The operator algebra (kernelkit.linalg.algebra) against the dense matrices it stands for."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator
from kernelkit.linalg.algebra import (
    Diagonal,
    Identity,
    Kronecker,
    KroneckerEigen,
    LowRankPlusIdentity,
    Normal,
    Projection,
    as_map,
)

rng = np.random.default_rng(0)


def _spd(n, seed):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


@pytest.mark.parametrize("cols", [None, 1, 3])
def test_each_map_equals_its_dense_matrix(cols):
    n = 6
    V = rng.normal(size=(n,) if cols is None else (n, cols))
    K, s = _spd(n, 1), rng.uniform(0.5, 2.0, n)
    u = rng.normal(size=n)
    u /= np.linalg.norm(u)
    U = rng.normal(size=(n, 2))
    dense = {
        "identity": (Identity(n), np.eye(n)),
        "diagonal": (Diagonal(s), np.diag(s)),
        "projection": (Projection(u), np.eye(n) - np.outer(u, u)),
        "wrapped": (as_map(K), K),
        "low rank + a I": (LowRankPlusIdentity(U, 0.3), U @ U.T + 0.3 * np.eye(n)),
        "scaled": (2.5 * as_map(K), 2.5 * K),
        "sum": (as_map(K) + Diagonal(s), K + np.diag(s)),
        "shifted": (as_map(K) + 0.7, K + 0.7 * np.eye(n)),
        "product": (Diagonal(s) @ as_map(K) @ Projection(u),
                    np.diag(s) @ K @ (np.eye(n) - np.outer(u, u))),
    }
    for name, (M, D) in dense.items():
        np.testing.assert_allclose(M @ V, D @ V, rtol=1e-12, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(M.to_dense(), D, rtol=1e-12, atol=1e-12, err_msg=name)
        assert M.shape == D.shape, name


def test_the_kernel_ridge_system_and_a_kernel_operator():
    X = rng.normal(size=(40, 3))
    op = KernelOperator(RBF(0.7), X)
    K = RBF(0.7)(X)
    s = rng.uniform(0.5, 2.0, 40)
    u = s / np.linalg.norm(s)
    A = Projection(u) @ Diagonal(s) @ as_map(op) @ Diagonal(s) @ Projection(u) + 1e-2
    P = np.eye(40) - np.outer(u, u)
    expect = P @ np.diag(s) @ K @ np.diag(s) @ P + 1e-2 * np.eye(40)
    V = rng.normal(size=(40, 2))
    np.testing.assert_allclose(A @ V, expect @ V, rtol=1e-10, atol=1e-12)


def test_solves_invert_their_maps():
    n = 7
    B = rng.normal(size=(n, 2))
    U = rng.normal(size=(n, 3))
    s = rng.uniform(0.5, 2.0, n)
    for M in (Diagonal(s), LowRankPlusIdentity(U, 0.2), Identity(n),
              3.0 * LowRankPlusIdentity(U, 0.2), Diagonal(s) @ LowRankPlusIdentity(U, 1.0)):
        np.testing.assert_allclose(M @ M.solve(B), B, rtol=1e-10, atol=1e-10)
    with pytest.raises(NotImplementedError, match="no solve"):
        Projection(np.ones(n) / np.sqrt(n)).solve(B)
    with pytest.raises(ValueError, match="positive"):
        LowRankPlusIdentity(U, 0.0)


def test_kronecker_products_solves_and_eigendecomposition():
    A, Bm = _spd(3, 2), _spd(4, 3)
    kron = Kronecker(A, Bm)
    D = np.kron(A, Bm)
    V = rng.normal(size=(12, 2))
    np.testing.assert_allclose(kron @ V, D @ V, rtol=1e-12)
    np.testing.assert_allclose(kron @ V[:, 0], D @ V[:, 0], rtol=1e-12)
    np.testing.assert_allclose(kron.t_matmul(V), D.T @ V, rtol=1e-12)
    # vec(A X B^T) with A's index outer
    Xm = rng.normal(size=(3, 4))
    np.testing.assert_allclose(kron @ Xm.ravel(), (A @ Xm @ Bm.T).ravel(), rtol=1e-12)
    np.testing.assert_allclose(kron.solve(V), np.linalg.solve(D, V), rtol=1e-10)
    E = kron.eigh()
    Q, w = E.Q.to_dense(), E.values.ravel()
    np.testing.assert_allclose(Q @ np.diag(w) @ Q.T, D, rtol=1e-10)
    np.testing.assert_allclose(E.to_dense(), D, rtol=1e-10)
    # A (x) B + c I solved through the factors' eigendecompositions
    np.testing.assert_allclose((kron + 0.3).solve(V), np.linalg.solve(D + 0.3 * np.eye(12), V),
                               rtol=1e-10)


def test_shapes_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="do not compose"):
        Diagonal(np.ones(3)) @ Identity(4)
    with pytest.raises(ValueError, match="do not add"):
        Diagonal(np.ones(3)) + Identity(4)
    with pytest.raises(NotImplementedError, match="eigendecomposed"):
        (Diagonal(np.ones(3)) + Diagonal(np.ones(3))).solve(np.ones(3))


@pytest.mark.parametrize("cols", [None, 1, 3])
def test_transposes_equal_the_dense_transposes(cols):
    n, m = 6, 4
    V = rng.normal(size=(n,) if cols is None else (n, cols))
    R = rng.normal(size=(n, m))  # a rectangular map
    K, s = _spd(n, 4), rng.uniform(0.5, 2.0, n)
    u = rng.normal(size=n)
    u /= np.linalg.norm(u)
    N = rng.normal(size=(n, n))  # not symmetric
    dense = {
        "wrapped": (as_map(N), N),
        "diagonal": (Diagonal(s), np.diag(s)),
        "projection": (Projection(u), np.eye(n) - np.outer(u, u)),
        "product": (as_map(N) @ Diagonal(s) @ as_map(K), N @ np.diag(s) @ K),
        "sum": (as_map(N) + Diagonal(s), N + np.diag(s)),
        "scaled": (-1.5 * as_map(N), -1.5 * N),
        "rectangular product": (as_map(R.T) @ as_map(N), R.T @ N),
    }
    for name, (M, D) in dense.items():
        Vt = V if D.shape[0] == n else rng.normal(size=(D.shape[0],) + V.shape[1:])
        np.testing.assert_allclose(M.T @ Vt, D.T @ Vt, rtol=1e-12, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(M.t_matmul(Vt), D.T @ Vt, rtol=1e-12, atol=1e-12,
                                   err_msg=name)
        np.testing.assert_allclose(M.T.to_dense(), D.T, rtol=1e-12, atol=1e-12, err_msg=name)
        assert M.T.shape == D.T.shape and M.T.T is M, name
    assert Diagonal(s).T.symmetric and not (as_map(N) + Diagonal(s)).symmetric
    with pytest.raises(NotImplementedError, match="no transpose"):  # nothing to transpose by
        type("Plain", (Diagonal,), {"symmetric": False})(s).T @ V


def test_normal_map_over_a_kernel_operator_and_an_array():
    X, C = rng.normal(size=(50, 3)), rng.normal(size=(7, 3))
    Knm = RBF(0.8)(X, C)
    V = rng.normal(size=(7, 2))
    for A in (KernelOperator(RBF(0.8), X, C), Knm):
        N = Normal(A)
        assert N.shape == (7, 7) and N.symmetric
        np.testing.assert_allclose(N @ V, Knm.T @ (Knm @ V), rtol=1e-10)
        np.testing.assert_allclose(N.to_dense(), Knm.T @ Knm, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("cols", [None, 2])
def test_kronecker_eigen_form_solves_and_log_determinants(cols):
    A, Bm = _spd(5, 5), _spd(3, 6)
    wa, Qa = np.linalg.eigh(A)
    wb, Qb = np.linalg.eigh(Bm)
    D = np.kron(A, Bm)
    V = rng.normal(size=(15,) if cols is None else (15, cols))
    for c in (0.0, 0.4):
        E = KroneckerEigen(wa, Qa, wb, Qb) + c  # A (x) B + c I from given factors
        Dc = D + c * np.eye(15)
        assert E.shift == c and E.values.shape == (5, 3)
        np.testing.assert_allclose(E @ V, Dc @ V, rtol=1e-10)
        np.testing.assert_allclose(E.solve(V), np.linalg.solve(Dc, V), rtol=1e-10)
        np.testing.assert_allclose(E.logdet(), np.linalg.slogdet(Dc)[1], rtol=1e-12)
        np.testing.assert_allclose(np.sort(E.values.ravel()), np.linalg.eigvalsh(Dc),
                                   rtol=1e-10)
    # the eigenvector map is orthogonal: Q^T Q = I
    np.testing.assert_allclose(E.Q.T.to_dense() @ E.Q.to_dense(), np.eye(15), atol=1e-12)
    # a non-number added is a plain sum (no eigen form)
    S = E + Diagonal(np.ones(15))
    np.testing.assert_allclose(S @ V, (D + 1.4 * np.eye(15)) @ V, rtol=1e-10)
