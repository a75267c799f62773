"""top_eigh: every method against numpy's full eigendecomposition."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.exceptions import ConvergenceWarning
from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator, top_eigh


def _spd(n=200, seed=0):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    w = 100.0 * 0.8 ** np.arange(n)  # decaying, distinct
    return (Q * w) @ Q.T, w


def _check(A, w, V, k):
    w_ref = np.linalg.eigvalsh(A)[::-1][:k]
    np.testing.assert_allclose(w, w_ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(A @ V, V * w, atol=1e-7)  # eigenpairs
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-8)  # orthonormal


@pytest.mark.parametrize("method", ["dense", "randomized", "lobpcg", "arpack", "auto"])
def test_methods_match_full_eigh(method):
    A, _ = _spd()
    kw = dict(n_iter=None, tol=1e-12) if method == "randomized" else {}
    w, V = top_eigh(A, 6, method, random_state=0, **kw)
    _check(A, w, V, 6)
    assert np.all(np.diff(w) <= 0)


def test_all_components_dense_uses_every_pair():
    A, _ = _spd(n=60)
    w, V = top_eigh(A.copy(), 60, "dense", overwrite_a=True)
    _check(A, w, V, 60)


def test_randomized_fixed_steps_and_iteration_count():
    A, _ = _spd()
    w, V, it = top_eigh(A, 3, "randomized", n_iter=3, random_state=0, return_n_iter=True)
    assert it == 4  # start block + 3 Krylov steps
    np.testing.assert_allclose(w, np.linalg.eigvalsh(A)[::-1][:3], rtol=1e-6)


def test_randomized_small_n_spans_the_space_exactly():
    A, _ = _spd(n=12)
    w, V = top_eigh(A, 5, "randomized", n_iter=None, random_state=0)
    _check(A, w, V, 5)


def test_randomized_thick_restarts_converge():
    # flat spectrum, block of 4 -> more than max_basis / 4 = 20 steps -> thick restarts
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((300, 300)))
    A = (Q / (1.0 + np.arange(300)) ** 0.1) @ Q.T
    w, V, it = top_eigh(A, 4, "randomized", n_iter=None, tol=1e-11, n_oversamples=0,
                        random_state=0, return_n_iter=True)
    assert it > 20
    _check(A, w, V, 4)


def test_randomized_on_an_operator():
    X = np.random.default_rng(1).normal(size=(400, 3))
    op = KernelOperator(RBF(1.0), X)
    w, V = top_eigh(op, 4, "randomized", n_iter=None, tol=1e-11, random_state=0)
    _check(op.to_dense(), w, V, 4)


def test_randomized_warns_when_not_converged():
    A, _ = _spd()
    with pytest.warns(ConvergenceWarning, match="did not reach"):
        top_eigh(A, 5, "randomized", n_iter=None, tol=1e-15, max_iter=1, n_oversamples=0)


def test_bad_arguments():
    A, _ = _spd(n=10)
    with pytest.raises(ValueError, match="n_components"):
        top_eigh(A, 11)
    with pytest.raises(ValueError, match="eigen_solver"):
        top_eigh(A, 2, "magic")


def test_float32_stays_float32():
    A, _ = _spd(n=50)
    w, V = top_eigh(A.astype(np.float32), 3, "randomized", n_iter=None, tol=1e-5,
                    random_state=0)
    assert V.dtype == np.float32
    np.testing.assert_allclose(w, np.linalg.eigvalsh(A)[::-1][:3], rtol=1e-4)


@pytest.mark.parametrize("k", [5, 400])
def test_dense_overwrite_a_needs_no_copy_of_a_c_ordered_matrix(k):
    # overwrite_a with a C-ordered symmetric A: LAPACK gets A.T (Fortran order, the same
    # matrix) and works in place instead of on a copy
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 400
    A = np.cov(rng.standard_normal((n, n)))
    w_ref = np.linalg.eigvalsh(A)[::-1][:k]
    tracemalloc.start()
    try:
        w, V = top_eigh(A, k, method="dense", overwrite_a=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-12)
    base = n * k * 8 + (2 * n * n * 8 if k == n else 0)  # V (+ syevd's workspace)
    assert peak < base + 0.5 * n * n * 8
