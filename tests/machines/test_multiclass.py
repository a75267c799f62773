"""MulticlassSVM and solve_multiclass_cd against dense reference QPs and scikit-learn."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from kernelkit import MulticlassSVM
from kernelkit.exceptions import ConvergenceWarning
from kernelkit.losses import CrammerSinger, WestonWatkins
from kernelkit.solvers import solve_multiclass_cd
from kernelkit.solvers.multiclass_cd import multiclass_dual_objective
from tests.reference.multiclass import loss_value, multiclass_dual

LOSSES = ["crammer_singer", "weston_watkins"]


def _blobs(n=45, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centers = rng.normal(size=(k, 2)) * 1.5
    X = centers[y] + rng.normal(size=(n, 2))
    return X, y


def _feasible(A, y, C, loss):
    n = len(y)
    assert np.abs(A.sum(axis=1)).max() < 1e-10
    own = A[np.arange(n), y]
    rivals = A.copy()
    rivals[np.arange(n), y] = 0.0
    assert rivals.max() <= 1e-12
    if loss == "crammer_singer":
        assert own.max() <= C + 1e-12
    else:
        assert rivals.min() >= -C - 1e-12


@pytest.mark.parametrize("loss", LOSSES)
def test_dual_objective_matches_reference_qp(loss):
    X, y = _blobs()
    K = rbf_kernel(X, gamma=0.5)
    C = 0.7
    res = solve_multiclass_cd(K, y, 3, C=C, loss=loss, tol=1e-12, max_iter=20_000)
    A_ref, D_ref = multiclass_dual(K, y, 3, C, loss)
    _feasible(A_ref, y, C, loss)
    _feasible(res.coef, y, C, loss)
    assert res.converged
    D = res.info["dual_objective"]
    assert abs(D - multiclass_dual_objective(K, y, res.coef)) < 1e-10
    assert D >= D_ref - 1e-7  # at least as good as the generic QP solver
    assert abs(D - D_ref) < 1e-6
    # the scores are K alpha, and the primal at them closes the gap
    np.testing.assert_allclose(res.info["scores"], K @ res.coef, atol=1e-10)
    F = K @ res.coef
    P = 0.5 * np.sum(res.coef * F) + C * sum(loss_value(y[i], F[i], loss) for i in range(len(y)))
    np.testing.assert_allclose(res.info["primal_objective"], P, rtol=1e-12)
    assert P - D <= 1e-10 * P


@pytest.mark.parametrize("loss", LOSSES)
def test_shrinking_float32_and_order_reach_the_same_optimum(loss):
    X, y = _blobs(n=90, seed=1)
    K = rbf_kernel(X, gamma=0.5)
    ref = solve_multiclass_cd(K, y, 3, C=2.0, loss=loss, tol=1e-12, max_iter=20_000,
                              shrinking=False)
    for kw in (dict(shrinking=True), dict(random_state=7)):
        res = solve_multiclass_cd(K, y, 3, C=2.0, loss=loss, tol=1e-12, max_iter=20_000, **kw)
        assert abs(res.info["dual_objective"] - ref.info["dual_objective"]) < 1e-8
        np.testing.assert_allclose(res.info["scores"], ref.info["scores"], atol=1e-4)
    r32 = solve_multiclass_cd(K.astype(np.float32), y, 3, C=2.0, loss=loss, tol=1e-10,
                              max_iter=20_000)
    assert abs(r32.info["dual_objective"] - ref.info["dual_objective"]) < 1e-4


@pytest.mark.parametrize("loss", LOSSES)
def test_float32_scores_stop_on_a_gap_of_fresh_scores(loss, monkeypatch):
    # a float32 K at a loose tol keeps float32 running scores; they drift by rounding, so
    # the stopping test forms them again from alpha: the reported gap, objectives and
    # scores are those of K alpha (up to float32 rounding), and the optimum that of float64
    from kernelkit.solvers import multiclass_cd

    X, y = _blobs(n=300, k=4, seed=2)
    K = rbf_kernel(X, gamma=0.5)
    C, tol = 2.0, 1e-3
    made = []  # the dtypes of the scores formed again for the stopping test
    monkeypatch.setattr(multiclass_cd._Active, "refresh",
                        lambda self, A, every=False, f=multiclass_cd._Active.refresh:
                        (made.append(self.F.dtype) if every else None) or f(self, A, every))
    r32 = solve_multiclass_cd(K.astype(np.float32), y, 4, C=C, loss=loss, tol=tol)
    assert r32.converged and made and all(d == np.float32 for d in made)
    F = K.astype(np.float32).astype(np.float64) @ r32.coef
    np.testing.assert_allclose(r32.info["scores"], F, atol=1e-5)
    P = 0.5 * np.sum(r32.coef * F) + C * sum(loss_value(y[i], F[i], loss) for i in range(len(y)))
    D = multiclass_dual_objective(K, y, r32.coef)
    assert (P - D) <= 1.01 * tol * P
    count = len(made)
    ref = solve_multiclass_cd(K.astype(np.float32), y, 4, C=C, loss=loss, tol=1e-10,
                              max_iter=20_000)
    assert ref.converged and len(made) == count  # a tight tol keeps float64 scores
    assert abs(D - ref.info["dual_objective"]) <= tol * P


@functools.cache
def _reference_optimum(loss):
    """The dense QP's optimum of the schedule test's problem (SLSQP on 480 variables, 15-30 s:
    solved once per loss, not once per schedule)."""
    X, y = _blobs(n=120, k=4, seed=3)
    return multiclass_dual(rbf_kernel(X, gamma=0.5), y, 4, 1.3, loss)[1]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("schedule", [
    dict(_COMPACT_BELOW=1.0),  # the active block compacted at every shrink
    dict(_COMPACT_BELOW=0.0, _WORKING_SET_SHARE=1.0),  # rows gathered; every example swept
    dict(_FULL_EVERY=3, _WORKING_SET_SHARE=0.5, _WORKING_SET_PASSES=1),  # few full sweeps
])
def test_compaction_and_working_sets_reach_the_reference_optimum(loss, schedule, monkeypatch):
    from kernelkit.solvers import multiclass_cd

    for name, value in schedule.items():
        monkeypatch.setattr(multiclass_cd, name, value)
    X, y = _blobs(n=120, k=4, seed=3)
    K = rbf_kernel(X, gamma=0.5)
    res = solve_multiclass_cd(K, y, 4, C=1.3, loss=loss, tol=1e-12, max_iter=20_000)
    D_ref = _reference_optimum(loss)
    assert res.converged
    _feasible(res.coef, y, 1.3, loss)
    assert abs(res.info["dual_objective"] - D_ref) < 1e-6
    np.testing.assert_allclose(res.info["scores"], K @ res.coef, atol=1e-10)


def _working_set_round(gamma):
    """The sweeps' reported gains and the dual's increases in one working-set round on
    blobs (after one pass from zero), and the round's scores against K alpha."""
    from kernelkit.linalg import as_kernel_rows
    from kernelkit.solvers import multiclass_cd as mc

    X, y = _blobs(n=300, k=5, seed=2)
    K = rbf_kernel(X, gamma=gamma)
    A, C, diag = np.zeros((300, 5)), np.full(300, 10.0), np.ones(300)
    mc._pass(1, K, np.arange(300), True, diag, y, C, A, np.zeros((5, 300)), np.arange(300),
             np.arange(300))
    st = mc._Active(as_kernel_rows(K), K, A, np.float64)
    loops = mc._loops(300)
    gains, increases = [], []

    def block_pass(*args):
        before = multiclass_dual_objective(K, y, A)
        out = loops.block_pass(*args)
        gains.append(out[0])
        increases.append(multiclass_dual_objective(K, y, A) - before)
        return out

    mc._solve_working_set(loops._replace(block_pass=block_pass), 1, st, diag, y, C, A,
                          np.arange(0, 300, 2), np.random.default_rng(0))
    np.testing.assert_allclose(st.F, (K @ A).T, atol=1e-10)
    return gains, increases


