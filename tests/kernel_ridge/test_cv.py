"""KernelRidgeCV: exact LOO from one eigendecomposition, GCV, K-fold."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import RidgeCV
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV, KFold

from kernelkit import KernelRidge, KernelRidgeCV
from kernelkit.exceptions import NumericalError
from tests.reference.regression import krr_dual, loo_bruteforce

ALPHAS = [0.01, 0.1, 1.0, 10.0]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    return X, y


def test_loo_residuals_equal_brute_force_refits(data):
    X, y = data
    m = KernelRidgeCV(alphas=ALPHAS, kernel="rbf", gamma=0.3).fit(X, y)
    K = rbf_kernel(X, gamma=0.3)
    for j, a in enumerate(ALPHAS):
        np.testing.assert_allclose(m.cv_values_[:, j], loo_bruteforce(K, y, a), rtol=1e-8)
    best = int(np.argmin(m.cv_values_.mean(axis=0)))
    assert m.alpha_ == ALPHAS[best]
    assert m.best_score_ == pytest.approx(-m.cv_values_[:, best].mean())
    ref = KernelRidge(alpha=m.alpha_, kernel="rbf", gamma=0.3).fit(X, y)
    np.testing.assert_allclose(m.predict(X), ref.predict(X), rtol=1e-8, atol=1e-12)


def test_gcv_formula(data):
    X, y = data
    m = KernelRidgeCV(alphas=ALPHAS, kernel="rbf", gamma=0.3, cv="gcv").fit(X, y)
    K = rbf_kernel(X, gamma=0.3)
    n = len(y)
    for j, a in enumerate(ALPHAS):
        H = K @ np.linalg.inv(K + a * np.eye(n))  # hat matrix
        e = (y - H @ y) / (1 - np.trace(H) / n)
        np.testing.assert_allclose(m.cv_values_[:, j], e**2, rtol=1e-8)


def test_linear_kernel_matches_ridgecv(data):
    X, y = data
    ours = KernelRidgeCV(alphas=ALPHAS).fit(X, y)
    peer = RidgeCV(alphas=ALPHAS, fit_intercept=False, store_cv_results=True).fit(X, y)
    np.testing.assert_allclose(ours.cv_values_, peer.cv_results_, rtol=1e-8)
    assert ours.alpha_ == peer.alpha_
    assert ours.best_score_ == pytest.approx(peer.best_score_, rel=1e-8)


def test_kfold_matches_gridsearch(data):
    X, y = data
    ours = KernelRidgeCV(alphas=ALPHAS, kernel="rbf", gamma=0.3, cv=5).fit(X, y)
    grid = GridSearchCV(SkKernelRidge(kernel="rbf", gamma=0.3), {"alpha": ALPHAS},
                        cv=KFold(5), scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(-ours.cv_values_.mean(axis=0),
                               grid.cv_results_["mean_test_score"], rtol=1e-8)
    assert ours.alpha_ == grid.best_params_["alpha"]
    assert ours.cv_values_.shape == (5, len(ALPHAS))


def test_multi_output_and_refit(data):
    X, y = data
    Y = np.c_[y, y**2]
    m = KernelRidgeCV(alphas=ALPHAS, kernel="rbf", gamma=0.3).fit(X, Y)
    assert m.cv_values_.shape == (40, 2, len(ALPHAS))
    K = rbf_kernel(X, gamma=0.3)
    np.testing.assert_allclose(m.dual_coef_, krr_dual(K, Y, m.alpha_), rtol=1e-7, atol=1e-10)


def test_bad_input(data):
    X, y = data
    for alphas in ([], [0.1, -1.0], [0.0], [np.nan]):
        with pytest.raises(ValueError, match="alphas"):
            KernelRidgeCV(alphas=alphas).fit(X, y)
    with pytest.raises(ValueError, match="cv"):
        KernelRidgeCV(cv="bootstrap").fit(X, y)
    m = KernelRidgeCV().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])


def test_not_psd_kernel_and_alphas_shape(data):
    X, y = data
    S = np.random.default_rng(1).normal(size=(len(y), len(y)))
    for cv in ("loo", "gcv", 3):
        with pytest.raises(NumericalError, match="positive semi-definite"):
            KernelRidgeCV(kernel="precomputed", cv=cv).fit(S + S.T, y)
        with pytest.raises(ValueError, match="positive semi-definite"):
            KernelRidgeCV(kernel="sigmoid", cv=cv).fit(X, y)
    with pytest.raises(ValueError, match="1-D"):
        KernelRidgeCV(alphas=[[0.1, 1.0], [10.0, 100.0]]).fit(X, y)
    # a PSD kernel with eigenvalues at rounding level (rank 3): accepted
    m = KernelRidgeCV(kernel="linear").fit(X, y)
    assert np.all(np.isfinite(m.cv_values_))


def test_loo_fit_peak_memory_is_k_q_and_lapack_workspace_only():
    # K is handed to syevd in Fortran order and overwritten: K + Q + syevd's 2 n^2 workspace,
    # no extra copy of K (which would make it 4 n x n)
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 600
    X, y = rng.standard_normal((n, 3)), rng.standard_normal(n)
    KernelRidgeCV(alphas=[0.1, 1.0], kernel="rbf").fit(X[:50], y[:50])  # warm-up
    tracemalloc.start()
    try:
        KernelRidgeCV(alphas=[0.1, 1.0], kernel="rbf").fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3.5 * n * n * 8
