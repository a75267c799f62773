"""Posterior samples: sample mean and covariance against predict's (fixed seeds)."""

import numpy as np
import pytest

from kernelkit import GaussianProcessRegressor
from kernelkit.exceptions import JitterWarning
from kernelkit.gaussian_process._sampling import sample_from_covariance
from kernelkit.kernels import (
    RBF,
    Constant,
    Laplacian,
    Linear,
    Matern,
    RationalQuadratic,
    White,
)


def _fitted(kernel=None, normalize_y=False, targets=None):
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(40, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.05 * rng.normal(size=40)
    if targets:
        y = np.column_stack([y, 3 * y + 1])
    kernel = Constant(1.0) * RBF(1.0) if kernel is None else kernel
    return GaussianProcessRegressor(kernel, alpha=0.05, optimizer=None,
                                    normalize_y=normalize_y).fit(X, y)


XT = np.array([[0.0, 0.0], [0.3, -0.2], [2.5, 2.5], [-4.0, 1.0], [1.0, 1.0]])


def _check_moments(S, mean, cov, n_samples, cov_tol):
    # sample mean within 5 standard errors; sample covariance within cov_tol * max variance
    se = np.sqrt(np.diag(cov) / n_samples)
    assert np.all(np.abs(S.mean(axis=1) - mean) <= 5 * se + 1e-12)
    np.testing.assert_allclose(np.cov(S), cov, atol=cov_tol * np.max(np.diag(cov)))


@pytest.mark.parametrize("method, n_components, cov_tol", [
    ("cholesky", None, 0.04), ("pathwise", 4000, 0.06)])
def test_sample_moments_match_predict(method, n_components, cov_tol):
    gp = _fitted()
    mean, cov = gp.predict(XT, return_cov=True)
    kw = {} if n_components is None else dict(n_components=n_components)
    S = gp.sample_y(XT, 6000, random_state=1, method=method, **kw)
    assert S.shape == (5, 6000)
    _check_moments(S, mean, cov, 6000, cov_tol)


@pytest.mark.parametrize("kernel", [
    Matern(1.0, nu=1.5) + White(0.1), 2.0 * Laplacian(1.5),
    RationalQuadratic(1.0, alpha=0.8) * Constant(0.7)])
def test_pathwise_moments_for_other_stationary_kernels(kernel):
    gp = _fitted(kernel, normalize_y=True)
    mean, cov = gp.predict(XT, return_cov=True)
    S = gp.sample_y(XT, 6000, random_state=2, method="pathwise", n_components=4000)
    _check_moments(S, mean, cov, 6000, 0.08)


def test_prior_samples_before_fit():
    gp = GaussianProcessRegressor(Constant(2.0) * RBF(1.0))
    cov = gp.predict(XT, return_cov=True)[1]
    for method in ("cholesky", "pathwise"):
        S = gp.sample_y(XT, 6000, random_state=3, method=method)
        _check_moments(S, np.zeros(5), cov, 6000, 0.08)


def test_multi_target_shapes_and_scales():
    gp = _fitted(targets=2, normalize_y=True)
    mean, std = gp.predict(XT, return_std=True)
    for method in ("cholesky", "pathwise"):
        S = gp.sample_y(XT, 4000, random_state=4, method=method, **(
            {"n_components": 3000} if method == "pathwise" else {}))
        assert S.shape == (5, 2, 4000)
        assert np.all(np.abs(S.mean(axis=2) - mean) <= 5 * std / np.sqrt(4000) + 1e-9)
        np.testing.assert_allclose(S.std(axis=2), std, rtol=0.1)


def test_sampling_is_reproducible_and_pathwise_scales_to_many_points():
    gp = _fitted()
    a = gp.sample_y(XT, 3, random_state=7, method="pathwise")
    b = gp.sample_y(XT, 3, random_state=7, method="pathwise")
    np.testing.assert_array_equal(a, b)
    X_many = np.random.default_rng(0).uniform(-3, 3, size=(50_000, 2))
    S = gp.sample_y(X_many, 2, random_state=0, method="pathwise", n_components=500)
    assert S.shape == (50_000, 2) and np.all(np.isfinite(S))


def test_non_psd_covariance_gets_jitter_and_a_warning():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(6, 3))
    cov = V @ V.T  # rank 3: its Cholesky needs jitter
    cov -= 1e-9 * np.eye(6)  # and slightly indefinite
    with pytest.warns(JitterWarning, match="jitter"):
        S = sample_from_covariance(np.zeros(6), cov, 5000, np.random.RandomState(0))
    np.testing.assert_allclose(np.cov(S), cov, atol=0.15 * np.max(np.diag(cov)))


def test_pathwise_needs_a_stationary_kernel_and_valid_options():
    gp = _fitted(Linear() + White(0.1))
    with pytest.raises(ValueError, match="spectral density"):
        gp.sample_y(XT, 2, method="pathwise")
    with pytest.raises(ValueError, match="method"):
        gp.sample_y(XT, 2, method="svd")
    with pytest.raises(ValueError, match="n_components"):
        _fitted().sample_y(XT, 2, method="pathwise", n_components=0)


@pytest.mark.parametrize("kernel", [
    RBF([0.8, 1.5]), Matern(1.2, nu=0.5), Laplacian(1.0), RationalQuadratic(0.9, alpha=2.0),
    2.0 * RBF(1.0) + Constant(0.5) * Matern(2.0, nu=2.5),
    Constant(1.5) * RBF(1.0) * Matern(3.0, nu=1.5) + White(0.2)])
def test_spectral_sample_reproduces_the_kernel(kernel):
    # Bochner: k(x, y) = v E cos(w . (x - y)) + white [x = y], checked by Monte Carlo
    X = np.random.default_rng(0).normal(size=(6, 2))
    W, v, white = kernel.spectral_sample(2, 200_000, random_state=0)
    b = np.random.default_rng(1).uniform(0, 2 * np.pi, W.shape[1])
    Z = np.sqrt(2 * v / W.shape[1]) * np.cos(X @ W + b)
    np.testing.assert_allclose(Z @ Z.T + white * np.eye(6), kernel(X), atol=0.02)


def test_pathwise_and_condition_on_with_a_sklearn_kernel():
    # kernel_ stays the user's scikit-learn kernel after fit: pathwise sampling draws from
    # its kernelkit twin's spectral measure and condition_on extends with the same values
    import warnings

    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel

    from kernelkit import GaussianProcessRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.sin(X).sum(1)
    kernel = ConstantKernel(1.0) * SkRBF([1.0, 1.0]) + WhiteKernel(0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gp = GaussianProcessRegressor(kernel, random_state=0).fit(X[:60], y[:60])
    draws = gp.sample_y(X[:5], 4000, random_state=0, method="pathwise")
    mean, std = gp.predict(X[:5], return_std=True)
    assert np.abs(draws.mean(-1) - mean).max() < 5 * std.max() / np.sqrt(4000)
    np.testing.assert_allclose(draws.std(-1), std, rtol=0.06)
    both = gp.condition_on(X[60:], y[60:])
    ref = GaussianProcessRegressor(gp.kernel_, optimizer=None).fit(X, y)
    np.testing.assert_allclose(both.predict(X), ref.predict(X), rtol=1e-10, atol=1e-10)
