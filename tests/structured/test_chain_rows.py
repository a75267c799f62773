"""The chain pass with kernel rows formed a group of examples at a time (chunked mode)."""

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.structured import ChainOracle, StructuredSVM, _chain_bcfw
from kernelkit.structured._chain_bcfw import ChainBlocks, chain_fast_path
from kernelkit.structured._chain_rows import GroupRows, group_parts
from kernelkit.structured._dual import DualState
from kernelkit.structured._field import UnaryField

from .chains import random_chains


def _blocks(X, Y, S, C, cache_size):
    m = StructuredSVM(ChainOracle(S, loss="hamming"), kernel="rbf", gamma=0.5, C=C)
    parts, offsets, Z = m._prepare(X, Y, need_loss=True)
    field = UnaryField(m.kernel_, parts, S, cache_size)
    st = DualState(m.oracle_, parts, offsets, Z, field, C)
    return st, ChainBlocks(st)


def _rows_budget(N, rows):
    """A cache_size (MiB) that holds ``rows`` float64 kernel rows of N entries."""
    return rows * N * 8 / 2**20


def test_chunked_rows_take_the_cached_steps():
    X, Y = random_chains(n=40, S=4, d=3, seed=0, max_len=7)
    st_c, cached = _blocks(X, Y, S=4, C=1.5, cache_size=64)
    N = len(st_c.Z)
    st_s, chunked = _blocks(X, Y, S=4, C=1.5, cache_size=_rows_budget(N, 12))
    assert st_c.field.mode == "cached" and st_s.field.mode == "stream"
    assert chain_fast_path(st_s)
    chunked.group_sweeps = 1  # one visit per example and pass, as the cached mode
    rng = np.random.default_rng(1)
    for k in range(6):
        order = rng.permutation(40)
        assert len(chunked.rows.groups(order, chunked.lengths)) > 3  # many groups a pass
        e_c, e_s = cached.run_pass(order), chunked.run_pass(order)
        assert e_s == pytest.approx(e_c, rel=1e-10, abs=1e-12)
        if k % 2:  # cached-plane visits too
            cached.run_pass(order, oracle=False)
            chunked.run_pass(order, oracle=False)
    np.testing.assert_allclose(st_s.field.U, st_c.field.U, rtol=0, atol=1e-10)
    np.testing.assert_allclose(st_s.field.AT, st_c.field.AT, rtol=0, atol=1e-10)
    np.testing.assert_allclose(st_s.w_tau, st_c.w_tau, rtol=0, atol=1e-10)
    np.testing.assert_allclose(st_s.ell, st_c.ell, rtol=0, atol=1e-10)
    m = int(cached.count[0])
    assert int(chunked.count[0]) == m
    np.testing.assert_allclose(chunked.alpha[:m], cached.alpha[:m], rtol=0, atol=1e-10)
    np.testing.assert_allclose(chunked.grams, cached.grams, rtol=0, atol=1e-12)
    np.testing.assert_allclose(chunked.objectives(), cached.objectives(), rtol=1e-10)


@pytest.mark.filterwarnings("ignore::kernelkit.exceptions.ConvergenceWarning")
def test_chunked_fit_predicts_as_the_cached_fit(monkeypatch):
    monkeypatch.setattr(_chain_bcfw, "_GROUP_SWEEPS", 1)
    X, Y = random_chains(n=30, S=3, d=3, seed=3, max_len=6)
    N = sum(map(len, Y))
    kw = dict(kernel=RBF(1.0), C=1.0, random_state=0, max_iter=40)
    cached = StructuredSVM(ChainOracle(3, loss="hamming"), **kw).fit(X, Y)
    chunked = StructuredSVM(ChainOracle(3, loss="hamming"), cache_size=_rows_budget(N, 10),
                            **kw).fit(X, Y)
    assert chunked.n_iter_ == cached.n_iter_
    assert chunked.dual_objective_ == pytest.approx(cached.dual_objective_, rel=1e-10)
    assert chunked.duality_gap_ == pytest.approx(cached.duality_gap_, rel=1e-8, abs=1e-10)
    for a, b in zip(chunked.predict(X), cached.predict(X)):
        np.testing.assert_array_equal(a, b)


def test_chunked_mode_holds_no_n_by_n_array():
    X, Y = random_chains(n=60, S=4, d=3, seed=5, max_len=8)
    N = sum(map(len, Y))
    st, blocks = _blocks(X, Y, S=4, C=1.0, cache_size=_rows_budget(N, 20))
    for _ in range(2):
        blocks.run_pass(np.arange(60))
    assert blocks.rows.buf.shape == (20, N)
    held = [st.field, blocks, blocks.rows, st]
    for obj in held:
        for name, value in vars(obj).items():
            if isinstance(value, np.ndarray):
                assert value.size < N * N / 4, name  # O(R N), not N x N


def test_group_rows_are_the_kernel_rows():
    X, Y = random_chains(n=25, S=3, d=4, seed=7, max_len=6)
    parts = np.concatenate(X)
    lengths = np.array([len(y) for y in Y])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    kernel = RBF(0.7)
    rows = GroupRows(kernel, parts, kernel.diag(parts), max_rows=15)
    order = np.random.default_rng(0).permutation(25)
    groups = rows.groups(order, lengths)
    assert np.array_equal(np.concatenate([order[g] for g in groups]), order)
    K = kernel(parts)
    for g in groups:
        assert lengths[order[g]].sum() <= 15 or g.stop - g.start == 1
        p = group_parts(offsets, order[g])
        assert np.array_equal(p, np.concatenate([np.arange(offsets[i], offsets[i + 1])
                                                 for i in order[g]]))
        B = rows.form(p)
        np.testing.assert_allclose(B, K[p], rtol=0, atol=1e-12)
        assert np.array_equal(rows.local[p], np.arange(len(p)))
        rows.release(p)
        assert np.all(rows.local == -1)


def test_group_sweeps_reach_the_same_optimum():
    # more visits a pass within a group are feasible ascent steps: same optimum, certified
    X, Y = random_chains(n=30, S=3, d=3, seed=4, max_len=6)
    N = sum(map(len, Y))
    kw = dict(kernel=RBF(1.0), C=1.0, random_state=0, tol=1e-6, max_iter=2000)
    cached = StructuredSVM(ChainOracle(3, loss="hamming"), **kw).fit(X, Y)
    chunked = StructuredSVM(ChainOracle(3, loss="hamming"), cache_size=_rows_budget(N, 10),
                            **kw).fit(X, Y)
    assert chunked.converged_ and cached.converged_
    assert chunked.dual_objective_ == pytest.approx(cached.dual_objective_, rel=1e-5)
    assert chunked.duality_gap_ <= 1e-6 * chunked.primal_objective_
