"""The rows factory's contract: ``as_rows`` gives a RowSource for every kind of input.

Each kind (NumPy float64 / float32, CSR, a dask array, a precomputed kernel matrix) must
report its sizes and dtype, give its rows back (``take``, ``row_blocks``), and give the
products of the dense kernel ``K = kernel(X, centers)`` (``kernel_operator``, ``predict``)
and the sums over row blocks (``reduce``). For a precomputed kernel the rows *are* kernel
rows: the centers are training rows named by their indices and ``K`` is ``G[:, index]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit.kernels import RBF, Precomputed
from kernelkit.linalg import (
    ArrayRows,
    DaskRows,
    PrecomputedRows,
    RowSource,
    SparseRows,
    as_rows,
    check_rows,
    is_precomputed,
)

N, D, M = 300, 4, 12
KERNEL = RBF(1.3)


@dataclass
class Case:
    rows: object          # the RowSource under test
    values: np.ndarray    # its rows as a dense float64 array (features or kernel rows)
    kernel: object        # the kernel its operators evaluate
    centers: object       # the centers as the source's operators take them
    index: np.ndarray     # the centers' training rows
    K: np.ndarray         # the dense K(X, centers)
    rtol: float
    lazy: bool = False    # products come back as dask arrays


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    X[rng.random(X.shape) < 0.5] = 0.0  # half zeros: a real CSR
    idx = np.sort(rng.choice(N, size=M, replace=False))
    return X, idx


def _dense(A):
    A = A.compute() if hasattr(A, "compute") else A
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _numpy(dtype):
    X, idx = _data()
    X = X.astype(dtype)
    rows = as_rows(X)
    X64 = X.astype(np.float64)
    return Case(rows, X64, KERNEL, rows.take(idx), idx, KERNEL(X64, X64[idx]),
                1e-10 if dtype == np.float64 else 2e-4)


def _csr():
    X, idx = _data()
    rows = as_rows(sp.csr_matrix(X))
    return Case(rows, X, KERNEL, rows.take(idx), idx, KERNEL(X, X[idx]), 1e-10)


def _precomputed():
    X, idx = _data()
    G = KERNEL(X)  # the training kernel matrix: row i is K(x_i, X)
    rows = as_rows(G, kernel=Precomputed(), fit=True)
    return Case(rows, G, Precomputed(), rows.support_vectors(idx), idx, G[:, idx], 1e-12)


def _dask():
    pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    import dask.array as da

    try:
        distributed.get_client()
    except ValueError:
        pytest.skip("no dask client (the module fixture starts one)")
    X, idx = _data()
    rows = as_rows(da.from_array(X, chunks=(128, D)))
    return Case(rows, X, KERNEL, X[idx], idx, KERNEL(X, X[idx]), 1e-10, lazy=True)


KINDS = {"float64": lambda: _numpy(np.float64), "float32": lambda: _numpy(np.float32),
         "csr": _csr, "dask": _dask, "precomputed": _precomputed}
EXPECTED_TYPE = {"float64": ArrayRows, "float32": ArrayRows, "csr": SparseRows,
                 "dask": DaskRows, "precomputed": PrecomputedRows}


@pytest.fixture(params=sorted(KINDS))
def case(request):
    if request.param == "dask":
        request.getfixturevalue("client")
    return request.param, KINDS[request.param]()


def _row_sums(Xb, Tb):
    """One block's partial sums: (X_b^T T_b, number of rows)."""
    Xb = Xb.toarray() if sp.issparse(Xb) else np.asarray(Xb, dtype=np.float64)
    return Xb.T @ Tb, Xb.shape[0]


def test_sizes_dtype_and_kind(case):
    kind, c = case
    assert type(c.rows) is EXPECTED_TYPE[kind] and isinstance(c.rows, RowSource)
    assert (c.rows.n_rows, c.rows.n_features) == c.values.shape
    assert c.rows.dtype == (np.float32 if kind == "float32" else np.float64)
    assert c.rows.in_memory is (kind != "dask")


def test_take_and_row_blocks_give_the_rows(case):
    _, c = case
    np.testing.assert_allclose(_dense(c.rows.take(c.index)), c.values[c.index], rtol=1e-6)
    blocks = [_dense(b) for b in c.rows.row_blocks(64)]
    assert max(len(b) for b in blocks) <= 64
    np.testing.assert_allclose(np.vstack(blocks), c.values, rtol=1e-6)


