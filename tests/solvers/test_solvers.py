"""Dual CD, SMO and Newton against naive reference solvers and scikit-learn's libsvm."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.svm import SVC

from kernelkit.exceptions import ConvergenceWarning
from kernelkit.kernels import RBF
from kernelkit.linalg import KernelRows
from kernelkit.losses import (
    Absolute,
    EpsilonInsensitive,
    Hinge,
    Huber,
    Logistic,
    Quantile,
    Squared,
    SquaredHinge,
)
from kernelkit.solvers import solve_dual_cd, solve_newton, solve_smo
from tests.reference.dual_solvers import (
    dual_box_reference,
    dual_objective,
    libsvm_reference,
    primal_reference,
)

LOSSES = [Squared(), Absolute(), EpsilonInsensitive(0.2), Huber(0.5), Quantile(0.3),
          Hinge(), SquaredHinge(), Logistic()]
IDS = [type(loss).__name__ for loss in LOSSES]


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    K = RBF(length_scale=1.0)(X)
    yc = np.where(X[:, 0] + 0.4 * rng.normal(size=n) > 0, 1.0, -1.0)
    yr = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n) + 0.5
    return X, K, yc, yr


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_dual_cd_matches_reference_dual_objective(loss):
    X, K, yc, yr = _data()
    y = yc if loss.is_classification else yr
    C = 0.4
    res = solve_dual_cd(K, y, loss, C, tol=1e-10, max_iter=50_000, random_state=0)
    ref = dual_box_reference(loss, K, y, C)
    ours, theirs = dual_objective(loss, K, y, res.coef, C), dual_objective(loss, K, y, ref, C)
    assert res.converged
    assert ours <= theirs + 1e-6 * max(1.0, abs(theirs))
    assert ours == pytest.approx(theirs, abs=1e-6 * max(1.0, abs(theirs)))
    # the reported gap is the Fenchel gap P(Ka) - D(a) (>= 0, tiny at the optimum)
    assert 0 <= res.info["gap"] <= 1e-10 * abs(res.info["primal"]) + 1e-12
    np.testing.assert_allclose(res.info["f"], K @ res.coef, atol=1e-9)


def test_dual_cd_squared_is_ridge_closed_form():
    _, K, _, y = _data()
    C = 0.8
    res = solve_dual_cd(K, y, "squared", C, tol=1e-14, max_iter=100_000)
    # (K + I / (2C)) a = y
    np.testing.assert_allclose(res.coef, np.linalg.solve(K + np.eye(len(y)) / (2 * C), y),
                               atol=1e-6)


@pytest.mark.parametrize("shrinking", [True, False])
def test_dual_cd_lru_cache_equals_dense(shrinking):
    X, K, yc, _ = _data(n=150)
    k = RBF(length_scale=1.0)
    rows = KernelRows(k, X, dense=False, working_memory=30 * 150 * 8 / 2**20,
                      dtype=np.float64)
    assert rows.mode == "lru" and rows.n_slots == 30
    a = solve_dual_cd(rows, yc, "hinge", 0.5, tol=1e-12, random_state=0,
                      shrinking=shrinking).coef
    b = solve_dual_cd(K, yc, "hinge", 0.5, tol=1e-12, random_state=0,
                      shrinking=shrinking).coef
    np.testing.assert_allclose(a, b, atol=1e-7)


def test_dual_cd_warns_with_gap():
    _, K, yc, _ = _data()
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        res = solve_dual_cd(K, yc, "hinge", 10.0, tol=1e-14, max_iter=2)
    assert not res.converged and res.info["gap"] > 0


def test_dual_cd_bad_input():
    _, K, yc, _ = _data(n=20)
    with pytest.raises(ValueError, match="C must"):
        solve_dual_cd(K, yc, "hinge", 0.0)
    with pytest.raises(ValueError, match="Unknown loss"):
        solve_dual_cd(K, yc, "nope", 1.0)
    with pytest.raises(ValueError, match="rows"):
        solve_dual_cd(K, yc[:-1], "hinge", 1.0)


def _smo_cases():
    X, K, yc, yr = _data(n=70, seed=1)
    C = 0.9
    cases = {}
    cases["c_svc"] = (K, dict(p=-np.ones(70), ys=yc, lower=0.0, upper=C, idx=None), 0.0)
    for loss in (EpsilonInsensitive(0.1), Quantile(0.3), Hinge()):
        y = yc if loss.is_classification else yr
        f = loss.libsvm_form(y, C)
        cases[type(loss).__name__] = (K, dict(p=f["p"], ys=f["ys"], lower=f["lower"],
                                              upper=f["upper"], idx=f["idx"]), 0.0)
    return cases


@pytest.mark.parametrize("case", ["c_svc", "EpsilonInsensitive", "Quantile", "Hinge"])
def test_smo_matches_reference_qp(case):
    K, form, const = _smo_cases()[case]
    res = solve_smo(K, form["p"], ys=form["ys"], lower=form["lower"], upper=form["upper"],
                    idx=form["idx"], tol=1e-10)
    ref = libsvm_reference(K, form["p"], form["ys"], form["lower"], form["upper"],
                           form["idx"], const)
    idx = np.arange(len(form["p"])) if form["idx"] is None else form["idx"]
    Q = np.outer(form["ys"], form["ys"]) * K[np.ix_(idx, idx)]

    def obj(b):
        return 0.5 * b @ Q @ b + form["p"] @ b

    assert res.converged
    assert obj(res.coef) <= obj(ref) + 1e-6
    assert obj(res.coef) == pytest.approx(obj(ref), abs=1e-6)
    assert res.info["objective"] == pytest.approx(obj(res.coef), abs=1e-9)
    assert abs(form["ys"] @ res.coef) < 1e-10
    assert 0 <= res.info["gap"] < 1e-6


def test_smo_nu_one_class_start():
    # libsvm's nu-one-class: ys = 1, p = 0, 0 <= b <= 1, sum b = nu n from a feasible start
    _, K, _, _ = _data(n=60, seed=2)
    nu, n = 0.2, 60
    b0 = np.zeros(n)
    b0[: int(nu * n)] = 1.0
    res = solve_smo(K, np.zeros(n), lower=0.0, upper=1.0, alpha0=b0, tol=1e-10)
    ref = libsvm_reference(K, np.zeros(n), np.ones(n), 0.0, 1.0, const=nu * n, x0=b0)
    assert res.coef.sum() == pytest.approx(nu * n)
    assert 0.5 * res.coef @ K @ res.coef == pytest.approx(0.5 * ref @ K @ ref, abs=1e-6)


def test_smo_equals_sklearn_svc():
    X, K, yc, _ = _data(n=200, seed=3)
    C = 2.0
    res = solve_smo(K, -np.ones(200), ys=yc, lower=0.0, upper=C, tol=1e-8)
    svc = SVC(C=C, kernel="precomputed", tol=1e-8).fit(K, yc)
    f = K @ res.info["dual_coef"] - res.info["rho"]
    np.testing.assert_allclose(f, svc.decision_function(K), atol=1e-5)
    np.testing.assert_allclose(res.info["rho"], -svc.intercept_[0], atol=1e-5)


@pytest.mark.parametrize("shrinking", [True, False])
def test_smo_lru_cache_equals_dense(shrinking):
    X, K, yc, _ = _data(n=150, seed=4)
    rows = KernelRows(RBF(length_scale=1.0), X, dense=False,
                      working_memory=20 * 150 * 8 / 2**20, dtype=np.float64)
    a = solve_smo(rows, -np.ones(150), ys=yc, lower=0.0, upper=1.0, tol=1e-9,
                  shrinking=shrinking)
    b = solve_smo(K, -np.ones(150), ys=yc, lower=0.0, upper=1.0, tol=1e-9,
                  shrinking=shrinking)
    np.testing.assert_allclose(a.info["dual_coef"], b.info["dual_coef"], atol=1e-6)
    assert a.info["n_kernel_rows"] > 20  # rows were evicted and recomputed


@pytest.mark.parametrize("case", ["c_svc", "EpsilonInsensitive", "Hinge"])
@pytest.mark.parametrize("cache", ["matrix", "lazy", "lru"])
def test_smo_on_compacted_rows_reaches_the_same_optimum(case, cache, monkeypatch):
    # compacting at every shrink (the active variables renumbered, rows of their columns
    # only) against never compacting: the same solution, for n and 2n variables (SVR)
    from kernelkit.solvers import smo

    X, K, _, _ = _data(n=70, seed=1)
    _, form, _ = _smo_cases()[case]
    compactions = []
    original = smo._Problem.compacted.__func__

    def counted(cls, *args):
        compactions.append(len(args[1]))
        return original(cls, *args)

    monkeypatch.setattr(smo._Problem, "compacted", classmethod(counted))
    results = []
    for below in (1.0, 0.0):
        monkeypatch.setattr(smo, "_COMPACT_BELOW", below)
        rows = K if cache == "matrix" else KernelRows(
            RBF(length_scale=1.0), X, dense=cache == "lazy", dtype=np.float64,
            working_memory=12 * 70 * 8 / 2**20)
        results.append(solve_smo(rows, form["p"], ys=form["ys"], lower=form["lower"],
                                 upper=form["upper"], idx=form["idx"], tol=1e-10))
        if below == 1.0:
            assert compactions, "the problem was never compacted"
            assert len(compactions) >= 2 or case == "c_svc"
    a, b = results
    assert a.converged and b.converged
    assert a.info["objective"] == pytest.approx(b.info["objective"], abs=1e-9)
    np.testing.assert_allclose(a.info["dual_coef"], b.info["dual_coef"], atol=1e-6)
    np.testing.assert_allclose(a.info["gradient"], b.info["gradient"], atol=1e-6)


@pytest.mark.parametrize("case", ["c_svc", "Hinge"])
@pytest.mark.parametrize("compact", [True, False])
@pytest.mark.parametrize("cache", ["matrix", "lazy", "lru"])
def test_smo_masked_passes_reach_the_indexed_passes_optimum(case, compact, cache,
                                                            monkeypatch):
    # the j pass and the gradient update over every variable, shrunk ones masked (always:
    # above = 1e-9, from 0 variables) against over the active list (never: from 10**9
    # variables: act=None, numba prunes the masked branches): the same optimum
    from kernelkit.solvers import smo

    X, K, _, _ = _data(n=70, seed=1)  # the data of _smo_cases
    _, form, const = _smo_cases()[case]
    monkeypatch.setattr(smo, "_COMPACT_BELOW", 1.0 if compact else 0.0)
    monkeypatch.setattr(smo, "_MASKED_ABOVE", 1e-9)
    masked = []  # each problem's: whether the loop was given the masked passes
    original = smo._Problem.__init__

    def recorded(self, *args):
        original(self, *args)
        masked.append(self.act is not None)

    monkeypatch.setattr(smo._Problem, "__init__", recorded)
    results = []
    for start in (0, 10**9):
        monkeypatch.setattr(smo, "_MASKED_FROM", start)
        rows = K if cache == "matrix" else KernelRows(
            RBF(length_scale=1.0), X, dense=cache == "lazy", dtype=np.float64,
            working_memory=15 * 70 * 8 / 2**20)
        before = len(masked)
        results.append(solve_smo(rows, form["p"], ys=form["ys"], lower=form["lower"],
                                 upper=form["upper"], idx=form["idx"], tol=1e-10))
        assert len(masked) > before + compact  # compacted problems too
        assert all(m == (start == 0) for m in masked[before:])
    a, b = results
    assert a.converged and b.converged
    assert a.info["objective"] == pytest.approx(b.info["objective"], abs=1e-9)
    np.testing.assert_allclose(a.info["dual_coef"], b.info["dual_coef"], atol=1e-6)
    np.testing.assert_allclose(a.info["gradient"], b.info["gradient"], atol=1e-6)
    # and the masked solve against the naive reference QP (tests/reference)
    ref = libsvm_reference(K, form["p"], form["ys"], form["lower"], form["upper"],
                           form["idx"], const)
    idx = np.arange(len(form["p"])) if form["idx"] is None else form["idx"]
    Q = np.outer(form["ys"], form["ys"]) * K[np.ix_(idx, idx)]
    assert a.info["objective"] == pytest.approx(0.5 * ref @ Q @ ref + form["p"] @ ref,
                                                abs=1e-6)


def test_smo_masked_pass_helpers_against_numpy():
    # _masked_j: argmin of -(gmax + yG)^2 / a over I_low & active with gmax + yG > 0 (the
    # last of equal values) and max of yG over I_low & active; _masked_update: yG += step
    # (K_i - K_j) everywhere and the last argmin of yG over I_up & active
    from kernelkit.solvers import smo

    rng = np.random.default_rng(11)
    for n in (1, 7, 8, 9, 64, 203):
        yG = rng.normal(size=n)
        yG[rng.integers(0, n, n // 3)] = 0.25  # ties
        up, low, act = rng.uniform(size=(3, n)) < [[0.6], [0.6], [0.8]]
        kd = 1.0 + rng.uniform(size=n)
        Ki, Kj = rng.uniform(size=(2, n)).astype(np.float32)
        kii, gmax = 1.5, 0.5
        score, lowg = np.empty(n), np.empty(n)
        j, gmax2 = smo._masked_j(yG, low, act, kd, Ki, kii, gmax, n, score, lowg)
        in_low = (low & act).astype(bool)
        gd = gmax + yG
        a = np.maximum(kii + kd - 2.0 * Ki.astype(np.float64), 0.0)
        a[a <= 0.0] = smo._TAU
        cand = np.where(in_low & (gd > 0), -gd**2 / a, np.inf)
        want_j = -1 if np.all(np.isinf(cand)) else n - 1 - int(np.argmin(cand[::-1]))
        assert j == want_j
        assert gmax2 == (yG[in_low].max() if in_low.any() else -np.inf)
        want = yG + 0.3 * (Ki - Kj).astype(np.float64)  # the rows' difference in float32
        i, g = smo._masked_update(yG, up, act, Ki, Kj, 0.3, n, score)
        np.testing.assert_array_equal(yG, want)
        in_up = (up & act).astype(bool)
        cand = np.where(in_up, want, np.inf)
        assert i == (-1 if not in_up.any() else n - 1 - int(np.argmin(cand[::-1])))
        assert g == (-want[in_up].min() if in_up.any() else -np.inf)
        assert smo._min8(cand, n) == cand.min()


@pytest.mark.parametrize("source", ["matrix", "rbf", "matern", "sparse"])
def test_column_rows_are_the_kernels_columns(source):
    import scipy.sparse as sp

    from kernelkit.kernels import Matern

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    kernel = Matern(1.1, nu=1.5) if source == "matern" else RBF(length_scale=1.3)
    if source == "sparse":
        X = sp.csr_matrix(np.where(rng.uniform(size=X.shape) < 0.5, X, 0.0))
    K = kernel(X.toarray() if sp.issparse(X) else X)
    rows = KernelRows(None if source == "matrix" else kernel, X,
                      matrix=K if source == "matrix" else None, dtype=np.float64)
    rows.fetch(4)  # held rows are gathered, the others formed at the columns
    cols = np.array([0, 4, 9, 10, 33, 59])
    at = rows.columns(cols)
    for r in (4, 9, 20):
        out = np.empty(len(cols))
        at.into(r, out)
        np.testing.assert_allclose(out, K[r, cols], rtol=1e-12, atol=1e-13)
        if r in cols:
            assert out[np.searchsorted(cols, r)] == rows.diag[r]


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-13), (np.float32, 2e-6)])
@pytest.mark.parametrize("dense", [True, False])
def test_kernel_rows_one_at_a_time_and_in_blocks_are_the_kernels(dtype, rtol, dense):
    # one row: formed in its slot; several: a block, copied in; both exp(min(g, 0))
    X, K, _, _ = _data(n=150, seed=6)
    rows = KernelRows(RBF(length_scale=1.0), X, dense=dense, dtype=dtype,
                      working_memory=40 * 150 * 8 / 2**20)
    rows.fetch(3)
    rows.fetch_many(np.array([5, 7, 9, 3]))
    for r in (3, 5, 7, 9):
        got = rows.row(r)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, K[r], rtol=rtol, atol=rtol)
        assert got[r] == 1.0  # the diagonal is k(x, x) exactly


def test_smo_float32_kernel_matches_float64():
    X, K, yc, _ = _data(n=150, seed=5)
    r32 = KernelRows(RBF(length_scale=1.0), X, dtype=np.float32)
    assert r32.dtype == np.float32 and r32.mode == "lazy"
    a = solve_smo(r32, -np.ones(150), ys=yc, lower=0.0, upper=1.0, tol=1e-6)
    b = solve_smo(K, -np.ones(150), ys=yc, lower=0.0, upper=1.0, tol=1e-6)
    np.testing.assert_allclose(K @ a.info["dual_coef"] - a.info["rho"],
                               K @ b.info["dual_coef"] - b.info["rho"], atol=1e-4)


def test_smo_warns_with_gap_and_validates():
    _, K, yc, _ = _data(n=80)
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        res = solve_smo(K, -np.ones(80), ys=yc, lower=0.0, upper=5.0, max_iter=3)
    assert not res.converged
    with pytest.raises(ValueError):
        solve_smo(K, -np.ones(80), ys=yc, lower=1.0, upper=0.0)
    with pytest.raises(ValueError):
        solve_smo(K, -np.ones(80), ys=2 * yc, lower=0.0, upper=1.0)


@pytest.mark.parametrize("loss", [Squared(), Huber(0.3), SquaredHinge(), Logistic()],
                         ids=["Squared", "Huber", "SquaredHinge", "Logistic"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_newton_matches_primal_reference(loss, fit_intercept):
    _, K, yc, yr = _data(n=100, seed=6)
    y = yc if loss.is_classification else yr
    C = 0.6
    res = solve_newton(K, y, loss, C, fit_intercept=fit_intercept)
    beta, b, fun = primal_reference(loss, K, y, C, fit_intercept)
    assert res.converged
    assert res.info["primal"] <= fun + 1e-7 * max(1.0, abs(fun))
    np.testing.assert_allclose(K @ res.coef + res.info["intercept"], K @ beta + b, atol=1e-3)
    if not fit_intercept:  # without offset the Fenchel gap is the exact duality gap
        assert abs(res.info["gap"]) < 1e-6


def test_newton_cg_and_kernel_operator_paths_agree():
    X, K, yc, _ = _data(n=120, seed=7)
    dense = solve_newton(K, yc, "logistic", 0.5, fit_intercept=True)
    cg = solve_newton(K, yc, "logistic", 0.5, fit_intercept=True, direct_max=0)
    op = solve_newton(RBF(length_scale=1.0), yc, "logistic", 0.5, X=X, fit_intercept=True,
                      direct_max=0, working_memory=0.01)
    for other in (cg, op):
        np.testing.assert_allclose(other.coef, dense.coef, atol=1e-6)
        assert other.info["intercept"] == pytest.approx(dense.info["intercept"], abs=1e-6)


def test_newton_rejects_nonsmooth_and_warns():
    _, K, yc, _ = _data(n=50)
    with pytest.raises(ValueError, match="smooth"):
        solve_newton(K, yc, "hinge", 1.0)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        solve_newton(K, yc, "logistic", 100.0, max_iter=1)
    assert any("duality gap" in str(w.message) for w in rec)
