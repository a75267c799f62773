"""KernelClassifier / KernelRegressor: libsvm equivalence, ridge closed forms, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC, SVR
from threadpoolctl import threadpool_limits

import kernelkit
from kernelkit import KernelClassifier, KernelRegressor
from kernelkit.exceptions import ConvergenceWarning


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _clf_data(n=150, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    if n_classes == 2:
        y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.4 * rng.normal(size=n) > 0.5, "b", "a")
    else:
        y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, y


def _reg_data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=n) + 1.0


def test_hinge_equals_svc_with_c_mapping():
    X, y = _clf_data()
    m, C = len(y), 3.0
    ours = KernelClassifier(alpha=1.0 / (2 * C * m), gamma=0.5, tol=1e-8).fit(X, y)
    svc = SVC(C=C, gamma=0.5, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), svc.predict(X))
    np.testing.assert_array_equal(ours.classes_, svc.classes_)
    np.testing.assert_array_equal(ours.support_, np.sort(svc.support_))
    order = np.argsort(svc.support_)
    np.testing.assert_allclose(ours.dual_coef_, svc.dual_coef_[:, order], atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, atol=1e-4)
    assert ours.solver_ == "smo" and ours.C_ == pytest.approx(C)


def test_epsilon_insensitive_equals_svr():
    X, y = _reg_data()
    m, C = len(y), 2.0
    ours = KernelRegressor("epsilon_insensitive", alpha=1.0 / (2 * C * m), gamma=0.3,
                           epsilon=0.15).fit(X, y)
    svr = SVR(C=C, gamma=0.3, epsilon=0.15).fit(X, y)
    Xt = np.random.default_rng(9).normal(size=(50, 3))
    np.testing.assert_allclose(ours.predict(Xt), svr.predict(Xt), atol=1e-3)
    np.testing.assert_allclose(ours.predict(X), svr.predict(X), atol=1e-3)


def test_squared_loss_is_kernel_ridge():
    # (1/m) sum (y - f)^2 + alpha ||f||^2  =>  a = (K + m alpha I)^-1 y
    X, y = _reg_data(n=120)
    m, alpha = len(y), 0.01
    K = rbf_kernel(X, gamma=0.4)
    for solver in ("newton", "dual_cd"):
        reg = KernelRegressor(alpha=alpha, gamma=0.4, fit_intercept=False, solver=solver,
                              tol=1e-14 if solver == "newton" else 1e-13).fit(X, y)
        a = np.linalg.solve(K + m * alpha * np.eye(m), y)
        np.testing.assert_allclose(reg.dual_coef_[0], a, atol=1e-6)
        np.testing.assert_allclose(reg.predict(X), K @ a, atol=1e-6)
    kr = kernelkit.KernelRidge(alpha=m * alpha, kernel="rbf", gamma=0.4).fit(X, y)
    Xt = np.random.default_rng(3).normal(size=(30, 3))
    np.testing.assert_allclose(reg.predict(Xt), kr.predict(Xt), atol=1e-6)


def test_squared_loss_with_intercept_closed_form():
    # stationarity: (K + m alpha I) a + b 1 = y, 1^T a = 0
    X, y = _reg_data(n=100, seed=1)
    m, alpha = len(y), 0.02
    K = rbf_kernel(X, gamma=0.4)
    A = np.block([[K + m * alpha * np.eye(m), np.ones((m, 1))], [np.ones((1, m)), 0.0]])
    sol = np.linalg.solve(A, np.append(y, 0.0))
    reg = KernelRegressor(alpha=alpha, gamma=0.4).fit(X, y)
    np.testing.assert_allclose(reg.dual_coef_[0], sol[:m], atol=1e-7)
    np.testing.assert_allclose(reg.intercept_[0], sol[m], atol=1e-7)
    kr = kernelkit.KernelRidge(alpha=m * alpha, kernel="rbf", gamma=0.4,
                               fit_intercept=True).fit(X, y)
    np.testing.assert_allclose(reg.predict(X), kr.predict(X), atol=1e-6)


def test_logistic_probabilities():
    X, y = _clf_data()
    clf = KernelClassifier("logistic", alpha=1e-3, gamma=0.5).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(1), 1.0)
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-clf.decision_function(X))))
    np.testing.assert_array_equal(clf.classes_[P.argmax(1)], clf.predict(X))
    assert clf.solver_ == "newton"
    assert not hasattr(KernelClassifier(), "predict_proba")
    # no intercept: Newton and dual CD find the same minimiser
    a = KernelClassifier("logistic", alpha=1e-2, gamma=0.5, fit_intercept=False,
                         tol=1e-11, solver="dual_cd").fit(X, y)
    b = KernelClassifier("logistic", alpha=1e-2, gamma=0.5, fit_intercept=False,
                         solver="newton").fit(X, y)
    assert a.solver_ == "dual_cd"
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-4)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "logistic"])
def test_one_vs_rest(loss):
    X, y = _clf_data(n=120, n_classes=3)
    clf = KernelClassifier(loss, alpha=1e-3, gamma=0.5, tol=1e-8).fit(X, y)
    F = clf.decision_function(X)
    assert F.shape == (120, 3) and clf.dual_coef_.shape[0] == 3
    for k in range(3):
        yk = np.where(y == k, 1, 0)
        bk = KernelClassifier(loss, alpha=1e-3, gamma=0.5, tol=1e-8).fit(X, yk)
        np.testing.assert_allclose(F[:, k], bk.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[F.argmax(1)])
    assert clf.score(X, y) > 0.8


@pytest.mark.parametrize("loss", ["weston_watkins", "crammer_singer"])
def test_native_multiclass(loss):
    pytest.importorskip("kernelkit.losses.multiclass")
    pytest.importorskip("kernelkit.solvers.multiclass_cd")
    from kernelkit.solvers import solve_multiclass_cd

    X, y = _clf_data(n=90, n_classes=3)
    clf = KernelClassifier(loss, alpha=1e-2, gamma=0.5, tol=1e-6, random_state=0).fit(X, y)
    assert clf.solver_ == "multiclass_cd"
    K = rbf_kernel(X, gamma=0.5)
    res = solve_multiclass_cd(K, y, 3, alpha=1e-2, loss=loss, tol=1e-6, random_state=0)
    np.testing.assert_allclose(clf.decision_function(X), K @ res.coef, atol=1e-3)
    assert clf.dual_coef_.shape == (3, len(clf.support_))
    assert clf.score(X, y) > 0.8


@pytest.mark.parametrize("loss", ["absolute", "quantile", "huber"])
def test_regression_losses_minimise_the_risk(loss):
    # the fitted f has a lower regularised risk than small perturbations of (a, b)
    X, y = _reg_data(n=80, seed=2)
    alpha = 1e-2
    reg = KernelRegressor(loss, alpha=alpha, gamma=0.5, tol=1e-9).fit(X, y)
    K = rbf_kernel(X, gamma=0.5)
    a = np.zeros(80)
    a[reg.support_] = reg.dual_coef_[0]
    lossf = reg.loss_

    def risk(a_, b_):
        return lossf.value(y, K @ a_ + b_).mean() + alpha * a_ @ K @ a_

    base = risk(a, reg.intercept_[0])
    rng = np.random.default_rng(0)
    for _ in range(20):
        da = 1e-3 * rng.normal(size=80)
        assert base <= risk(a + da, reg.intercept_[0] + 1e-3 * rng.normal()) + 1e-9
    if loss == "quantile":  # about half of the residuals on each side for q = 0.5
        r = y - reg.predict(X)
        assert 0.3 < np.mean(r > 0) < 0.7


def test_sample_weight_is_repetition():
    X, y = _clf_data(n=60, seed=4)
    w = np.random.default_rng(0).integers(1, 3, size=60)
    a = KernelClassifier(alpha=1e-2, gamma=0.5, tol=1e-10).fit(X, y, sample_weight=w)
    b = KernelClassifier(alpha=1e-2, gamma=0.5, tol=1e-10).fit(np.repeat(X, w, 0),
                                                               np.repeat(y, w))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)


def test_precomputed_kernel_matches_rbf():
    X, y = _clf_data(n=80, seed=5)
    Xt = np.random.default_rng(1).normal(size=(20, 3))
    a = KernelClassifier(alpha=1e-2, gamma=0.5, tol=1e-9).fit(X, y)
    b = KernelClassifier(alpha=1e-2, kernel="precomputed", tol=1e-9).fit(
        rbf_kernel(X, gamma=0.5), y)
    np.testing.assert_allclose(a.decision_function(Xt),
                               b.decision_function(rbf_kernel(Xt, X, gamma=0.5)), atol=1e-6)


def test_convergence_warning_reports_gap():
    X, y = _clf_data()
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        KernelClassifier(alpha=1e-4, gamma=0.5, max_iter=2).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        KernelClassifier(alpha=1e-4, gamma=0.5, max_iter=1, fit_intercept=False).fit(X, y)


@pytest.mark.parametrize("est, match", [
    (KernelClassifier(loss="nope"), "Unknown loss"),
    (KernelClassifier(loss="squared"), "regression loss"),
    (KernelClassifier(loss="epsilon_insensitive"), "regression loss"),
    (KernelClassifier(alpha=0.0), "alpha"),
    (KernelClassifier(alpha=-1.0), "alpha"),
    (KernelClassifier(solver="lbfgs"), "solver"),
    (KernelClassifier(solver="smo", fit_intercept=False), "smo"),
    (KernelClassifier(loss="logistic", solver="smo"), "smo"),
    (KernelClassifier(solver="newton"), "smooth"),
    (KernelClassifier(solver="dual_cd"), "intercept"),
    (KernelClassifier(gamma="wide"), "gamma"),
    (KernelClassifier(max_iter=0), "max_iter"),
])
def test_bad_parameters(est, match):
    X, y = _clf_data(n=30)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_input():
    X, y = _clf_data(n=30)
    with pytest.raises(ValueError, match="2 classes"):
        KernelClassifier().fit(X, np.zeros(30))
    Xr, yr = _reg_data(n=30)
    with pytest.raises(ValueError, match="classification loss"):
        KernelRegressor(loss="hinge").fit(Xr, yr)
    with pytest.raises(ValueError, match="epsilon"):
        KernelRegressor(loss="epsilon_insensitive", epsilon=-1.0).fit(Xr, yr)
    with pytest.raises(ValueError, match="q must"):
        KernelRegressor(loss="quantile", loss_params={"q": 1.5}).fit(Xr, yr)


def test_loss_mismatch_and_unknown_loss_params():
    Xr, yr = _reg_data(n=30)
    with pytest.raises(ValueError, match="classification loss"):
        KernelRegressor(loss="weston_watkins").fit(Xr, yr)
    with pytest.raises(ValueError, match=r"loss_params \['dleta'\].*'delta'"):
        KernelRegressor(loss="huber", loss_params={"dleta": 1.0}).fit(Xr, yr)
    with pytest.raises(ValueError, match="loss_params"):
        KernelClassifier(loss="hinge", loss_params={"q": 0.3}).fit(*_clf_data(n=30))
    from kernelkit.losses import Huber

    with pytest.raises(ValueError, match="by name"):
        KernelRegressor(loss=Huber(0.5), loss_params={"delta": 1.0}).fit(Xr, yr)


def test_signature_follows_the_issue():
    import inspect

    # issue 22: KernelClassifier's alpha=None is SVC's default C = 1
    for cls, loss, alpha in [(KernelClassifier, "hinge", None),
                             (KernelRegressor, "squared", 1.0)]:
        params = list(inspect.signature(cls).parameters.values())
        assert [p.name for p in params[:7]] == ["loss", "kernel", "alpha", "fit_intercept",
                                                "solver", "tol", "max_iter"]
        assert [p.default for p in params[:5]] == [loss, "rbf", alpha, True, "auto"]
    X, y = _clf_data(n=40)
    a = KernelClassifier("hinge", "rbf", 0.01, True, "auto", 1e-6, 10_000).fit(X, y)
    b = KernelClassifier(alpha=0.01, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X))


def test_regressor_predict_is_f_and_has_no_decision_function():
    # scikit-learn's contract (check_regressors_no_decision_function): predict is f(x)
    X, y = _reg_data(n=60)
    reg = KernelRegressor(loss="huber", alpha=1e-3, gamma=0.5).fit(X, y)
    f = rbf_kernel(X, reg.support_vectors_, gamma=0.5) @ reg.dual_coef_[0] + reg.intercept_[0]
    np.testing.assert_allclose(reg.predict(X), f, atol=1e-10)
    assert not hasattr(reg, "decision_function")


@pytest.mark.parametrize("loss", ["weston_watkins", "crammer_singer"])
def test_multiclass_loss_on_two_classes_gives_binary_decision(loss):
    X, y = _clf_data(n=80)
    clf = KernelClassifier(loss=loss, alpha=1e-3, gamma=0.5, tol=1e-8).fit(X, y)
    d = clf.decision_function(X)
    assert d.shape == (80,)
    F = rbf_kernel(X, clf.support_vectors_, gamma=0.5) @ clf.dual_coef_.T
    np.testing.assert_allclose(d, F[:, 1] - F[:, 0], atol=1e-10)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(d > 0).astype(int)])


def test_multi_output_regression_is_one_problem_per_column():
    from kernelkit import KernelRidge

    X, y = _reg_data(n=60)
    Y = np.column_stack([y, -2.0 * y + 1.0])
    reg = KernelRegressor(alpha=1e-2, gamma=0.5, fit_intercept=False, tol=1e-14).fit(X, Y)
    assert reg.predict(X).shape == (60, 2) and reg.dual_coef_.shape[0] == 2
    for k in range(2):
        one = KernelRegressor(alpha=1e-2, gamma=0.5, fit_intercept=False, tol=1e-14).fit(X, Y[:, k])
        np.testing.assert_allclose(reg.predict(X)[:, k], one.predict(X), atol=1e-6)
    krr = KernelRidge(alpha=60 * 1e-2, kernel="rbf", gamma=0.5).fit(X, Y)
    np.testing.assert_allclose(reg.predict(X), krr.predict(X), atol=1e-6)
    assert KernelRegressor(gamma=0.5).fit(X, Y[:, :1]).predict(X).shape == (60, 1)


def test_precomputed_kernel_is_pairwise_for_cross_validation():
    from sklearn.model_selection import cross_val_score

    X, y = _clf_data(n=60)
    K = rbf_kernel(X, gamma=0.5)
    a = cross_val_score(KernelClassifier(kernel="precomputed", alpha=1e-3), K, y, cv=3)
    b = cross_val_score(KernelClassifier(gamma=0.5, alpha=1e-3), X, y, cv=3)
    np.testing.assert_allclose(a, b)
    with pytest.raises(ValueError, match="square"):
        KernelClassifier(kernel="precomputed").fit(K[:, :50], y)


@pytest.mark.parametrize("loss", ["squared", "epsilon_insensitive"])
def test_regressor_keeps_float32(loss):
    X, y = _reg_data(n=60)
    X32 = X.astype(np.float32)
    reg = KernelRegressor(loss=loss, alpha=1e-3, gamma=0.5).fit(X32, y)
    p32 = reg.predict(X32)
    assert p32.dtype == np.float32 and reg.predict(X).dtype == np.float64
    np.testing.assert_allclose(p32, reg.predict(X), rtol=1e-4, atol=1e-4)


def test_scikit_learn_loss_spellings():
    X, y = _clf_data(n=60)
    a = KernelClassifier(loss="log_loss", alpha=1e-3, gamma=0.5).fit(X, y)
    b = KernelClassifier(loss="logistic", alpha=1e-3, gamma=0.5).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
    Xr, yr = _reg_data(n=60)
    np.testing.assert_allclose(KernelRegressor(loss="squared_error").fit(Xr, yr).predict(Xr),
                               KernelRegressor().fit(Xr, yr).predict(Xr))
