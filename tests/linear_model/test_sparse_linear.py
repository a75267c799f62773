"""LinearRegression and Ridge on scipy.sparse X: equal to the dense path and to scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import Ridge as SkRidge

from kernelkit import LinearRegression, Ridge
from kernelkit.linear_model import _sparse


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _data(n=60, d=8, density=0.3, seed=0, n_targets=1):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="csr",
                  data_rvs=lambda k: rng.normal(size=k) + 1.0)
    W = rng.normal(size=(d, n_targets))
    Y = X @ W + 2.0 + 0.1 * rng.normal(size=(n, n_targets))
    return X, (Y[:, 0] if n_targets == 1 else Y), rng.uniform(0.2, 2.0, size=n)


def _as(X, fmt, dtype):
    return getattr(X, "to" + fmt)().astype(dtype)


@pytest.fixture
def cg_solver(monkeypatch):
    """Force the iterative solvers on small problems (more features than the Gram limit)."""
    monkeypatch.setattr(_sparse, "GRAM_MAX_FEATURES", 2)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("Est", [LinearRegression, Ridge])
def test_sparse_equals_dense_direct(fmt, dtype, fit_intercept, weighted, Est):
    X, y, sw = _data()
    Xs = _as(X, fmt, dtype)
    w = sw if weighted else None
    ours = Est(fit_intercept=fit_intercept).fit(Xs, y, sample_weight=w)
    dense = Est(fit_intercept=fit_intercept).fit(Xs.toarray(), y, sample_weight=w)
    tol = 1e-10 if dtype == np.float64 else 1e-5
    assert ours.coef_.dtype == dtype
    assert _rel(ours.coef_, dense.coef_) < tol
    assert abs(ours.intercept_ - dense.intercept_) < tol * max(1.0, abs(dense.intercept_))
    assert _rel(ours.predict(Xs), dense.predict(Xs.toarray())) < tol
    assert ours.noise_variance_ == pytest.approx(dense.noise_variance_, rel=1e3 * tol)
    assert ours.rank_ == dense.rank_
    assert _rel(ours.singular_, dense.singular_) < 1e-6


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_matches_sklearn(fit_intercept, weighted):
    X, Y, sw = _data(n_targets=2)
    w = sw if weighted else None
    for ours, peer in [(LinearRegression, SkLinearRegression(tol=1e-12)),
                       (Ridge, SkRidge(alpha=1.0, tol=1e-12))]:
        a = ours(fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
        b = peer.set_params(fit_intercept=fit_intercept).fit(X, Y, sample_weight=w)
        assert _rel(a.coef_, b.coef_) < 1e-8
        assert _rel(a.predict(X), b.predict(X)) < 1e-8


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("weighted", [False, True])
def test_ridge_cg_equals_dense(cg_solver, fmt, weighted):
    X, Y, sw = _data(n=80, d=12, n_targets=2)
    w = sw if weighted else None
    alpha = np.array([0.5, 3.0])  # one penalty per target, solved together
    ours = Ridge(alpha=alpha).fit(getattr(X, "to" + fmt)(), Y, sample_weight=w)
    dense = Ridge(alpha=alpha).fit(X.toarray(), Y, sample_weight=w)
    assert ours.solver_ == "cg" and ours.n_iter_ > 1
    assert _rel(ours.coef_, dense.coef_) < 1e-6  # default tol
    assert _rel(ours.intercept_, dense.intercept_) < 1e-6
    peer = SkRidge(alpha=alpha, solver="sparse_cg", tol=1e-10).fit(X, Y, sample_weight=w)
    assert _rel(ours.coef_, peer.coef_) < 1e-6
    assert not hasattr(ours, "singular_")
    with pytest.raises(ValueError, match="return_std"):
        ours.predict(X, return_std=True)


def test_linear_regression_lsqr_is_min_norm(cg_solver):
    X, y, _ = _data(n=10, d=25, density=0.5)  # d > n: many solutions, the minimum-norm one
    ours = LinearRegression().fit(X, y)
    dense = LinearRegression().fit(X.toarray(), y)
    assert ours._sparse_solver == "lsqr"
    assert _rel(ours.coef_, dense.coef_) < 1e-6
    assert _rel(ours.predict(X), y) < 1e-6  # interpolates


def test_jacobi_diagonal_is_weighted_column_square_sums():
    X, _, w = _data(d=6)
    ref = (X.toarray() ** 2).T @ w  # sum_i w_i x_ij^2
    for M, by_rows in [(X.tocsr(), True), (X.tocsc(), False)]:
        got = _sparse._weighted_col_sq(M.data, M.indices, M.indptr, w, 6, by_rows)
        assert _rel(got, ref) < 1e-13


def test_duplicates_are_summed_and_input_untouched(cg_solver):
    X, y, _ = _data(n=50, d=6)
    # every entry stored twice, each with half its value
    dup = sp.csr_matrix((np.repeat(X.data / 2, 2), np.repeat(X.indices, 2), 2 * X.indptr),
                        shape=X.shape)
    assert not dup.has_canonical_format
    before = dup.data.copy()
    a = Ridge().fit(dup, y)
    b = Ridge().fit(X.toarray(), y)
    assert _rel(a.coef_, b.coef_) < 1e-6
    assert np.array_equal(dup.data, before)  # the user's matrix is not modified


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alpha", [0.5, 0.0])
@pytest.mark.parametrize("iterative", [False, True])
def test_positive_sparse_equals_dense(request, fmt, fit_intercept, weighted, alpha,
                                      iterative):
    """positive=True on sparse X (NNLS on the Gram factor, or L-BFGS-B past the Gram
    limit) equals the dense path's NNLS to 1e-6, with some coefficients at the bound."""
    if iterative:
        request.getfixturevalue("cg_solver")
    X, y, sw = _data(n=80, d=8, seed=3)
    y = -y + 4 * X.toarray()[:, 0]  # some true weights negative: the bound is active
    w = sw if weighted else None
    Est = Ridge if alpha > 0 else LinearRegression
    kw = dict(alpha=alpha) if alpha > 0 else {}
    a = Est(positive=True, fit_intercept=fit_intercept, **kw).fit(_as(X, fmt, np.float64), y,
                                                                    sample_weight=w)
    b = Est(positive=True, fit_intercept=fit_intercept, **kw).fit(X.toarray(), y,
                                                                    sample_weight=w)
    assert np.all(a.coef_ >= 0) and np.any(b.coef_ == 0) and np.any(b.coef_ > 0)
    assert _rel(a.coef_, b.coef_) < (1e-6 if iterative else 1e-10)
    assert abs(a.intercept_ - b.intercept_) < 1e-6 * max(1.0, abs(b.intercept_))
    if Est is Ridge:
        assert a.solver_ == ("lbfgs" if iterative else "nnls")


