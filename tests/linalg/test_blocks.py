"""Fixed row blocks with float64 sums: the products, and fits that do not depend on threads."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kernelkit import NystromKernelRidge
from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator
from kernelkit.linalg.blocks import block_rows, block_slices, reduce_row_blocks


def test_block_rows_and_slices():
    # 1 MiB of float32 with 100 columns: 2621 rows, rounded down to a multiple of 64
    assert block_rows(100, 4, 1.0, n_rows=10**6, quantum=64) == 2560
    assert block_rows(100, 4, 1.0, n_rows=1000, quantum=64) == 1000  # never more than n
    assert block_rows(10**6, 8, 1.0, n_rows=10**6, quantum=64) == 1  # at least one row
    assert block_slices(10, 4) == [slice(0, 4), slice(4, 8), slice(8, 10)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_block_products_are_the_sums_over_blocks(dtype):
    rng = np.random.default_rng(0)
    X, C = rng.normal(size=(700, 3)).astype(dtype), rng.normal(size=(40, 3)).astype(dtype)
    V, U = rng.normal(size=(40, 2)), rng.normal(size=(700, 2))
    op = KernelOperator(RBF(1.3), X, C, block_rows=64)
    K = RBF(1.3)(X.astype(np.float64), C.astype(np.float64))  # dense float64 reference
    V32, U32 = V.astype(dtype).astype(np.float64), U.astype(dtype).astype(np.float64)
    rtol = 1e-12 if dtype == np.float64 else 1e-4
    out = op.normal_matmul(V)
    assert out.dtype == np.float64 and op.dtype == np.float64 and op.block_dtype == dtype
    np.testing.assert_allclose(out, K.T @ (K @ V32), rtol=rtol)
    np.testing.assert_allclose(op.normal_matmul(V, U), K.T @ (K @ V32 + U32), rtol=rtol)
    np.testing.assert_allclose(op.t_matmul(U), K.T @ U32, rtol=rtol)
    # block order: the float64 sum of the float32 partials, added block after block
    parts = [RBF(1.3)(X[sl], C).T @ U[sl, 0].astype(dtype) for sl in block_slices(700, 64)]
    ref = np.zeros(40)
    for p in parts:
        ref += p
    np.testing.assert_array_equal(op.t_matmul(U[:, 0]), ref)


# max_iter=15 on purpose: the warning that CG stopped short is expected
@pytest.mark.filterwarnings("ignore:NystromKernelRidge. conjugate gradients stopped")
def test_float32_fit_does_not_depend_on_blas_threads():
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, size=(4000, 4)).astype(np.float32)
    y = (np.sin(2 * X[:, 0]) + X[:, 1] ** 2).astype(np.float32)
    kw = dict(n_centers=200, alpha=1e-8, gamma=0.5, max_iter=15, tol=0.0, random_state=0,
              working_memory=0.25)
    with threadpool_limits(limits=1, user_api="blas"):
        one = NystromKernelRidge(**kw).fit(X, y)
    with threadpool_limits(limits=2, user_api="blas"):
        two = NystromKernelRidge(**kw).fit(X, y)
    np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
    assert one.dual_coef_.dtype == np.float32


def test_kept_blocks_give_the_same_products():
    rng = np.random.default_rng(2)
    X, C = rng.normal(size=(900, 3)).astype(np.float32), rng.normal(size=(50, 3))
    V, U = rng.normal(size=50), rng.normal(size=900)
    formed = KernelOperator(RBF(), X, C.astype(np.float32), block_rows=128)
    kept = KernelOperator(RBF(), X, C.astype(np.float32), block_rows=128,
                               keep_blocks=True)
    for _ in range(2):  # the second product reuses the kept blocks
        np.testing.assert_array_equal(kept.normal_matmul(V), formed.normal_matmul(V))
        np.testing.assert_array_equal(kept.t_matmul(U), formed.t_matmul(U))
    assert len(kept._kept) == 8 and formed._kept is None


def test_rows_normal_sums_do_not_depend_on_the_strips():
    # kept blocks are read in one call, formed ones a strip (a multiple of 8 rows) at a
    # time: the same sums bit for bit, the last rows (not a group of four) included
    from kernelkit.linalg.fused import _rows_normal

    rng = np.random.default_rng(7)
    T, v, u = rng.normal(size=(203, 37)), rng.normal(size=37), rng.normal(size=203)
    whole = np.zeros(37)
    _rows_normal(T, v, u, whole)
    strips = np.zeros(37)
    for s in range(0, 203, 16):
        _rows_normal(T[s:s + 16], v, u[s:s + 16], strips)
    np.testing.assert_array_equal(strips, whole)
    np.testing.assert_allclose(whole, T.T @ (T @ v + u), rtol=1e-12)
    no_u = np.zeros(37)
    _rows_normal(T, v, np.empty(0), no_u)
    np.testing.assert_allclose(no_u, T.T @ (T @ v), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_normal_sums_do_not_depend_on_where_the_rows_lie_in_memory(dtype):
    # kept blocks and formed strips sit at different addresses: a sum whose order the
    # compiler chose (vectorized with peeled first elements) changed with the alignment
    from kernelkit.linalg.fused import _LANES, _rows_normal

    rng = np.random.default_rng(11)
    m = 3 * _LANES + 7  # whole groups of lanes and a remainder
    T, v = rng.normal(size=(41, m)).astype(dtype), rng.normal(size=m).astype(dtype)
    sums = []
    for offset in range(4):  # the same rows 0-3 elements past an aligned start
        buf = np.empty(T.size + 4, dtype=dtype)
        moved = buf[offset:offset + T.size].reshape(T.shape)
        moved[:] = T
        part = np.zeros(m)
        _rows_normal(moved, v, np.empty(0, dtype), part)
        sums.append(part)
    for part in sums[1:]:
        np.testing.assert_array_equal(part, sums[0])
    T64, v64 = T.astype(np.float64), v.astype(np.float64)
    exact = T64.T @ (T64 @ v64)
    if dtype == np.float64:
        np.testing.assert_allclose(sums[0], exact, rtol=1e-11)
    else:  # float32 arithmetic: no further from the exact sums than a float32 GEMV pair
        gemv = (T.T @ (T @ v)).astype(np.float64)
        assert (np.linalg.norm(sums[0] - exact)
                <= 1.5 * np.linalg.norm(gemv - exact) + 1e-7 * np.linalg.norm(exact))


def test_kept_blocks_taller_than_a_strip_give_the_same_products():
    # blocks of 1024 rows x 500 columns: a strip of the fused products is 128 rows or
    # fewer (half the L2 cache), so a block is several strips. Kept blocks were multiplied
    # whole (one GEMV over 1024 rows), the formed ones strip by strip: the sums differed
    # in the last bits and a dask fit no longer equalled the in-memory one (issue 35, 6).
    rng = np.random.default_rng(5)
    X, C = rng.normal(size=(3000, 3)), rng.normal(size=(500, 3))
    V, U = rng.normal(size=500), rng.normal(size=3000)
    formed = KernelOperator(RBF(), X, C, block_rows=1024)
    kept = KernelOperator(RBF(), X, C, block_rows=1024, keep_blocks=True)
    for _ in range(2):
        np.testing.assert_array_equal(kept.normal_matmul(V), formed.normal_matmul(V))
        np.testing.assert_array_equal(kept.normal_matmul(V, U), formed.normal_matmul(V, U))
        np.testing.assert_array_equal(kept.t_matmul(U), formed.t_matmul(U))
    for a, b in zip(kept.normal_gram(U), formed.normal_gram(U)):
        np.testing.assert_array_equal(a, b)
    K = RBF()(X, C)
    KV, KtKV = K @ V, K.T @ (K @ V)
    np.testing.assert_allclose(kept @ V, KV, rtol=0, atol=1e-12 * np.abs(KV).max())
    np.testing.assert_allclose(kept.normal_matmul(V), KtKV, rtol=0,
                               atol=1e-12 * np.abs(KtKV).max())
    with pytest.raises(ValueError, match="normal_gram needs fixed blocks"):
        KernelOperator(RBF(), X, C).normal_gram()


def test_estimator_keeps_knm_only_when_it_fits():
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(3000, 3))
    y = np.sin(X[:, 0])
    # a well-conditioned problem (alpha=1e-2, CG converges in ~14 steps): with alpha=1e-5 and a
    # truncated CG, rounding differences between the two block orders grow to 1e-5 relative
    kw = dict(n_centers=100, alpha=1e-2, gamma=0.5, random_state=0)
    # 3000 x 100 float64 = 2.3 MiB: kept with 4 MiB; with 1 MiB formed per pass in 1280-row blocks
    kept = NystromKernelRidge(working_memory=4, **kw).fit(X, y)
    blocked = NystromKernelRidge(working_memory=1, **kw).fit(X, y)
    np.testing.assert_allclose(kept.dual_coef_, blocked.dual_coef_, rtol=1e-9,
                               atol=1e-9 * np.abs(kept.dual_coef_).max())


def test_reduce_row_blocks_on_threads_is_the_serial_sum():
    """Blocks on worker threads (one BLAS and one numba thread each) add up, in block
    order, to the serial sum, bit for bit."""
    import numba

    rng = np.random.default_rng(0)
    X, T = rng.normal(size=(1000, 40)), rng.normal(size=(1000, 2))

    def part(Xb, Tb, scale):
        return Xb.T @ Xb * scale, Xb.T @ Tb, numba.get_num_threads()

    with threadpool_limits(limits=1, user_api="blas"):
        serial = reduce_row_blocks(part, X, T, 96, (0.5,))
    threaded = reduce_row_blocks(part, X, T, 96, (0.5,), threads=2)
    assert np.array_equal(serial[0], threaded[0]) and np.array_equal(serial[1], threaded[1])
    assert threaded[2] == len(block_slices(1000, 96))  # one numba thread per block
