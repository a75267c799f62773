"""Falkon's preconditioned system B^T (K_nM^T K_nM + lambda n K_MM) B, built in the operator
algebra, against its dense matrix."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator
from kernelkit.solvers.nystrom import _preconditioned_system
from kernelkit.solvers.preconditioners import NystromPreconditioner


def _problem(dtype, n=120, M=15, lam=1e-3):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 2)).astype(dtype)
    C = X[:M]
    knm = KernelOperator(RBF(0.8), X, C)
    kmm = RBF(0.8)(C)
    return knm, kmm, lam, NystromPreconditioner(kmm, lam, n), RBF(0.8)(X, C)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_system_equals_its_dense_matrix(dtype):
    knm, kmm, lam, P, Knm = _problem(dtype)
    n, M = Knm.shape
    system = _preconditioned_system(knm, kmm, lam * n, P, dtype)
    # B = n^-1/2 T^-T A^-T (dense), H = K_nM^T K_nM + lambda n K_MM  (Falkon's (1), (2))
    B = np.linalg.solve(P.L_T.T, np.linalg.solve(P.L_A.T, np.eye(M))) / np.sqrt(n)
    Knm64, kmm64 = Knm.astype(np.float64), kmm.astype(np.float64)
    H = Knm64.T @ Knm64 + lam * n * kmm64
    expect = B.T @ H @ B
    rtol = 1e-9 if dtype == np.float64 else 1e-4
    assert system.shape == (M, M)
    V = np.random.default_rng(0).normal(size=(M, 2)).astype(dtype)
    out = system @ V
    assert out.dtype == dtype
    np.testing.assert_allclose(out, expect @ V, rtol=rtol, atol=rtol * np.abs(expect).max())
    np.testing.assert_allclose(system.to_dense(), expect, rtol=rtol,
                               atol=rtol * np.abs(expect).max())
    # the transpose of the composed map is the map of the transpose (B^T H B is symmetric)
    np.testing.assert_allclose(system.T @ V, out, rtol=rtol, atol=rtol * np.abs(out).max())
    # B and B^T as maps are the preconditioner's apply and apply_t
    Bm = P.as_map(dtype)
    np.testing.assert_allclose(Bm.to_dense(), B, rtol=rtol, atol=rtol * np.abs(B).max())
    np.testing.assert_allclose(Bm.T.to_dense(), B.T, rtol=rtol, atol=rtol * np.abs(B).max())


def test_small_products_run_on_one_blas_thread(monkeypatch):
    knm, kmm, lam, P, _ = _problem(np.float64)
    depth, seen = [0], []

    @contextlib.contextmanager
    def one_thread():
        depth[0] += 1
        try:
            yield
        finally:
            depth[0] -= 1

    monkeypatch.setattr(P, "one_thread", one_thread)
    kmm_matmul = type(kmm).__matmul__

    class Watched(np.ndarray):
        def __matmul__(self, other):
            seen.append(depth[0])
            return kmm_matmul(np.asarray(self), other)

    system = _preconditioned_system(knm, kmm.view(Watched), lam * 120, P, np.float64)
    system @ np.ones(15)
    assert seen == [1]  # K_MM's product inside one_thread
