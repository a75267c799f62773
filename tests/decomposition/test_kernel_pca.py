"""KernelPCA: against scikit-learn, the centred eigenproblem of the notes, explicit features."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import NotFittedError, PositiveSpectrumWarning
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit import KernelPCA
from kernelkit.kernels import RBF
from tests.reference import kernel_pca as ref


def _data(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    # decaying scales: a spectrum without ties, so eigenvectors are well defined
    X = rng.standard_normal((n, d)) * (0.7 ** np.arange(d))
    Xt = rng.standard_normal((15, d)) * (0.7 ** np.arange(d))
    return X, Xt


def _match_signs(Z, Zref):
    s = np.sign(np.sum(Z * Zref, axis=0))
    s[s == 0] = 1
    return Z * s


KERNELS = [
    dict(kernel="rbf", gamma=0.3),
    dict(kernel="poly", degree=2, gamma=0.5, coef0=1.0),
    dict(kernel="linear"),
    dict(kernel="cosine"),
]


@pytest.mark.parametrize("kw", KERNELS, ids=lambda kw: kw["kernel"])
@pytest.mark.parametrize("solver", ["dense", "randomized", "arpack", "lobpcg"])
def test_matches_sklearn(kw, solver):
    X, Xt = _data()
    ours = KernelPCA(n_components=3, eigen_solver=solver, random_state=0, **kw)
    peer = SkKernelPCA(n_components=3, eigen_solver="dense", **kw)
    Z, Zp = ours.fit_transform(X), peer.fit_transform(X)
    tol = 1e-5 if solver == "lobpcg" else 1e-9
    np.testing.assert_allclose(ours.eigenvalues_, peer.eigenvalues_, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(_match_signs(Z, Zp), Zp, atol=tol)
    np.testing.assert_allclose(_match_signs(ours.transform(Xt), peer.transform(Xt)),
                               peer.transform(Xt), atol=tol)


def test_sign_convention_as_sklearn():
    X, Xt = _data()
    ours = KernelPCA(n_components=4, kernel="rbf", gamma=0.3).fit(X)
    peer = SkKernelPCA(n_components=4, kernel="rbf", gamma=0.3).fit(X)
    np.testing.assert_allclose(ours.transform(Xt), peer.transform(Xt), atol=1e-10)


def test_centred_eigenproblem_identity():
    # K~ alpha = m lambda alpha,  explained_variance_ = lambda,  alpha^T K~ alpha = 1
    X, Xt = _data()
    m = len(X)
    kpca = KernelPCA(n_components=5, kernel="rbf", gamma=0.3).fit(X)
    K = rbf_kernel(X, gamma=0.3)
    Kc = ref.centering_matrix(m) @ K @ ref.centering_matrix(m)
    V, mu = kpca.eigenvectors_, kpca.eigenvalues_
    np.testing.assert_allclose(Kc @ V, V * mu, atol=1e-10)
    np.testing.assert_allclose(kpca.explained_variance_, mu / m)
    alpha = V / np.sqrt(mu)
    np.testing.assert_allclose(np.diag(alpha.T @ Kc @ alpha), 1.0, rtol=1e-10)
    # and the reference's eigenvalues / projections with test-side centring
    mu_ref, alpha_ref, _ = ref.kernel_pca(K, 5)
    np.testing.assert_allclose(mu, mu_ref, rtol=1e-10)
    P_ref = ref.project(rbf_kernel(Xt, X, gamma=0.3), K, alpha_ref)
    np.testing.assert_allclose(_match_signs(kpca.transform(Xt), P_ref), P_ref, atol=1e-10)
    # training projections: fit_transform equals transform(X) (test-side centring of X)
    np.testing.assert_allclose(kpca.transform(X), V * np.sqrt(mu), atol=1e-10)


def test_explicit_feature_map_is_pca():
    # k(x, y) = (x.y + 1)^2 has the explicit map phi(x) = (1, sqrt2 x, x_i^2, sqrt2 x_i x_j):
    # kernel PCA = PCA of the centred phi; lambda = covariance eigenvalues (1/m normalised)
    X, Xt = _data(n=80, d=3)

    def phi(Z):
        cols = [np.ones(len(Z))] + [np.sqrt(2) * Z[:, i] for i in range(3)]
        cols += [Z[:, i] ** 2 for i in range(3)]
        cols += [np.sqrt(2) * Z[:, i] * Z[:, j] for i in range(3) for j in range(i + 1, 3)]
        return np.column_stack(cols)

    F = phi(X)
    mean = F.mean(axis=0)
    C = (F - mean).T @ (F - mean) / len(F)
    lam, W = np.linalg.eigh(C)
    lam, W = lam[::-1][:4], W[:, ::-1][:, :4]
    kpca = KernelPCA(n_components=4, kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X)
    np.testing.assert_allclose(kpca.explained_variance_, lam, rtol=1e-9)
    P = (phi(Xt) - mean) @ W
    np.testing.assert_allclose(_match_signs(kpca.transform(Xt), P), P, atol=1e-9)


def test_all_components_dense_drops_zero_eigenvalues():
    X, _ = _data(n=60)
    ours = KernelPCA(kernel="rbf", gamma=0.3).fit(X)  # n_components=None
    peer = SkKernelPCA(kernel="rbf", gamma=0.3).fit(X)
    assert ours.eigenvalues_.shape == peer.eigenvalues_.shape
    assert np.all(ours.eigenvalues_ > 0)
    np.testing.assert_allclose(ours.eigenvalues_, peer.eigenvalues_, atol=1e-10)
    # the linear kernel on 4 features has rank 4 after centring
    lin = KernelPCA(kernel="linear").fit(X)
    assert lin.eigenvalues_.shape == (4,)
    kept = KernelPCA(n_components=6, kernel="linear").fit(X)
    assert kept.eigenvalues_.shape == (6,) and np.all(kept.eigenvalues_[4:] == 0)
    assert np.all(kept.transform(X)[:, 4:] == 0)
    dropped = KernelPCA(n_components=6, kernel="linear", remove_zero_eig=True).fit(X)
    assert dropped.eigenvalues_.shape == (4,)


def test_inverse_transform_matches_sklearn():
    X, Xt = _data()
    kw = dict(n_components=4, kernel="rbf", gamma=0.3, fit_inverse_transform=True, alpha=0.1)
    ours, peer = KernelPCA(**kw).fit(X), SkKernelPCA(**kw).fit(X)
    np.testing.assert_allclose(ours.dual_coef_, peer.dual_coef_, atol=1e-8)
    Z = peer.transform(Xt)
    np.testing.assert_allclose(ours.inverse_transform(Z), peer.inverse_transform(Z), atol=1e-8)
    with pytest.raises(NotFittedError):
        KernelPCA(n_components=2).fit(X).inverse_transform(Z[:, :2])
    with pytest.raises(ValueError, match="components"):
        ours.inverse_transform(Z[:, :2])


def test_precomputed_and_kernel_object_agree():
    X, Xt = _data()
    K, Kt = rbf_kernel(X, gamma=0.3), rbf_kernel(Xt, X, gamma=0.3)
    a = KernelPCA(n_components=3, kernel="rbf", gamma=0.3).fit(X)
    b = KernelPCA(n_components=3, kernel="precomputed").fit(K)
    c = KernelPCA(n_components=3, kernel=RBF(length_scale=np.sqrt(0.5 / 0.3))).fit(X)
    np.testing.assert_allclose(b.transform(Kt), a.transform(Xt), atol=1e-10)
    np.testing.assert_allclose(c.transform(Xt), a.transform(Xt), atol=1e-10)
    with pytest.raises(ValueError, match="precomputed"):
        KernelPCA(kernel="precomputed", fit_inverse_transform=True).fit(K)


@pytest.mark.parametrize("copy_X", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_precomputed_keeps_the_centred_matrix(order, copy_X):
    # X_fit_ is the centred Gram matrix (as scikit-learn), whatever its memory order: the
    # dense solver must not overwrite it
    X, _ = _data(n=50)
    K = rbf_kernel(X, gamma=0.3)
    ours = KernelPCA(n_components=3, kernel="precomputed", eigen_solver="dense",
                     copy_X=copy_X).fit(np.array(K, order=order))
    peer = SkKernelPCA(n_components=3, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(ours.X_fit_, ref.centering_matrix(50) @ K @
                               ref.centering_matrix(50), atol=1e-12)
    np.testing.assert_allclose(ours.X_fit_, peer.X_fit_, atol=1e-12)


def test_float32_preserved():
    X, Xt = _data()
    kpca = KernelPCA(n_components=3, kernel="rbf", gamma=0.3).fit(X.astype(np.float32))
    Z = kpca.transform(Xt.astype(np.float32))
    assert Z.dtype == np.float32
    Z64 = KernelPCA(n_components=3, kernel="rbf", gamma=0.3).fit(X).transform(Xt)
    np.testing.assert_allclose(_match_signs(Z, Z64), Z64, atol=1e-4)


def test_n_components_larger_than_n_is_an_error():
    X, _ = _data(n=10)
    with pytest.raises(ValueError, match="n_components=11 is larger than the number"):
        KernelPCA(n_components=11, kernel="rbf").fit(X)
    with pytest.raises(ValueError, match="eigen_solver"):
        KernelPCA(eigen_solver="magic").fit(X)


def test_non_psd_kernel_warns_and_drops_negative_eigenvalues():
    X, _ = _data(n=80)
    K = rbf_kernel(X, gamma=0.3)
    K -= 0.3 * np.eye(80) + 0.5 * rbf_kernel(X, gamma=3.0)  # indefinite similarity
    with pytest.warns(PositiveSpectrumWarning, match="not positive semi-definite"):
        kpca = KernelPCA(kernel="precomputed").fit(K)
    assert np.all(kpca.eigenvalues_ > 0)
    n_pos = int(np.sum(np.linalg.eigvalsh(ref.centering_matrix(80) @ K @
                                          ref.centering_matrix(80)) > 1e-8))
    assert kpca.eigenvalues_.shape == (n_pos,)
    # negative definite: every component dropped (the null vector's round-off mu ~ 1e-15
    # is not a component), with the warning
    with pytest.warns(PositiveSpectrumWarning, match="not positive semi-definite"):
        neg = KernelPCA(kernel="precomputed").fit(-rbf_kernel(X[:30], gamma=0.3))
    assert neg.eigenvalues_.shape == (0,)
    # sigmoid kernel: scikit-learn raises here, we warn and keep the PSD part
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PositiveSpectrumWarning)
        Z = KernelPCA(kernel="sigmoid", gamma=2.0, coef0=-1.0).fit_transform(X)
    assert np.all(np.isfinite(Z))


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize("solver", ["randomized", "dense"])
def test_centring_in_place_memory(solver, kernel):
    # peak memory of fit: one n x n matrix plus O(n k) (the dense subset solver overwrites
    # the centred matrix in place: no Fortran-order copy of it)
    X, _ = _data(n=1000, d=5)
    kpca = KernelPCA(n_components=5, kernel=kernel, gamma=0.3, eigen_solver=solver,
                     random_state=0)
    # compile numba outside the measurement: every tile layout, and the parallel twins that
    # only a problem of this size calls (kernelkit._core.twin)
    kpca.fit(X)
    tracemalloc.start()
    try:
        kpca.fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    n = len(X)
    # one n x n matrix + O(n k) (k = 5); a second n x n copy would add n * n * 8
    assert peak < n * n * 8 + 100 * 5 * n * 8, (peak - n * n * 8) / (n * 8)


def test_solvers_agree_and_report_iterations():
    X, _ = _data(n=300)
    dense = KernelPCA(n_components=4, kernel="rbf", gamma=0.3, eigen_solver="dense").fit(X)
    rnd = KernelPCA(n_components=4, kernel="rbf", gamma=0.3, eigen_solver="randomized",
                    random_state=1).fit(X)
    np.testing.assert_allclose(rnd.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(rnd.eigenvectors_, dense.eigenvectors_, atol=1e-8)
    assert rnd.eigen_solver_ == "randomized" and rnd.n_iter_ >= 2
    few = KernelPCA(n_components=4, kernel="rbf", gamma=0.3, eigen_solver="randomized",
                    iterated_power=1, random_state=1).fit(X)
    assert few.n_iter_ == 2
    auto = KernelPCA(n_components=4, kernel="rbf", gamma=0.3).fit(X)
    assert auto.eigen_solver_ == "dense"


def test_auto_solver_chooses_by_n_and_n_components():
    # "auto": randomized when n > 1000 and n_components < n / 10, else dense
    X, _ = _data(n=1100)
    few = KernelPCA(n_components=3, kernel="rbf", gamma=0.3, random_state=0).fit(X)
    many = KernelPCA(n_components=110, kernel="rbf", gamma=0.3).fit(X)
    assert few.eigen_solver_ == "randomized" and many.eigen_solver_ == "dense"
    np.testing.assert_allclose(few.eigenvalues_, many.eigenvalues_[:3], rtol=1e-10)
    small = KernelPCA(n_components=3, kernel="rbf", gamma=0.3).fit(X[:1000])
    assert small.eigen_solver_ == "dense"


@pytest.mark.parametrize("n, dtype, length_scale", [
    (1, np.float64, 1.0), (130, np.float64, 1.3), (2300, np.float64, 2.0),
    (300, np.float32, [1.0, 2.0, 0.5]),
])
def test_fused_rbf_gram_is_centred_kernel_matrix(n, dtype, length_scale):
    # every pair computed once (upper-triangle tiles, mirrored) and centred in the same
    # pass: equals H K H of the plain RBF matrix, exactly symmetric, with K's row means
    from kernelkit.decomposition.kernel_pca import _exp_gram_centered

    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 3)).astype(dtype)
    X[-1] = X[0]  # a duplicate: k = 1 off the diagonal
    kern = RBF(length_scale)
    K = kern(X).astype(np.float64)
    H = ref.centering_matrix(n)
    Kc, means, grand = _exp_gram_centered(*kern.exp_factors(X))
    tol = 1e-13 if dtype == np.float64 else 1e-6
    assert Kc.dtype == dtype
    np.testing.assert_array_equal(Kc, Kc.T)
    np.testing.assert_allclose(Kc, H @ K @ H, atol=tol)
    np.testing.assert_allclose(means, K.mean(axis=0), atol=tol)
    np.testing.assert_allclose(grand, K.mean(), atol=tol)


def test_float32_and_float64_keep_the_same_components():
    """Issue 22: the zero-eigenvalue threshold scales with the dtype's precision and n."""
    from sklearn.datasets import make_blobs
    from sklearn.preprocessing import StandardScaler

    X, _ = make_blobs(n_samples=30, centers=[[0, 0, 0], [1, 1, 1]], random_state=0,
                      cluster_std=0.1)
    X = StandardScaler().fit_transform(X)
    X -= X.min()
    k64 = KernelPCA().fit(X)
    k32 = KernelPCA().fit(X.astype(np.float32))
    assert k64.eigenvalues_.shape == k32.eigenvalues_.shape == (3,)  # rank 3: linear, d = 3
    np.testing.assert_allclose(k32.eigenvalues_, k64.eigenvalues_, rtol=1e-5)
