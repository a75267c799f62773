"""GaussianProcessRegressor as a drop-in for scikit-learn's (issue 22, items 1, 2, 5, 7)."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process import kernels as sk

from kernelkit import GaussianProcessRegressor
from kernelkit.exceptions import ConvergenceWarning
from kernelkit.gaussian_process._optimizer_warnings import warn_lbfgs_stop
from kernelkit.kernels import RBF, Constant, White


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(40, 2))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] ** 2 + 0.1 * rng.normal(size=40)
    return X, y


def _quiet_sklearn_fit(kernel, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SkGPR(kernel, **kw).fit(X, y)


def test_fitted_kernel_is_the_users_sklearn_kernel(data):
    X, y = data
    kernel = sk.ConstantKernel(1.0) * sk.RBF([1.0, 1.0]) + sk.WhiteKernel(0.1)
    ours = GaussianProcessRegressor(kernel).fit(X, y)
    peer = _quiet_sklearn_fit(kernel, X, y)
    assert type(ours.kernel_) is sk.Sum and type(ours.kernel_.k1.k2) is sk.RBF
    assert ours.kernel_ is not kernel and kernel.theta.tolist() == [0.0, 0.0, 0.0, np.log(0.1)]
    np.testing.assert_allclose(ours.kernel_.theta, peer.kernel_.theta, rtol=1e-6)
    np.testing.assert_allclose(ours.kernel_.get_params()["k1__k2__length_scale"],
                               peer.kernel_.get_params()["k1__k2__length_scale"], rtol=1e-6)
    assert repr(ours.kernel_) == repr(peer.kernel_)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        peer.log_marginal_likelihood_value_, rel=1e-10)
    np.testing.assert_allclose(ours.predict(X[:5]), peer.predict(X[:5]), rtol=1e-7)
    lml, grad = ours.log_marginal_likelihood(ours.kernel_.theta, eval_gradient=True)
    lml_p, grad_p = peer.log_marginal_likelihood(ours.kernel_.theta, eval_gradient=True)
    assert lml == pytest.approx(lml_p, rel=1e-12)
    np.testing.assert_allclose(grad, grad_p, rtol=1e-6, atol=1e-8)


def test_sklearn_kernels_never_build_the_gradient_tensor(data, monkeypatch):
    # the fit goes through the kernelkit twin: scikit-learn's (n, n, p) tensor is never asked
    X, y = data
    for cls in (sk.RBF, sk.ConstantKernel, sk.WhiteKernel, sk.Sum, sk.Product):
        orig = cls.__call__

        def guarded(self, X, Y=None, eval_gradient=False, orig=orig):
            assert not eval_gradient, "scikit-learn's gradient tensor was built"
            return orig(self, X, Y, eval_gradient)

        monkeypatch.setattr(cls, "__call__", guarded)
    kernel = sk.ConstantKernel(1.0) * sk.RBF([1.0, 1.0]) + sk.WhiteKernel(0.1)
    ours = GaussianProcessRegressor(kernel).fit(X, y)
    assert ours.kernel_.k2.noise_level != 0.1


def test_sequence_kernel_inputs_are_not_converted():
    from sklearn.gaussian_process.tests._mini_sequence_kernel import MiniSeqKernel

    X = ["AGCT", "AGC", "AACT", "TAA", "AAA", "GAACA"]
    y = np.array([1.0, 1.0, 2.0, 2.0, 3.0, 3.0])
    kernel = MiniSeqKernel(baseline_similarity_bounds="fixed")
    ours = GaussianProcessRegressor(kernel).fit(X, y)
    peer = SkGPR(kernel).fit(X, y)
    m, s = ours.predict(["AAA", "GCTA"], return_std=True)
    pm, ps = peer.predict(["AAA", "GCTA"], return_std=True)
    np.testing.assert_allclose(m, pm, rtol=1e-8)
    np.testing.assert_allclose(s, ps, rtol=1e-6, atol=1e-8)


def test_optimum_at_a_bound_warns_as_sklearn(data):
    X, y = data
    msg = ("The optimal value found for dimension 0 of parameter length_scale is close to "
           "the specified upper bound 0.001. Increasing the bound and calling fit again may "
           "find a better value.")
    with pytest.warns(ConvergenceWarning, match=msg):
        GaussianProcessRegressor(sk.RBF(length_scale_bounds=(1e-5, 1e-3))).fit(X, y)
    # kernelkit kernels too (a smooth function, length scale capped far below its own)
    with pytest.warns(ConvergenceWarning, match="dimension 0 of parameter k1__k2__length_scale "
                                                "is close to the specified upper bound 0.05"):
        GaussianProcessRegressor(Constant(1.0) * RBF(0.02, length_scale_bounds=(1e-2, 0.05))
                                 + White(0.01, noise_level_bounds="fixed")).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an interior optimum: silence
        GaussianProcessRegressor(RBF(1.0) + White(0.1)).fit(X, y)


def test_lbfgs_stop_reports_its_reason():
    res = SimpleNamespace(status=2, message="ABNORMAL: ", nit=7)
    with pytest.warns(ConvergenceWarning, match=r"status=2\): the line search") as rec:
        warn_lbfgs_stop(res)
    assert "ABNORMAL: ." not in str(rec[0].message)
    res = SimpleNamespace(status=1, message="STOP: TOTAL NO. OF ITERATIONS", nit=15000)
    with pytest.warns(ConvergenceWarning, match="maximum number of function evaluations"):
        warn_lbfgs_stop(res)


def test_std_equals_sqrt_diag_cov_for_near_singular_K():
    # scikit-learn's near-singular case: duplicated inputs, tiny alpha
    rng = np.random.default_rng(0)
    X = np.vstack([rng.uniform(0, 1, size=(30, 1))] * 2)
    y = np.sin(6 * X[:, 0])
    gp = GaussianProcessRegressor(sk.ConstantKernel(1.0, "fixed") * sk.RBF(0.3, "fixed"),
                                  alpha=1e-6).fit(X, y)
    Xt = np.linspace(0, 1, 120)[:, None]
    _, std = gp.predict(Xt, return_std=True)
    _, cov = gp.predict(Xt, return_cov=True)
    np.testing.assert_allclose(std, np.sqrt(np.diag(cov)), rtol=1e-10, atol=0)


@pytest.mark.parametrize("params, fit_args, phrase", [
    ({"alpha": np.ones(3)}, {}, "alpha must be a scalar or an array with same number of "
                                "entries as y"),
    ({"kernel": sk.RBF(length_scale_bounds=(1e-3, np.inf)), "n_restarts_optimizer": 2}, {},
     "requires that all bounds are finite"),
    ({"n_targets": 3}, {}, "The number of targets seen in `y` is different from the parameter "
                           "`n_targets`. Got 1 != 3."),
])
def test_error_phrases_as_sklearn(data, params, fit_args, phrase):
    X, y = data
    with pytest.raises(ValueError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        GaussianProcessRegressor(**params).fit(X, y)


def test_lml_gradient_without_theta_phrase(data):
    X, y = data
    gp = GaussianProcessRegressor(RBF(1.0), optimizer=None).fit(X, y)
    with pytest.raises(ValueError, match="Gradient can only be evaluated for theta!=None"):
        gp.log_marginal_likelihood(eval_gradient=True)
    assert isinstance(gp.log_marginal_likelihood(gp.kernel_.theta), np.float64)


def test_estimator_repr_prints_kernels_as_sklearn():
    gp = GaussianProcessRegressor(Constant(0.841**2) * RBF(length_scale=0.5))
    assert repr(gp) == "GaussianProcessRegressor(kernel=0.841**2 * RBF(length_scale=0.5))"
