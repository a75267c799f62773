"""Kernel properties: values against naive references and scikit-learn, symmetry, PSD,
diagonal, analytic gradients against finite differences, composition and params."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.gaussian_process import kernels as skk
from sklearn.metrics import pairwise

from kernelkit.kernels import (
    RBF,
    Constant,
    ExpSineSquared,
    FeatureMap,
    Laplacian,
    Linear,
    Matern,
    Pairwise,
    Polynomial,
    Precomputed,
    RationalQuadratic,
    SklearnKernel,
    White,
    resolve_kernel,
)
from tests.reference import kernels as ref

KERNELS = {
    "linear": lambda: Linear(),
    "poly": lambda: Polynomial(degree=3, gamma=0.5, coef0=1.0),
    "rbf": lambda: RBF(0.8),
    "rbf_ard": lambda: RBF([0.5, 1.0, 2.0]),
    "laplacian": lambda: Laplacian(1.3),
    "laplacian_ard": lambda: Laplacian([0.5, 1.0, 2.0]),
    "matern05": lambda: Matern(0.9, nu=0.5),
    "matern05_ard": lambda: Matern([0.7, 1.1, 1.9], nu=0.5),
    "matern15": lambda: Matern(0.9, nu=1.5),
    "matern25": lambda: Matern(0.9, nu=2.5),
    "matern25_ard": lambda: Matern([0.7, 1.1, 1.9], nu=2.5),
    "matern15_ard": lambda: Matern([0.7, 1.1, 1.9], nu=1.5),
    "rq": lambda: RationalQuadratic(0.7, alpha=1.7),
    "periodic": lambda: ExpSineSquared(1.1, periodicity=2.3),
    "constant": lambda: Constant(2.5),
    "white": lambda: White(0.3),
    "featuremap": lambda: FeatureMap(lambda X: np.hstack([X, X**2])),
    "sum": lambda: RBF(0.8) + White(0.1),
    "product": lambda: Constant(2.0) * Matern([0.7, 1.1, 1.9], nu=1.5),
    "scale": lambda: 3.0 * RBF(1.2),
    "composite": lambda: 2.0 * RBF([0.5, 1.0, 2.0]) * ExpSineSquared(1.0, 3.0)
    + RationalQuadratic(1.0, 0.5) + White(0.05),
}

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
points = arrays(np.float64, st.tuples(st.integers(2, 7), st.just(3)), elements=finite)


@pytest.mark.parametrize("name", KERNELS)
@settings(max_examples=15, deadline=None)
@given(X=points, Y=points)
def test_symmetry_psd_transpose_and_diag(name, X, Y):
    k = KERNELS[name]()
    K = k(X)
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    # ExpSineSquared of the Euclidean distance is PSD on 1-D inputs only
    Xp = X[:, :1] if name in ("periodic", "composite") and name != "composite" else X
    if name != "composite":
        Kp = k(Xp)
        w = np.linalg.eigvalsh(Kp)
        assert w.min() >= -1e-8 * max(np.trace(Kp), 1.0)
    KXY = k(X, Y)
    np.testing.assert_allclose(KXY, k(Y, X).T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(k.diag(X), np.diagonal(K), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in KERNELS if KERNELS[n]().n_dims > 0])
def test_gradient_matches_finite_differences(name):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(9, 3))
    k = KERNELS[name]()
    K, G = k(X, eval_gradient=True)
    assert G.shape == (9, 9, k.n_dims)
    np.testing.assert_allclose(K, k(X), rtol=1e-12)
    num = ref.finite_difference_gradient(k, X)
    np.testing.assert_allclose(G, num, rtol=1e-5, atol=1e-7)
    # the generator yields the same matrices one at a time
    for j, dK in enumerate(k.gradient(X)):
        np.testing.assert_allclose(dK, G[:, :, j], rtol=1e-12, atol=1e-14)


GRADIENT_DOT_EXTRA = {
    "const_right": lambda: RBF([0.5, 1.0, 2.0]) * Constant(1.5),
    "fixed_const": lambda: Constant(2.0, "fixed") * RBF(0.9) + White(0.2, "fixed"),
    "fixed_rbf": lambda: Constant(2.0) * RBF(0.9, "fixed"),
    "gp_benchmark": lambda: Constant(1.3) * RBF([0.5, 1.0, 2.0]) + White(0.1),
}


@pytest.mark.parametrize(
    "name", [n for n in KERNELS if KERNELS[n]().n_dims > 0] + list(GRADIENT_DOT_EXTRA))
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_gradient_dot_matches_contracting_each_gradient(name, offset):
    # g_j = sum_ik W_ik (dK/dtheta_j)_ik, the closed forms against the (n, n, p) tensor
    rng = np.random.default_rng(3)
    X = rng.normal(size=(11, 3)) + offset  # a large offset probes cancellation
    k = {**KERNELS, **GRADIENT_DOT_EXTRA}[name]()
    W = rng.normal(size=(11, 11))
    W = W + W.T
    _, G = k(X, eval_gradient=True)
    expected = np.einsum("ik,ikj->j", W, G)
    got = k.gradient_dot(X, W)
    assert got.shape == (k.n_dims,)
    scale = np.einsum("ik,ikj->j", np.abs(W), np.abs(G)) + 1e-300
    # at the offset the reference's own squared distances carry eps * |x|^2 rounding
    np.testing.assert_array_less(np.abs(got - expected) / scale, 1e-10 if offset == 0 else 1e-7)
    # the same with the kernel's own matrix passed in
    np.testing.assert_allclose(k.gradient_dot(X, W, k(X)), got, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_rbf_weighted_sums_numpy_and_numba_paths_agree(monkeypatch, offset):
    """Small sets (the sparse GP's K_MM) take a NumPy path, large ones numba's fused pass
    over one triangle: the same sums."""
    from kernelkit.kernels import _distances as dist

    rng = np.random.default_rng(5)
    k = RBF([0.7, 1.3, 2.0])
    X = rng.normal(size=(300, 3)) + offset
    W = rng.normal(size=(300, 300))
    W = W + W.T
    small = k.gradient_dot(X, W)
    monkeypatch.setattr(dist, "RBF_SUMS_NUMPY_ROWS", 0)
    fused = k.gradient_dot(X, W)
    np.testing.assert_allclose(small, fused, rtol=1e-9)


def test_product_with_constant_and_sum_with_white_cross_matrices():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(5, 2)), rng.normal(size=(4, 2))
    k = Constant(1.7) * RBF(0.8) + White(0.3)
    np.testing.assert_allclose(k(X, Y), 1.7 * RBF(0.8)(X, Y), rtol=1e-14)
    np.testing.assert_allclose(k(X), 1.7 * RBF(0.8)(X) + 0.3 * np.eye(5), rtol=1e-14)
    np.testing.assert_allclose((RBF(0.8) * Constant(1.7))(X, Y), 1.7 * RBF(0.8)(X, Y))


def test_polynomial_gradient():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(6, 2))
    k = Polynomial(degree=2, gamma=0.7, coef0=1.5)
    _, G = k(X, eval_gradient=True)
    np.testing.assert_allclose(G, ref.finite_difference_gradient(k, X), rtol=1e-5, atol=1e-7)
    assert Polynomial(coef0=0.0).n_dims == 1  # coef0 = 0 has no log: fixed


def test_values_against_naive_reference():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    ls = np.array([0.5, 1.0, 2.0])
    cases = [
        (RBF(ls), lambda x, y: ref.rbf(x, y, ls)),
        (Laplacian(ls), lambda x, y: ref.laplacian(x, y, ls)),
        (Matern(ls, nu=0.5), lambda x, y: ref.matern(x, y, ls, 0.5)),
        (Matern(ls, nu=1.5), lambda x, y: ref.matern(x, y, ls, 1.5)),
        (Matern(ls, nu=2.5), lambda x, y: ref.matern(x, y, ls, 2.5)),
        (RationalQuadratic(0.7, 1.7), lambda x, y: ref.rational_quadratic(x, y, 0.7, 1.7)),
        (ExpSineSquared(1.1, 2.3), lambda x, y: ref.exp_sine_squared(x, y, 1.1, 2.3)),
        (Polynomial(3, 0.5, 1.0), lambda x, y: ref.polynomial(x, y, 3, 0.5, 1.0)),
    ]
    for k, f in cases:
        np.testing.assert_allclose(k(X, Y), ref.pairwise(f, X, Y), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(k(X), ref.pairwise(f, X), rtol=1e-12, atol=1e-14)


def test_equal_to_sklearn_pairwise():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(30, 4)), rng.normal(size=(20, 4))
    g = 0.3
    np.testing.assert_allclose(RBF(np.sqrt(0.5 / g))(X, Y), pairwise.rbf_kernel(X, Y, gamma=g),
                               rtol=1e-12)
    np.testing.assert_allclose(Laplacian(1 / g)(X, Y), pairwise.laplacian_kernel(X, Y, gamma=g),
                               rtol=1e-12)
    np.testing.assert_allclose(Polynomial(3, g, 1.0)(X, Y),
                               pairwise.polynomial_kernel(X, Y, degree=3, gamma=g, coef0=1.0),
                               rtol=1e-12)
    np.testing.assert_allclose(Linear()(X, Y), pairwise.linear_kernel(X, Y), rtol=1e-12)


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (RBF([0.5, 1.5, 2.0, 1.0]), skk.RBF([0.5, 1.5, 2.0, 1.0])),
        (Matern(1.3, nu=0.5), skk.Matern(1.3, nu=0.5)),
        (Matern([1.3, 0.4, 2.0, 1.0], nu=1.5), skk.Matern([1.3, 0.4, 2.0, 1.0], nu=1.5)),
        (Matern(0.8, nu=2.5), skk.Matern(0.8, nu=2.5)),
        (RationalQuadratic(0.9, 2.0), skk.RationalQuadratic(0.9, 2.0)),
        (ExpSineSquared(1.2, 3.1), skk.ExpSineSquared(1.2, 3.1)),
        (2.0 * RBF(1.0) + White(0.3), skk.ConstantKernel(2.0) * skk.RBF(1.0)
         + skk.WhiteKernel(0.3)),
    ],
)
def test_equal_to_sklearn_gp_kernels(ours, theirs):
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(15, 4)), rng.normal(size=(6, 4))
    np.testing.assert_allclose(ours(X, Y), theirs(X, Y), rtol=1e-10, atol=1e-14)
    K, G = ours(X, eval_gradient=True)
    K2, G2 = theirs(X, eval_gradient=True)
    np.testing.assert_allclose(K, K2, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(np.sort(ours.theta), np.sort(theirs.theta), rtol=1e-12)
    # same gradient entries up to the ordering of hyperparameters
    np.testing.assert_allclose(np.sort(G.sum(axis=(0, 1))), np.sort(G2.sum(axis=(0, 1))),
                               rtol=1e-8)


def test_theta_bounds_and_clone_with_theta():
    k = 2.0 * RBF([1.0, 2.0]) + White(0.1, noise_level_bounds="fixed")
    assert k.n_dims == 3
    np.testing.assert_allclose(k.theta, np.log([2.0, 1.0, 2.0]))
    assert k.bounds.shape == (3, 2)
    np.testing.assert_allclose(k.bounds[0], np.log([1e-5, 1e5]))
    k2 = k.clone_with_theta(np.log([3.0, 4.0, 5.0]))
    assert k2.k1.scale == pytest.approx(3.0)
    np.testing.assert_allclose(k2.k1.kernel.length_scale, [4.0, 5.0])
    assert k.k1.scale == 2.0  # original untouched
    with pytest.raises(ValueError, match="theta must have shape"):
        k.theta = [1.0]


def test_get_set_params_clone_and_grid_search():
    from sklearn.model_selection import ParameterGrid

    k = RBF(1.0) * Constant(2.0)
    params = k.get_params()
    assert params["k1__length_scale"] == 1.0
    k.set_params(k1__length_scale=3.0)
    assert k.k1.length_scale == 3.0
    c = clone(k)
    assert c is not k and c == k
    grid = list(ParameterGrid({"kernel__length_scale": [0.5, 1.0]}))
    assert len(grid) == 2


def test_sklearn_gp_kernel_adapter_and_resolver():
    sk = skk.ConstantKernel(1.5) * skk.RBF(0.7)
    k = resolve_kernel(sk)
    assert isinstance(k, SklearnKernel)
    X = np.random.default_rng(6).normal(size=(8, 2))
    np.testing.assert_allclose(k(X), sk(X))
    np.testing.assert_allclose(k.theta, sk.theta)
    G = np.stack(list(k.gradient(X)), axis=-1)
    np.testing.assert_allclose(G, sk(X, eval_gradient=True)[1])


def test_resolver_strings_and_callables():
    X = np.random.default_rng(7).normal(size=(10, 4))
    np.testing.assert_allclose(resolve_kernel("rbf", gamma=0.2)(X),
                               pairwise.rbf_kernel(X, gamma=0.2), rtol=1e-12)
    np.testing.assert_allclose(resolve_kernel("rbf", n_features=4)(X),
                               pairwise.rbf_kernel(X, gamma=0.25), rtol=1e-12)
    np.testing.assert_allclose(resolve_kernel("laplacian", gamma=0.2)(X),
                               pairwise.laplacian_kernel(X, gamma=0.2), rtol=1e-12)
    np.testing.assert_allclose(resolve_kernel("poly", gamma=0.2, degree=2, coef0=0.5)(X),
                               pairwise.polynomial_kernel(X, degree=2, gamma=0.2, coef0=0.5))
    np.testing.assert_allclose(resolve_kernel("sigmoid", gamma=0.2, coef0=0.5)(X),
                               pairwise.sigmoid_kernel(X, gamma=0.2, coef0=0.5))
    np.testing.assert_allclose(resolve_kernel(lambda a, b: float(a @ b))(X), X @ X.T)
    K = resolve_kernel("precomputed")(X @ X.T)
    np.testing.assert_allclose(K, X @ X.T)
    with pytest.raises(ValueError, match="Unknown kernel"):
        resolve_kernel("gaussian-ish")
    with pytest.raises(ValueError, match="gamma must be positive"):
        resolve_kernel("rbf", gamma=-1.0)
    with pytest.raises(ValueError, match="Cannot use"):
        resolve_kernel(42)


def test_float32_stays_float32():
    X = np.random.default_rng(8).normal(size=(12, 3)).astype(np.float32)
    for k in (RBF(1.0), Laplacian(1.0), Matern(1.0, nu=2.5), Linear(), Polynomial(2, 1.0, 1.0)):
        K = k(X)
        assert K.dtype == np.float32, type(k).__name__
        np.testing.assert_allclose(K, k(X.astype(np.float64)), rtol=1e-4, atol=1e-5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="2-D"):
        RBF()(np.ones(3))
    with pytest.raises(ValueError, match="nu must be"):
        Matern(nu=3.5)(np.ones((2, 1)))
    with pytest.raises(ValueError, match="length scale per feature"):
        RBF([1.0, 2.0])(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square"):
        Precomputed()(np.ones((2, 3)))


def test_white_and_constant_semantics():
    X, Y = np.zeros((3, 1)), np.zeros((2, 1))
    np.testing.assert_array_equal(White(0.5)(X), 0.5 * np.eye(3))
    np.testing.assert_array_equal(White(0.5)(X, Y), np.zeros((3, 2)))
    np.testing.assert_array_equal(Constant(2.0)(X, Y), np.full((3, 2), 2.0))
    assert Pairwise("cosine").diag(np.array([[1.0, 2.0]]))[0] == pytest.approx(1.0)


def test_matern_positional_signature_is_length_scale_then_nu():
    # Matern(length_scale, nu) as the issue / DESIGN pin it (bounds by keyword)
    X = np.random.default_rng(9).normal(size=(8, 2))
    for nu in (0.5, 1.5, 2.5):
        np.testing.assert_allclose(Matern(0.8, nu)(X), skk.Matern(0.8, nu=nu)(X), rtol=1e-12)
        assert Matern(0.8, nu).nu == nu
    k = Matern(0.8, 2.5, (1e-2, 1e2))
    np.testing.assert_allclose(k.bounds, np.log([[1e-2, 1e2]]))


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: RBF(0.0), "length_scale must be positive"),
        (lambda: RBF([1.0, -1.0, 2.0]), "length_scale must be positive"),
        (lambda: Laplacian(-2.0), "length_scale must be positive"),
        (lambda: Matern(np.nan, nu=1.5), "length_scale must be positive"),
        (lambda: RationalQuadratic(0.0, 1.0), "length_scale must be positive"),
        (lambda: RationalQuadratic(1.0, 0.0), "alpha must be positive"),
        (lambda: ExpSineSquared(0.0, 1.0), "length_scale must be positive"),
        (lambda: ExpSineSquared(1.0, 0.0), "periodicity must be positive"),
    ],
)
def test_non_positive_hyperparameters_are_clear_errors(make, match):
    # a zero or negative scale gave NaN / a growing "kernel" / ZeroDivisionError before
    X = np.random.default_rng(10).normal(size=(5, 3))
    with pytest.raises(ValueError, match=match):
        make()(X)


@pytest.mark.parametrize("bounds", [3.0, "fix", (1e2, 1e-2), (0.0, 1.0), [(1, 2)] * 2])
def test_malformed_bounds_are_clear_errors(bounds):
    k = RBF([1.0, 2.0, 3.0], length_scale_bounds=bounds)
    with pytest.raises(ValueError, match="length_scale_bounds must be"):
        k.bounds  # noqa: B018
    # per-element bounds of an ARD length scale are accepted
    k = RBF([1.0, 2.0], length_scale_bounds=[(1e-2, 1e2), (1e-3, 1e3)])
    np.testing.assert_allclose(np.exp(k.bounds), [[1e-2, 1e2], [1e-3, 1e3]])


@pytest.mark.parametrize("name", ["linear", "poly", "rbf", "laplacian", "matern25", "rq",
                                  "periodic", "sum", "scale", "product"])
def test_different_feature_counts_are_a_clear_error(name):
    # (was a raw BLAS error, or a silent answer from the first columns for the Laplacian)
    rng = np.random.default_rng(11)
    k = KERNELS[name]()
    with pytest.raises(ValueError, match="3 features but Y has 4"):
        k(rng.normal(size=(5, 3)), rng.normal(size=(2, 4)))


def test_precomputed_cross_block_and_complex_input():
    K = np.random.default_rng(12).normal(size=(3, 5))  # K(X_test, X_train)
    np.testing.assert_array_equal(Precomputed()(K, np.eye(5)), K)
    with pytest.raises(ValueError, match="real"):
        RBF()(np.ones((3, 2)) + 1j)


def test_feature_map_keeps_float32():
    X = np.random.default_rng(13).normal(size=(6, 2)).astype(np.float32)
    k = FeatureMap(lambda A: np.hstack([A, A**2]))
    assert k(X).dtype == np.float32
    np.testing.assert_allclose(k(X), k(X.astype(np.float64)), rtol=1e-5, atol=1e-5)


def test_resolver_rejects_non_numeric_gamma():
    with pytest.raises(ValueError, match="gamma must be positive"):
        resolve_kernel("rbf", gamma="scale", n_features=3)


def test_squared_distances_by_blas_are_clipped_and_exact_on_the_diagonal():
    from kernelkit.kernels import _distances as dist

    rng = np.random.default_rng(14)
    X = rng.normal(size=(20, 4)) + 1e4  # large offset: ||x||^2 + ||y||^2 - 2 x.y cancels
    X[5] = X[3] + 1e-9  # a near duplicate
    Y = rng.normal(size=(7, 4)) + 1e4
    D = dist.sq_euclidean(X)
    assert np.all(D >= 0) and np.all(np.diagonal(D) == 0)
    naive = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    # the expansion carries rounding of order eps * ||x||^2 ~ 2e-16 * 4e8 ~ 1e-7
    np.testing.assert_allclose(D, naive, atol=1e-5)
    np.testing.assert_allclose(dist.sq_euclidean(X, Y),
                               ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1), atol=1e-5)
    np.testing.assert_allclose(dist.manhattan(X, Y),
                               np.abs(X[:, None, :] - Y[None, :, :]).sum(-1), rtol=1e-12)
    K = RBF(1.0)(X)
    assert np.all(K <= 1.0) and np.all(np.diagonal(K) == 1.0)


def test_polynomial_non_integer_degree_and_more_float32_kernels():
    rng = np.random.default_rng(15)
    X, Y = rng.uniform(0, 1, size=(9, 3)), rng.uniform(0, 1, size=(4, 3))
    np.testing.assert_allclose(Polynomial(2.5, 0.7, 1.0)(X, Y),
                               pairwise.polynomial_kernel(X, Y, degree=2.5, gamma=0.7, coef0=1.0),
                               rtol=1e-12)
    X32 = X.astype(np.float32)
    for k in (RationalQuadratic(0.9, 1.5), ExpSineSquared(1.0, 2.0), Constant(2.0), White(0.3),
              2.0 * RBF(0.8) + White(0.1), Constant(1.5) * Laplacian(1.2), Matern(0.8, 0.5)):
        K = k(X32)
        assert K.dtype == np.float32 and k.diag(X32).dtype == np.float32, repr(k)
        np.testing.assert_allclose(K, k(X), rtol=1e-4, atol=1e-5)


def test_grid_search_over_kernel_length_scale_in_an_estimator():
    from sklearn.model_selection import GridSearchCV

    from kernelkit import KernelRidge

    rng = np.random.default_rng(16)
    X = rng.uniform(-3, 3, size=(40, 1))
    y = np.sin(X[:, 0])
    k = RBF(10.0)
    gs = GridSearchCV(KernelRidge(alpha=1e-3, kernel=k),
                      {"kernel__length_scale": [0.01, 1.0, 100.0]}, cv=3).fit(X, y)
    assert gs.best_params_ == {"kernel__length_scale": 1.0}
    assert gs.best_estimator_.kernel.length_scale == 1.0 and k.length_scale == 10.0
