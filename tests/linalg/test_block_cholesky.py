"""BlockCholesky: a factor held as block rows equals the dense factor, and appending rows
never copies the blocks it already holds."""

import numpy as np
import pytest
from scipy.linalg import solve_triangular

from kernelkit.exceptions import JitterWarning
from kernelkit.linalg import BlockCholesky


def _spd(n, seed=0):
    B = np.random.default_rng(seed).normal(size=(n, n))
    return B @ B.T + n * np.eye(n)


def _grown(A, cuts):
    F = BlockCholesky(np.linalg.cholesky(A[:cuts[0], :cuts[0]]))
    for a, b in zip(cuts[:-1], cuts[1:]):
        F, jitter = F.append(A[:a, a:b], A[a:b, a:b].copy())
        assert jitter == 0.0
    return F


def test_appended_blocks_are_the_dense_factor_and_solve_like_it():
    A = _spd(40)
    F = _grown(A, [17, 25, 26, 40])
    L = np.linalg.cholesky(A)
    assert F.shape == (40, 40) and len(F.diag_blocks) == 4
    np.testing.assert_allclose(F.dense(), L, atol=1e-12)
    np.testing.assert_allclose(F.diagonal(), np.diagonal(L), rtol=1e-13)
    B = np.random.default_rng(1).normal(size=(40, 3))
    np.testing.assert_allclose(F.solve(B), solve_triangular(L, B, lower=True), rtol=1e-10)
    np.testing.assert_allclose(F.solve(B[:, 0], trans=True),
                               solve_triangular(L, B[:, 0], lower=True, trans="T"),
                               rtol=1e-10)
    np.testing.assert_allclose(F.cho_solve(B), np.linalg.solve(A, B), rtol=1e-10)


def test_append_shares_the_old_blocks_and_leaves_the_factor_unchanged():
    A = _spd(30)
    L0 = np.linalg.cholesky(A[:20, :20])
    F = BlockCholesky(L0)
    G, _ = F.append(A[:20, 20:], A[20:, 20:].copy())
    assert G.diag_blocks[0] is L0  # not copied
    assert F.shape == (20, 20) and len(F.diag_blocks) == 1
    assert F.dense() is L0  # one block: the array itself
    B = np.ones(30)
    before = B.copy()
    G.solve(B)
    np.testing.assert_array_equal(B, before)  # overwrite_b=False leaves B alone


def test_append_jitters_a_singular_schur_complement_with_a_warning():
    X = np.random.default_rng(0).normal(size=(6, 2))
    A = X @ X.T + 1e-3 * np.eye(6)
    F = BlockCholesky(np.linalg.cholesky(A[:4, :4]))
    A12 = A[:4, 4:].copy()
    A22 = A[4:, 4:] - 1e-3 * np.eye(2)  # duplicated-point-like: S nearly 0
    A22[1, :] = A22[0, :]
    A22[:, 1] = A22[:, 0]
    A12[:, 1] = A12[:, 0]
    with pytest.warns(JitterWarning, match="block of the new points"):
        G, jitter = F.append(A12, A22)
    assert jitter > 0 and np.all(np.isfinite(G.dense()))


def test_bad_shapes_are_named():
    F = BlockCholesky(np.eye(3))
    with pytest.raises(ValueError, match="Shapes do not fit"):
        F.append(np.ones((2, 1)), np.ones((1, 1)))
    with pytest.raises(ValueError, match="square"):
        BlockCholesky(np.ones((2, 3)))


def test_jitter_of_an_appended_block_is_relative_to_its_kernel_diagonal():
    """New points duplicating an old one, no noise: the Schur complement is rounding error,
    here slightly indefinite. Jitter relative to its own mean diagonal (1e-15) could not
    reach it (a CI run raised NumericalError with 'jitter 1.67e-20'); relative to the new
    block's kernel diagonal (1.0), as in a fit on all the points, it does."""
    d = 1e-15
    L = np.ones((1, 1))
    A12 = np.ones((1, 2))
    A22 = np.array([[1 + d, 1 + 2 * d], [1 + 2 * d, 1 + d]])  # S = [[d, 2d], [2d, d]]
    with pytest.warns(JitterWarning, match=r"added jitter 1e-10 \(1e-10 x mean diagonal\)"):
        G, jitter = BlockCholesky(L).append(A12, A22)
        dense = G.dense()
    assert jitter == pytest.approx(1e-10, rel=1e-6)
    expected = np.block([[np.ones((1, 1)), A12], [A12.T, A22]]) + np.diag([0, jitter, jitter])
    expected[1:, 1:] = [[1 + d + jitter, 1 + 2 * d], [1 + 2 * d, 1 + d + jitter]]
    np.testing.assert_allclose(dense @ dense.T, expected, atol=1e-14)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("orders", ["CC", "CF", "FC", "FF"])
def test_matmul_through_scipy_blas_equals_numpy(dtype, orders):
    """kernelkit._core.blas.matmul (the product the block factor uses after its triangular solves,
    in SciPy's BLAS) equals NumPy's product for either memory order; vectors go to GEMV and
    non-BLAS inputs (int, strided) to NumPy."""
    from kernelkit._core.blas import matmul

    rng = np.random.default_rng(1)
    A = np.asarray(rng.normal(size=(7, 5)), dtype=dtype, order=orders[0])
    B = np.asarray(rng.normal(size=(5, 3)), dtype=dtype, order=orders[1])
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    out = matmul(A, B)
    assert out.dtype == dtype and out.shape == (7, 3)
    np.testing.assert_allclose(out, A @ B, rtol=rtol)
    np.testing.assert_allclose(matmul(A, B[:, 0].copy()), A @ B[:, 0], rtol=rtol)
    np.testing.assert_array_equal(matmul(np.ones((2, 2), int), np.ones((2, 2), int)), 2)
    C = np.asarray(rng.normal(size=(5, 6)), dtype=dtype)[:, ::2]  # strided: NumPy's product
    np.testing.assert_allclose(matmul(A, C), A @ C, rtol=rtol)
