"""LinearRegression (MLE), Ridge (MAP) and BayesianLinearRegression against formulas and peers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import Ridge as SkRidge

from kernelkit import BayesianLinearRegression, GaussianProcessRegressor, LinearRegression, Ridge
from kernelkit.kernels import FeatureMap
from tests.reference.regression import augmented, blr_posterior, gp_lml, ols, ridge


def _rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 3.0 + 0.3 * rng.normal(size=40)
    return X, y, rng.uniform(0.2, 2.0, size=40)


def _phi(X):
    return np.hstack([np.ones((len(X), 1)), X, X**2])


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_linear_regression_matches_sklearn(data, fit_intercept, weighted):
    X, y, sw = data
    Y = np.c_[y, -2 * y + 1]
    w = sw if weighted else None
    ours = LinearRegression(fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
    peer = SkLinearRegression(fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
    assert _rel(ours.coef_, peer.coef_) < 1e-8
    assert _rel(ours.predict(X), peer.predict(X)) < 1e-8


def test_linear_regression_is_the_mle(data):
    X, y, _ = data
    m = LinearRegression().fit(X, y)
    coef, b = ols(X, y)
    assert _rel(m.coef_, coef) < 1e-10 and abs(m.intercept_ - b) < 1e-10
    rss = np.sum((y - X @ coef - b) ** 2)
    assert m.noise_variance_ == pytest.approx(rss / len(y), rel=1e-12)  # sigma^2 = RSS / n
    # log-likelihood at the MLE equals the sum of Gaussian log densities
    ll = norm.logpdf(y, X @ coef + b, np.sqrt(rss / len(y))).sum()
    assert m.log_likelihood_ == pytest.approx(ll, rel=1e-12)


def test_linear_regression_predictive_std(data):
    X, y, _ = data
    m = LinearRegression().fit(X, y)
    A = augmented(X)
    Xt = np.random.default_rng(1).normal(size=(5, 3))
    At = augmented(Xt)
    # sigma^2 (1 + a^T (A^T A)^-1 a)
    var = m.noise_variance_ * (1 + np.einsum("ij,jk,ik->i", At, np.linalg.inv(A.T @ A), At))
    _, std = m.predict(Xt, return_std=True)
    assert _rel(std, np.sqrt(var)) < 1e-10


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_ridge_matches_sklearn(data, fit_intercept, weighted):
    X, y, sw = data
    Y = np.c_[y, y**2]
    w = sw if weighted else None
    for alpha in (0.7, [0.5, 4.0]):
        ours = Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
        peer = SkRidge(alpha=alpha, fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
        assert _rel(ours.coef_, peer.coef_) < 1e-8
        assert _rel(ours.predict(X), peer.predict(X)) < 1e-8


def _log_posterior(theta, b, s2, X, y, lam):
    # log N(y; X theta + b, s2 I) + log N(theta; 0, s2 / lam I)
    return (norm.logpdf(y, X @ theta + b, np.sqrt(s2)).sum()
            + norm.logpdf(theta, 0.0, np.sqrt(s2 / lam)).sum())


def test_ridge_is_the_map(data):
    X, y, _ = data
    lam = 2.5
    m = Ridge(alpha=lam).fit(X, y)
    theta, b = ridge(X, y, lam)
    assert _rel(m.coef_, theta) < 1e-10 and abs(m.intercept_ - b) < 1e-10
    assert m.prior_variance_ == pytest.approx(m.noise_variance_ / lam)
    best = _log_posterior(m.coef_, m.intercept_, m.noise_variance_, X, y, lam)
    assert m.penalized_log_likelihood_ == pytest.approx(best, rel=1e-12)
    rng = np.random.default_rng(3)
    for _ in range(20):  # the joint mode: every perturbation lowers the log posterior
        d = 1e-3 * rng.normal(size=3)
        s2 = m.noise_variance_ * np.exp(1e-3 * rng.normal())
        assert _log_posterior(m.coef_ + d, m.intercept_, s2, X, y, lam) < best


def test_ridge_bad_alpha(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="alpha"):
        Ridge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="targets"):
        Ridge(alpha=[1.0, 2.0, 3.0]).fit(X, np.c_[y, y])


def test_bayesian_linear_regression_formula(data):
    X, y, _ = data
    m = BayesianLinearRegression(features=_phi, alpha=2.0, noise=0.3).fit(X, y)
    mu, S = blr_posterior(_phi(X), y, 2.0, 0.3)
    assert _rel(m.coef_, mu) < 1e-10 and _rel(m.sigma_, S) < 1e-10
    K = _phi(X) @ _phi(X).T / 2.0
    assert m.log_marginal_likelihood_value_ == pytest.approx(gp_lml(K, y, 0.3), rel=1e-10)
    # the posterior mean of the weights is ridge with lambda = noise * alpha (no intercept)
    r = Ridge(alpha=0.3 * 2.0, fit_intercept=False).fit(_phi(X), y)
    assert _rel(m.coef_, r.coef_) < 1e-8


def test_bayesian_linear_regression_equals_gp_with_feature_map(data):
    X, y, _ = data
    Xt = np.random.default_rng(5).normal(size=(7, 3))
    blr = BayesianLinearRegression(features=_phi, noise=0.25).fit(X, y)
    gp = GaussianProcessRegressor(kernel=FeatureMap(_phi), alpha=0.25, optimizer=None).fit(X, y)
    m1, s1 = blr.predict(Xt, return_std=True)
    m2, s2 = gp.predict(Xt, return_std=True)
    assert _rel(m1, m2) < 1e-8 and _rel(s1, s2) < 1e-8
    _, c1 = blr.predict(Xt, return_cov=True)
    _, c2 = gp.predict(Xt, return_cov=True)
    assert _rel(c1, c2) < 1e-8
    assert blr.log_marginal_likelihood_value_ == pytest.approx(
        gp.log_marginal_likelihood_value_, rel=1e-10)
    assert np.all(s1 >= 0)


def test_bayesian_linear_regression_bad_input(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="noise"):
        BayesianLinearRegression(noise=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        BayesianLinearRegression(features="x").fit(X, y)
    m = BayesianLinearRegression().fit(X, y)
    with pytest.raises(ValueError):
        m.predict(X[:, :2])


@pytest.mark.parametrize("ours, peer", [(LinearRegression, SkLinearRegression), (Ridge, SkRidge)])
def test_constructor_is_a_drop_in_for_sklearn(ours, peer):
    # every scikit-learn argument, with scikit-learn's default
    ours_p, peer_p = ours().get_params(), peer().get_params()
    for name, default in peer_p.items():
        assert name in ours_p and ours_p[name] == default, name
    assert ours(**peer_p).fit(np.eye(3), [1.0, 2.0, 3.0]).coef_.shape == (3,)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_positive_matches_sklearn(data, fit_intercept, weighted):
    X, y, sw = data
    Y = np.c_[y, -y + X[:, 0]]  # the second target has active constraints
    w = sw if weighted else None
    ours = LinearRegression(positive=True, fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
    peer = SkLinearRegression(positive=True, fit_intercept=fit_intercept).fit(
        X, Y, sample_weight=w)
    assert np.all(ours.coef_ >= 0) and np.any(ours.coef_ == 0)
    assert _rel(ours.coef_, peer.coef_) < 1e-8 and _rel(ours.predict(X), peer.predict(X)) < 1e-8
    for alpha in (0.7, [0.5, 4.0]):
        r = Ridge(alpha, positive=True, fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # lbfgs to a tight tol
            p = SkRidge(alpha, positive=True, fit_intercept=fit_intercept, tol=1e-14,
                        max_iter=100_000).fit(X, Y, sample_weight=w)
        assert r.solver_ == "nnls" and np.all(r.coef_ >= 0)
        assert _rel(r.coef_, p.coef_) < 1e-7
        # KKT of min ||sqrt(w)(y - X c - b)||^2 + alpha ||c||^2, c >= 0: the gradient is 0
        # where c > 0 and >= 0 where c = 0
        s = np.ones(len(y)) if w is None else w
        a = np.broadcast_to(alpha, (2,))
        for j in range(2):
            resid = Y[:, j] - X @ r.coef_[j] - np.broadcast_to(r.intercept_, (2,))[j]
            grad = -2 * X.T @ (s * resid) + 2 * a[j] * r.coef_[j]
            act = r.coef_[j] > 0
            assert np.all(np.abs(grad[act]) < 1e-8) and np.all(grad[~act] > -1e-8)


def test_ridge_solver_arguments(data):
    X, y, _ = data
    ref = Ridge(alpha=0.7).fit(X, y)
    for solver in ("svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga"):
        m = Ridge(alpha=0.7, solver=solver).fit(X, y)
        assert _rel(m.coef_, ref.coef_) < 1e-12 and m.solver_ == "svd" and m.n_iter_ == 1
    with pytest.raises(ValueError, match="solver"):
        Ridge(solver="qr").fit(X, y)
    with pytest.raises(ValueError, match="positive"):
        Ridge(solver="svd", positive=True).fit(X, y)
    with pytest.raises(ValueError, match="positive"):
        Ridge(solver="lbfgs").fit(X, y)


@pytest.mark.parametrize("model", [LinearRegression(), Ridge(alpha=0.5)])
def test_float32_stays_float32(data, model):
    X, y, _ = data
    m = model.fit(X.astype(np.float32), y.astype(np.float32))
    assert m.coef_.dtype == np.float32 and m.predict(X.astype(np.float32)).dtype == np.float32
    ref = type(model)(**model.get_params()).fit(X, y)
    assert _rel(m.coef_, ref.coef_) < 1e-5


@pytest.mark.parametrize("ours, peer", [(LinearRegression, SkLinearRegression), (Ridge, SkRidge)])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_targets", [None, 1, 2])
def test_fitted_shapes_match_sklearn(data, ours, peer, fit_intercept, n_targets):
    # incl. scikit-learn's Ridge quirk: an (n, 1) y gives coef_ (d,) and 1-D predictions
    X, y, _ = data
    Y = y if n_targets is None else np.c_[[y * (k + 1) for k in range(n_targets)]].T
    a = ours(fit_intercept=fit_intercept).fit(X, Y)
    b = peer(fit_intercept=fit_intercept).fit(X, Y)
    assert a.coef_.shape == b.coef_.shape
    assert np.shape(a.intercept_) == np.shape(b.intercept_)
    assert a.predict(X).shape == b.predict(X).shape
    assert _rel(a.predict(X), b.predict(X)) < 1e-8
    assert a.predict(X, return_std=True)[1].shape == b.predict(X).shape


def test_issue_22_drop_in_gaps():
    """1-D y: intercept_ is a NumPy float64 scalar; positive=True with a small max_iter
    returns its iterate with a ConvergenceWarning; scikit-learn's penalty-count phrase."""
    from sklearn.exceptions import ConvergenceWarning

    from kernelkit import LinearRegression, Ridge

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 12))
    y = X @ rng.normal(size=12) + rng.normal(size=40)
    for est in (LinearRegression(), Ridge()):
        b = est.fit(X, y).intercept_
        assert isinstance(b, np.float64) and b.shape == ()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = Ridge(positive=True, max_iter=1).fit(X, y)
    assert np.all(model.coef_ >= 0) and np.all(np.isfinite(model.coef_))
    with pytest.raises(ValueError, match="Number of targets and number of penalties do not "
                                         "correspond: 2 != 3"):
        Ridge(alpha=[1.0, 2.0]).fit(X, np.column_stack([y, y, y]))
