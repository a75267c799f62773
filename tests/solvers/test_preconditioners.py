"""The one Nystrom preconditioner (solvers/preconditioners.py) against closed forms, and
both of its callers (kernel ridge's CG and Falkon) going through it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils import check_random_state

from kernelkit import KernelRidge, NystromKernelRidge
from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator
from kernelkit.linalg.algebra import Diagonal, Projection
from kernelkit.solvers import preconditioners, solve_falkon, solve_krr
from kernelkit.solvers.nystrom import FalkonPreconditioner
from kernelkit.solvers.preconditioners import NystromPreconditioner, nystrom_woodbury
from tests.reference import falkon as ref


def _problem(n=60, m=8, seed=0):
    # spread-out points: a well-conditioned K_LL, so the closed forms need no jitter
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 3
    return X, X[:m], RBF(1.0)


def test_landmark_estimate_is_the_closed_form_nystrom_inverse():
    # no rows given: G = T^T T / m, so B B^T = ((n / m) K_LL^2 + lam n K_LL)^-1 (eps = 0),
    # and B itself is Falkon's n^-1/2 T^-1 A^-1 (upper factors, formed with inverses)
    X, C, k = _problem()
    Kmm, lam, n = k(C), 1e-2, len(X)
    P = NystromPreconditioner(Kmm, lam, n, epsilon=0.0)
    B = P.apply(np.eye(len(C)))
    H_est = n / len(C) * Kmm @ Kmm + lam * n * Kmm
    np.testing.assert_allclose(B @ B.T, np.linalg.inv(H_est), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(B, ref.falkon_B(Kmm, lam, n), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(P.apply_t(np.eye(len(C))), B.T, rtol=1e-10, atol=1e-14)


def test_rows_given_inverts_the_nystrom_normal_matrix_exactly():
    # G = U^T U / n from K_nL: B B^T = (K_Ln K_nL + lam n K_LL)^-1, H of (1), and the
    # preconditioned operator B^T H B is the identity
    X, C, k = _problem()
    Knm, Kmm, lam, n = k(X, C), k(C), 1e-3, len(X)
    P = NystromPreconditioner(Kmm, lam, n, epsilon=0.0, knm=Knm)
    H = Knm.T @ Knm + lam * n * Kmm
    B = P.apply(np.eye(len(C)))
    np.testing.assert_allclose(B @ B.T, np.linalg.inv(H), rtol=1e-7)
    np.testing.assert_allclose(P.apply_t(H @ B), np.eye(len(C)), atol=1e-8)
    assert P.jitter == (0.0, 0.0)


@pytest.mark.parametrize("weighted", [False, True])
def test_woodbury_is_the_closed_form_inverse_of_the_nystrom_approximation(weighted):
    # (3): M^-1 R = (P S K_nL K_LL^-1 K_Ln S P + a I)^-1 R on the landmarks drawn from the seed;
    # M itself is that matrix
    X, _, k = _problem(n=50)
    n, m, a = len(X), 12, 0.05
    s = np.random.default_rng(1).uniform(0.5, 2.0, n) if weighted else np.ones(n)
    u = s / np.linalg.norm(s)
    left = Projection(u) @ Diagonal(s) if weighted else None  # P S
    M = nystrom_woodbury(k, X, a, left, random_state=3, n_landmarks=m)
    idx = np.sort(check_random_state(3).choice(n, m, replace=False))
    W = np.diag(s) @ k(X, X[idx])
    if weighted:
        W -= np.outer(u, u @ W)
    approx = W @ np.linalg.solve(k(X[idx]), W.T)
    R = np.random.default_rng(2).normal(size=(n, 2))
    np.testing.assert_allclose(M.solve(R), np.linalg.solve(approx + a * np.eye(n), R),
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(M @ R, (approx + a * np.eye(n)) @ R, rtol=1e-7, atol=1e-9)


def test_falkon_name_is_the_shared_class():
    assert FalkonPreconditioner is NystromPreconditioner


@pytest.fixture
def built(monkeypatch):
    """Record every NystromPreconditioner built (knm given or not) while the test runs."""
    calls = []
    init = NystromPreconditioner.__init__

    def spy(self, kmm, penalty, n_samples, epsilon=None, knm=None):
        calls.append("rows" if knm is not None else "landmarks")
        init(self, kmm, penalty, n_samples, epsilon, knm)

    monkeypatch.setattr(NystromPreconditioner, "__init__", spy)
    return calls


def test_both_callers_build_the_shared_preconditioner(built):
    X, C, k = _problem(n=80)
    y = np.sin(X[:, 0])
    solve_krr(KernelOperator(k, X), y[:, None], 0.1, method="cg", tol=1e-8)
    assert built == ["rows"]
    solve_falkon(KernelOperator(k, X, C), k(C), y, 1e-3, max_iter=5)
    assert built == ["rows", "landmarks"]
    KernelRidge(kernel="rbf", alpha=0.1, solver="cg").fit(X, y)
    NystromKernelRidge(n_centers=10, alpha=1e-3, random_state=0, solver="cg").fit(X, y)
    assert built == ["rows", "landmarks", "rows", "landmarks"]
    assert not hasattr(preconditioners, "FalkonPreconditioner")  # no second class
