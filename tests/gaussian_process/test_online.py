"""Online updates: partial_fit / condition_on equal a fit on all the data."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from kernelkit import GaussianProcessRegressor, KernelRidge
from kernelkit.exceptions import JitterWarning
from kernelkit.kernels import RBF, Constant, White
from kernelkit.linalg import BlockCholesky


def _data(n=120, d=3, targets=None, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X).sum(axis=1) + 0.1 * rng.normal(size=n) + 3.0
    if targets:
        y = np.column_stack([y * (k + 1) for k in range(targets)])
    return X, y


def test_an_appended_block_gives_the_factor_of_the_bordered_matrix():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(30, 30))
    A = B @ B.T + 30 * np.eye(30)
    F, jitter = BlockCholesky(np.linalg.cholesky(A[:22, :22])).append(A[:22, 22:],
                                                                     A[22:, 22:].copy())
    assert jitter == 0.0
    np.testing.assert_allclose(F.dense(), np.linalg.cholesky(A), atol=1e-12)


@pytest.mark.parametrize("normalize_y", [False, True])
@pytest.mark.parametrize("targets", [None, 2])
def test_partial_fit_equals_fit_on_all_data(normalize_y, targets):
    X, y = _data(targets=targets)
    kernel = Constant(1.5) * RBF([1.0, 0.7, 1.2]) + White(0.01)
    gp = GaussianProcessRegressor(kernel, alpha=1e-3, normalize_y=normalize_y,
                                  optimizer=None).fit(X[:80], y[:80])
    gp.partial_fit(X[80:100], y[80:100]).partial_fit(X[100:], y[100:])
    ref = GaussianProcessRegressor(kernel, alpha=1e-3, normalize_y=normalize_y,
                                   optimizer=None).fit(X, y)
    np.testing.assert_allclose(gp.L_, ref.L_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(gp.alpha_, ref.alpha_, rtol=1e-10, atol=1e-10)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        ref.log_marginal_likelihood_value_, rel=1e-12)
    Xt = np.random.default_rng(5).normal(size=(15, 3))
    for a, b in zip(gp.predict(Xt, return_std=True), ref.predict(Xt, return_std=True)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_partial_fit_keeps_learned_hyperparameters():
    X, y = _data()
    gp = GaussianProcessRegressor(Constant(1.0) * RBF(1.0), alpha=1e-2).fit(X[:100], y[:100])
    theta = gp.kernel_.theta.copy()
    gp.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(gp.kernel_.theta, theta)
    ref = GaussianProcessRegressor(gp.kernel_, alpha=1e-2, optimizer=None).fit(X, y)
    np.testing.assert_allclose(gp.predict(X), ref.predict(X), atol=1e-10)


def test_condition_on_returns_a_new_model_and_leaves_the_fitted_one():
    X, y = _data()
    gp = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X[:100], y[:100])
    before = {k: np.copy(getattr(gp, k)) for k in ("L_", "alpha_", "X_train_", "y_train_")}
    new = gp.condition_on(X[100:], y[100:])
    assert new is not gp and new.X_train_.shape == (120, 3)
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(gp, k), v)
    ref = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X, y)
    np.testing.assert_allclose(new.predict(X), ref.predict(X), atol=1e-10)


def test_partial_fit_bad_input():
    X, y = _data()
    with pytest.raises(NotFittedError):
        GaussianProcessRegressor().partial_fit(X, y)
    gp = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X[:50], y[:50])
    with pytest.raises(ValueError, match="features"):
        gp.partial_fit(X[50:60, :2], y[50:60])
    with pytest.raises(ValueError, match="one row of targets"):
        gp.partial_fit(X[50:60], y[50:59])
    with pytest.raises(ValueError, match="NaN"):
        gp.partial_fit(X[50:52], [1.0, np.nan])
    per_sample = GaussianProcessRegressor(RBF(1.0), alpha=np.full(50, 1e-2),
                                          optimizer=None).fit(X[:50], y[:50])
    with pytest.raises(ValueError, match="scalar alpha"):
        per_sample.partial_fit(X[50:60], y[50:60])


def test_partial_fit_duplicated_points_get_jitter_with_a_warning():
    X, y = _data(40)
    gp = GaussianProcessRegressor(RBF(1.0), alpha=0.0, optimizer=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)
        gp.fit(X[:30], y[:30])
    with pytest.warns(JitterWarning, match="jitter"):
        gp.partial_fit(X[:2], y[:2])  # exact duplicates, no noise: singular new block
    assert gp.jitter_ > 0 and np.all(np.isfinite(gp.alpha_))


@pytest.mark.parametrize("targets", [None, 2])
def test_kernel_ridge_partial_fit_equals_fit(targets):
    X, y = _data(targets=targets)
    kr = KernelRidge(alpha=0.3, kernel="rbf", gamma=0.4, solver="cholesky").fit(X[:90], y[:90])
    kr.partial_fit(X[90:], y[90:])
    ref = KernelRidge(alpha=0.3, kernel="rbf", gamma=0.4, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(kr.dual_coef_, ref.dual_coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kr.predict(X), ref.predict(X), atol=1e-10)
    new = kr.condition_on(X[:3], y[:3])
    assert kr.X_fit_.shape[0] == 120 and new.X_fit_.shape[0] == 123


def test_kernel_ridge_partial_fit_states_what_it_supports():
    X, y = _data()
    with pytest.raises(NotFittedError):
        KernelRidge().partial_fit(X, y)
    for kw, fit_kw in [(dict(solver="cg"), {}), (dict(fit_intercept=True), {}),
                       ({}, dict(sample_weight=np.ones(100)))]:
        kr = KernelRidge(kernel="rbf", **kw).fit(X[:100], y[:100], **fit_kw)
        with pytest.raises(ValueError, match="partial_fit supports"):
            kr.partial_fit(X[100:], y[100:])
    kr = KernelRidge(kernel="rbf", solver="cholesky").fit(X[:100], y[:100])
    with pytest.raises(ValueError, match="features"):
        kr.partial_fit(X[100:, :2], y[100:])


def test_partial_fit_appends_to_the_factor_without_copying_it(tmp_path):
    """The fitted n x n factor stays where it is (no O(n^2) copy per update), the model
    predicts as a fit on all data, and it survives a model file."""
    from kernelkit import load, save

    X, y = _data()
    gp = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X[:90], y[:90])
    L0 = gp.L_
    gp.partial_fit(X[90:110], y[90:110]).partial_fit(X[110:], y[110:])
    assert gp._factor().diag_blocks[0] is L0
    ref = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X, y)
    Xt = np.random.default_rng(3).normal(size=(7, 3))
    back = load(save(gp, tmp_path / "gp.kkm"))
    for model in (gp, back):
        for a, b in zip(model.predict(Xt, return_cov=True), ref.predict(Xt, return_cov=True)):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(model.sample_y(Xt, 3, method="pathwise"),
                                   gp.sample_y(Xt, 3, method="pathwise"), rtol=1e-12)


def test_a_model_state_holding_a_dense_L_still_predicts():
    """Model files written before the factor was held by blocks store ``L_`` itself."""
    X, y = _data()
    gp = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X, y)
    expected = gp.predict(X[:5], return_std=True)
    gp.__dict__["L_"] = gp.__dict__.pop("_chol").dense()
    for a, b in zip(gp.predict(X[:5], return_std=True), expected):
        np.testing.assert_array_equal(a, b)
    assert not hasattr(GaussianProcessRegressor(), "L_")
