"""GaussianProcessRegressor against Algorithm 2.1, naive references and scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel as SkConstant
from sklearn.gaussian_process.kernels import WhiteKernel as SkWhite

from kernelkit import GaussianProcessRegressor
from kernelkit.exceptions import JitterWarning
from kernelkit.gaussian_process._marginal_likelihood import log_marginal_likelihood
from kernelkit.kernels import RBF, Constant, Matern, RationalQuadratic, White
from tests.reference.regression import gp_lml, gp_posterior


def _rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(30, 2))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] ** 2 + 0.1 * rng.normal(size=30)
    return X, y, rng.uniform(-2.5, 2.5, size=(12, 2))


def _pair(ard=True):
    ls = np.array([1.0, 1.5]) if ard else 1.0
    return (Constant(2.0) * RBF(ls) + White(0.1),
            SkConstant(2.0) * SkRBF(ls) + SkWhite(0.1))


def test_fixed_kernel_posterior_matches_reference_and_sklearn(data):
    X, y, Xt = data
    k = 1.5 * RBF(np.array([0.7, 1.2]))
    ours = GaussianProcessRegressor(k, alpha=0.05, optimizer=None).fit(X, y)
    mean, cov = gp_posterior(k(X), k(Xt, X), k(Xt), y, 0.05)
    m, s = ours.predict(Xt, return_std=True)
    m2, c = ours.predict(Xt, return_cov=True)
    assert _rel(m, mean) < 1e-10 and _rel(m2, mean) < 1e-10 and _rel(c, cov) < 1e-8
    assert _rel(s, np.sqrt(np.diag(cov))) < 1e-8
    assert ours.log_marginal_likelihood_value_ == pytest.approx(gp_lml(k(X), y, 0.05), rel=1e-10)
    peer = SkGPR(SkConstant(1.5) * SkRBF([0.7, 1.2]), alpha=0.05, optimizer=None).fit(X, y)
    pm, ps = peer.predict(Xt, return_std=True)
    assert _rel(m, pm) < 1e-8 and _rel(s, ps) < 1e-8
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        peer.log_marginal_likelihood_value_, rel=1e-8)
    np.testing.assert_allclose(ours.L_, peer.L_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ours.alpha_, peer.alpha_, rtol=1e-8)


def test_lml_and_gradient_match_sklearn_and_finite_differences(data):
    X, y, _ = data
    ours_k, sk_k = _pair()
    ours = GaussianProcessRegressor(ours_k, optimizer=None).fit(X, y)
    peer = SkGPR(sk_k, optimizer=None).fit(X, y)
    theta = ours_k.theta + np.array([0.2, -0.3, 0.1, -0.5])
    lml, grad = ours.log_marginal_likelihood(theta, eval_gradient=True)
    plml, pgrad = peer.log_marginal_likelihood(theta, eval_gradient=True)
    assert lml == pytest.approx(plml, rel=1e-8)
    np.testing.assert_allclose(grad, pgrad, rtol=1e-7, atol=1e-9)
    h = 1e-6
    lml_at = ours.log_marginal_likelihood
    fd = [(lml_at(theta + h * e) - lml_at(theta - h * e)) / (2 * h) for e in np.eye(len(theta))]
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kernel", [Matern(1.0, nu=2.5) + White(0.1),
                                    RationalQuadratic(1.0, 1.0) * Constant(1.0)])
def test_gradient_finite_differences_other_kernels(data, kernel):
    X, y, _ = data
    Y = np.c_[y, y**2]  # multi-target: the LML sums over targets
    theta = kernel.theta
    lml, grad = log_marginal_likelihood(kernel, X, Y, 1e-2, eval_gradient=True)
    h = 1e-6
    for j in range(len(theta)):
        e = np.eye(len(theta))[j] * h
        fd = (log_marginal_likelihood(kernel.clone_with_theta(theta + e), X, Y, 1e-2)
              - log_marginal_likelihood(kernel.clone_with_theta(theta - e), X, Y, 1e-2)) / (2 * h)
        assert grad[j] == pytest.approx(fd, rel=1e-5, abs=1e-6)


def test_optimized_fit_matches_sklearn(data):
    X, y, Xt = data
    ours_k, sk_k = _pair()
    ours = GaussianProcessRegressor(ours_k).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = SkGPR(sk_k).fit(X, y)
    peer_lml = peer.log_marginal_likelihood_value_
    assert ours.log_marginal_likelihood_value_ >= peer_lml - 1e-8 * abs(peer_lml)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        peer.log_marginal_likelihood_value_, rel=1e-8)
    assert _rel(ours.predict(Xt), peer.predict(Xt)) < 1e-5
    assert ours_k.theta == pytest.approx(_pair()[0].theta)  # the constructor kernel is untouched


def test_restarts_normalize_y_and_sklearn_kernel(data):
    X, y, Xt = data
    _, sk_k = _pair(ard=False)
    X, y = X[:20], y[:20]
    kw = dict(n_restarts_optimizer=1, random_state=0, normalize_y=True)
    ours = GaussianProcessRegressor(sk_k, **kw).fit(X, 5 * y + 3)  # a scikit-learn kernel object
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = SkGPR(sk_k, **kw).fit(X, 5 * y + 3)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        peer.log_marginal_likelihood_value_, rel=1e-6)
    m, s = ours.predict(Xt, return_std=True)
    pm, ps = peer.predict(Xt, return_std=True)
    assert _rel(m, pm) < 1e-5 and _rel(s, ps) < 1e-4
    assert sk_k.theta == pytest.approx(_pair(ard=False)[1].theta)
    again = GaussianProcessRegressor(sk_k, **kw).fit(X, 5 * y + 3)
    assert np.array_equal(again.kernel_.theta, ours.kernel_.theta)


def test_multi_target_matches_sklearn(data):
    X, y, Xt = data
    Y = np.c_[y, 2 * y - 1]
    k = RBF(1.0)
    ours = GaussianProcessRegressor(k, alpha=0.1, optimizer=None, normalize_y=True).fit(X, Y)
    peer = SkGPR(SkRBF(1.0), alpha=0.1, optimizer=None, normalize_y=True).fit(X, Y)
    for kw in ({}, {"return_std": True}, {"return_cov": True}):
        a, b = ours.predict(Xt, **kw), peer.predict(Xt, **kw)
        for u, v in zip(a if kw else [a], b if kw else [b]):
            assert u.shape == v.shape and _rel(u, v) < 1e-8
    assert ours.sample_y(Xt, 3).shape == peer.sample_y(Xt, 3).shape == (12, 2, 3)


def test_default_kernel_and_prior_before_fit(data):
    X, y, Xt = data
    gp = GaussianProcessRegressor()
    m, s = gp.predict(Xt, return_std=True)  # the prior: zero mean, unit variance
    assert np.all(m == 0) and np.allclose(s, 1.0)
    # same distribution as scikit-learn's prior draws, not the same numbers (Cholesky
    # factor instead of SVD; moments checked in test_sampling.py)
    prior = gp.sample_y(Xt, 2, random_state=1)
    assert prior.shape == SkGPR().sample_y(Xt, 2, random_state=1).shape
    # the default C * RBF, optimized, puts the length scale at its bound here, and says so
    # in the same words as scikit-learn
    with pytest.warns(ConvergenceWarning, match="k2__length_scale is close to the specified"):
        gp.fit(X, y)
    with pytest.warns(ConvergenceWarning, match="k2__length_scale is close to the specified"):
        peer = SkGPR().fit(X, y)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        peer.log_marginal_likelihood_value_, rel=1e-8)
    post = gp.sample_y(Xt, 2, random_state=1)
    mean, std = peer.predict(Xt, return_std=True)
    assert post.shape == (len(Xt), 2)
    assert np.all(np.abs(post - mean[:, None]) <= 6 * std[:, None] + 1e-6)


def test_noise_free_interpolation(data):
    X, y, _ = data
    gp = GaussianProcessRegressor(RBF(0.8), optimizer=None).fit(X, y)  # alpha = 1e-10
    m, s = gp.predict(X, return_std=True)
    np.testing.assert_allclose(m, y, atol=1e-6)  # passes through the targets
    assert np.all(s >= 0) and np.all(s < 1e-3)  # ~0 variance at the training points


def test_duplicated_inputs_without_noise_jitter(data):
    X, y, Xt = data
    X2, y2 = np.vstack([X, X[:3]]), np.r_[y, y[:3]]
    with pytest.warns(JitterWarning, match="jitter"):
        gp = GaussianProcessRegressor(RBF(1.0), alpha=0.0, optimizer=None).fit(X2, y2)
    assert gp.jitter_ > 0
    m, s = gp.predict(Xt, return_std=True)
    assert np.all(np.isfinite(m)) and np.all(s >= 0)


@pytest.mark.parametrize("seed", range(3))
def test_variance_nonnegative(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(25, 1))
    gp = GaussianProcessRegressor(RBF(0.3) + White(1e-8), optimizer=None)
    gp.fit(X, rng.normal(size=25))
    Xt = np.r_[X, rng.uniform(-1, 2, size=(40, 1))]
    _, s = gp.predict(Xt, return_std=True)
    _, c = gp.predict(Xt, return_cov=True)
    assert np.all(s >= 0) and np.all(np.diag(c) > -1e-8)


def test_bad_input(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="alpha"):
        GaussianProcessRegressor(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        GaussianProcessRegressor(alpha=np.ones(5)).fit(X, y)
    with pytest.raises(ValueError):
        GaussianProcessRegressor().fit(X, np.where(np.arange(len(y)) == 1, np.nan, y))
    with pytest.raises(ValueError, match="n_targets"):
        GaussianProcessRegressor(n_targets=2).fit(X, y)
    with pytest.raises(RuntimeError):
        GaussianProcessRegressor().predict(X, return_std=True, return_cov=True)
    gp = GaussianProcessRegressor(RBF(1.0), optimizer=None).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        gp.predict(X[:, :1])
    with pytest.raises(ValueError, match="optimizer"):
        GaussianProcessRegressor(RBF(1.0), optimizer="bfgs").fit(X, y)


@pytest.mark.parametrize("kernel", [Constant(2.0) * RBF(np.array([1.0, 1.5])) + White(0.1),
                                    Matern(1.0, nu=1.5) + White(0.1)])
def test_optimizer_never_builds_the_gradient_tensor(data, kernel, monkeypatch):
    # the LML gradient is 1/2 sum_ij (a a^T - K^-1)_ij (dK/dtheta_j)_ij one parameter at a
    # time: the (n, n, p) tensor of kernel(X, eval_gradient=True) is never asked for
    X, y, Xt = data
    from kernelkit.kernels.base import Kernel

    original = Kernel.__call__

    def no_tensor(self, X, Y=None, eval_gradient=False):
        assert not eval_gradient, "the (n, n, p) gradient tensor was built"
        return original(self, X, Y)

    monkeypatch.setattr(Kernel, "__call__", no_tensor)
    gp = GaussianProcessRegressor(kernel, n_restarts_optimizer=1, random_state=0).fit(X, y)
    lml, grad = gp.log_marginal_likelihood(gp.kernel_.theta, eval_gradient=True)
    assert lml == pytest.approx(gp.log_marginal_likelihood_value_, rel=1e-10)
    # at the optimum the gradient vanishes in the coordinates not at a bound
    free = np.all(np.abs(gp.kernel_.theta[:, None] - gp.kernel_.bounds) > 1e-6, axis=1)
    assert np.all(np.abs(grad[free]) < 1e-3 * max(1.0, abs(lml)))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_single_column_y_gives_sklearn_shapes(data, normalize_y):
    X, y, Xt = data
    Y = y[:, None]  # one target as an (n, 1) column: scikit-learn answers in 1-D
    ours = GaussianProcessRegressor(RBF(1.0), optimizer=None, normalize_y=normalize_y).fit(X, Y)
    peer = SkGPR(SkRBF(1.0), optimizer=None, normalize_y=normalize_y).fit(X, Y)
    for kw in ({}, {"return_std": True}, {"return_cov": True}):
        a, b = ours.predict(Xt, **kw), peer.predict(Xt, **kw)
        for u, v in zip(a if kw else [a], b if kw else [b]):
            assert u.shape == v.shape and _rel(u, v) < 1e-8
    assert ours.sample_y(Xt, 3).shape == peer.sample_y(Xt, 3).shape == (12, 3)
    assert ours.alpha_.shape == peer.alpha_.shape == (30, 1)


def test_sklearn_kernel_attributes_readable_from_kernel_(data):
    # drop-in: a scikit-learn kernel's fitted parts read as in scikit-learn
    X, y, _ = data
    _, sk_k = _pair(ard=False)
    ours = GaussianProcessRegressor(sk_k).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = SkGPR(sk_k).fit(X, y)
    assert ours.kernel_.k2.noise_level == pytest.approx(peer.kernel_.k2.noise_level, rel=1e-5)
    assert ours.kernel_.k1.k2.length_scale == pytest.approx(
        peer.kernel_.k1.k2.length_scale, rel=1e-5)
    assert not hasattr(ours.kernel_, "no_such_attribute")
