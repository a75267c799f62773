"""GaussianProcessClassifier: the Laplace approximation against its formulas and sklearn."""

import numpy as np
import pytest
from scipy import integrate
from scipy.special import erf, expit
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process import kernels as sk

from kernelkit import GaussianProcessClassifier
from kernelkit.gaussian_process._laplace import (
    _COEFS,
    _LAMBDAS,
    laplace_log_marginal_likelihood,
    logistic_gaussian_integral,
    posterior_mode,
)
from kernelkit.kernels import RBF, Constant, Matern, White


def _data(n=40, d=2, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * np.sin(3 * X[:, 1]) + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


def test_mode_is_fixed_point():
    # R&W eq. 3.17: f_hat = K grad log p(y | f_hat) = K (t - pi)
    X, y = _data(60)
    K = (2.0 * RBF(0.8))(X)
    mode = posterior_mode(K, y.astype(float))
    np.testing.assert_allclose(mode.f, K @ (y - expit(mode.f)), atol=1e-9)
    np.testing.assert_allclose(mode.a, y - mode.pi, atol=1e-8)


def test_erf_mixture_approximates_logistic_and_its_gaussian_integral():
    x = np.linspace(-8, 8, 401)
    mix = 0.5 * (_COEFS.sum() + _COEFS @ erf(_LAMBDAS[:, None] * x[None, :]))
    np.testing.assert_allclose(mix, expit(x), atol=2e-3)
    for m, v in [(0.3, 0.5), (-1.5, 2.0), (2.0, 10.0)]:
        def integrand(z, m=m, v=v):
            return expit(z) * np.exp(-(z - m) ** 2 / (2 * v)) / np.sqrt(2 * np.pi * v)

        exact = integrate.quad(integrand, -60, 60)[0]
        approx = logistic_gaussian_integral(np.array([m]), np.array([v]))[0]
        assert abs(approx - exact) < 2e-3


@pytest.mark.parametrize("kernel", [
    RBF([0.7, 1.3]),
    Constant(2.0) * Matern(0.8, nu=2.5),
    Constant(1.5) * RBF(1.0) + White(0.1),
])
def test_lml_gradient_matches_finite_differences(kernel):
    X, y = _data(35)
    t = y.astype(float)
    lml, grad, _ = laplace_log_marginal_likelihood(kernel, X, t, eval_gradient=True)
    theta = kernel.theta
    h = 1e-5
    fd = np.empty_like(theta)
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = h
        up = laplace_log_marginal_likelihood(kernel.clone_with_theta(theta + e), X, t)[0]
        lo = laplace_log_marginal_likelihood(kernel.clone_with_theta(theta - e), X, t)[0]
        fd[j] = (up - lo) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_probabilities_equal_sklearn_on_fixed_kernel(n_classes):
    X, y = _data(50, n_classes=n_classes)
    Xt = np.random.default_rng(1).normal(size=(20, 2))
    ours = GaussianProcessClassifier(Constant(1.7) * RBF(0.9), optimizer=None).fit(X, y)
    ref = SkGPC(sk.ConstantKernel(1.7) * sk.RBF(0.9), optimizer=None).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        ref.log_marginal_likelihood_value_, rel=1e-9)
    # an sklearn kernel object is accepted as is
    same = GaussianProcessClassifier(sk.ConstantKernel(1.7) * sk.RBF(0.9),
                                     optimizer=None).fit(X, y)
    np.testing.assert_allclose(same.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-6)


def test_lml_and_gradient_equal_sklearn_at_theta():
    X, y = _data(45)
    ours = GaussianProcessClassifier(Constant(1.0) * RBF([1.0, 1.0]), optimizer=None).fit(X, y)
    ref = SkGPC(sk.ConstantKernel(1.0) * sk.RBF([1.0, 1.0]), optimizer=None).fit(X, y)
    theta = np.log([2.0, 0.5, 1.5])
    lml, grad = ours.log_marginal_likelihood(theta, eval_gradient=True)
    lml_ref, grad_ref = ref.log_marginal_likelihood(theta, eval_gradient=True)
    assert lml == pytest.approx(lml_ref, rel=1e-9)
    np.testing.assert_allclose(grad, grad_ref, rtol=1e-6)


def test_fit_learns_the_same_hyperparameters_as_sklearn():
    X, y = _data(60)
    ours = GaussianProcessClassifier(Constant(1.0) * RBF(1.0)).fit(X, y)
    ref = SkGPC(sk.ConstantKernel(1.0) * sk.RBF(1.0)).fit(X, y)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        ref.log_marginal_likelihood_value_, abs=1e-6)
    np.testing.assert_allclose(ours.kernel_.theta, ref.kernel_.theta, atol=1e-3)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-4)


