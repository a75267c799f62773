"""MultiOutputGaussianProcessRegressor against the full nT x nT reference, GPR and itself."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF as SkRBF

from kernelkit import GaussianProcessRegressor, MultiOutputGaussianProcessRegressor
from kernelkit.exceptions import ConvergenceWarning
from kernelkit.gaussian_process._coregionalization import (
    Coregionalization,
    ObservedPairs,
    coregionalized_gram,
    dense_log_marginal_likelihood,
)
from kernelkit.gaussian_process._kronecker import kronecker_log_marginal_likelihood
from kernelkit.kernels import RBF, Constant, Matern
from tests.reference.multi_output import lmc_covariance, lmc_lml, lmc_posterior

MOGP = MultiOutputGaussianProcessRegressor
BOUNDS = np.array([1e-6, 1e5])


def _data(n=25, T=3, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    base = np.column_stack([np.sin(2 * X[:, 0]), np.cos(X[:, 1])])
    Y = base @ rng.normal(size=(2, T)) + 0.1 * rng.normal(size=(n, T))
    if missing:
        Y[rng.uniform(size=Y.shape) < missing] = np.nan
        Y[0] = base[0] @ np.ones((2, T))  # every output keeps observations
    return X, Y, rng


def _params(kernels, T, rank, rng):
    Q = len(kernels)
    return Coregionalization(
        kernels, [rng.normal(size=(T, rank)) for _ in range(Q)],
        rng.uniform(0.1, 1.0, size=(Q, T)), rng.uniform(0.05, 0.3, size=T), BOUNDS, BOUNDS)


def _fd_gradient(f, theta, h=1e-6):
    g = np.empty_like(theta)
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = h
        g[j] = (f(theta + e) - f(theta - e)) / (2 * h)
    return g


def test_gram_equals_kron_reference_without_missing_rows():
    X, Y, rng = _data(n=8, T=3, missing=0.3)
    kernels = [RBF(0.7), Matern(1.3, nu=1.5)]
    p = _params(kernels, 3, 2, rng)
    pairs = ObservedPairs(Y)
    Ks = np.stack([k(X) for k in kernels])
    keep = ~np.isnan(Y.T.ravel())
    ref = lmc_covariance(Ks, p.Bs())[np.ix_(keep, keep)]
    np.testing.assert_allclose(coregionalized_gram(Ks, p.Bs(), pairs), ref, rtol=1e-13)


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_dense_lml_equals_reference_and_gradient_equals_finite_differences(missing):
    X, Y, rng = _data(n=20, T=3, missing=missing)
    p = _params([Constant(1.5) * RBF([0.8, 1.2]), Matern(1.0, nu=2.5)], 3, 2, rng)
    pairs = ObservedPairs(Y)
    lml, grad = dense_log_marginal_likelihood(p, X, pairs, eval_gradient=True)
    Ks = [k(X) for k in p.kernels]
    assert lml == pytest.approx(lmc_lml(Ks, p.Bs(), p.noise, Y), rel=1e-11)
    theta = p.theta

    def f(t):
        p.theta = t
        return dense_log_marginal_likelihood(p, X, pairs)

    np.testing.assert_allclose(grad, _fd_gradient(f, theta), rtol=1e-5, atol=1e-6)


def test_kronecker_equals_dense_path_and_finite_differences():
    X, Y, rng = _data(n=30, T=4)
    p = _params([Constant(2.0) * RBF([0.8, 1.2])], 4, 2, rng)
    lml_k, grad_k = kronecker_log_marginal_likelihood(p, X, Y, eval_gradient=True)
    lml_d, grad_d = dense_log_marginal_likelihood(p, X, ObservedPairs(Y), eval_gradient=True)
    assert lml_k == pytest.approx(lml_d, rel=1e-11)
    assert lml_k == pytest.approx(lmc_lml([k(X) for k in p.kernels], p.Bs(), p.noise, Y),
                                  rel=1e-11)
    np.testing.assert_allclose(grad_k, grad_d, rtol=1e-8, atol=1e-9)
    theta = p.theta

    def f(t):
        p.theta = t
        return kronecker_log_marginal_likelihood(p, X, Y)

    np.testing.assert_allclose(grad_k, _fd_gradient(f, theta), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("solver,missing,kernel", [
    ("kronecker", 0.0, RBF(1.0)),
    ("cholesky", 0.0, RBF(1.0)),
    ("cholesky", 0.3, [RBF(1.0), Matern(2.0, nu=1.5)]),
])
def test_posterior_equals_reference(solver, missing, kernel):
    X, Y, rng = _data(n=20, T=3, missing=missing)
    Xt = rng.uniform(-2.5, 2.5, size=(6, 2))
    gp = MOGP(kernel, rank=2, solver=solver, random_state=0).fit(X, Y)
    assert gp.solver_ == solver
    ks, Bs, noise = gp.kernels_, gp.coregionalization_, gp.noise_variance_
    mean_ref, cov_ref = lmc_posterior([k(X) for k in ks], [k(Xt, X) for k in ks],
                                      [k(Xt) for k in ks], Bs, noise, Y)
    mean, cov = gp.predict(Xt, return_cov=True)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(cov, cov_ref, rtol=1e-7, atol=1e-10)
    mean2, std = gp.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean2, mean, rtol=1e-12)
    var_ref = np.einsum("itit->it", cov_ref)
    np.testing.assert_allclose(std, np.sqrt(var_ref), rtol=1e-7, atol=1e-9)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        lmc_lml([k(X) for k in ks], Bs, noise, Y), rel=1e-10)
    assert gp.log_marginal_likelihood(gp.theta_) == pytest.approx(
        gp.log_marginal_likelihood_value_, rel=1e-10)


def test_kronecker_fit_equals_cholesky_fit():
    X, Y, _ = _data(n=30, T=3)
    Xt = np.linspace(-2, 2, 7)[:, None] * np.ones((1, 2))
    for optimizer, tol in ((None, 1e-9), ("fmin_l_bfgs_b", 1e-3)):
        fits = [MOGP(RBF([1.0, 1.0]), rank=2, solver=s, optimizer=optimizer,
                     random_state=0).fit(X, Y) for s in ("kronecker", "cholesky")]
        assert fits[0].log_marginal_likelihood_value_ == pytest.approx(
            fits[1].log_marginal_likelihood_value_, rel=1e-7)
        m0, s0 = fits[0].predict(Xt, return_std=True)
        m1, s1 = fits[1].predict(Xt, return_std=True)
        # after learning: equal likelihoods, optima equal up to the optimizer's tolerance
        np.testing.assert_allclose(m0, m1, rtol=tol, atol=tol)
        np.testing.assert_allclose(s0, s1, rtol=tol, atol=tol)


def _independent(kernel, T, noise, **kw):
    # B = I fixed, noise fixed: T independent GPs with a tied kernel
    return MOGP(kernel, rank=0, kappa_init=1.0, kappa_bounds="fixed", alpha=noise,
                alpha_bounds="fixed", **kw)


def test_identity_B_equals_separate_gpr_fits_fixed_kernel():
    X, Y, _ = _data(n=25, T=3)
    Xt = np.linspace(-2, 2, 5)[:, None] * np.ones((1, 2))
    k = Constant(1.3) * RBF([0.9, 1.4])
    gp = _independent(k, 3, 0.05, optimizer=None).fit(X, Y)
    mean, std = gp.predict(Xt, return_std=True)
    lml = 0.0
    for t in range(3):
        ref = GaussianProcessRegressor(k, alpha=0.05, optimizer=None).fit(X, Y[:, t])
        m, s = ref.predict(Xt, return_std=True)
        np.testing.assert_allclose(mean[:, t], m, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(std[:, t], s, rtol=1e-8, atol=1e-10)
        lml += ref.log_marginal_likelihood_value_
    assert gp.log_marginal_likelihood_value_ == pytest.approx(lml, rel=1e-10)


def test_identity_B_equals_gpr_with_tied_learned_kernel():
    X, Y, _ = _data(n=25, T=3)
    k = Constant(1.0) * RBF([1.0, 1.0])
    gp = _independent(k, 3, 0.05, solver="cholesky").fit(X, Y)
    ref = GaussianProcessRegressor(k, alpha=0.05).fit(X, Y)  # one kernel for all targets
    np.testing.assert_allclose(gp.kernel_.theta, ref.kernel_.theta, rtol=1e-4, atol=1e-5)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        ref.log_marginal_likelihood_value_, rel=1e-8)


def test_one_output_equals_gpr():
    X, Y, _ = _data(n=25, T=1)
    y = Y[:, 0]
    Xt = np.linspace(-2, 2, 5)[:, None] * np.ones((1, 2))
    k = Constant(1.0) * RBF([1.0, 1.0])
    gp = _independent(k, 1, 0.02).fit(X, y)
    ref = GaussianProcessRegressor(k, alpha=0.02).fit(X, y)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        ref.log_marginal_likelihood_value_, rel=1e-8)
    mean, std = gp.predict(Xt, return_std=True)
    m, s = ref.predict(Xt, return_std=True)
    assert mean.shape == (5,) and std.shape == (5,)
    np.testing.assert_allclose(mean, m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(std, s, rtol=1e-4, atol=1e-6)
    _, cov = gp.predict(Xt, return_cov=True)
    assert cov.shape == (5, 5)
    assert gp.sample_y(Xt, 3).shape == (5, 3)


def test_missing_output_is_predicted_from_a_correlated_output():
    rng = np.random.default_rng(1)
    X = np.sort(rng.uniform(0, 6, 60))[:, None]
    f = np.sin(X[:, 0])
    Y = np.column_stack([f, -2 * f + 1e-3 * rng.normal(size=60)]) + 0.05 * rng.normal(size=(60, 2))
    hidden = X[:, 0] > 3.5
    Y_obs = Y.copy()
    Y_obs[hidden, 1] = np.nan  # output 1 unseen on (3.5, 6]: only output 0 knows it
    gp = MOGP(RBF(1.0), rank=1, random_state=0).fit(X, Y_obs)
    assert gp.solver_ == "cholesky"
    B = gp.coregionalization_[0]
    assert B[0, 1] / np.sqrt(B[0, 0] * B[1, 1]) < -0.95  # learned: strongly anti-correlated
    single = GaussianProcessRegressor(RBF(1.0), alpha=1e-2).fit(X[~hidden], Y[~hidden, 1])
    err_mogp = np.sqrt(np.mean((gp.predict(X[hidden])[:, 1] + 2 * f[hidden]) ** 2))
    err_single = np.sqrt(np.mean((single.predict(X[hidden]) + 2 * f[hidden]) ** 2))
    assert err_mogp < 0.2 < err_single
    assert np.allclose(gp.alpha_[hidden, 1], 0.0)  # missing pairs carry no weight


def test_sample_y_mean_and_covariance():
    X, Y, rng = _data(n=20, T=2)
    gp = MOGP(RBF(1.0), rank=1, random_state=0).fit(X, Y)
    Xt = rng.uniform(-2, 2, size=(3, 2))
    mean, cov = gp.predict(Xt, return_cov=True)
    draws = gp.sample_y(Xt, n_samples=20000, random_state=0)
    assert draws.shape == (3, 2, 20000)
    flat = draws.reshape(6, -1)
    sd = np.sqrt(np.diag(cov.reshape(6, 6)))
    assert np.all(np.abs(flat.mean(axis=1) - mean.ravel()) < 5 * sd / np.sqrt(20000) + 1e-12)
    np.testing.assert_allclose(np.cov(flat), cov.reshape(6, 6), atol=0.05 * sd.max() ** 2)


def test_normalize_y_predicts_in_the_original_units():
    X, Y, _ = _data(n=25, T=2)
    Z = Y * np.array([100.0, 0.01]) + np.array([5.0, -3.0])
    a = MOGP(rank=1, normalize_y=True, random_state=0).fit(X, Y)
    b = MOGP(rank=1, normalize_y=True, random_state=0).fit(X, Z)
    ma, sa = a.predict(X[:5], return_std=True)
    mb, sb = b.predict(X[:5], return_std=True)
    np.testing.assert_allclose(mb, ma * np.array([100.0, 0.01]) + np.array([5.0, -3.0]),
                               rtol=1e-5)
    np.testing.assert_allclose(sb, sa * np.array([100.0, 0.01]), rtol=1e-4)


def test_learning_raises_the_likelihood_and_restarts_keep_the_best():
    X, Y, _ = _data(n=25, T=3, missing=0.2)
    fixed = MOGP(rank=1, optimizer=None, random_state=0).fit(X, Y)
    learned = MOGP(rank=1, random_state=0).fit(X, Y)
    restarts = MOGP(rank=1, n_restarts_optimizer=2, random_state=0).fit(X, Y)
    assert learned.log_marginal_likelihood_value_ > fixed.log_marginal_likelihood_value_
    assert restarts.log_marginal_likelihood_value_ >= \
        learned.log_marginal_likelihood_value_ - 1e-6
    calls = []

    def optimizer(obj_func, theta, bounds):
        calls.append(len(theta))
        return theta, obj_func(theta, eval_gradient=False)

    gp = MOGP(rank=1, optimizer=optimizer, random_state=0).fit(X, Y)
    assert calls == [fixed.theta_.size]
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        fixed.log_marginal_likelihood_value_)


def test_sklearn_kernel_is_translated():
    X, Y, _ = _data(n=20, T=2)
    a = MOGP(SkRBF(1.0), rank=1, random_state=0).fit(X, Y)
    b = MOGP(RBF(1.0), rank=1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(a.predict(X[:4]), b.predict(X[:4]), rtol=1e-8)


def test_user_starting_values_are_used_and_not_mutated():
    X, Y, _ = _data(n=20, T=2)
    W0 = np.array([[1.0], [0.5]])
    gp = MOGP(rank=1, W_init=W0, kappa_init=[0.2, 0.3], alpha=[0.1, 0.2],
              optimizer=None).fit(X, Y)
    np.testing.assert_array_equal(W0, [[1.0], [0.5]])
    np.testing.assert_allclose(gp.coregionalization_[0], W0 @ W0.T + np.diag([0.2, 0.3]))
    np.testing.assert_allclose(gp.noise_variance_, [0.1, 0.2])


@pytest.mark.parametrize("kwargs,Y_fn,match", [
    ({}, lambda Y: np.column_stack([Y[:, 0], np.full(len(Y), np.nan)]), "no observed"),
    ({"rank": 3}, None, "rank"),
    ({"rank": -1}, None, "rank"),
    ({"alpha": -0.1}, None, "alpha"),
    ({"alpha": np.nan}, None, "alpha"),
    ({"alpha": [0.1, 0.2, 0.3]}, None, "alpha"),
    ({"kappa_init": 0.0}, None, "kappa_init"),
    ({"alpha_bounds": (0.0, 1.0)}, None, "alpha_bounds"),
    ({"kappa_bounds": "free"}, None, "kappa_bounds"),
    ({"W_init": np.ones((3, 1))}, None, "W_init"),
    ({"solver": "kronecker"}, lambda Y: np.where(np.eye(len(Y), 2, dtype=bool), np.nan, Y),
     "kronecker"),
    ({"solver": "qr"}, None, "solver"),
    ({}, lambda Y: np.where(np.eye(len(Y), 2, dtype=bool), np.inf, Y), "inf"),
    ({}, lambda Y: np.where(np.arange(len(Y)) == 3, np.nan, Y[:, 0]), "NaN"),
])
def test_bad_input(kwargs, Y_fn, match):
    X, Y, _ = _data(n=15, T=2)
    Y = Y if Y_fn is None else Y_fn(Y)
    with pytest.raises(ValueError, match=match):
        MOGP(**kwargs).fit(X, Y)


def test_predict_before_fit_and_both_std_and_cov():
    from sklearn.exceptions import NotFittedError

    X, Y, _ = _data(n=10, T=2)
    with pytest.raises(NotFittedError):
        MOGP().predict(X)
    gp = MOGP(optimizer=None).fit(X, Y)
    with pytest.raises(RuntimeError):
        gp.predict(X, return_std=True, return_cov=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert gp.predict(X).shape == (10, 2)


def test_readme_example_runs_and_fills_in_the_missing_output():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = text.split("### Correlated outputs, some missing")[1].split("```python")[1]
    ns: dict = {}
    exec(compile(block.split("```")[0], "README.md", "exec"), ns)  # noqa: S102
    X, mean = ns["X"], ns["mean"]
    gap = X[:, 0] > 4
    assert mean.shape == ns["std"].shape == (80, 3)
    # output 1 = -2 sin(x), predicted where it was never observed
    assert np.max(np.abs(mean[gap, 1] + 2 * np.sin(X[gap, 0]))) < 0.3
    assert ns["B"][0, 1] < 0


def test_profiled_kronecker_optimum_is_a_joint_optimum():
    """The Kronecker path's L-BFGS-B over the kernel alone, with the coregionalization and
    noise maximized inside (envelope-theorem gradient), ends at a stationary point of the
    joint likelihood at least as high as the joint L-BFGS-B's from the same start."""
    import scipy.optimize

    from kernelkit.gaussian_process._kronecker_profile import profiled_minimize

    X, Y, rng = _data(n=40, T=4, seed=3)
    gp = MOGP(RBF([1.0, 1.0]), rank=2, random_state=0, optimizer=None).fit(X, Y)
    params = gp._params()
    theta0, bounds = params.theta.copy(), params.bounds

    def joint(theta):
        params.theta = theta
        lml, grad = kronecker_log_marginal_likelihood(params, X, Y, True)
        return -lml, -grad

    box = [(None if np.isinf(lo) else lo, None if np.isinf(hi) else hi) for lo, hi in bounds]
    ref = scipy.optimize.minimize(joint, theta0, jac=True, method="L-BFGS-B", bounds=box)
    theta, fun = profiled_minimize(params, X, Y, theta0, bounds)
    assert fun <= ref.fun + 1e-6 * abs(ref.fun)
    value, grad = joint(theta)
    assert value == pytest.approx(fun, rel=1e-12)
    free = (theta > bounds[:, 0] + 1e-6) & (theta < bounds[:, 1] - 1e-6)
    assert np.abs(grad[free]).max() < 1e-3  # stationary in every free direction
    fitted = MOGP(RBF([1.0, 1.0]), rank=2, random_state=0).fit(X, Y)
    assert fitted.solver_ == "kronecker"
    assert fitted.log_marginal_likelihood_value_ == pytest.approx(-fun, rel=1e-9)


