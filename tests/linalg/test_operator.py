"""KernelOperator: blockwise products equal dense ones and blocks respect working memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import sklearn

from kernelkit.kernels import RBF, Laplacian, Polynomial, White
from kernelkit.linalg import KernelOperator, block_rows


@pytest.mark.parametrize("kernel", [RBF(0.7), Laplacian(1.5), Polynomial(2, 0.3, 1.0),
                                    RBF(1.0) + White(0.5)])
@pytest.mark.parametrize("wm", [0.01, 0.5, 100])
def test_blockwise_products_equal_dense(kernel, wm):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(300, 4)), rng.normal(size=(120, 4))
    V, U = rng.normal(size=(300, 3)), rng.normal(size=(300, 2))
    op = KernelOperator(kernel, X, working_memory=wm)
    K = kernel(X)
    np.testing.assert_allclose(op @ V, K @ V, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(op @ V[:, 0], K @ V[:, 0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(op.diag(), np.diagonal(K), rtol=1e-12)
    np.testing.assert_allclose(op.to_dense(), K, rtol=1e-12)
    rect = KernelOperator(kernel, X, Y, working_memory=wm)
    KXY = kernel(X, Y)
    W = rng.normal(size=(120, 2))
    np.testing.assert_allclose(rect @ W, KXY @ W, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rect.t_matmul(U), KXY.T @ U, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rect.normal_matmul(W), KXY.T @ (KXY @ W), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rect.T @ U, KXY.T @ U, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rect.as_linear_operator() @ W, KXY @ W, rtol=1e-10, atol=1e-10)


def test_blocks_fit_in_working_memory():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 3))
    wm = 1.0  # MiB -> 65 rows of 2000 float64
    rows = block_rows(2000, 8, wm)
    assert rows * 2000 * 8 <= wm * 2**20
    op = KernelOperator(RBF(), X, working_memory=wm)
    assert all(Kb.nbytes <= wm * 2**20 for _, Kb in op.blocks())
    v = rng.normal(size=2000)
    tracemalloc.start()
    op @ v
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * wm * 2**20  # a few blocks at most, never the 32 MB matrix
    assert peak < 2000 * 2000 * 8 / 4


def test_default_working_memory_from_sklearn_config():
    X = np.zeros((10, 2))
    with sklearn.config_context(working_memory=1):
        op = KernelOperator(RBF(), X)
        assert op._rows() == block_rows(10, 8, 1)


def test_string_kernel_and_shape_errors():
    X = np.random.default_rng(2).normal(size=(20, 2))
    op = KernelOperator("rbf", X)
    assert op.shape == (20, 20)
    with pytest.raises(ValueError, match="columns"):
        op @ np.ones(5)
    with pytest.raises(ValueError, match="rows"):
        op.t_matmul(np.ones(5))


def test_float32_operator():
    X = np.random.default_rng(3).normal(size=(50, 3)).astype(np.float32)
    op = KernelOperator(RBF(), X)
    out = op @ np.ones(50, dtype=np.float32)
    assert out.dtype == np.float32


def test_left_products_and_feature_mismatch():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(60, 3)), rng.normal(size=(25, 3))
    op = KernelOperator(RBF(0.9), X, Y, working_memory=0.005)
    K = RBF(0.9)(X, Y)
    U = rng.normal(size=(2, 60))
    np.testing.assert_allclose(U @ op, U @ K, rtol=1e-10, atol=1e-12)  # (K^T U^T)^T
    np.testing.assert_allclose(U[0] @ op, U[0] @ K, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="3 features but Y has 2"):
        KernelOperator(RBF(), X, Y[:, :2])


def test_top_eigh_dense_accepts_a_kernel_operator():
    from kernelkit.linalg import top_eigh

    X = np.random.default_rng(5).normal(size=(80, 2))
    w, _ = top_eigh(KernelOperator(RBF(), X), 3, "dense")
    np.testing.assert_allclose(w, np.linalg.eigvalsh(RBF()(X))[::-1][:3], rtol=1e-10)


def test_scipy_iterative_solvers_take_the_operator_directly():
    from scipy.sparse.linalg import aslinearoperator, cg

    X = np.random.default_rng(6).normal(size=(90, 2))
    k = RBF(0.8) + White(0.5)
    b = np.ones(90)
    op = KernelOperator(k, X, working_memory=0.005)
    x, info = cg(op, b, rtol=1e-12)
    assert info == 0
    np.testing.assert_allclose(k(X) @ x, b, atol=1e-9)
    np.testing.assert_allclose(aslinearoperator(op).rmatvec(b), k(X).T @ b, rtol=1e-10)


def test_diag_of_a_square_cross_operator():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, 3))
    Y = X + 0.1 * rng.normal(size=(600, 3))
    for k in (RBF(0.9), Laplacian(1.2), RBF(1.0) + White(0.5)):
        np.testing.assert_allclose(KernelOperator(k, X, Y).diag(), np.diagonal(k(X, Y)),
                                   rtol=1e-12)
    with pytest.raises(ValueError, match="square"):
        KernelOperator(RBF(), X, Y[:5]).diag()
