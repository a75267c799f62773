"""Fused tile products (kernelkit.linalg.fused) against the dense kernel matrix."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit._core.threads import limit_blas
from kernelkit.kernels import RBF, Constant, Laplacian, Matern, Polynomial, RationalQuadratic
from kernelkit.linalg import KernelOperator, fused
from kernelkit.linalg.fused import (
    cache_bytes,
    fused_matmul,
    fused_normal_matmul,
    tile_plan,
    tile_shape,
)

KERNELS = {
    "rbf": RBF(1.3),
    "rbf_ard": RBF(np.array([0.5, 1.0, 2.0, 1.5])),
    "matern12": Matern(1.1, nu=0.5),
    "matern32": Matern(0.9, nu=1.5),
    "matern52_ard": Matern(np.array([1.0, 2.0, 0.7, 1.2]), nu=2.5),
    "laplacian": Laplacian(2.0),
    "laplacian_ard": Laplacian(np.array([1.0, 2.0, 3.0, 4.0])),
    "poly3": Polynomial(3, 0.2, 1.5),
    "c_times_rbf": Constant(2.0) * RBF(0.7),
    "rbf_times_c": RBF(0.7) * 3.0,
}


def _data(n=700, m=900, d=4, k=3, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, d)), rng.normal(size=(m, d)), rng.normal(size=(m, k)),
            rng.normal(size=(n, k)))


@pytest.fixture
def small_tiles(monkeypatch):
    """A 64 KiB 'L2 cache': many tiles and strips even on small problems."""
    monkeypatch.setattr(fused, "cache_bytes", lambda level=2: 64 << 10)


@pytest.mark.parametrize("l2", [64 << 10, 4 << 20], ids=["two_passes", "strips"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_fused_products_equal_dense(name, dtype, l2, monkeypatch):
    """With a 64 KiB cache K^T (K V + U) takes two passes; with 4 MiB, strips of rows."""
    monkeypatch.setattr(fused, "cache_bytes", lambda level=2: l2)
    k = KERNELS[name]
    X, Y, V, U = _data()
    K, Ks = k(X, Y), k(X)
    Xd, Yd = X.astype(dtype), Y.astype(dtype)
    rtol = 1e-12 if dtype == np.float64 else 2e-5
    plan = tile_plan(k, Xd, Yd)
    assert bool(fused.normal_strip_rows(plan)) == (l2 > 64 << 10)
    scale = lambda A: rtol * np.abs(A).max()  # noqa: E731
    ref = K @ V
    np.testing.assert_allclose(fused_matmul(plan, V), ref, atol=scale(ref))
    ref = K.T @ U
    np.testing.assert_allclose(fused_matmul(plan.transpose(), U), ref, atol=scale(ref))
    ref = K.T @ (K @ V + U)
    np.testing.assert_allclose(fused_normal_matmul(plan, V, U), ref, atol=scale(ref))
    ref = K.T @ U
    np.testing.assert_allclose(fused_normal_matmul(plan, None, U), ref, atol=scale(ref))
    sym = tile_plan(k, Xd)
    ref = Ks @ U
    np.testing.assert_allclose(fused_matmul(sym, U[:, 0]), ref[:, 0], atol=scale(ref))
    assert fused_matmul(sym, U[:, 0]).shape == (700,)


def test_symmetric_tiles_take_the_kernel_diagonal():
    X = np.random.default_rng(1).normal(size=(50, 3)) * 1e3  # far from the origin
    plan = tile_plan(RBF(1e3), X)
    T = plan.tile(slice(0, 50), slice(0, 50), np.empty((50, 50)))
    np.testing.assert_array_equal(np.diagonal(T), 1.0)


def test_kernels_without_tiles_and_sparse_rows_have_no_plan():
    import scipy.sparse as sp

    X = np.random.default_rng(0).normal(size=(20, 3))
    assert tile_plan(RationalQuadratic(), X) is None
    assert tile_plan(RBF() + RBF(2.0), X) is None
    assert tile_plan(RBF(), sp.csr_matrix(X)) is None
    assert tile_plan(RBF(), X, X.astype(np.float32)) is None


def test_products_do_not_depend_on_the_threads(small_tiles):
    X, Y, V, U = _data(n=1500, m=1200)
    plan = tile_plan(RBF(1.0), X, Y)
    with limit_blas(1):
        one = fused_matmul(plan, V), fused_normal_matmul(plan, V, U)
    with limit_blas(2):
        two = fused_matmul(plan, V), fused_normal_matmul(plan, V, U)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_float32_tiles_accumulate_in_float64_on_request(small_tiles):
    X, Y, V, _ = _data(n=300, m=5000, d=3, k=1)
    plan = tile_plan(RBF(3.0), X.astype(np.float32), Y.astype(np.float32))
    V32 = V[:, 0].astype(np.float32)
    out = fused_matmul(plan, V32, acc_dtype=np.float64)
    assert out.dtype == np.float64
    ref = RBF(3.0)(X.astype(np.float32).astype(float), Y.astype(np.float32).astype(float)) @ V32
    # float64 sums over 5000 columns: the error of the float32 tile products only
    assert np.abs(out - ref).max() <= 1e-4 * np.abs(ref).max()


def test_tile_shape_follows_the_cache():
    assert tile_shape(10**6, 10**6, 8, l2=2 << 20) == (256, 512)
    assert tile_shape(10**6, 10**6, 4, l2=2 << 20) == (512, 512)
    assert tile_shape(10**6, 10**6, 8, l2=512 << 10) == (256, 128)
    assert tile_shape(10, 30, 8, l2=2 << 20) == (10, 30)
    assert cache_bytes(2) >= 64 << 10


def test_kernel_operator_uses_fused_tiles(monkeypatch):
    X, Y, V, U = _data(n=400, m=300)
    calls = []
    real = fused.fused_matmul
    monkeypatch.setattr(fused, "fused_matmul", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    op = KernelOperator(RBF(1.2), X, Y)
    np.testing.assert_allclose(op @ V, RBF(1.2)(X, Y) @ V, rtol=1e-12)
    assert calls
    # more than MAX_FUSED_COLUMNS columns, or kept blocks: the plain blockwise path
    calls.clear()
    W = np.ones((300, fused.MAX_FUSED_COLUMNS + 1))
    np.testing.assert_allclose(op @ W, RBF(1.2)(X, Y) @ W, rtol=1e-12)
    assert not calls


def test_rbf_tiles_far_from_the_origin_stay_finite():
    # float32 rows ~1e8 from 0: the expansion's rounding makes -||x - x||^2 / 2 positive
    # (~1e9), and exp of it overflowed to inf (then inf * 0 = nan in the product): the
    # exponent is clipped at 0 as the kernel's own Gram path clips it
    rng = np.random.default_rng(2)
    X = np.round(rng.normal(size=(4, 3)) * 1e8).astype(np.float32)
    C = X[[2, 3, 0, 1]]
    k = RBF(1.22)
    V = rng.normal(size=(4, 2)).astype(np.float32)
    out = KernelOperator(k, X, C) @ V
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, k(X, C) @ V, rtol=1e-6)



def test_rbf_tiles_clip_only_where_the_rounding_bound_can_matter():
    # the clip at 0 is a second pass over every tile: typical rows skip it (their exponent's
    # rounding is bounded far below EXP_ROUNDING_SLACK), rows far from 0 keep it
    from kernelkit.kernels import _distances as dist

    rng = np.random.default_rng(3)
    near = rng.normal(size=(200, 16))
    for X in (near, near.astype(np.float32)):
        f = RBF(1.0).tile_factors(X)
        assert f.apply is dist.tile_exp
        T = f.A @ f.B.T
        bound = f.A.shape[1] * np.finfo(X.dtype).eps * 2 * np.max(f.A[:, -2])
        assert T.max() <= bound <= dist.EXP_ROUNDING_SLACK  # the bound holds here
        np.testing.assert_allclose(KernelOperator(RBF(1.0), X) @ np.ones(200),
                                   RBF(1.0)(X) @ np.ones(200), rtol=1e-5)
    far = (rng.normal(size=(50, 3)) * 1e8).astype(np.float32)
    assert RBF(1.0).tile_factors(far).apply is dist.tile_exp_clipped
    wide = rng.normal(size=(50, 784)).astype(np.float32) * 3  # M ~ 7,000: bound ~ 0.7
    assert RBF(1.0).tile_factors(wide).apply is dist.tile_exp_clipped
    assert RBF(1.0).tile_factors(wide.astype(np.float64)).apply is dist.tile_exp