def test_positive_sparse_matches_sklearn_lbfgs_on_dense():
    """scikit-learn's positive Ridge (L-BFGS-B, dense X: it refuses sparse X with an
    intercept only on some solvers) on the same data, at a tight tol."""
    X, y, sw = _data(n=80, d=8, seed=4)
    y = y - 3 * X.toarray()[:, 1]
    ours = Ridge(alpha=0.3, positive=True).fit(X, y, sample_weight=sw)
    peer = SkRidge(alpha=0.3, positive=True, solver="lbfgs", tol=1e-12).fit(
        X.toarray(), y, sample_weight=sw)
    assert _rel(ours.coef_, peer.coef_) < 1e-5
    assert abs(ours.intercept_ - peer.intercept_) < 1e-5 * max(1.0, abs(peer.intercept_))


def test_positive_sparse_many_targets_and_max_iter(cg_solver):
    """Two targets with their own alpha; a tiny max_iter warns (ConvergenceWarning)."""
    from kernelkit.exceptions import ConvergenceWarning

    X, Y, _ = _data(n=80, d=8, seed=5, n_targets=2)
    a = Ridge(alpha=[0.1, 2.0], positive=True).fit(X, Y)
    b = Ridge(alpha=[0.1, 2.0], positive=True).fit(X.toarray(), Y)
    assert _rel(a.coef_, b.coef_) < 1e-6 and a.n_iter_ > 1
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        Ridge(positive=True, max_iter=1).fit(X, Y[:, 0])


def test_sparse_predictive_std_equals_dense():
    X, y, _ = _data()
    a = LinearRegression().fit(X, y).predict(X[:5], return_std=True)[1]
    b = LinearRegression().fit(X.toarray(), y).predict(X[:5].toarray(), return_std=True)[1]
    assert _rel(a, b) < 1e-8


def test_sparse_bad_input():
    X, y, _ = _data()
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Ridge().fit(bad, y)
    with pytest.raises(ValueError):
        Ridge().fit(X[:0], y[:0])
