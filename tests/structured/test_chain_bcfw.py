"""The chain BCFW pass (numba): working-set upkeep, saved states and the block-gap estimate."""

import warnings

import numpy as np
import pytest

from kernelkit.structured import ChainOracle, StructuredSVM, bcfw
from kernelkit.structured._chain_bcfw import ChainBlocks
from kernelkit.structured._dual import DualState
from kernelkit.structured._field import UnaryField

from .chains import random_chains


def _blocks(X, Y, S, C, kernel):
    m = StructuredSVM(ChainOracle(S, loss="hamming"), kernel=kernel, C=C)
    parts, offsets, Z = m._prepare(X, Y, need_loss=True)
    st = DualState(m.oracle_, parts, offsets, Z, UnaryField(m.kernel_, parts, S, 64), C)
    return st, ChainBlocks(st)


def _lists(blocks):
    """Every example's pairs, walking its linked list."""
    out = []
    for i in range(blocks.n):
        p, pairs = blocks.head[i], []
        while p >= 0:
            pairs.append(int(p))
            p = blocks.nxt[p]
        out.append(pairs)
    return out


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_one_example_block_gap_is_the_duality_gap(kernel):
    # with one block, sum_i g_i at the visit is the exact gap P - D before the pass
    X, Y = random_chains(n=1, S=3, d=3, seed=2, max_len=6)
    st, blocks = _blocks(X, Y, S=3, C=2.0, kernel=kernel)
    for _ in range(4):
        primal, dual = blocks.objectives()
        est = blocks.run_pass(np.array([0]))
        assert est == pytest.approx(primal - dual, rel=1e-9, abs=1e-12)
    assert blocks.objectives()[0] - blocks.objectives()[1] < est + 1e-12


def test_working_set_holds_positive_alphas_and_restores_a_saved_state():
    X, Y = random_chains(n=12, S=4, d=3, seed=5, max_len=6)
    st, blocks = _blocks(X, Y, S=4, C=1.0, kernel="linear")
    rng = np.random.default_rng(1)
    for _ in range(3):
        blocks.run_pass(rng.permutation(12))
    saved, pd = blocks.get_state(), blocks.objectives()
    blocks.finish()
    ref = ([a.copy() for a in st.ws_alpha], [[z.copy() for z in zs] for zs in st.ws_z],
           st.tau_blk.copy())
    added = 0
    for _ in range(6):
        before = int(blocks.count[0])
        blocks.run_pass(rng.permutation(12))
        added = max(added, int(blocks.count[0]) - before)
        m = int(blocks.count[0])
        # only pairs with mass are kept, each listed once under its owner, slots compacted
        assert np.all(blocks.alpha[:m] > 0)
        lists = _lists(blocks)
        assert sorted(p for ps in lists for p in ps) == list(range(m))
        for i, ps in enumerate(lists):
            assert np.all(blocks.owner[ps] == i)
            assert blocks.alpha[ps].sum() <= st.C * (1 + 1e-12)
    assert blocks.objectives() != pd  # the later passes moved the state
    blocks.set_state(saved)
    assert blocks.objectives() == pytest.approx(pd, rel=1e-12)
    blocks.finish()
    for i in range(12):
        np.testing.assert_array_equal(st.ws_alpha[i], ref[0][i])
        assert len(st.ws_z[i]) == len(ref[1][i])
        for z, zr in zip(st.ws_z[i], ref[1][i]):
            np.testing.assert_array_equal(z, zr)
    np.testing.assert_allclose(st.tau_blk, ref[2])


def test_exact_gap_only_when_the_estimate_says_so(monkeypatch):
    X, Y = random_chains(n=30, S=3, d=3, seed=7, max_len=6)
    calls = []
    objectives = ChainBlocks.objectives

    def counted(self):
        calls.append(1)
        return objectives(self)

    monkeypatch.setattr(ChainBlocks, "objectives", counted)
    m = StructuredSVM(ChainOracle(3, loss="hamming"), kernel="linear", C=1.0, tol=1e-3,
                      max_iter=300, random_state=0).fit(X, Y)
    assert m.converged_ and m.duality_gap_ <= 1e-3 * m.primal_objective_
    assert len(calls) < m.n_iter_ and len(m.history_) == m.n_iter_
    h = np.array(m.history_)
    assert np.all(np.diff(h) <= 0)
    assert m.duality_gap_ == h[-1] == pytest.approx(m.primal_objective_ - m.dual_objective_)
    # stopped by max_iter: the last pass is certified all the same
    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = StructuredSVM(ChainOracle(3, loss="hamming"), kernel="linear", C=1.0, tol=1e-12,
                          max_iter=bcfw._CHECK_EVERY + 3, random_state=0).fit(X, Y)
    assert not m.converged_ and len(calls) >= 2
    assert m.duality_gap_ == pytest.approx(m.primal_objective_ - m.dual_objective_)


