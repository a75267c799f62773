"""Nystroem and random Fourier features: against scikit-learn, the kernel they approximate,
and the 1 / sqrt(D) rate of the random-feature error."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline

from kernelkit import Nystroem, RandomFourierFeatures
from kernelkit.kernels import RBF, Laplacian, Matern
from tests.reference import falkon as ref


def _X(n=60, d=4, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


@pytest.mark.parametrize("kernel, params", [
    ("rbf", dict(gamma=0.3)),
    ("laplacian", dict(gamma=0.2)),
    ("poly", dict(gamma=0.5, degree=2, coef0=1.0)),
])
def test_nystroem_equals_sklearn(kernel, params):
    X, Xt = _X(), _X(20, seed=1)
    ours = Nystroem(kernel, n_components=15, random_state=0, **params).fit(X)
    theirs = SkNystroem(kernel=kernel, n_components=15, random_state=0, **params).fit(X)
    np.testing.assert_array_equal(ours.component_indices_, theirs.component_indices_)
    np.testing.assert_allclose(ours.transform(Xt), theirs.transform(Xt), rtol=1e-8,
                               atol=1e-10)
    assert list(ours.get_feature_names_out()) == [f"nystroem{i}" for i in range(15)]


def test_nystroem_features_reproduce_the_kernel():
    X, Xt = _X(40), _X(10, seed=2)
    k = RBF(length_scale=[1.0, 2.0, 1.5, 3.0])  # a kernelkit ARD kernel object
    ny = Nystroem(k, n_components=40, random_state=0).fit(X)
    Z = ny.transform(X)
    np.testing.assert_allclose(Z @ Z.T, k(X), atol=1e-8)  # all points: exact
    # the Nystrom approximation k_M(x)^T K_MM^-1 k_M(y) for new points (naive reference)
    ny = Nystroem(k, n_components=12, random_state=0).fit(X)
    C = ny.components_
    Zt = ny.transform(Xt)
    np.testing.assert_allclose(Zt, ref.nystroem_features(k(Xt, C), k(C)), atol=1e-8)
    assert k.length_scale == [1.0, 2.0, 1.5, 3.0]  # the parameter was not touched


def test_nystroem_clamps_components_with_warning():
    with pytest.warns(UserWarning, match="n_components"):
        ny = Nystroem(n_components=100).fit(_X(30))
    assert ny.transform(_X(5)).shape == (5, 30)


def test_rff_rbf_equals_sklearn_rbfsampler():
    X = _X()
    ours = RandomFourierFeatures("rbf", n_components=50, gamma=0.3, random_state=0).fit(X)
    theirs = RBFSampler(gamma=0.3, n_components=50, random_state=0).fit(X)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=1e-10,
                               atol=1e-12)


def _kernels():
    return [
        RBF(1.5),
        Laplacian(2.0),
        Matern(1.5, nu=0.5),
        Matern(1.5, nu=1.5),
        Matern(1.5, nu=2.5),
    ]


@pytest.mark.parametrize("kernel", _kernels(), ids=lambda k: repr(k))
def test_rff_error_shrinks_as_one_over_sqrt_D(kernel):
    # z(x).z(y) is an average of D iid terms with mean k(x, y): RMS error ~ c / sqrt(D)
    X = _X(25, d=3, seed=4) * 1.5
    K = kernel(X)
    Ds = np.array([64, 256, 1024, 4096])
    err = []
    for D in Ds:
        e = [np.sqrt(np.mean((lambda Z: Z @ Z.T - K)(
            RandomFourierFeatures(kernel, n_components=int(D), random_state=s)
            .fit_transform(X)) ** 2)) for s in range(12)]
        err.append(np.mean(e))
    slope = np.polyfit(np.log(Ds), np.log(err), 1)[0]
    assert -0.6 < slope < -0.4, (slope, err)
    # ...and towards the right kernel: the error at D is the unbiased-estimator size
    assert err[-1] * np.sqrt(Ds[-1]) < 1.5


def test_rff_spectral_density_by_name_and_ard():
    X = _X(20, d=2, seed=5)
    Z = RandomFourierFeatures("laplacian", n_components=100_000, gamma=0.5,
                              random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, Laplacian(2.0)(X), atol=0.02)
    Z = RandomFourierFeatures("matern", n_components=100_000, length_scale=[1.0, 3.0],
                              nu=2.5, random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, Matern([1.0, 3.0], nu=2.5)(X), atol=0.02)


def test_rff_float32_and_pipeline():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(400, 2))
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1])
    rff = RandomFourierFeatures(n_components=30, random_state=0).fit(X.astype(np.float32))
    assert rff.transform(X.astype(np.float32)).dtype == np.float32
    for feats in (RandomFourierFeatures("rbf", 300, gamma=1.0, random_state=0),
                  Nystroem("rbf", gamma=1.0, n_components=100, random_state=0)):
        model = make_pipeline(feats, Ridge(alpha=1e-3)).fit(X, y)
        assert model.score(X, y) > 0.98


@pytest.mark.parametrize("params, match", [
    (dict(kernel="poly"), "Nystroem"),
    (dict(kernel="matern", nu=3.5), "nu"),
    (dict(kernel="rbf", length_scale=-1.0), "length_scale"),
    (dict(n_components=0), "n_components"),
])
def test_rff_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        RandomFourierFeatures(**params).fit(_X())


def test_nystroem_signature_is_sklearns_plus_positional_n_components():
    import inspect

    ours = inspect.signature(Nystroem).parameters
    theirs = inspect.signature(SkNystroem).parameters
    assert set(theirs) <= set(ours)
    for name, p in theirs.items():
        assert ours[name].default == p.default, name
    X = _X()
    a = Nystroem("rbf", 15, gamma=0.3, random_state=0).fit(X)  # the issue's (kernel, M)
    b = SkNystroem(kernel="rbf", gamma=0.3, n_components=15, random_state=0, n_jobs=1).fit(X)
    assert a.n_components == 15 and a.components_.shape == (15, 4)
    np.testing.assert_allclose(a.transform(X), b.transform(X), rtol=1e-8, atol=1e-10)
    Nystroem(n_jobs=2, n_components=5).fit(X)  # accepted as scikit-learn's


def test_rff_accepts_sklearn_gp_kernels():
    from sklearn.gaussian_process import kernels as gp

    X = _X(30, d=2)
    for sk, kk in [(gp.RBF([1.0, 2.0]), RBF([1.0, 2.0])),
                   (gp.Matern(1.5, nu=2.5), Matern(1.5, nu=2.5))]:
        a = RandomFourierFeatures(sk, 64, random_state=0).fit(X)
        b = RandomFourierFeatures(kk, 64, random_state=0).fit(X)
        np.testing.assert_array_equal(a.transform(X), b.transform(X))
    with pytest.raises(ValueError, match="Nystroem"):
        RandomFourierFeatures(gp.Matern(1.0, nu=0.7), 10).fit(X)


def test_nystroem_drop_in_gaps_of_issue_22():
    """chi2's own gamma, no gamma with a callable, non-PSD kernels as scikit-learn's SVD."""
    from sklearn.kernel_approximation import Nystroem as SkNystroem
    from sklearn.metrics.pairwise import chi2_kernel

    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(40, 4)))
    Z = Nystroem("chi2", n_components=40, random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, chi2_kernel(X), atol=1e-8)  # gamma = 1
    with pytest.raises(ValueError, match="Don.t pass gamma, coef0 or degree to Nystroem"):
        Nystroem(lambda a, b: float(a @ b), gamma=0.1).fit(X)
    for kernel in ("sigmoid", "additive_chi2"):
        ours = Nystroem(kernel, n_components=20, random_state=0).fit_transform(X)
        sk = SkNystroem(kernel=kernel, n_components=20, random_state=0).fit_transform(X)
        assert np.abs(ours).max() < 10 * np.abs(sk).max()
        np.testing.assert_allclose(ours @ ours.T, sk @ sk.T, atol=1e-6 * np.abs(sk).max() ** 2)


def test_random_fourier_features_gamma_scale_is_rbfsamplers():
    from sklearn.kernel_approximation import RBFSampler

    X = np.random.default_rng(1).normal(scale=3.0, size=(30, 5))
    ours = RandomFourierFeatures(gamma="scale", n_components=50, random_state=0).fit(X)
    sk = RBFSampler(gamma="scale", n_components=50, random_state=0).fit(X)
    np.testing.assert_allclose(ours.transform(X), sk.transform(X), rtol=1e-10, atol=1e-12)


def test_nystroem_precomputed_equals_sklearn():
    """kernel="precomputed" as scikit-learn: fit on K(X, X), transform K(X_new, X); with every
    sample a component (all scikit-learn supports) the features equal its features."""
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

    X, Xt = _X(30), _X(7, seed=3)
    for kfun in (lambda A, B: rbf_kernel(A, B, gamma=0.2),
                 lambda A, B: polynomial_kernel(A, B, degree=2, coef0=0.1)):
        K, Kt = kfun(X, X), kfun(Xt, X)
        ours = Nystroem("precomputed", n_components=30, random_state=0).fit(K)
        theirs = SkNystroem(kernel="precomputed", n_components=30, random_state=0).fit(K)
        np.testing.assert_array_equal(ours.component_indices_, theirs.component_indices_)
        np.testing.assert_allclose(ours.components_, theirs.components_)
        np.testing.assert_allclose(ours.transform(Kt), theirs.transform(Kt), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(ours.fit_transform(K) @ ours.fit_transform(K).T, K,
                                   atol=1e-6)


def test_nystroem_precomputed_with_fewer_components_equals_the_kernel_path():
    """With M < n components (scikit-learn raises there) the features from K(X, X) and
    K(X_new, X) equal those computed from X with the same kernel and random_state:
    K_MM is the block of K at the sampled rows and columns, k_M(x) its sampled columns."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, Xt = _X(50), _X(9, seed=4)
    direct = Nystroem("rbf", n_components=12, gamma=0.3, random_state=1).fit(X)
    pre = Nystroem("precomputed", n_components=12, random_state=1).fit(rbf_kernel(X, gamma=0.3))
    np.testing.assert_array_equal(pre.component_indices_, direct.component_indices_)
    np.testing.assert_allclose(pre.transform(rbf_kernel(Xt, X, gamma=0.3)),
                               direct.transform(Xt), rtol=1e-8, atol=1e-10)
    assert pre.components_.shape == (12, 50)  # the sampled rows of K(X, X)
    with pytest.raises(ValueError, match="Don't pass gamma, coef0 or degree"):
        Nystroem("precomputed", gamma=1.0).fit(rbf_kernel(X))
    with pytest.raises(ValueError, match="square kernel matrix"):
        Nystroem("precomputed").fit(X)
    with pytest.raises(ValueError, match="50 features"):
        pre.transform(rbf_kernel(Xt, X[:40]))
