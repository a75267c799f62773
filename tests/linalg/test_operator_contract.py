"""Every home of the rows of X gives the products of the dense matrix.

The row sources are discovered from the data seam: ``ArrayRows`` (in memory) and every
row home of :mod:`kernelkit.linalg.homes` (dask chunks), whose operator class
``KernelOperator`` picks for the rows it holds. Each
operator (adaptive blocks, fixed blocks, kept fixed blocks, the same on a cluster) must
equal ``K = kernel(X, C)`` for ``@``, ``t_matmul`` and ``normal_matmul``, and a RowSource's
``predict`` must equal ``K @ coef``.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF, Matern
from kernelkit.linalg import ArrayRows, DaskRows, KernelOperator, RowSource
from kernelkit.linalg.homes import _HOMES, home_of


def _problem(n=700, m=30, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X, C = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    V, U = rng.normal(size=(m, 2)), rng.normal(size=(n, 2))
    return X, C, V, U


def _check(op, K, V, U, rtol=1e-10):
    dense = lambda A: np.asarray(A.compute() if hasattr(A, "compute") else A)  # noqa: E731
    np.testing.assert_allclose(dense(op @ V), K @ V, rtol=rtol, atol=1e-10)
    np.testing.assert_allclose(op.t_matmul(U), K.T @ U, rtol=rtol, atol=1e-10)
    np.testing.assert_allclose(op.normal_matmul(V, U), K.T @ (K @ V + U), rtol=rtol,
                               atol=1e-9)
    np.testing.assert_allclose(op.normal_matmul(V[:, 0]), K.T @ (K @ V[:, 0]), rtol=rtol,
                               atol=1e-9)


IN_MEMORY = {
    "adaptive": dict(working_memory=0.02),
    "fixed": dict(block_rows=64),
    "fixed_kept": dict(block_rows=64, keep_blocks=True),
    "one_block": dict(),
}


@pytest.mark.parametrize("kernel", [RBF(0.8), Matern(1.2, nu=1.5)], ids=["rbf", "matern"])
@pytest.mark.parametrize("mode", sorted(IN_MEMORY))
def test_in_memory_operators_equal_dense(kernel, mode):
    X, C, V, U = _problem()
    K = kernel(X, C)
    op = KernelOperator(kernel, X, C, **IN_MEMORY[mode])
    _check(op, K, V, U)
    for _ in range(2):  # a second pass (kept blocks are reused)
        np.testing.assert_allclose(op.t_matmul(U), K.T @ U, rtol=1e-10, atol=1e-10)


def test_symmetric_operator_equals_dense_with_its_diagonal():
    X, _, _, U = _problem(n=300)
    k = RBF(0.8) + Matern(1.0)  # no white noise: K(X, X) blocks agree with the whole
    op = KernelOperator(k, X, working_memory=0.05)
    K = k(X)
    np.testing.assert_allclose(op @ U, K @ U, rtol=1e-10)
    np.testing.assert_allclose(op.diag(), np.diagonal(K))
    np.testing.assert_allclose(op.to_dense(), K)


def test_every_row_home_is_a_row_source_with_an_operator_subclass():
    homes = list(_HOMES)
    assert DaskRows in homes
    for home in homes:
        assert issubclass(home.operator_class, KernelOperator)
        assert home.operator_class is not KernelOperator and not home.in_memory
        assert not home.holds(np.zeros((3, 2)))  # arrays stay in memory
    assert home_of(np.zeros((3, 2)), None) is None
    assert isinstance(ArrayRows(np.zeros((3, 2))), RowSource)


@pytest.mark.parametrize("block_rows", [64, 700])
def test_array_rows_source(block_rows):
    X, C, V, U = _problem()
    rows = ArrayRows(X)
    K = RBF()(X, C)
    assert (rows.n_rows, rows.n_features) == X.shape
    np.testing.assert_array_equal(np.vstack(list(rows.row_blocks(block_rows))), X)
    _check(rows.kernel_operator(RBF(), C, block_rows), K, V, U)
    np.testing.assert_allclose(rows.predict(RBF(), C, V), K @ V, rtol=1e-12)
    # reduce: sum_b fn(X_b, T_b) with the aligned rows of the targets, in block order
    KtU, n_seen = rows.reduce(_kernel_t_targets, U, block_rows, C)
    np.testing.assert_allclose(KtU, K.T @ U, rtol=1e-12)
    assert n_seen == X.shape[0]


def _kernel_t_targets(Xb, Tb, C):
    """One block's partial sums (K_b^T T_b, number of rows)."""
    return RBF()(Xb, C).T @ Tb, Xb.shape[0]


def _times_weights(Xb, Tb, W):
    """One block's partial sum X_b^T T_b W[0, 0]."""
    return (Xb.T @ Tb * W[0, 0],)


def test_dask_reduce_sends_each_large_argument_anew(client):
    """Two reductions in a row whose argument exceeds 100 kB (client.map keys such an
    argument by its name: the second reduction once met the first one's task)."""
    da = pytest.importorskip("dask.array")
    X, _, _, U = _problem()
    rows, _ = DaskRows.for_fit(da.from_array(X, chunks=(150, 3)), U[:, 0],
                               lambda dt: np.dtype(np.float64))
    T = da.from_array(U, chunks=(150, U.shape[1]))
    for w in (2.0, 3.0):
        W = np.full((120, 120), w)  # 115 kB
        (got,) = rows.reduce(_times_weights, T, 64, W)
        np.testing.assert_allclose(got, X.T @ U * w, rtol=1e-12)


@pytest.mark.parametrize("block_rows", [None, 64])
def test_dask_operators_equal_dense(client, block_rows):
    da = pytest.importorskip("dask.array")
    X, C, V, U = _problem()
    K = RBF()(X, C)
    op = KernelOperator(RBF(), da.from_array(X, chunks=(192, 3)), C, block_rows=block_rows)
    assert type(op) is home_of(da.from_array(X)).operator_class is not KernelOperator
    _check(op, K, V, U)


def test_dask_rows_source_equals_array_rows(client):
    da = pytest.importorskip("dask.array")
    X, C, V, U = _problem()
    rows, y = DaskRows.for_fit(da.from_array(X, chunks=(150, 3)), U[:, 0],
                               lambda dt: np.dtype(np.float64))
    assert isinstance(rows, RowSource) and (rows.n_rows, rows.n_features) == X.shape
    np.testing.assert_array_equal(rows.take(np.arange(5)), X[:5])
    np.testing.assert_array_equal(np.vstack(list(rows.row_blocks(64))), X)
    ref = ArrayRows(X).kernel_operator(RBF(), C, 64)
    op = rows.kernel_operator(RBF(), C, 64)  # chunks realigned to whole blocks
    np.testing.assert_array_equal(op.t_matmul(U), ref.t_matmul(U))
    np.testing.assert_array_equal(op.normal_matmul(V), ref.normal_matmul(V))
    np.testing.assert_allclose(np.asarray(rows.predict(RBF(), C, V).compute()),
                               RBF()(X, C) @ V, rtol=1e-12)
    # reduce on the workers (chunks of X and of the targets), partials added in chunk order
    T = da.from_array(U, chunks=(150, U.shape[1]))
    KtU, n_seen = rows.reduce(_kernel_t_targets, T, 64, C)
    np.testing.assert_allclose(KtU, RBF()(X, C).T @ U, rtol=1e-12)
    assert n_seen == X.shape[0]