def test_one_vs_one_predicts_as_sklearn_and_refuses_probabilities():
    X, y = _data(45, n_classes=3)
    ours = GaussianProcessClassifier(RBF(1.0), optimizer=None, multi_class="one_vs_one").fit(X, y)
    ref = SkGPC(sk.RBF(1.0), optimizer=None, multi_class="one_vs_one").fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert len(ours.base_estimator_.estimators_) == 3
    with pytest.raises(ValueError, match="one_vs_one"):
        ours.predict_proba(X)


def test_multiclass_attributes_and_lml_of_theta():
    X, y = _data(45, n_classes=3)
    gpc = GaussianProcessClassifier(RBF(1.0)).fit(X, y)
    assert gpc.n_classes_ == 3 and list(gpc.classes_) == [0, 1, 2]
    assert gpc.kernel_.theta.shape == (3,)  # one theta per binary problem
    lmls = [e.log_marginal_likelihood_value_ for e in gpc.base_estimator_.estimators_]
    assert gpc.log_marginal_likelihood_value_ == pytest.approx(np.mean(lmls))
    assert gpc.log_marginal_likelihood(gpc.kernel_.theta) == pytest.approx(
        gpc.log_marginal_likelihood_value_, abs=1e-7)
    with pytest.raises(ValueError, match="Shape of theta"):
        gpc.log_marginal_likelihood(np.zeros(2))
    with pytest.raises(NotImplementedError):
        gpc.log_marginal_likelihood(gpc.kernel_.theta, eval_gradient=True)
    proba = gpc.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_restarts_and_callable_optimizer_are_reproducible():
    X, y = _data(40)
    kw = dict(kernel=Constant(1.0) * RBF(1.0), n_restarts_optimizer=2, random_state=3)
    a = GaussianProcessClassifier(**kw).fit(X, y)
    b = GaussianProcessClassifier(**kw).fit(X, y)
    assert a.kernel_.theta.tolist() == b.kernel_.theta.tolist()
    calls = []

    def optimizer(obj_func, initial_theta, bounds):
        calls.append(1)
        value, grad = obj_func(initial_theta)
        assert grad.shape == initial_theta.shape
        return initial_theta, value

    c = GaussianProcessClassifier(RBF(1.0), optimizer=optimizer).fit(X, y)
    assert calls and c.kernel_.theta == pytest.approx([0.0])


def test_warm_start_reuses_the_mode():
    X, y = _data(40)
    gpc = GaussianProcessClassifier(RBF(1.0), optimizer=None, warm_start=True).fit(X, y)
    f1 = gpc.base_estimator_.f_cached_.copy()
    gpc.fit(X, y)
    np.testing.assert_allclose(gpc.base_estimator_.f_cached_, f1, atol=1e-8)


def test_latent_mean_and_variance_are_the_gaussian_approximation():
    X, y = _data(30)
    gpc = GaussianProcessClassifier(RBF(1.0), optimizer=None).fit(X, y)
    mean, var = gpc.latent_mean_and_variance(X[:5])
    p = logistic_gaussian_integral(mean, var)
    np.testing.assert_allclose(gpc.predict_proba(X[:5])[:, 1], p)
    assert np.all(var > 0)


def test_bad_input():
    X, y = _data(20)
    with pytest.raises(ValueError, match="needs samples of at least 2 classes; got 1 class"):
        GaussianProcessClassifier().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="Unknown label type"):
        GaussianProcessClassifier().fit(X, np.linspace(0, 1, 20))
    with pytest.raises(ValueError, match="multi_class"):
        GaussianProcessClassifier(multi_class="crammer").fit(X, np.arange(20) % 3)
    with pytest.raises(ValueError, match="n_restarts_optimizer"):
        GaussianProcessClassifier(RBF(1.0, length_scale_bounds=(1e-5, np.inf)),
                                  n_restarts_optimizer=1).fit(X, y)


def test_bound_warning_names_the_scikit_learn_kernels_parameter():
    """scikit-learn's test_warning_bounds: a scikit-learn kernel's optimum at a bound is
    reported under its own parameter name (not the adapter's kernel__ prefix)."""
    from sklearn.exceptions import ConvergenceWarning

    X = np.atleast_2d(np.linspace(0, 10, 30)).T
    y = np.array(X.ravel() > 2.5)
    gpc = GaussianProcessClassifier(kernel=sk.RBF(length_scale_bounds=[1e-5, 1e-3]))
    with pytest.warns(ConvergenceWarning, match="The optimal value found for dimension 0 of "
                      "parameter length_scale is close to the specified upper bound 0.001"):
        gpc.fit(X, y)