def test_working_set_sweeps_stop_once_a_sweep_gains_little():
    # the working set is swept until a sweep raises the dual by at most _WORKING_SET_GAIN of
    # the round's first sweep (or _WORKING_SET_PASSES sweeps): more sweeps where they still
    # pay (a smooth kernel: an ill-conditioned subproblem), fewer where they do not
    from kernelkit.solvers import multiclass_cd as mc

    n_sweeps = {}
    for gamma in (0.05, 20.0):
        gains, increases = _working_set_round(gamma)
        np.testing.assert_allclose(gains, increases, rtol=1e-9, atol=1e-9)
        assert gains[0] > 0 and len(gains) <= mc._WORKING_SET_PASSES
        assert all(g > mc._WORKING_SET_GAIN * gains[0] for g in gains[1:-1])
        assert len(gains) == mc._WORKING_SET_PASSES or \
            gains[-1] <= mc._WORKING_SET_GAIN * gains[0]
        n_sweeps[gamma] = len(gains)
    assert n_sweeps[0.05] > n_sweeps[20.0], n_sweeps


@pytest.mark.parametrize("in_order", [True, False])
def test_score_updates_and_compaction_equal_dense_products(in_order):
    from kernelkit.linalg.rows import gather_rows
    from kernelkit.solvers.multiclass_cd import _add_changes

    rng = np.random.default_rng(4)
    K = rbf_kernel(rng.normal(size=(50, 3))).astype(np.float32)
    loc = np.arange(50) if in_order else np.sort(rng.choice(50, 31, replace=False))
    rows = rng.choice(50, 7, replace=False)
    dA = rng.normal(size=(7, 5)) * (rng.uniform(size=(7, 5)) < 0.4)
    Fa = rng.normal(size=(5, len(loc)))
    expect = Fa + dA.T @ K[np.ix_(rows, loc)].astype(np.float64)
    _add_changes(K, loc, in_order, rows, dA, Fa)
    np.testing.assert_allclose(Fa, expect, rtol=1e-12, atol=1e-12)
    out = np.empty((len(loc), len(loc)), np.float32)
    gather_rows(K, loc, loc, out, np.arange(len(loc)), work=len(loc) ** 2)
    np.testing.assert_array_equal(out, K[np.ix_(loc, loc)])


