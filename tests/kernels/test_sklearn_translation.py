"""scikit-learn GP kernels computed by their exact kernelkit twin (issue 22, item 1)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.gaussian_process import kernels as sk

from kernelkit.kernels import (
    RBF,
    Constant,
    DotProduct,
    Exponentiation,
    ExpSineSquared,
    Matern,
    RationalQuadratic,
    SklearnKernel,
    White,
)
from kernelkit.kernels._sklearn import translate

SK_KERNELS = [
    sk.ConstantKernel(2.0, (1e-3, 1e3)) * sk.RBF([0.7, 1.9], [(1e-2, 1e2), (1e-1, 1e1)])
    + sk.WhiteKernel(0.1),
    sk.Matern(0.8, nu=0.5) + sk.Matern(1.3, nu=1.5) * sk.Matern(0.6, nu=2.5),
    sk.Matern([0.8, 1.5], nu=np.inf),
    sk.RationalQuadratic(length_scale=0.9, alpha=0.4, alpha_bounds="fixed"),
    sk.ExpSineSquared(length_scale=1.2, periodicity=2.5) * sk.RBF(3.0),
    sk.DotProduct(sigma_0=0.5) ** 2 + sk.WhiteKernel(0.3, "fixed"),
    sk.ConstantKernel(0.7, "fixed") * sk.RationalQuadratic(1.1, 2.0) + sk.ConstantKernel(0.2),
]


@pytest.fixture
def X():
    return np.random.default_rng(0).uniform(-2, 2, size=(25, 2))


@pytest.mark.parametrize("k", SK_KERNELS, ids=repr)
def test_twin_equals_sklearn_values_theta_and_gradient(X, k):
    t = translate(k)
    assert t is not None
    wrapped = SklearnKernel(k)
    assert np.array_equal(wrapped.theta, k.theta)
    # the twin holds the same numbers as theta, in its own order
    np.testing.assert_array_equal(t.kernel.theta, k.theta[t.to_ours])
    np.testing.assert_array_equal(t.kernel.bounds, k.bounds[t.to_ours])
    K_sk, G_sk = k(X, eval_gradient=True)
    np.testing.assert_allclose(wrapped(X), K_sk, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(wrapped(X[:7], X[7:]), k(X[:7], X[7:]), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(wrapped.diag(X), k.diag(X), rtol=1e-12)
    W = np.random.default_rng(1).normal(size=(25, 25))
    W = W + W.T
    # the likelihood-gradient contraction, in scikit-learn's theta order
    expected = np.einsum("ij,ijk->k", W, G_sk)
    np.testing.assert_allclose(wrapped.gradient_dot(X, W), expected, rtol=1e-9, atol=1e-10)
    parts = {}
    np.testing.assert_allclose(wrapped.matrix_parts(X, parts), K_sk, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(wrapped.gradient_dot(X, W, parts=parts), expected, rtol=1e-9,
                               atol=1e-10)


def test_twin_structure_and_classes():
    t = translate(sk.ConstantKernel(2.0) * sk.RBF(0.5) + sk.WhiteKernel(0.1))
    assert isinstance(t.kernel.k1.k1, Constant) and isinstance(t.kernel.k1.k2, RBF)
    assert isinstance(t.kernel.k2, White) and t.kernel.k1.k1.value == 2.0
    assert isinstance(translate(sk.Matern(nu=2.5)).kernel, Matern)
    assert isinstance(translate(sk.Matern(nu=np.inf)).kernel, RBF)
    assert isinstance(translate(sk.RationalQuadratic()).kernel, RationalQuadratic)
    assert isinstance(translate(sk.ExpSineSquared()).kernel, ExpSineSquared)
    assert isinstance(translate(sk.DotProduct()).kernel, DotProduct)
    assert isinstance(translate(sk.RBF() ** 3).kernel, Exponentiation)
    fixed = translate(sk.RBF(2.0, "fixed") + sk.WhiteKernel(noise_level_bounds=(1e-3, 1e1)))
    assert fixed.kernel.k1.length_scale_bounds == "fixed" and fixed.kernel.n_dims == 1
    assert fixed.kernel.k2.noise_level_bounds == (1e-3, 1e1)


class _UserRBF(sk.RBF):
    def __call__(self, X, Y=None, eval_gradient=False):
        return super().__call__(X, Y, eval_gradient)


def test_untranslatable_kernels_keep_the_wrapper(X):
    # a user subclass (may override anything) and the general-nu Matern stay scikit-learn's
    for k in (_UserRBF(0.8), sk.Matern(0.8, nu=0.7), sk.ConstantKernel() * _UserRBF()):
        assert translate(k) is None
        w = SklearnKernel(k)
        K, G = k(X, eval_gradient=True)
        np.testing.assert_allclose(w(X), K, rtol=1e-12)
        W = np.ones((25, 25))
        np.testing.assert_allclose(w.gradient_dot(X, W), G.sum(axis=(0, 1)), rtol=1e-10)


def test_new_kernels_gradients_by_finite_differences(X):
    W = np.random.default_rng(2).normal(size=(25, 25))
    W = W + W.T
    for k in (DotProduct(0.7), Exponentiation(RBF(0.9) + Constant(0.3), 2.0),
              RationalQuadratic(0.8, 1.7), ExpSineSquared(1.1, 2.3)):
        g = k.gradient_dot(X, W)
        fd = []
        for j in range(k.n_dims):
            e = np.zeros(k.n_dims)
            e[j] = 1e-6
            f = lambda th, k=k: float(np.sum(W * k.clone_with_theta(th)(X)))
            fd.append((f(k.theta + e) - f(k.theta - e)) / 2e-6)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)
        # and the fused closed forms equal the one-matrix-at-a-time contraction
        slow = [float(np.sum(W * dK)) for dK in k.gradient(X)]
        np.testing.assert_allclose(g, slow, rtol=1e-10, atol=1e-10)


def test_product_factors_computed_once_per_evaluation(X, monkeypatch):
    # matrix_parts keeps the factor matrices (and RBF/RQ/ExpSineSquared their derivative
    # matrices); gradient_dot reuses them: one squared-distance matrix for all three
    from kernelkit.kernels import _distances as dist

    k = RBF(1.3) * ExpSineSquared(1.0, 2.0) + Constant(0.5) * RationalQuadratic(0.7, 1.2)
    calls = []
    for name in ("sq_euclidean", "augmented"):
        orig = getattr(dist, name)
        monkeypatch.setattr(dist, name, lambda *a, orig=orig, name=name, **kw: (
            calls.append(name), orig(*a, **kw))[1])
    W = np.random.default_rng(3).normal(size=(25, 25))
    W = W + W.T
    parts = {}
    K = k.matrix_parts(X, parts)
    g = k.gradient_dot(X, W, parts=parts)
    # the isotropic RBF, ExpSineSquared and RationalQuadratic scale the same distances
    assert calls == ["sq_euclidean"]
    assert not parts["sqdist"].flags.writeable  # shared: nobody may overwrite it
    # kept by the caller (theta-independent), the distances are not computed again
    calls.clear()
    k.k1.k1.length_scale = 1.7
    fresh = {"sqdist": parts["sqdist"]}
    K2 = k.matrix_parts(X, fresh)
    assert calls == []
    monkeypatch.undo()
    np.testing.assert_allclose(K2, k(X), rtol=1e-14)
    k.k1.k1.length_scale = 1.3
    np.testing.assert_allclose(K, k(X), rtol=1e-14)
    np.testing.assert_allclose(g, [float(np.sum(W * dK)) for dK in k.gradient(X)], rtol=1e-10)


@pytest.mark.parametrize("fixed", [None, "length_scale", "periodicity"])
@pytest.mark.parametrize("length_scale,periodicity", [(1.0, 1.0), (0.6, 0.37), (2.5, 7.0)])
def test_exp_sine_on_a_time_axis_equals_sklearn(length_scale, periodicity, fixed):
    # one feature: sin(a_i - a_j) and cos(a_i - a_j) from two rank-2 products of the sines
    # and cosines of the reduced angles, at the offset of calendar years
    from kernelkit._core.scratch import Arena

    x = np.sort(np.random.default_rng(5).uniform(1958.0, 2001.0, 80))[:, None]
    bounds = {f"{name}_bounds": "fixed" for name in [fixed] if name}
    k_sk = sk.ExpSineSquared(length_scale, periodicity, **bounds)
    K_sk, G_sk = k_sk(x, eval_gradient=True)
    k = ExpSineSquared(length_scale, periodicity, **bounds)
    W = np.random.default_rng(6).normal(size=(80, 80))
    W = W + W.T
    with Arena().evaluation():  # the scratch memory the optimizer's evaluations use
        parts = {}
        K = k.matrix_parts(x, parts)
        np.testing.assert_allclose(K, K_sk, rtol=1e-10, atol=1e-11)
        free = [j for j, h in enumerate(k.hyperparameters) if not h.fixed]
        assert len(parts[id(k)][1]) == len(free)  # no matrix for a fixed hyperparameter
        g = k.gradient_dot(x, W, parts=parts)
    want = [float(np.sum(W * G_sk[:, :, j])) for j in range(G_sk.shape[2])]
    np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-8)
    # the same numbers as the pass over squared distances (two features, one of them 0)
    x2 = np.hstack([x, np.zeros_like(x)])
    parts2 = {}
    np.testing.assert_allclose(k.matrix_parts(x2, parts2), K, rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(k.gradient_dot(x2, W, parts=parts2), g, rtol=1e-9, atol=1e-8)


def test_kernels_print_as_sklearn():
    assert repr(Constant(0.841**2) * RBF(length_scale=0.5)) == "0.841**2 * RBF(length_scale=0.5)"
    pairs = [
        (Constant(2.0) * RBF([0.7, 1.9]) + White(0.1),
         sk.ConstantKernel(2.0) * sk.RBF([0.7, 1.9]) + sk.WhiteKernel(0.1)),
        (RationalQuadratic(0.9, 0.4), sk.RationalQuadratic(0.9, 0.4)),
        (ExpSineSquared(1.2, 2.5), sk.ExpSineSquared(1.2, 2.5)),
        (Matern(1.5, nu=2.5), sk.Matern(1.5, nu=2.5)),
        (DotProduct(0.5) ** 2,
         sk.DotProduct(0.5) ** 2),
    ]
    for ours, theirs in pairs:
        # same text up to scikit-learn's "Kernel" suffixes of ConstantKernel/WhiteKernel
        assert repr(ours) == repr(theirs).replace("WhiteKernel", "White")
    assert repr(SklearnKernel(sk.RBF(0.5))) == "RBF(length_scale=0.5)"
    assert repr(2.0 * RBF(1.0)) == "1.41**2 * RBF(length_scale=1)"
    assert isinstance(RBF() ** 2, Exponentiation)
