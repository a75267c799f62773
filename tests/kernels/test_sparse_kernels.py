"""Kernels on scipy.sparse rows: equal to their dense twins, never densified."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.gaussian_process import kernels as skk
from sklearn.metrics.pairwise import manhattan_distances

from kernelkit.kernels import (
    RBF,
    DotProduct,
    Exponentiation,
    ExpSineSquared,
    FeatureMap,
    JointKernel,
    Laplacian,
    Linear,
    Matern,
    Polynomial,
    RationalQuadratic,
    White,
    resolve_kernel,
)
from kernelkit.kernels._sparse import sparse_gram, sparse_manhattan, sparse_row_norms_sq
from kernelkit.linalg import KernelOperator

D = 15
ARD = np.linspace(0.5, 2.0, D)

KERNELS = [
    Linear(),
    Polynomial(degree=3, gamma=0.5, coef0=1.0),
    DotProduct(sigma_0=0.7),
    RBF(1.3),
    RBF(ARD),
    Laplacian(2.0),
    Laplacian(ARD),
    Matern(1.5, nu=0.5),
    Matern(1.5, nu=1.5),
    Matern(ARD, nu=2.5),
    RationalQuadratic(1.2, alpha=0.7),
    2.0 * RBF(1.0) + White(0.1),
    RBF(2.0) * Polynomial(degree=2, gamma=1.0, coef0=0.5),
    Exponentiation(Laplacian(1.0), 2),
    resolve_kernel("sigmoid", gamma=0.1, coef0=0.2),
    resolve_kernel("cosine"),
    resolve_kernel(skk.ConstantKernel(2.0) * skk.RBF(1.5)),  # a translated sklearn kernel
]
FORMATS = ["csr", "csc", "coo", "lil", "dok"]


def _pair(fmt, dtype, seed=0):
    X = sp.random(25, D, density=0.3, format=fmt, dtype=dtype, random_state=seed)
    Y = sp.random(9, D, density=0.3, format=fmt, dtype=dtype, random_state=seed + 1)
    X = X.tolil()
    X[3, :] = 0.0  # an empty row
    return X.asformat(fmt), Y


def _close(a, b, dtype):
    rtol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kernel", KERNELS, ids=[repr(k)[:40] for k in KERNELS])
def test_sparse_rows_equal_the_dense_twin(kernel, fmt, dtype):
    X, Y = _pair(fmt, dtype)
    Xd, Yd = X.toarray(), Y.toarray()
    _close(kernel(X, Y), kernel(Xd, Yd), dtype)
    _close(kernel(X), kernel(Xd), dtype)
    _close(kernel.diag(X), kernel.diag(Xd), dtype)
    _close(kernel(X, Yd), kernel(Xd, Yd), dtype)  # one sparse and one dense set
    _close(kernel(Xd, Y), kernel(Xd, Yd), dtype)
    assert kernel(X, Y).dtype == kernel(Xd, Yd).dtype


def test_joint_kernel_input_part_on_sparse_rows():
    X, _ = _pair("csr", np.float64)
    y = np.arange(25) % 3
    k = JointKernel(RBF(1.0))
    np.testing.assert_allclose(k((X, y)), k((X.toarray(), y)), rtol=1e-12)
    np.testing.assert_allclose(k.diag((X, y)), k.diag((X.toarray(), y)))


def test_primitives_against_scipy_and_sklearn():
    X, Y = _pair("csr", np.float64)
    # X Y^T (Gustavson into a dense block) = scipy's sparse product
    np.testing.assert_allclose(sparse_gram(X, Y), (X @ Y.T).toarray(), rtol=1e-14)
    # a few rows (the dual solvers' kernel rows): scattered rows gathered by every y
    np.testing.assert_allclose(sparse_gram(X[:3], X), (X[:3] @ X.T).toarray(), rtol=1e-14)
    # ||x||^2 from the stored values, empty row included
    np.testing.assert_allclose(sparse_row_norms_sq(X), (X.toarray() ** 2).sum(axis=1))
    # L1 distances by the merge of sorted indices = scikit-learn's sparse manhattan
    np.testing.assert_allclose(sparse_manhattan(X, Y), manhattan_distances(X, Y), rtol=1e-14)


def _messy_csr():
    """A CSR matrix with unsorted indices, duplicate entries, an explicit zero, int64
    indices: scipy's meaning is the sum of the duplicates."""
    data = np.array([1.0, 2.0, 0.0, 3.0, -1.0, 4.0, 0.5])
    indices = np.array([4, 1, 2, 1, 0, 3, 3], dtype=np.int64)  # row 0: 4, 1, 2, 1 (dup)
    indptr = np.array([0, 4, 4, 7], dtype=np.int64)  # row 1 empty
    X = sp.csr_matrix((data, indices, indptr), shape=(3, 5))
    assert not X.has_canonical_format
    return X


