"""Sparse rows in the data seam: SparseRows, KernelOperator and KernelRows on CSR rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit.kernels import RBF, Laplacian, Linear
from kernelkit.linalg import (
    ArrayRows,
    KernelOperator,
    KernelRows,
    SparseRows,
    in_memory_rows,
)


def _X(fmt="coo", n=200, d=40, seed=0):
    return sp.random(n, d, density=0.1, format=fmt, random_state=seed)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil"])
def test_sparse_rows_stay_csr_and_match_array_rows(fmt):
    X = _X(fmt)
    rows, dense = in_memory_rows(X), in_memory_rows(X.toarray())
    assert isinstance(rows, SparseRows) and type(dense) is ArrayRows
    assert (rows.n_rows, rows.n_features, rows.dtype) == (200, 40, np.float64)
    idx = np.array([5, 17, 3])
    centers = rows.take(idx)
    assert centers.format == "csr"  # sparse centers
    np.testing.assert_array_equal(centers.toarray(), X.toarray()[idx])
    blocks = list(rows.row_blocks(64))
    assert [b.shape[0] for b in blocks] == [64, 64, 64, 8]
    assert all(b.format == "csr" for b in blocks)
    k = RBF(1.5)
    op = rows.kernel_operator(k, centers, block_rows=64)
    ref = dense.kernel_operator(k, X.toarray()[idx], block_rows=64)
    u = np.random.default_rng(0).normal(size=200)
    np.testing.assert_allclose(op.t_matmul(u), ref.t_matmul(u), rtol=1e-12)
    np.testing.assert_allclose(op @ np.ones(3), ref @ np.ones(3), rtol=1e-12)
    np.testing.assert_allclose(rows.predict(k, centers, np.ones(3)),
                               dense.predict(k, X.toarray()[idx], np.ones(3)), rtol=1e-12)
    # reduce over CSR row blocks with aligned targets equals the dense source's
    T = np.arange(400.0).reshape(200, 2)

    def part(Xb, Tb):
        assert Xb.format == "csr"
        return (Xb.T @ Tb, Xb.shape[0])

    got, want = rows.reduce(part, T, 64), dense.reduce(lambda Xb, Tb: (Xb.T @ Tb, 0), T, 64)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == 200


@pytest.mark.parametrize("kernel", [RBF(2.0), Laplacian(3.0), Linear()], ids=repr)
def test_kernel_operator_blocks_of_sparse_rows(kernel):
    X = _X("csr")
    op = KernelOperator(kernel, X, working_memory=0.01)  # blocks of a few rows
    assert len(op._slices()) > 4
    ref = kernel(X.toarray())
    V = np.random.default_rng(1).normal(size=(200, 2))
    np.testing.assert_allclose(op @ V, ref @ V, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(op.t_matmul(V), ref.T @ V, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(op.diag(), np.diag(ref), rtol=1e-12)
    rect = KernelOperator(kernel, X, X[:30])
    np.testing.assert_allclose(rect.to_dense(), ref[:, :30], rtol=1e-12, atol=1e-14)


def test_kernel_rows_lru_on_sparse_rows():
    X = _X("csr", n=60)
    rows = KernelRows(RBF(), X, dense=False, working_memory=0.004, dtype=np.float64)
    ref = RBF()(X.toarray())
    assert rows.mode == "lru"
    for r in (3, 40, 3, 59):
        np.testing.assert_allclose(rows.row(r), ref[r], rtol=1e-12)
    cols = np.array([1, 7, 9])
    np.testing.assert_allclose(rows.rows_dot(np.arange(60), cols, np.ones(3)),
                               ref[:, cols].sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel", [Linear(), RBF(0.8), RBF(np.linspace(0.5, 2.0, 40))],
                         ids=["linear", "rbf", "rbf-ard"])
def test_kernel_rows_of_sparse_rows_from_the_column_scatter(kernel, dtype, monkeypatch):
    # rows of Linear/RBF on CSR come from the CSC scatter, never from kernel.block, and
    # equal the dense kernel matrix (one row at a time on one thread, blocks in parallel)
    X = _X("lil", n=90)
    X[7] = 0.0  # an empty row
    X = X.tocsr()
    ref = kernel(X.toarray())
    monkeypatch.setattr(type(kernel), "block", lambda *a, **k: pytest.fail("block used"))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == np.float64 else dict(rtol=0, atol=1e-6)
    for dense in (True, False):
        rows = KernelRows(kernel, X, dense=dense, working_memory=0.02, dtype=dtype)
        assert rows._sparse is not None and rows.dtype == dtype
        for r in (3, 7, 89, 3, 50):
            np.testing.assert_allclose(rows.row(r), ref[r], **tol)
        rows.fetch_many(np.arange(20, 40))  # more rows than _SERIAL_ROWS: parallel path
        for r in range(20, 40):
            np.testing.assert_allclose(rows.row(r), ref[r], **tol)
    assert rows.mode == "lru" and rows.n_slots < 90


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("n_cols", [10, 70])
def test_rows_dot_beyond_the_cache_by_bounded_blocks(fmt, n_cols, monkeypatch):
    # more columns than half the cache: kernel blocks of at most 1/8 of the budget, against
    # every row with the values scattered (sparse rows, or most of X) or against X[cols]
    from kernelkit.linalg import rows as rows_module

    X = _X("csr", n=90)
    X = X.toarray() if fmt == "dense" else X
    ref = RBF(0.8)(X.toarray() if fmt == "csr" else X)
    rows = KernelRows(RBF(0.8), X, dense=False, working_memory=0.008, dtype=np.float64)
    assert rows.n_slots // 2 < 10 and rows._block_mib == 0.25
    monkeypatch.setattr(rows_module, "block_rows", lambda n_cols, itemsize, mib: 16)
    rng = np.random.default_rng(2)
    cols = rng.choice(90, size=n_cols, replace=False)
    vals = rng.normal(size=n_cols)
    which = np.arange(3, 90, 2)
    np.testing.assert_allclose(rows.rows_dot(which, cols, vals), ref[which][:, cols] @ vals,
                               rtol=1e-12, atol=1e-12)


def test_kernel_rows_of_other_kernels_on_sparse_rows_use_their_blocks():
    X = _X("csr", n=50)
    rows = KernelRows(Laplacian(3.0), X)
    assert rows._sparse is None
    np.testing.assert_allclose(rows.fetch_all(), Laplacian(3.0)(X.toarray()), rtol=1e-12)


def test_sparse_row_products_refuse_a_mismatched_output():
    from kernelkit.kernels._sparse import SparseRowProducts

    prod = SparseRowProducts(_X("coo", n=20))
    assert prod.X.format == "csr" and prod.nbytes > 0
    with pytest.raises(ValueError, match="20 columns of dtype float64"):
        prod.into(np.zeros((2, 20), dtype=np.float32), np.array([0]), np.array([0]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_dot_on_held_rows_whole_and_gathered(dtype):
    # held rows: summed whole then read at many rows, or gathered at a few
    X = np.random.default_rng(3).normal(size=(80, 3))
    ref = RBF(0.9)(X)
    rows = KernelRows(RBF(0.9), X, dense=True, dtype=dtype)
    cols = np.array([2, 5, 11, 40, 79])
    vals = np.random.default_rng(4).normal(size=5)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=0, atol=1e-5)
    for which in (np.arange(0, 80, 2), np.array([1, 17, 60])):  # 40 of 80 rows; 3
        np.testing.assert_allclose(rows.rows_dot(which, cols, vals),
                                   ref[which][:, cols] @ vals, **tol)