@pytest.mark.parametrize("in_order", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grouped_score_updates_equal_the_row_by_row_updates_bit_for_bit(in_order, dtype):
    # _add_changes (four rows a sweep, by chunks of columns, on one or two threads) adds
    # each score's terms in the order of the rows, as the steps of a pass add them one by one
    from kernelkit.solvers.multiclass_cd import _ADD_CHUNK, _add_changes, _add_row

    rng = np.random.default_rng(5)
    n = _ADD_CHUNK + 300  # two chunks, the second partial
    K = rng.normal(size=(n, n)).astype(dtype)
    loc = np.arange(n) if in_order else np.sort(rng.choice(n, n - 200, replace=False))
    rows = rng.choice(n, 75, replace=False)  # three groups of rows, the last partial
    dA = (rng.normal(size=(75, 6)) * (rng.uniform(size=(75, 6)) < 0.5)).astype(dtype)
    F0 = rng.normal(size=(6, len(loc))).astype(dtype)
    expect = F0.copy()
    buf = np.empty(len(loc), dtype)
    for q in range(len(rows)):
        _add_row(K[rows[q]], loc, in_order, dA[q], expect, buf)
    for kernel in (_add_changes.seq, _add_changes.par):
        Fa = F0.copy()
        kernel(K, loc, in_order, rows, dA, Fa)
        np.testing.assert_array_equal(Fa, expect)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_refreshed_scores_equal_the_dense_product_on_any_thread_count(dtype):
    # (K alpha)[cols] from the support vectors' rows, chunk by chunk of columns, summed in
    # float64: equal to the dense product, and the serial and parallel twins agree bit for
    # bit (each column's sum is in the order of the nonzeros, whatever the threads)
    from kernelkit.solvers.multiclass_cd import _CHUNK, _scores, _scores_by_rows

    rng = np.random.default_rng(5)
    n = 2 * _CHUNK + 37  # three chunks, the last one short
    K = rbf_kernel(rng.normal(size=(n, 3)), gamma=0.3).astype(dtype)
    A = rng.normal(size=(n, 6)) * (rng.uniform(size=(n, 6)) < 0.15)
    A[rng.choice(n, n // 2, replace=False)] = 0.0  # non-support rows
    for cols in (np.arange(n), np.sort(rng.choice(n, 700, replace=False))):
        expect = (K[cols].astype(np.float64) @ A).T
        got = _scores(K, A, cols)
        np.testing.assert_allclose(got, expect, rtol=1e-12, atol=1e-12)
        sv, cls = np.nonzero(A)
        rows, starts = np.unique(sv, return_index=True)
        args = (K, rows.astype(np.int64), np.append(starts, len(sv)).astype(np.int64),
                cls.astype(np.int64), A[sv, cls], cols.astype(np.int64))
        seq, par = np.empty((6, len(cols))), np.empty((6, len(cols)))
        _scores_by_rows.seq(*args, seq)
        _scores_by_rows.par(*args, par)
        np.testing.assert_array_equal(seq, par)
        np.testing.assert_array_equal(seq, got)


@pytest.mark.parametrize("loss", LOSSES)
def test_compact_blocks_are_restrictions_of_the_rows_in_one_storage(loss, monkeypatch):
    # the compact blocks are KernelRows.restrict's (in place: the first block's storage
    # serves every later shrink that fits it), and the solve is the same, bit for bit,
    # from the rows or from their matrix
    from kernelkit.linalg import KernelRows, as_kernel_rows
    from kernelkit.solvers import multiclass_cd

    monkeypatch.setattr(multiclass_cd, "_COMPACT_BELOW", 1.0)
    blocks = []
    restrict = KernelRows.restrict

    def spy(self, cols, previous=None, *, in_place=False):
        out = restrict(self, cols, previous, in_place=in_place)
        np.testing.assert_array_equal(out.data, K[np.ix_(cols, cols)])
        blocks.append((in_place, out.capacity, out.data.base))
        return out

    monkeypatch.setattr(KernelRows, "restrict", spy)
    X, y = _blobs(n=120, k=4, seed=3)
    K = rbf_kernel(X, gamma=0.5)
    a = solve_multiclass_cd(as_kernel_rows(K), y, 4, C=1.3, loss=loss, tol=1e-12,
                            max_iter=20_000)
    assert len(blocks) > 1 and all(b[0] for b in blocks)
    assert len({id(b[2]) for b in blocks}) == len({b[1] for b in blocks})  # grown only
    b = solve_multiclass_cd(K, y, 4, C=1.3, loss=loss, tol=1e-12, max_iter=20_000)
    np.testing.assert_array_equal(a.coef, b.coef)
    assert a.n_iter == b.n_iter and a.history == b.history


@pytest.mark.parametrize("loss", LOSSES)
def test_an_active_set_in_block_order_shrinks_only_into_a_compaction(loss, monkeypatch):
    # while the active examples are the rows of their block in order (rows read as they
    # lie), shrinking waits until the drop compacts the block (keep() compacts at
    # _COMPACT_BELOW of it); after a refresh (examples back, loc < 0) it keeps as before
    from kernelkit.solvers import multiclass_cd

    keeps, found = [], []
    keep, shrinkable = multiclass_cd._Active.keep, multiclass_cd._shrinkable

    def keep_spy(self, mask):
        before = (self.in_order, bool(np.any(self.loc < 0)), self.Kb.shape[0])
        keep(self, mask)
        keeps.append(before + (int(np.count_nonzero(mask)), self.in_order))

    def shrinkable_spy(A, Fa, active, y, out):
        shrinkable(A, Fa, active, y, out)
        found.append(int(np.count_nonzero(out)))

    monkeypatch.setattr(multiclass_cd._Active, "keep", keep_spy)
    monkeypatch.setattr(multiclass_cd, "_shrinkable", shrinkable_spy)
    X, y = _blobs(n=120, k=4, seed=3)
    K = rbf_kernel(X, gamma=0.5)
    res = solve_multiclass_cd(K, y, 4, C=1.3, loss=loss, tol=1e-12, max_iter=20_000)
    assert res.converged
    assert abs(res.info["dual_objective"] - _reference_optimum(loss)) < 1e-6
    assert keeps and sum(f > 0 for f in found) > len(keeps)  # some drops waited
    for in_order, back, rows, kept, in_order_after in keeps:
        assert back or not in_order or kept <= multiclass_cd._COMPACT_BELOW * rows
        if in_order and not back:
            assert in_order_after  # the drop compacted the block


def test_large_kernels_are_held_in_float32(monkeypatch):
    # above _WIDE_KERNEL_ROWS rows the estimator solves with K in float32 (libsvm's cache
    # type), up to it in float64; the fit is still that problem's optimum
    from kernelkit.machines import multiclass
    from kernelkit.solvers import multiclass_cd

    seen = []

    def solve(K, *args, **kwargs):
        seen.append(K.dtype)
        return solve_multiclass_cd(K, *args, **kwargs)

    monkeypatch.setattr(multiclass_cd, "solve_multiclass_cd", solve)
    X, y = _blobs(n=90, seed=2)
    for rows in (90, 89):
        monkeypatch.setattr(multiclass, "_WIDE_KERNEL_ROWS", rows)
        clf = MulticlassSVM(C=2.0, gamma=0.5, tol=1e-12, max_iter=20_000).fit(X, y)
        assert clf.duality_gap_ <= 1e-12 * clf.primal_objective_
    assert seen == [np.float64, np.float32]


def test_alpha_form_and_loss_objects():
    X, y = _blobs()
    K = rbf_kernel(X, gamma=0.5)
    n = len(y)
    a = solve_multiclass_cd(K, y, 3, alpha=0.01, loss=CrammerSinger(), tol=1e-12,
                            max_iter=20_000)
    b = solve_multiclass_cd(K, y, 3, C=1.0 / (2 * 0.01 * n), loss="crammer_singer",
                            tol=1e-12, max_iter=20_000)
    np.testing.assert_allclose(a.coef, b.coef)
    with pytest.raises(ValueError, match="either C or alpha"):
        solve_multiclass_cd(K, y, 3, C=1.0, alpha=1.0)
    with pytest.raises(ValueError, match="Unknown multiclass loss"):
        solve_multiclass_cd(K, y, 3, loss="hinge")


def test_max_iter_warns_with_the_gap():
    X, y = _blobs(n=90, seed=2)
    K = rbf_kernel(X, gamma=2.0)
    with pytest.warns(ConvergenceWarning, match="relative duality gap"):
        res = solve_multiclass_cd(K, y, 3, C=100.0, tol=1e-14, max_iter=2)
    assert not res.converged and res.n_iter == 2 and res.info["gap"] > 0


@pytest.mark.parametrize("loss", LOSSES)
def test_estimator_exposes_the_documented_problem(loss):
    X, y = _blobs(seed=3)
    C = 0.5
    clf = MulticlassSVM(C=C, loss=loss, gamma=0.5, tol=1e-12, max_iter=20_000).fit(X, y)
    K = rbf_kernel(X, gamma=0.5)
    A = np.zeros((len(y), 3))
    A[clf.support_] = clf.dual_coef_.T
    # decision_function = K(x, SV) alpha_SV; primal = 1/2 sum ||f_j||^2 + C sum l
    F = clf.decision_function(X)
    np.testing.assert_allclose(F, K @ A, atol=1e-10)
    P = 0.5 * np.sum(A * F) + C * sum(loss_value(y[i], F[i], loss) for i in range(len(y)))
    np.testing.assert_allclose(clf.primal_objective_, P, rtol=1e-10)
    _, D_ref = multiclass_dual(K, y, 3, C, loss)
    assert abs(clf.dual_objective_ - D_ref) < 1e-6
    assert clf.duality_gap_ <= 1e-10 * P
    np.testing.assert_array_equal(clf.predict(X), np.argmax(F, axis=1))
    assert clf.dual_coef_.shape == (3, clf.n_support_) == (3, len(clf.support_))


def test_accuracy_close_to_svc_on_iris():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    tr, te = idx[:100], idx[100:]
    svc = SVC(C=10.0, gamma=0.5).fit(X[tr], y[tr]).score(X[te], y[te])
    for loss in LOSSES:
        acc = MulticlassSVM(C=10.0, loss=loss, gamma=0.5, random_state=0).fit(
            X[tr], y[tr]).score(X[te], y[te])
        assert acc >= svc - 0.04


def test_labels_precomputed_and_sample_weight():
    X, y = _blobs(n=60, seed=4)
    labels = np.array(["cat", "dog", "emu"])[y]
    kw = dict(C=1.0, gamma=0.5, tol=1e-12, max_iter=20_000)
    clf = MulticlassSVM(**kw).fit(X, labels)
    assert set(clf.predict(X)) <= set(labels) and list(clf.classes_) == ["cat", "dog", "emu"]
    pre = MulticlassSVM(kernel="precomputed", C=1.0, tol=1e-12, max_iter=20_000).fit(
        rbf_kernel(X, gamma=0.5), labels)
    np.testing.assert_allclose(pre.decision_function(rbf_kernel(X[:7], X, gamma=0.5)),
                               clf.decision_function(X[:7]), atol=1e-8)
    # integer weights = repeated rows (same primal, so the same decision function)
    w = np.where(np.arange(60) % 4 == 0, 2.0, 1.0)
    rep = np.repeat(np.arange(60), w.astype(int))
    a = MulticlassSVM(**kw).fit(X, y, sample_weight=w)
    b = MulticlassSVM(**kw).fit(X[rep], y[rep])
    np.testing.assert_allclose(a.dual_objective_, b.dual_objective_, rtol=1e-8)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-4)


def test_two_classes_decision_is_one_dimensional():
    X, y = _blobs(k=2)
    clf = MulticlassSVM(gamma=0.5, random_state=0).fit(X, y)
    d = clf.decision_function(X)
    assert d.shape == (len(y),)
    np.testing.assert_array_equal(clf.predict(X), (d > 0).astype(int))


@pytest.mark.parametrize("params, match", [
    (dict(C=0.0), "'C' parameter of MulticlassSVM must be"), (dict(C=-1.0), "'C' parameter"),
    (dict(loss="hinge"), "Unknown loss"), (dict(loss="bogus"), "Unknown loss"),
    (dict(gamma="bogus"), "'gamma' parameter"), (dict(max_iter=0), "max_iter"),
])
def test_bad_parameters(params, match):
    X, y = _blobs()
    with pytest.raises(ValueError, match=match):
        MulticlassSVM(**params).fit(X, y)


def test_one_class_is_rejected():
    X, _ = _blobs()
    with pytest.raises(ValueError, match="at least 2 classes"):
        MulticlassSVM().fit(X, np.zeros(len(X)))


def test_estimator_warns_at_max_iter():
    X, y = _blobs(n=90, seed=5)
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        MulticlassSVM(C=100.0, gamma=2.0, tol=1e-14, max_iter=2).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MulticlassSVM(C=1.0, gamma=0.5, loss=WestonWatkins()).fit(X, y)


def test_default_loss_is_the_notes_multiclass_hinge():
    import inspect

    params = list(inspect.signature(MulticlassSVM).parameters.values())
    assert [(p.name, p.default) for p in params[:3]] == [
        ("kernel", "rbf"), ("C", 1.0), ("loss", "weston_watkins")]
    X, y = _blobs(n=60)
    assert isinstance(MulticlassSVM(gamma=0.5).fit(X, y).loss_, WestonWatkins)


def test_default_tolerance_is_repeatable_across_pass_orders():
    # Issue 35, point 5: two fits that differ only in the order of their passes
    # (random_state) must give the same labels (>= 99.9%) and close decision values. On
    # these 2,000 letters (RBF gamma = 0.15, C = 10) the default relative gap 1e-2 gives
    # 100% and a largest difference of 0.4% of the largest score; a gap of 0.1 (the tuned
    # tolerance the benchmark used to run at) gave 99.7% and 2.7%.
    from kernelkit.datasets import load_letters

    Xtr, ytr, Xte, _ = load_letters(return_X_y=True, standardize=True)
    Xtr, ytr, Xte = Xtr[:2000], ytr[:2000], Xte[:2000]
    fits = [MulticlassSVM(C=10.0, gamma=0.15, random_state=s).fit(Xtr, ytr) for s in (0, 1)]
    assert all(m.duality_gap_ <= m.tol * m.primal_objective_ for m in fits)
    F0, F1 = (m.decision_function(Xte) for m in fits)
    assert np.mean(F0.argmax(axis=1) == F1.argmax(axis=1)) >= 0.999
    assert np.abs(F0 - F1).max() <= 1e-2 * np.abs(F0).max()
