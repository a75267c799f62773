"""SparseGaussianProcessRegressor: the collapsed bound, its gradients, its identities."""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kernelkit import (
    GaussianProcessRegressor,
    NystromKernelRidge,
    SparseGaussianProcessRegressor,
)
from kernelkit.exceptions import JitterWarning
from kernelkit.gaussian_process import sgpr as sgpr_module
from kernelkit.gaussian_process._collapsed_bound import (
    _times_upper,
    collapsed_bound,
    kernel_blocks,
)
from kernelkit.gaussian_process._marginal_likelihood import log_marginal_likelihood
from kernelkit.gaussian_process._rows import InMemoryRows
from kernelkit.kernels import RBF, Constant, Matern, White


@pytest.fixture(autouse=True)
def _one_thread():
    """Small problems: one BLAS / numba thread (thread wake-ups dominate otherwise)."""
    n_threads = numba.get_num_threads()
    numba.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        yield
    numba.set_num_threads(n_threads)


def _data(n=80, d=3, seed=0, t=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = np.column_stack([np.sin(X[:, 0]) + 0.3 * np.cos(X[:, 1] + k) for k in range(t)])
    Y += 0.1 * rng.normal(size=Y.shape)
    return X, Y


def _naive_elbo(kernel, Z, s, X, Y):
    """Titsias (2009) eq. 9 by dense linear algebra: log N(y | 0, Q + s I) - tr(K - Q)/(2s)."""
    Knm, Kmm = kernel(X, Z), kernel(Z)
    Q = Knm @ np.linalg.solve(Kmm, Knm.T)
    C = Q + s * np.eye(len(X))
    _, logdet = np.linalg.slogdet(C)
    n, t = Y.shape
    quad = np.sum(Y * np.linalg.solve(C, Y))
    return (-0.5 * quad - 0.5 * t * logdet - 0.5 * n * t * np.log(2 * np.pi)
            - 0.5 * t * np.trace(kernel(X) - Q) / s)


KERNELS = [Constant(1.3) * RBF([0.8, 1.1, 1.5]), 2.0 * Matern(1.2, nu=2.5) + Constant(0.3),
           RBF(0.9) * Matern(1.4, nu=1.5) + White(0.05)]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("t", [1, 2])
def test_bound_equals_naive_formula(kernel, t):
    X, Y = _data(t=t)
    Z = X[::7] + 0.05
    b = collapsed_bound(kernel, Z, 0.2, InMemoryRows(X, Y, 13))
    assert b.value == pytest.approx(_naive_elbo(kernel, Z, 0.2, X, Y), rel=1e-10)


@pytest.mark.parametrize("kernel", KERNELS)
def test_bound_gradient_matches_finite_differences(kernel):
    X, Y = _data(t=2)
    Z = X[::8] + 0.1
    rows = InMemoryRows(X, Y, 17)  # several blocks, the last one shorter
    s, h = 0.2, 1e-6
    b = collapsed_bound(kernel, Z, s, rows, gradient=True)
    th = kernel.theta
    for j in range(th.size):
        e = np.zeros_like(th)
        e[j] = h
        fd = (collapsed_bound(kernel.clone_with_theta(th + e), Z, s, rows).value
              - collapsed_bound(kernel.clone_with_theta(th - e), Z, s, rows).value) / (2 * h)
        assert b.grad_theta[j] == pytest.approx(fd, rel=1e-6, abs=1e-6)
    fd = (collapsed_bound(kernel, Z, s * np.exp(h), rows).value
          - collapsed_bound(kernel, Z, s * np.exp(-h), rows).value) / (2 * h)
    assert b.grad_log_noise == pytest.approx(fd, rel=1e-6, abs=1e-6)


class _CountingRBF(RBF):
    """RBF counting its kernel evaluations (K(X, Y) blocks and K(Z)), whether called or
    formed from its tile factors (the bound's blocks, written into reused memory)."""

    calls = 0

    def __call__(self, X, Y=None, eval_gradient=False):
        type(self).calls += 1
        return super().__call__(X, Y, eval_gradient=eval_gradient)

    def tile_factors(self, X, Y=None):
        type(self).calls += 1
        return super().tile_factors(X, Y)


def test_gradient_pass_reuses_the_kernel_blocks_within_working_memory():
    """K_nM is computed once per evaluation when it fits working_memory, twice otherwise,
    with the same value and gradient either way."""
    from sklearn import config_context

    X, Y = _data(n=90, t=2)
    Z = X[::9] + 0.1
    kernel = _CountingRBF([0.8, 1.1, 1.5])
    rows = InMemoryRows(X, Y, 20)  # 5 blocks, the last one shorter
    counts, bounds = [], []
    for wm in (1024, 1e-4):  # MiB: K_nM (90 x 10 floats) fits, then does not
        _CountingRBF.calls = 0
        with config_context(working_memory=wm):
            bounds.append(collapsed_bound(kernel, Z, 0.2, rows, gradient=True))
        counts.append(_CountingRBF.calls)
    assert counts[1] - counts[0] == 5  # one K_bM evaluation saved per block
    assert bounds[0].value == bounds[1].value
    np.testing.assert_allclose(bounds[0].grad_theta, bounds[1].grad_theta, rtol=1e-13)
    assert bounds[0].grad_log_noise == pytest.approx(bounds[1].grad_log_noise, rel=1e-13)


def test_bound_on_worker_threads_with_a_store_reused_across_evaluations():
    """Row blocks on two threads and one store of kernel blocks for successive evaluations
    (the optimizer's case) give the single-threaded bound; the kept blocks' memory is
    written again, not replaced."""
    X, Y = _data(n=300, t=2)
    Z = X[::10] + 0.1
    k1 = Constant(1.3) * RBF([0.8, 1.1, 1.5])
    k2 = k1.clone_with_theta(k1.theta + 0.2)
    rows = InMemoryRows(X, Y, 32)  # 10 blocks, the last one shorter
    refs = [collapsed_bound(k, Z, 0.2, rows, gradient=True) for k in (k1, k2)]
    blocks = kernel_blocks(rows, len(Z))
    with threadpool_limits(limits=2, user_api="blas"):
        got = [collapsed_bound(k1, Z, 0.2, rows, gradient=True, blocks=blocks)]
        kept = dict(blocks._kept)
        got.append(collapsed_bound(k2, Z, 0.2, rows, gradient=True, blocks=blocks))
    assert len(kept) == 10 and all(blocks._kept[key] is a for key, a in kept.items())
    assert len(blocks._arenas) == 2  # both workers took blocks
    for b, ref in zip(got, refs):
        assert b.value == pytest.approx(ref.value, rel=1e-13)
        np.testing.assert_allclose(b.grad_theta, ref.grad_theta, rtol=1e-12)
        assert b.grad_log_noise == pytest.approx(ref.grad_log_noise, rel=1e-12)


@pytest.mark.parametrize("m", [5, 127, 128, 300, 513])
def test_product_with_upper_triangle_skips_its_zero_blocks_exactly(m):
    rng = np.random.default_rng(m)
    K, U = rng.normal(size=(40, m)), np.triu(rng.normal(size=(m, m)))
    np.testing.assert_allclose(_times_upper(K, U, np.empty((40, m))), K @ U, rtol=1e-12,
                               atol=1e-12)


def test_first_trial_step_of_the_optimizer_has_unit_length(monkeypatch):
    """From a start whose per-observation gradient is large (noise 1e-3 against data noise
    0.1), L-BFGS-B's first trial point is one unit away (not the raw gradient step), the
    start is evaluated once, and the fit still converges."""
    X, Y = _data(n=400)
    points = []
    bound = sgpr_module.collapsed_bound

    def recording(kernel, Z, s, rows, **kw):
        points.append(np.r_[kernel.theta, np.log(s)])
        return bound(kernel, Z, s, rows, **kw)

    monkeypatch.setattr(sgpr_module, "collapsed_bound", recording)
    gp = SparseGaussianProcessRegressor(Constant(1.0) * RBF(np.ones(3)),
                                        inducing_points=X[::20], noise_variance=1e-3)
    gp.fit(X, Y[:, 0])
    x0 = points[0]
    assert sum(np.array_equal(x, x0) for x in points[:-1]) == 1
    assert np.linalg.norm(points[1] - x0) == pytest.approx(1.0, rel=1e-6)
    start = collapsed_bound(Constant(1.0) * RBF(np.ones(3)), X[::20], 1e-3,
                            InMemoryRows(X, Y[:, :1], 64), gradient=True)
    assert np.linalg.norm(np.r_[start.grad_theta, start.grad_log_noise]) / len(X) > 1.0
    assert gp.elbo_ > start.value and 0.005 < gp.noise_variance_ < 0.02


def test_inducing_gradient_matches_finite_differences():
    X, Y = _data()
    Z = X[::8] + 0.1
    kernel = Constant(1.3) * RBF([0.8, 1.1, 1.5]) + White(0.01)
    rows = InMemoryRows(X, Y, 23)
    b = collapsed_bound(kernel, Z, 0.2, rows, gradient=True, inducing_gradient=True)
    h = 1e-6
    fd = np.empty_like(Z)
    for a in range(Z.shape[0]):
        for f in range(Z.shape[1]):
            Zp, Zm = Z.copy(), Z.copy()
            Zp[a, f] += h
            Zm[a, f] -= h
            fd[a, f] = (collapsed_bound(kernel, Zp, 0.2, rows).value
                        - collapsed_bound(kernel, Zm, 0.2, rows).value) / (2 * h)
    np.testing.assert_allclose(b.grad_inducing, fd, rtol=1e-5, atol=1e-6)


def test_bound_with_all_points_is_exact_lml_and_lower_bound_otherwise():
    X, Y = _data(n=50)
    kernel = Constant(1.3) * RBF([0.8, 1.1, 1.5])
    exact = log_marginal_likelihood(kernel, X, Y, 0.2)
    assert collapsed_bound(kernel, X, 0.2, InMemoryRows(X, Y, 64)).value == pytest.approx(
        exact, rel=1e-10)
    rng = np.random.default_rng(1)
    for m in (3, 10, 30):  # ELBO <= log p(y), with any inducing points
        Z = rng.normal(size=(m, 3))
        assert collapsed_bound(kernel, Z, 0.2, InMemoryRows(X, Y, 64)).value <= exact


def test_z_equals_x_reproduces_gaussian_process_regressor():
    X, Y = _data(n=40)
    y = Y[:, 0]
    kernel = Constant(1.3) * RBF([0.8, 1.1, 1.5])
    gp = GaussianProcessRegressor(kernel, alpha=0.2, optimizer=None).fit(X, y)
    sgp = SparseGaussianProcessRegressor(kernel, inducing_points=X, noise_variance=0.2,
                                         optimizer=None).fit(X, y)
    Xt = _data(n=15, seed=3)[0]
    m1, s1 = gp.predict(Xt, return_std=True)
    m2, s2 = sgp.predict(Xt, return_std=True)
    np.testing.assert_allclose(m2, m1, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(s2, s1, rtol=1e-6, atol=1e-8)
    _, c1 = gp.predict(Xt, return_cov=True)
    _, c2 = sgp.predict(Xt, return_cov=True)
    np.testing.assert_allclose(c2, c1, atol=1e-8)
    assert sgp.elbo_ == pytest.approx(gp.log_marginal_likelihood_value_, rel=1e-9)


def test_mean_equals_nystrom_kernel_ridge_with_the_same_centres():
    X, Y = _data(n=300)
    y = Y[:, 0]
    s = 0.05
    krr = NystromKernelRidge(n_centers=25, kernel=RBF(1.2), alpha=s / len(X), max_iter=500,
                             tol=1e-14, random_state=0).fit(X, y)
    sgp = SparseGaussianProcessRegressor(RBF(1.2), inducing_points=krr.centers_,
                                         noise_variance=s, optimizer=None).fit(X, y)
    Xt = _data(n=20, seed=4)[0]
    # DTC / Nystrom KRR mean: K_*M (s K_MM + K_Mn K_nM)^-1 K_Mn y, i.e. alpha = s / n
    np.testing.assert_allclose(sgp.predict(Xt), krr.predict(Xt), rtol=1e-6, atol=1e-8)


def test_fit_learns_noise_and_improves_the_bound():
    X, Y = _data(n=400, d=2)
    y = Y[:, 0]
    sgp = SparseGaussianProcessRegressor(RBF([1.0, 1.0]), n_inducing=30, noise_variance=1.0,
                                         random_state=0).fit(X, y)
    start = SparseGaussianProcessRegressor(RBF([1.0, 1.0]), n_inducing=30, noise_variance=1.0,
                                           optimizer=None, random_state=0).fit(X, y)
    assert sgp.elbo_ > start.elbo_
    assert sgp.n_iter_ > 0
    assert 0.005 < sgp.noise_variance_ < 0.05  # true noise variance 0.01
    assert sgp.log_marginal_likelihood_value_ == sgp.elbo_
    assert sgp.log_marginal_likelihood() == sgp.elbo_
    # the public lml at the fitted theta is the stored ELBO; its gradient vanishes there
    theta = np.concatenate([sgp.kernel_.theta, np.log([sgp.noise_variance_])])
    value, grad = sgp.log_marginal_likelihood(theta, eval_gradient=True)
    assert value == pytest.approx(sgp.elbo_, rel=1e-10)
    assert np.abs(grad).max() < 1e-2 * len(X)
    rmse = np.sqrt(np.mean((sgp.predict(X) - y) ** 2))
    assert rmse < 0.2


@pytest.mark.parametrize("inducing", ["kmeans", "random", "greedy"])
def test_inducing_selection_methods(inducing):
    X, Y = _data(n=200, d=2)
    sgp = SparseGaussianProcessRegressor(RBF(1.0), n_inducing=12, inducing=inducing,
                                         noise_variance=0.05, optimizer=None,
                                         random_state=0).fit(X, Y[:, 0])
    assert sgp.inducing_points_.shape == (12, 2)
    if inducing != "kmeans":  # rows of X
        assert all(np.any(np.all(X == z, axis=1)) for z in sgp.inducing_points_)
    assert np.isfinite(sgp.elbo_)


def test_optimize_inducing_raises_the_bound():
    X, Y = _data(n=150, d=2)
    kw = dict(n_inducing=6, noise_variance=0.05, inducing="random", random_state=0)
    fixed = SparseGaussianProcessRegressor(RBF(1.0), **kw).fit(X, Y[:, 0])
    learned = SparseGaussianProcessRegressor(RBF(1.0), optimize_inducing=True, **kw).fit(
        X, Y[:, 0])
    assert learned.elbo_ > fixed.elbo_
    assert not np.allclose(learned.inducing_points_, fixed.inducing_points_)


def test_multi_target_normalize_y_and_sample_y():
    X, Y = _data(n=120, t=2)
    Y = 5.0 * Y + 3.0
    sgp = SparseGaussianProcessRegressor(RBF(1.0), n_inducing=15, normalize_y=True,
                                         noise_variance=0.1, random_state=0).fit(X, Y)
    mean, std = sgp.predict(X[:5], return_std=True)
    assert mean.shape == (5, 2) and std.shape == (5, 2)
    assert np.abs(mean - Y[:5]).max() < 2.0
    # std per target scales with the target's standard deviation
    np.testing.assert_allclose(std[:, 1] / std[:, 0], Y[:, 1].std() / Y[:, 0].std(), rtol=1e-10)
    _, cov = sgp.predict(X[:5], return_cov=True)
    np.testing.assert_allclose(np.sqrt(np.diagonal(cov[:, :, 0])), std[:, 0], rtol=1e-6)
    draws = sgp.sample_y(X[:5], n_samples=3, random_state=0)
    assert draws.shape == (5, 2, 3)


def test_callable_optimizer_restarts_and_fixed_noise():
    X, Y = _data(n=100, d=2)
    calls = []

    def optimizer(obj_func, initial_theta, bounds):
        calls.append(len(initial_theta))
        f, g = obj_func(initial_theta)
        assert g.shape == initial_theta.shape
        return initial_theta, f

    sgp = SparseGaussianProcessRegressor(RBF(1.0), n_inducing=8, optimizer=optimizer,
                                         n_restarts_optimizer=2, noise_variance=0.3,
                                         random_state=0).fit(X, Y[:, 0])
    assert calls == [2, 2, 2]  # log length scale and log noise, three starts
    fixed = SparseGaussianProcessRegressor(RBF(1.0), n_inducing=8, noise_variance=0.3,
                                           noise_variance_bounds="fixed",
                                           random_state=0).fit(X, Y[:, 0])
    assert fixed.noise_variance_ == 0.3
    assert sgp.noise_variance_ == 0.3


def test_verbose_shows_the_elbo(capsys):
    X, Y = _data(n=60, d=2)
    SparseGaussianProcessRegressor(RBF(1.0), n_inducing=5, noise_variance=0.1, verbose=1,
                                   random_state=0).fit(X, Y[:, 0])
    assert "ELBO" in capsys.readouterr().err


# ------------------------------------------------------------------------ bad input
def test_more_inducing_points_than_samples_warns_and_uses_all():
    X, Y = _data(n=20, d=2)
    with pytest.warns(UserWarning, match="n_inducing=50 is larger"):
        sgp = SparseGaussianProcessRegressor(RBF(1.0), n_inducing=50, optimizer=None,
                                             noise_variance=0.1).fit(X, Y[:, 0])
    assert sgp.inducing_points_.shape == (20, 2)


def test_duplicated_inducing_points_jitter_with_a_warning_never_nan():
    X, Y = _data(n=60, d=2)
    Z = np.vstack([X[:5], X[:5]])
    with pytest.warns(JitterWarning, match="inducing-point covariance"):
        sgp = SparseGaussianProcessRegressor(RBF(1.0), inducing_points=Z, noise_variance=0.1,
                                             random_state=0).fit(X, Y[:, 0])
    assert sgp.jitter_ > 0
    assert np.isfinite(sgp.elbo_) and np.all(np.isfinite(sgp.predict(X, return_std=True)[1]))


def test_inducing_points_with_wrong_features():
    X, Y = _data(n=30, d=3)
    with pytest.raises(ValueError, match=r"shape \(M, 3\)"):
        SparseGaussianProcessRegressor(inducing_points=np.zeros((4, 2))).fit(X, Y[:, 0])


def test_kernel_without_input_gradient_for_optimize_inducing():
    X, Y = _data(n=30)
    with pytest.raises(ValueError, match="no gradient with respect to its inputs"):
        SparseGaussianProcessRegressor(Matern(1.0), n_inducing=5,
                                       optimize_inducing=True).fit(X, Y[:, 0])


@pytest.mark.parametrize("bounds, match", [((1e-3, 1e-2), "outside noise_variance_bounds"),
                                           ((1.0, 0.1), "0 < low <= high"),
                                           ("free", "noise_variance_bounds' parameter of "
                                            "SparseGaussianProcessRegressor must be a str "
                                            "among {'fixed'} or an array-like")])
def test_noise_bounds_that_exclude_the_start(bounds, match):
    X, Y = _data(n=30)
    with pytest.raises(ValueError, match=match):
        SparseGaussianProcessRegressor(noise_variance=1.0, noise_variance_bounds=bounds,
                                       n_inducing=5).fit(X, Y[:, 0])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_targets(bad):
    X, Y = _data(n=30)
    y = Y[:, 0].copy()
    y[4] = bad
    with pytest.raises(ValueError):
        SparseGaussianProcessRegressor(n_inducing=5).fit(X, y)


@pytest.mark.parametrize("params", [dict(n_inducing=0), dict(noise_variance=0.0),
                                    dict(inducing="sobol"), dict(optimizer="adam"),
                                    dict(n_restarts_optimizer=-1)])
def test_bad_parameters(params):
    X, Y = _data(n=30)
    with pytest.raises(ValueError):
        SparseGaussianProcessRegressor(**params).fit(X, Y[:, 0])


def test_no_jitter_warning_on_well_conditioned_inducing_points():
    X, Y = _data(n=60, d=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitterWarning)
        SparseGaussianProcessRegressor(RBF(0.5), inducing_points=X[:6], noise_variance=0.1,
                                       optimizer=None).fit(X, Y[:, 0])