def test_search_coordinates_map_back_and_reach_the_joint_optimum():
    """The Cholesky path's L-BFGS-B moves standard deviations and W in a lower trapezoidal
    gauge (_lmc_search.py): the map keeps every B_q and variance, its gradient is the chain
    rule (finite differences), and the search ends at a likelihood at least as high as
    L-BFGS-B's in theta from the same start."""
    import scipy.optimize

    from kernelkit.gaussian_process._lmc_search import (
        SearchSpace,
        scaled_objective,
        search_minimize,
    )

    X, Y, _ = _data(n=30, T=3, missing=0.3, seed=2)
    gp = MOGP(RBF([1.0, 1.0]), rank=2, random_state=0, optimizer=None).fit(X, Y)
    params, pairs = gp._params(), ObservedPairs(Y)
    theta0, bounds = params.theta.copy(), params.bounds
    Bs0, noise0 = params.Bs(), params.noise.copy()
    space = SearchSpace(params)
    u = space.to_search(theta0)
    assert u.size == theta0.size - 1  # W[0, 1] held at 0
    params.theta = space.to_theta(u)
    np.testing.assert_allclose(params.Bs(), Bs0, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(params.noise, noise0, rtol=1e-12)

    def joint(theta):
        params.theta = theta
        lml, grad = dense_log_marginal_likelihood(params, X, pairs, True)
        return -lml, -grad

    value, grad = joint(space.to_theta(u))
    fd = _fd_gradient(lambda v: joint(space.to_theta(v))[0], u)
    np.testing.assert_allclose(space.gradient(u, grad), fd, rtol=1e-5, atol=1e-6)
    # standard deviations in units of their start (z = u / scale): the chain rule again
    scale = np.where(space.variance, u, 1.0)
    f = scaled_objective(joint, space, scale)
    assert space.variance.sum() == 6 and np.all(scale[space.variance] == u[space.variance])
    z = 1.3 * u / scale
    np.testing.assert_allclose(f(z)[1], _fd_gradient(lambda v: f(v)[0], z), rtol=1e-5, atol=1e-6)
    box = [(None if np.isinf(lo) else lo, None if np.isinf(hi) else hi) for lo, hi in bounds]
    ref = scipy.optimize.minimize(joint, theta0, jac=True, method="L-BFGS-B", bounds=box)
    theta, fun = search_minimize(joint, theta0, space)
    assert fun <= ref.fun + 1e-6 * abs(ref.fun)
    assert joint(theta)[0] == pytest.approx(fun, rel=1e-12)
    fitted = MOGP(RBF([1.0, 1.0]), rank=2, random_state=0).fit(X, Y)
    assert fitted.solver_ == "cholesky"
    assert fitted.log_marginal_likelihood_value_ == pytest.approx(-fun, rel=1e-9)


def test_search_tolerance_ends_where_scipys_default_ends(monkeypatch):
    """The Cholesky path's L-BFGS-B stops at a relative gain of FTOL (looser than scipy's
    2.2e-9): on a problem with a flat direction (a binary input whose two values the
    likelihood wants uncorrelated) it takes fewer evaluations, to the same optimum (log ML
    within 1e-4 relative, predictions within 1% of each output's standard deviation)."""
    import kernelkit.gaussian_process._lmc_search as lmc_search
    import kernelkit.gaussian_process.multi_output as mo

    rng = np.random.default_rng(3)
    n = 60
    group = rng.integers(0, 2, size=n).astype(float)
    x = rng.uniform(-2, 2, size=n)
    X = np.column_stack([x, group])
    # unrelated functions of x in the two groups: the likelihood wants k(group 0, group 1) = 0
    base = np.where(group[:, None] > 0, np.column_stack([np.sin(2 * x), np.cos(x)]),
                    np.column_stack([np.cos(3 * x), np.sin(x)]))
    Y = base @ rng.normal(size=(2, 4)) + 0.1 * rng.normal(size=(n, 4))
    Y[rng.uniform(size=Y.shape) < 0.3] = np.nan
    dense, calls = dense_log_marginal_likelihood, []

    def counted(*args, **kwargs):
        calls.append(1)
        return dense(*args, **kwargs)

    monkeypatch.setattr(mo, "dense_log_marginal_likelihood", counted)
    fits, evaluations = [], []
    assert lmc_search.FTOL > 2.3e-9  # scipy's default: factr 1e7 x eps
    for ftol in (lmc_search.FTOL, 2.220446049250313e-09):
        monkeypatch.setattr(lmc_search, "FTOL", ftol)
        calls.clear()
        fits.append(MOGP(RBF([1.0, 1.0]), rank=2, normalize_y=True, random_state=0).fit(X, Y))
        evaluations.append(len(calls))
    loose, tight = fits
    assert evaluations[0] < evaluations[1]  # 62 against 109 here
    lml_tight = tight.log_marginal_likelihood_value_
    assert loose.log_marginal_likelihood_value_ >= lml_tight - 1e-4 * abs(lml_tight)
    scale = np.nanstd(Y, axis=0)
    np.testing.assert_array_less(np.abs(loose.predict(X) - tight.predict(X)) / scale, 1e-2)