@pytest.mark.parametrize("kernel", [Linear(), RBF(1.0), Laplacian(1.0), Matern(1.0, nu=0.5)],
                         ids=repr)
def test_unsorted_duplicate_int64_indices_are_summed_as_scipy(kernel):
    X = _messy_csr()
    dense = X.toarray()  # scipy's reading: duplicates summed
    assert dense[0, 1] == 5.0
    np.testing.assert_allclose(kernel(X), kernel(dense), rtol=1e-14)
    assert not X.has_canonical_format  # the caller's matrix is left as it was


@pytest.mark.parametrize(("make", "name"), [
    (lambda: ExpSineSquared(1.0, 2.0), "ExpSineSquared"),
    (lambda: RBF(1.0) + ExpSineSquared(1.0, 2.0), "ExpSineSquared"),
    (lambda: 2.0 * ExpSineSquared(1.0, 2.0), "ExpSineSquared"),
    (lambda: resolve_kernel(skk.ExpSineSquared()), "ExpSineSquared"),
    (lambda: JointKernel(ExpSineSquared()), "ExpSineSquared"),
    (lambda: resolve_kernel("chi2", gamma=1.0), "chi2"),
    (lambda: FeatureMap(lambda Z: np.hstack([Z, Z ** 2])), "FeatureMap"),
], ids=["periodic", "sum", "scaled", "sklearn", "joint", "chi2", "featuremap"])
def test_kernels_that_need_dense_rows_say_so(make, name):
    kernel = make()
    X, _ = _pair("csr", np.float64)
    arg = (X, np.zeros(25, dtype=int)) if isinstance(kernel, JointKernel) else X
    with pytest.raises(TypeError, match="sparse") as info:
        kernel(arg)
    assert name in str(info.value) and "dense X" in str(info.value)


def test_feature_map_with_sparse_features():
    X, Y = _pair("csr", np.float64)
    k = FeatureMap(lambda Z: Z[:, :5])  # slicing keeps the rows sparse
    np.testing.assert_allclose(k(X, Y), X.toarray()[:, :5] @ Y.toarray()[:, :5].T)


@pytest.fixture
def no_densify(monkeypatch):
    """Any toarray/todense/A of a scipy sparse input fails the test."""
    def forbid(self, *args, **kwargs):
        raise AssertionError("a sparse input was densified")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array):
        monkeypatch.setattr(cls, "toarray", forbid)
        monkeypatch.setattr(cls, "todense", forbid)


@pytest.mark.parametrize("kernel", KERNELS[:12], ids=[repr(k)[:40] for k in KERNELS[:12]])
def test_kernels_never_densify(kernel, no_densify):
    X = sp.random(30, D, density=0.3, format="csr", random_state=0)
    K = kernel(X, X[:7])
    assert K.shape == (30, 7) and np.all(np.isfinite(K))
    op = KernelOperator(kernel, X, working_memory=0.001)  # many row blocks, each CSR
    assert np.all(np.isfinite(op @ np.ones(30)))


def _wide_csr(n, d, density, seed=0):
    """A random CSR matrix built from its arrays (no dense intermediate, no COO)."""
    rng = np.random.default_rng(seed)
    per_row = max(1, int(d * density))
    indices = np.sort(rng.choice(d, size=(n, per_row), replace=True), axis=1)
    X = sp.csr_matrix((rng.random(n * per_row), indices.ravel(),
                       np.arange(0, n * per_row + 1, per_row)), shape=(n, d))
    X.sum_duplicates()
    return X


def test_wide_sparse_kernel_memory_stays_near_the_output():
    # 2,000 x 200,000 at 0.1% density: the dense twin would be 3.2 GB, the CSR ~5 MB
    X = _wide_csr(2000, 200_000, 0.001)
    tracemalloc.start()
    K = RBF(1.0)(X[:200], X)
    f = KernelOperator(Laplacian(5.0), X, working_memory=4) @ np.ones(2000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert K.shape == (200, 2000) and f.shape == (2000,)
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    # the same values as the dense twin on a narrow slice of the columns
    Xs = X[:50, :2000]
    np.testing.assert_allclose(RBF(1.0)(Xs), RBF(1.0)(Xs.toarray()), rtol=1e-12)
