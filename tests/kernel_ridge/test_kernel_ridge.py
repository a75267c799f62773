"""KernelRidge against its formulas, scikit-learn, and the GP posterior mean."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit import GaussianProcessRegressor, KernelRidge
from kernelkit.exceptions import JitterWarning, NumericalError
from kernelkit.kernel_ridge.kernel_ridge import choose_solver
from kernelkit.kernels import RBF
from tests.reference.regression import krr_dual, krr_intercept


def _rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=60)
    return X, y, rng.normal(size=(15, 3)), rng.uniform(0.2, 2.0, size=60)


@pytest.mark.parametrize("params", [
    dict(kernel="rbf", gamma=0.3), dict(kernel="linear"), dict(kernel="poly", degree=2),
    dict(kernel="laplacian", gamma=0.5), dict(kernel="rbf"),
])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_sklearn(data, params, weighted):
    X, y, Xt, sw = data
    w = sw if weighted else None
    ours = KernelRidge(alpha=0.5, **params).fit(X, y, sample_weight=w)
    peer = SkKernelRidge(alpha=0.5, **params).fit(X, y, sample_weight=w)
    assert _rel(ours.dual_coef_, peer.dual_coef_) < 1e-8
    assert _rel(ours.predict(Xt), peer.predict(Xt)) < 1e-8
    assert ours.X_fit_.shape == peer.X_fit_.shape and ours.n_features_in_ == 3


def test_multi_output_per_target_alpha_and_precomputed(data):
    X, y, Xt, _ = data
    Y = np.c_[y, y**2, -y]
    alpha = [0.1, 1.0, 0.1]
    ours = KernelRidge(alpha=alpha, kernel="rbf", gamma=0.2).fit(X, Y)
    peer = SkKernelRidge(alpha=alpha, kernel="rbf", gamma=0.2).fit(X, Y)
    assert _rel(ours.predict(Xt), peer.predict(Xt)) < 1e-8
    K, Kt = rbf_kernel(X, gamma=0.2), rbf_kernel(Xt, X, gamma=0.2)
    pre = KernelRidge(alpha=alpha, kernel="precomputed").fit(K, Y)
    assert _rel(pre.predict(Kt), peer.predict(Xt)) < 1e-8


def test_dual_formula_and_cg_solver(data):
    X, y, Xt, sw = data
    K = rbf_kernel(X, gamma=0.3)
    m = KernelRidge(alpha=0.2, kernel="rbf", gamma=0.3, solver="cholesky").fit(X, y)
    assert _rel(m.dual_coef_, krr_dual(K, y, 0.2)) < 1e-10
    for fit_intercept in (False, True):
        for w in (None, sw):
            kw = dict(alpha=0.2, kernel="rbf", gamma=0.3, fit_intercept=fit_intercept)
            a = KernelRidge(solver="cholesky", **kw).fit(X, y, sample_weight=w)
            b = KernelRidge(solver="cg", random_state=0, **kw).fit(X, y, sample_weight=w)
            assert _rel(b.predict(Xt), a.predict(Xt)) < 1e-8
            assert b.solver_ == "cg" and b.n_iter_ >= 1


def test_intercept_through_centering(data):
    X, y, Xt, _ = data
    lam = 0.3
    m = KernelRidge(alpha=lam, kernel="rbf", gamma=0.3, fit_intercept=True).fit(X, y + 10)
    a, theta0 = krr_intercept(rbf_kernel(X, gamma=0.3), y + 10, lam)
    assert _rel(m.dual_coef_, a) < 1e-9 and m.intercept_ == pytest.approx(theta0, rel=1e-10)
    # shifting y shifts only the intercept
    m0 = KernelRidge(alpha=lam, kernel="rbf", gamma=0.3, fit_intercept=True).fit(X, y)
    assert _rel(m.predict(Xt) - 10, m0.predict(Xt)) < 1e-9


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_integer_weights_equal_repeated_samples(data, fit_intercept):
    X, y, Xt, _ = data
    w = np.random.default_rng(2).integers(1, 4, size=len(y))
    kw = dict(alpha=0.4, kernel="rbf", gamma=0.3, fit_intercept=fit_intercept)
    a = KernelRidge(**kw).fit(X, y, sample_weight=w.astype(float))
    b = KernelRidge(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert _rel(a.predict(Xt), b.predict(Xt)) < 1e-8


def test_four_conventions_give_the_same_predictor(data):
    X, y, Xt, _ = data
    lam, n = 0.3, len(y)
    K, Kt = rbf_kernel(X, gamma=0.3), rbf_kernel(Xt, X, gamma=0.3)
    I = np.eye(n)
    f1 = Kt @ np.linalg.inv(K + lam * I) @ y  # (K + lam I) a = y
    f2 = Kt @ np.linalg.inv(K + lam * n * I) @ y  # averaged loss: (K + lam n I)
    f3 = Kt @ (2 * lam * np.linalg.inv(K + lam * I) @ y) / (2 * lam)  # a = 2 lam (K + lam I)^-1 y
    f4 = Kt @ (lam * np.linalg.inv(lam * I + K) @ y) / lam  # a = lam (lam I + K)^-1 y
    ours = KernelRidge(alpha=lam, kernel="rbf", gamma=0.3).fit(X, y).predict(Xt)
    ours_avg = KernelRidge(alpha=lam * n, kernel="rbf", gamma=0.3).fit(X, y).predict(Xt)
    for f in (f1, f3, f4):
        assert _rel(ours, f) < 1e-9
    assert _rel(ours_avg, f2) < 1e-9


def test_krr_equals_gp_posterior_mean(data):
    X, y, Xt, _ = data
    noise = 0.05
    krr = KernelRidge(alpha=noise, kernel=RBF(0.8)).fit(X, y)
    gp = GaussianProcessRegressor(RBF(0.8), alpha=noise, optimizer=None).fit(X, y)
    assert _rel(krr.predict(Xt), gp.predict(Xt)) < 1e-10
    assert _rel(krr.dual_coef_, gp.alpha_) < 1e-10


def test_cholesky_keeps_one_n_by_n_matrix():
    rng = np.random.default_rng(0)
    n = 500
    X, y = rng.normal(size=(n, 4)), rng.normal(size=n)
    KernelRidge(alpha=0.1, kernel="rbf").fit(X[:50], y[:50])  # warm numba caches
    tracemalloc.start()
    KernelRidge(alpha=0.1, kernel="rbf", solver="cholesky").fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1.3 * n * n * 8  # one n x n float64 matrix (+ O(n) vectors)


def test_auto_solver_rule():
    assert choose_solver("auto", 5_000, 8) == "cholesky"
    assert choose_solver("auto", 30_000, 8) == "mixed"  # float32 3.6 GB <= 4 GiB
    assert choose_solver("auto", 40_000, 8) == "cg"
    with sklearn.config_context(working_memory=64):
        assert choose_solver("auto", 10_000, 8) == "cg"  # 800 MB > 4 x 64 MiB
    with pytest.raises(ValueError, match="solver"):
        choose_solver("qr", 10, 8)


def test_bad_input(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="targets"):
        KernelRidge(alpha=[1.0, 2.0]).fit(X, np.c_[y, y, y])
    with pytest.raises(ValueError):
        KernelRidge(alpha=1.0).fit(X, np.where(np.arange(len(y)) == 3, np.inf, y))
    m = KernelRidge(kernel="rbf").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])
    # a kernel that is not PSD: clear error naming what to change
    K = -np.eye(len(y))
    with pytest.raises(NumericalError, match="alpha"):
        KernelRidge(alpha=0.0, kernel="precomputed").fit(K, y)


def test_duplicated_inputs_without_penalty_jitter(data):
    X, y, _, _ = data
    X2, y2 = np.vstack([X, X[:5]]), np.r_[y, y[:5]]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = KernelRidge(alpha=0.0, kernel="rbf", gamma=0.3).fit(X2, y2)
    assert any(issubclass(r.category, JitterWarning) and "jitter" in str(r.message) for r in rec)
    assert np.all(np.isfinite(m.dual_coef_))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_mixed_precision_solver_matches_cholesky(data, fit_intercept):
    X, y, Xt, sw = data
    kw = dict(alpha=0.01, kernel="rbf", gamma=0.3, fit_intercept=fit_intercept)
    a = KernelRidge(solver="cholesky", **kw).fit(X, y, sample_weight=sw)
    b = KernelRidge(solver="mixed", **kw).fit(X, y, sample_weight=sw)
    assert b.solver_ == "mixed"
    assert _rel(b.predict(Xt), a.predict(Xt)) < 1e-8
    assert choose_solver("auto", 20_000, 8) == "mixed"
    assert choose_solver("auto", 20_000, 4) == "cholesky"


def test_duplicated_inputs_rounding_pivot_gets_jitter():
    # duplicates make K singular, but rounding can leave LAPACK a tiny positive pivot
    # (this data: pivot^2 ~ 1e-16 without the check); that must count as singular
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.sin(X[:, 0])
    X2, y2 = np.vstack([X, X[:3]]), np.r_[y, y[:3] + 1]
    with pytest.warns(JitterWarning, match="jitter"):
        m = KernelRidge(alpha=0.0, kernel="rbf").fit(X2, y2)
    # with jitter the duplicated pairs are fit by their average (residual ~0.5, not 2.6)
    assert np.abs(m.predict(X2) - y2).max() < 0.51
    with pytest.warns(JitterWarning, match="jitter"):
        gp = GaussianProcessRegressor(RBF(np.sqrt(1.5)), alpha=0.0, optimizer=None).fit(X2, y2)
    assert gp.jitter_ > 0


def test_cg_never_forms_the_kernel_matrix():
    rng = np.random.default_rng(0)
    n = 2500
    X, y = rng.normal(size=(n, 4)), rng.normal(size=n)
    KernelRidge(alpha=0.1, kernel="rbf", solver="cg").fit(X[:50], y[:50])  # warm caches
    with sklearn.config_context(working_memory=4):  # product blocks of at most 4 MiB
        tracemalloc.start()
        m = KernelRidge(alpha=0.1, kernel="rbf", solver="cg", random_state=0).fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 0.5 * n * n * 8  # K (50 MB) never held; Nystrom factors are n x 300
    ref = KernelRidge(alpha=0.1, kernel="rbf", solver="cholesky").fit(X, y)
    assert m.solver_ == "cg" and _rel(m.predict(X[:20]), ref.predict(X[:20])) < 1e-6


@pytest.mark.parametrize("solver", ["cg", "mixed"])
def test_verbose_shows_cg_progress_on_stderr_and_is_silent_by_default(solver, capsys):
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((300, 3)), rng.standard_normal(300)
    quiet = KernelRidge(alpha=1.0, kernel="rbf", solver=solver).fit(X, y)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    loud = KernelRidge(alpha=1.0, kernel="rbf", solver=solver, verbose=1).fit(X, y)
    out = capsys.readouterr()
    assert out.out == "" and f"KernelRidge ({solver})" in out.err
    np.testing.assert_array_equal(loud.dual_coef_, quiet.dual_coef_)


def test_extreme_sample_weights_are_the_same_problem_rescaled():
    """(c w, c alpha) is (w, alpha): weights of 1e300 times large targets overflowed to
    inf / NaN predictions (found by the estimator fuzzer, issue 19); scikit-learn's
    KernelRidge overflows the same way."""
    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(10, 2)), rng.normal(size=10), rng.uniform(0.1, 1, size=10)
    ref = KernelRidge(alpha=0.3, kernel="rbf").fit(X, y, sample_weight=w).predict(X)
    for c in (1e300, 1e-300):
        got = KernelRidge(alpha=0.3 * c, kernel="rbf").fit(X, y, sample_weight=w * c)
        np.testing.assert_allclose(got.predict(X), ref, rtol=1e-10, atol=1e-12)
    one = KernelRidge(kernel="rbf").fit(np.zeros((1, 2)), [0.9e90], sample_weight=[1e300])
    np.testing.assert_allclose(one.predict(np.zeros((1, 2))), [0.9e90])
    # a zero (linear) kernel: the coefficients y / alpha' really overflow; said so
    with pytest.raises(ValueError, match="dual coefficients overflow"):
        KernelRidge().fit(np.zeros((1, 2)), [0.9e90], sample_weight=[1e300])