def test_a_pass_may_visit_a_block_many_times():
    # room is reserved for every visit's new output (here the longest word, n times over)
    X, Y = random_chains(n=8, S=5, d=3, seed=3, max_len=9)
    st, blocks = _blocks(X, Y, S=5, C=1.0, kernel="linear")
    longest = int(np.argmax([len(y) for y in Y]))
    for _ in range(3):
        blocks.run_pass(np.full(8, longest))
    m = int(blocks.count[0])
    assert 0 < m == len(_lists(blocks)[longest]) and np.all(blocks.owner[:m] == longest)
    assert blocks.st.ell[longest] > 0 and np.all(np.delete(blocks.st.ell, longest) == 0)
    assert np.isfinite(blocks.gaps[longest]) and np.all(np.isinf(np.delete(blocks.gaps, longest)))


def test_sparse_and_dense_features_take_the_same_steps():
    # binary inputs (a fifth nonzero) go through Phi's nonzeros; forced dense, the same passes
    rng = np.random.default_rng(4)
    Y = [rng.integers(0, 4, size=rng.integers(2, 7)) for _ in range(15)]
    X = [(rng.random((len(y), 12)) < 0.1 + 0.15 * (np.arange(12) % 4 == y[:, None])) * 1.0
         for y in Y]
    runs = []
    for dense in [False, True]:
        st, blocks = _blocks(X, Y, S=4, C=1.0, kernel="linear")
        if dense:
            e = np.zeros(0, dtype=np.int64)
            blocks.csr = (e, e, e * 0.0)
        order = np.random.default_rng(0)
        for _ in range(4):
            blocks.run_pass(order.permutation(15))
        runs.append((len(blocks.csr[0]), st.field.W.copy(), st.field.U.copy(), st.ell.copy()))
    assert runs[0][0] == sum(map(len, Y)) + 1 and runs[1][0] == 0  # CSR row pointers, or none
    for a, b in zip(runs[0][1:], runs[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert np.abs(runs[0][1]).sum() > 0


def test_finish_rebuilds_the_blocks_transition_parts():
    # tau_blk[i] = sum_y alpha_iy (tau(y_i) - tau(y)), summed pair by pair here
    X, Y = random_chains(n=20, S=4, d=3, seed=1, max_len=6)
    st, blocks = _blocks(X, Y, S=4, C=1.0, kernel="linear")
    rng = np.random.default_rng(0)
    for _ in range(5):
        blocks.run_pass(rng.permutation(20))
    blocks.finish()
    ref = np.zeros_like(st.tau_true)
    for i in range(20):
        for a, z in zip(st.ws_alpha[i], st.ws_z[i]):
            tau = st.oracle.pairwise_batch(z, np.array([0, len(z)]))[0]
            ref[i] += a * (st.tau_true[i] - tau)
    assert np.abs(ref).max() > 0.1
    np.testing.assert_allclose(st.tau_blk, ref, atol=1e-12)


def _brute_force_gap(st, blocks):
    """P - D from the pair table alone: w = sum alpha psi, H_i by enumerating every output."""
    from itertools import product

    S, C = st.field.U.shape[1], st.C
    Phi = st.field.Phi
    U, w_tau = np.zeros_like(st.field.U), np.zeros(S * S)
    ell = 0.0
    m = int(blocks.count[0])
    for p in range(m):
        i, a = int(blocks.owner[p]), blocks.alpha[p]
        lo, hi = st.offsets[i], st.offsets[i + 1]
        z = blocks.states[blocks.start[p]:blocks.start[p] + hi - lo]
        t = np.arange(hi - lo)
        U[lo + t, st.Z[lo:hi]] += a  # psi_i(z) = (E(y_i) - E(z), tau(y_i) - tau(z))
        U[lo + t, z] -= a
        w_tau += a * (st.tau_true[i] - st.oracle.pairwise_batch(z, np.array([0, len(z)]))[0])
        ell += a * np.sum(z != st.Z[lo:hi])  # Hamming loss, unnormalized
    W = Phi.T @ U
    np.testing.assert_allclose(W, st.field.W, atol=1e-10)  # the state's w is sum alpha psi
    np.testing.assert_allclose(w_tau, st.w_tau, atol=1e-10)
    hinge = 0.0
    for i in range(len(st.offsets) - 1):
        lo, hi = st.offsets[i], st.offsets[i + 1]
        G = Phi[lo:hi] @ W

        def f(z, G=G):
            return G[np.arange(len(z)), z].sum() + sum(w_tau[a * S + b] for a, b in
                                                       zip(z[:-1], z[1:]))
        y = st.Z[lo:hi]
        hinge += max(np.sum(np.array(z) != y) + f(np.array(z)) - f(y)
                     for z in product(range(S), repeat=hi - lo))
    wsq = np.sum(W * W) + w_tau @ w_tau
    return 0.5 * wsq + C * hinge - (ell - 0.5 * wsq)


def test_cached_plane_passes_keep_the_dual_feasible_and_the_gap_exact():
    # passes without inference step within the working sets only: they add no output, keep
    # every alpha_i in C * simplex, never lower the dual, and the exact gap of the state
    # (objectives) is the brute-force gap over all outputs of the pair table's w
    X, Y = random_chains(n=10, S=3, d=3, seed=11, max_len=4)
    st, blocks = _blocks(X, Y, S=3, C=0.7, kernel="linear")
    rng = np.random.default_rng(2)
    for _ in range(2):
        blocks.run_pass(rng.permutation(10))
    moved = False
    for _ in range(4):
        pairs = {(int(blocks.owner[p]), blocks.states[blocks.start[p]:blocks.start[p] + len(
            Y[blocks.owner[p]])].tobytes()) for p in range(int(blocks.count[0]))}
        dual = blocks.objectives()[1]
        total = blocks.run_pass(rng.permutation(10), oracle=False)
        m = int(blocks.count[0])
        after = {(int(blocks.owner[p]), blocks.states[blocks.start[p]:blocks.start[p] + len(
            Y[blocks.owner[p]])].tobytes()) for p in range(m)}
        assert after <= pairs and total >= 0.0
        assert np.all(blocks.alpha[:m] > 0)
        mass = np.bincount(blocks.owner[:m], weights=blocks.alpha[:m], minlength=10)
        assert np.all(mass <= st.C * (1 + 1e-12))
        primal, new_dual = blocks.objectives()
        assert new_dual >= dual - 1e-12
        moved = moved or new_dual > dual + 1e-9
        assert primal - new_dual == pytest.approx(_brute_force_gap(st, blocks), rel=1e-9,
                                                  abs=1e-10)
    assert moved


def test_the_solver_certifies_its_gap_with_cached_passes():
    # the fit (passes with inference, each followed by cached-plane passes) stops on the
    # exact gap: a brute-force gap of the returned state is <= tol * primal
    X, Y = random_chains(n=12, S=3, d=3, seed=12, max_len=4)
    assert ChainBlocks(_blocks(X, Y, S=3, C=1.0, kernel="linear")[0]).cached_passes > 0
    kept = {}
    finish = ChainBlocks.finish

    def keep(self):
        kept["blocks"] = self
        finish(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ChainBlocks, "finish", keep)
        m = StructuredSVM(ChainOracle(3, loss="hamming"), kernel="linear", C=1.0, tol=1e-3,
                          max_iter=300, random_state=0).fit(X, Y)
    blocks = kept["blocks"]
    gap = _brute_force_gap(blocks.st, blocks)
    assert m.converged_ and gap == pytest.approx(m.duality_gap_, rel=1e-8, abs=1e-10)
    assert gap <= 1e-3 * m.primal_objective_


def test_chain_cutting_planes_need_no_working_set_gram():
    # the chain path of solver="cutting_plane" keeps w itself (no Gram of the working set,
    # which a 1 kB cache_size could not hold) and certifies the same optimum as BCFW
    X, Y = random_chains(n=25, S=3, d=3, seed=13, max_len=5)
    kw = dict(kernel="linear", C=1.0, tol=1e-4, max_iter=500, random_state=0)
    cp = StructuredSVM(ChainOracle(3, loss="hamming"), solver="cutting_plane",
                       cache_size=1e-3, **kw).fit(X, Y)
    bc = StructuredSVM(ChainOracle(3, loss="hamming"), **kw).fit(X, Y)
    assert cp.converged_ and cp.duality_gap_ <= 1e-4 * cp.primal_objective_
    assert bc.converged_ and cp.n_active_ > 25 and np.all(cp.dual_coef_ > 0)
    # both certified within 1e-4 of the optimum: their primals agree within 2e-4
    assert cp.primal_objective_ == pytest.approx(bc.primal_objective_, rel=2e-4)


def test_cached_passes_only_where_the_scores_are_cheap():
    # dense features wider than the states (Nystroem-like) or a cached kernel: the scores
    # cost more than the inference, so no cached-plane pass and 10 steps a visit
    X, Y = random_chains(n=6, S=3, d=3, seed=14, max_len=4)
    assert _blocks(X, Y, S=3, C=1.0, kernel="linear")[1].cached_passes == 3
    assert _blocks(X, Y, S=3, C=1.0, kernel="rbf")[1].cached_passes == 0
    X, Y = random_chains(n=6, S=3, d=13, seed=14, max_len=4)
    assert _blocks(X, Y, S=3, C=1.0, kernel="linear")[1].cached_passes == 0


def test_the_per_visit_and_per_step_helpers_take_arrays_not_the_tuples():
    """Each array handed to a numba function is an atomic reference count: the helpers a
    pass calls per visit or per step take the arrays they use, never the _Blocks/_Scratch
    tuples (38 arrays a visit once cost a third of the OCR fit, design.md)."""
    import inspect

    from kernelkit.structured import _chain_bcfw as cb

    for name in ("_corners", "_pair_step", "_drop_empty"):
        params = set(inspect.signature(getattr(cb, name).py_func).parameters)
        assert not params & {"bl", "ws", "sc"}, (name, params)
