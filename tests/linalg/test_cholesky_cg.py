"""Jittered Cholesky, solves from the factor, and preconditioned CG."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from kernelkit.exceptions import JitterWarning, NumericalError
from kernelkit.kernels import RBF
from kernelkit.linalg import cho_inverse, cho_logdet, cho_solve, jitter_cholesky, pcg


def _spd(n, seed=0):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def test_cholesky_no_jitter_needed_and_in_place():
    A = _spd(50)
    A0 = A.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L, jitter = jitter_cholesky(A)
    assert jitter == 0.0
    np.testing.assert_allclose(L @ L.T, A0, rtol=1e-12)
    np.testing.assert_array_equal(A, A0)  # not overwritten by default
    assert np.all(np.triu(L, 1) == 0)
    L2, _ = jitter_cholesky(A, overwrite_a=True)
    assert np.shares_memory(L2, A)  # one n x n matrix in memory
    np.testing.assert_allclose(L2 @ L2.T, A0, rtol=1e-12)


def test_cholesky_float32():
    A = _spd(20).astype(np.float32)
    L, _ = jitter_cholesky(A)
    assert L.dtype == np.float32
    np.testing.assert_allclose(L @ L.T, A, rtol=1e-4)


def test_jitter_on_duplicates_warns_with_amount():
    X = np.random.default_rng(1).normal(size=(40, 2))
    K = RBF(1.0)(np.vstack([X, X]))  # singular: duplicated inputs, no noise
    with pytest.warns(JitterWarning, match=r"added jitter [0-9.e-]+"):
        L, jitter = jitter_cholesky(K.copy())
    assert 0 < jitter <= 1e-4 * np.mean(np.diagonal(K))
    np.testing.assert_allclose(L @ L.T, K + jitter * np.eye(80), atol=1e-10)


def test_jitter_after_failed_attempt_restores_matrix_in_place():
    # exercise the in-place restore path: factorization fails then succeeds with jitter
    X = np.random.default_rng(2).normal(size=(30, 2))
    K = RBF(1.0)(np.vstack([X, X]))
    K0 = K.copy()
    with pytest.warns(JitterWarning):
        L, jitter = jitter_cholesky(K, overwrite_a=True)
    np.testing.assert_allclose(L @ L.T, K0 + jitter * np.eye(60), atol=1e-10)


def test_not_psd_raises_clear_error():
    A = np.diag([1.0, -1.0, 2.0])
    with pytest.raises(NumericalError, match="not positive definite.*alpha"):
        jitter_cholesky(A)
    with pytest.raises(ValueError, match="square"):
        jitter_cholesky(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        jitter_cholesky(np.diag([1.0, np.nan]))


def test_solve_logdet_inverse_from_factor():
    A = _spd(30, seed=3)
    L, _ = jitter_cholesky(A)
    B = np.random.default_rng(4).normal(size=(30, 2))
    np.testing.assert_allclose(A @ cho_solve(L, B), B, rtol=1e-10, atol=1e-10)
    assert cho_logdet(L) == pytest.approx(np.linalg.slogdet(A)[1], rel=1e-12)
    Ainv = cho_inverse(L)
    np.testing.assert_allclose(Ainv, np.linalg.inv(A), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(Ainv, Ainv.T)


@pytest.mark.parametrize("n", [97, 300, 1100])
@pytest.mark.parametrize("one_thread", [True, False])
def test_inverse_by_blocks_and_by_potri_from_the_lower_triangle_only(n, one_thread):
    # one BLAS thread and n <= 2048: L^-1 by halves and trmm; else LAPACK potri. Either
    # reads the lower triangle only (a factor with clean=False keeps K above it);
    # full=False leaves the upper triangle unmirrored
    from kernelkit._core.threads import single_threaded

    A = _spd(n, seed=n)
    L = np.linalg.cholesky(A) + np.triu(np.full((n, n), 7.0), 1)
    with single_threaded(one_thread):
        Ainv = cho_inverse(L)
        again = cho_inverse(np.asfortranarray(L), overwrite_l=True)
        lower = cho_inverse(L, full=False)
    np.testing.assert_allclose(Ainv @ A, np.eye(n), atol=1e-9)
    np.testing.assert_array_equal(np.tril(lower), np.tril(Ainv))
    np.testing.assert_array_equal(Ainv, Ainv.T)
    np.testing.assert_allclose(again, Ainv, rtol=1e-12, atol=1e-15)
    singular = np.linalg.cholesky(A)
    singular[n // 3, n // 3] = 0.0
    with pytest.raises(NumericalError, match="singular"), single_threaded(one_thread):
        cho_inverse(singular)


@pytest.mark.parametrize("n", [1, 2, 64, 65, 300])
@pytest.mark.parametrize("order", ["C", "F"])
def test_triangle_copies_by_blocks(n, order):
    from kernelkit.linalg.cholesky import _triangle

    A = np.asarray(np.random.default_rng(n).normal(size=(n, n)), order=order)
    expected = {"zero": np.tril(A), "lower": np.triu(A) + np.triu(A, 1).T,
                "upper": np.tril(A) + np.tril(A, -1).T}
    for what, want in expected.items():
        B = A.copy(order=order)
        _triangle(B, what)
        np.testing.assert_array_equal(B, want)


def test_pcg_solves_and_preconditioning_helps():
    rng = np.random.default_rng(5)
    d = np.logspace(0, 4, 200)
    Q, _ = np.linalg.qr(rng.normal(size=(200, 200)))
    A = (Q * d) @ Q.T
    b = rng.normal(size=(200, 3))
    plain = pcg(A, b, tol=1e-10, max_iter=2000)
    assert plain.converged
    np.testing.assert_allclose(A @ plain.coef, b, rtol=1e-6, atol=1e-6)
    Minv = (Q / d) @ Q.T  # exact inverse as preconditioner -> 1 iteration
    pre = pcg(A, b, M=Minv, tol=1e-10)
    assert pre.converged and pre.n_iter <= 2 < plain.n_iter
    assert len(plain.history) == plain.n_iter + 1
    # callable operator, vector rhs, warm start at the solution
    res = pcg(lambda v: A @ v, b[:, 0], x0=plain.coef[:, 0], tol=1e-8)
    assert res.n_iter == 0 and res.converged


def test_pcg_reports_non_convergence():
    A = np.diag(np.logspace(0, 8, 100))
    res = pcg(A, np.ones(100), tol=1e-14, max_iter=3)
    assert not res.converged and res.n_iter == 3


def test_min_pivot_rejects_a_rounding_pivot():
    # singular up to rounding: LAPACK may accept it; min_pivot = n eps makes it jitter
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    X = np.vstack([X, X[:3]])
    K = RBF(np.sqrt(1.5))(X)
    # (with this BLAS, LAPACK accepts K as it is: jitter_cholesky(K) has jitter 0.0)
    with pytest.warns(JitterWarning):
        L, jitter = jitter_cholesky(K.copy(), min_pivot=len(K) * np.finfo(float).eps)
    assert jitter > 0
    np.testing.assert_allclose(L @ L.T, K + jitter * np.eye(len(K)), atol=1e-12)


def test_non_finite_or_complex_matrix_is_a_clear_error():
    # NaN off the diagonal: OpenBLAS's potrf accepts it and returned a NaN factor silently
    A = np.array([[2.0, np.nan, 0.0], [np.nan, 2.0, 0.0], [0.0, 0.0, 2.0]])
    with pytest.raises(NumericalError, match="non-finite"):
        jitter_cholesky(A)
    with pytest.raises(ValueError, match="real"):
        jitter_cholesky(np.eye(2) + 0j)


def test_pcg_takes_any_operator():
    import scipy.sparse as sp
    from scipy.sparse.linalg import aslinearoperator

    from kernelkit.kernels import White
    from kernelkit.linalg import KernelOperator

    X = np.random.default_rng(6).normal(size=(70, 2))
    k = RBF(0.8) + White(0.5)
    A = k(X)
    b = np.random.default_rng(7).normal(size=70)
    x = np.linalg.solve(A, b)
    for op in (A, KernelOperator(k, X, working_memory=0.005), aslinearoperator(A),
               sp.csr_matrix(A), lambda v: A @ v):
        res = pcg(op, b, tol=1e-12)
        assert res.converged
        np.testing.assert_allclose(res.coef, x, rtol=1e-8, atol=1e-10)
    # a Jacobi preconditioner given as a sparse matrix / operator
    res = pcg(A, b, M=sp.diags(1 / np.diagonal(A)), tol=1e-12)
    np.testing.assert_allclose(res.coef, x, rtol=1e-8, atol=1e-10)


def test_pcg_bad_input():
    with pytest.raises(ValueError, match="non-finite"):
        pcg(np.eye(3), np.array([1.0, np.nan, 1.0]))
    with pytest.raises(ValueError, match="x0 has 2 entries"):
        pcg(np.eye(3), np.ones(3), x0=np.ones(2))