@pytest.mark.parametrize("keep", [False, True])
def test_kernel_operator_equals_the_dense_kernel(case, keep):
    _, c = case
    rng = np.random.default_rng(1)
    V, U = rng.normal(size=(M, 3)), rng.normal(size=(N, 2))
    op = c.rows.kernel_operator(c.kernel, c.centers, 64, keep_blocks=keep, index=c.index)
    assert op.shape == (N, M)
    np.testing.assert_allclose(_dense(op @ V), c.K @ V, rtol=c.rtol, atol=c.rtol)
    np.testing.assert_allclose(op.t_matmul(U), c.K.T @ U, rtol=c.rtol, atol=c.rtol)
    np.testing.assert_allclose(op.normal_matmul(V), c.K.T @ (c.K @ V), rtol=c.rtol,
                               atol=c.rtol * N)


def test_predict_equals_the_dense_kernel_times_coef(case):
    _, c = case
    coef = np.random.default_rng(2).normal(size=M)
    f = c.rows.predict(c.kernel, c.centers, coef, index=c.index)
    assert hasattr(f, "compute") is c.lazy
    np.testing.assert_allclose(_dense(f), c.K @ coef, rtol=c.rtol, atol=c.rtol)


def test_reduce_sums_over_row_blocks(case):
    _, c = case
    T = np.random.default_rng(3).normal(size=(N, 2))
    if c.lazy:
        import dask.array as da

        T = da.from_array(T, chunks=(c.rows.X.chunks[0], 2))
    XtT, n_seen = c.rows.reduce(_row_sums, T, 64)
    np.testing.assert_allclose(XtT, c.values.T @ _dense(T), rtol=1e-5, atol=1e-5)
    assert n_seen == N


@pytest.mark.parametrize("kind", ["float64", "csr", "precomputed"])
def test_subset_and_support_vectors(kind):
    c = KINDS[kind]()
    sub = c.rows.subset(c.index)
    if kind == "precomputed":  # the training set shrinks: its rows and its columns
        np.testing.assert_array_equal(sub.X, c.values[np.ix_(c.index, c.index)])
        assert c.rows.support_vectors(c.index).shape == (M, 0)
    else:
        np.testing.assert_array_equal(_dense(sub.X), c.values[c.index])
        np.testing.assert_array_equal(_dense(c.rows.support_vectors(c.index)),
                                      c.values[c.index])
    # the square Gram operator of the subset is the kernel of the kept rows
    G = c.kernel(sub.X) if kind != "precomputed" else sub.X
    np.testing.assert_allclose(sub.gram_operator(c.kernel).to_dense(), G, rtol=1e-12)


def test_precomputed_rows_at_predict_read_the_support_columns():
    X, idx = _data()
    Xt = np.random.default_rng(4).normal(size=(7, D))
    rows = as_rows(KERNEL(Xt, X), kernel="precomputed")  # K(X_test, X_train)
    assert rows.n_features == N
    coef = np.arange(M, dtype=float)
    np.testing.assert_allclose(rows.predict(Precomputed(), rows.support_vectors(idx), coef,
                                            index=idx), KERNEL(Xt, X[idx]) @ coef, rtol=1e-12)
    with pytest.raises(ValueError, match="index"):
        rows.predict(Precomputed(), np.empty((M, 0)), coef)


def test_precomputed_training_rows_must_be_square():
    with pytest.raises(ValueError, match="square kernel matrix"):
        as_rows(np.ones((3, 4)), kernel=Precomputed(), fit=True)
    assert as_rows(np.ones((3, 4)), kernel=Precomputed()).n_features == 4  # at predict


def test_is_precomputed_and_empty_support():
    assert is_precomputed("precomputed") and is_precomputed(Precomputed())
    assert not is_precomputed("rbf") and not is_precomputed(RBF())
    rows = as_rows(np.ones((5, 2), dtype=np.float32))
    f = rows.predict(KERNEL, np.empty((0, 2)), np.empty((0, 3)))
    assert f.shape == (5, 3) and not f.any()


def test_dtype_rule_and_check_rows():
    X = np.arange(12.0).reshape(6, 2)
    rows = as_rows(X, dtype=lambda d: np.dtype(np.float32))
    assert rows.dtype == np.float32

    from sklearn.base import BaseEstimator, RegressorMixin

    class Est(RegressorMixin, BaseEstimator):  # what validate_data reads and sets
        pass

    est = Est()
    rows, y = check_rows(est, X.astype(np.float32), np.arange(6), work_dtype=np.float64,
                         y_numeric=True)
    assert rows.dtype == np.float64 and y.dtype == np.float64 and est.n_features_in_ == 2
    with pytest.raises(ValueError, match="features"):
        check_rows(est, np.ones((2, 3)), reset=False)
    with pytest.raises(ValueError, match="requires y"):  # scikit-learn's check at fit
        check_rows(est, X, None, y_numeric=True)
