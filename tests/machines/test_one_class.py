"""OneClassSVM: the notes' formulation vs a reference QP, the nu-formulation vs scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import OneClassSVM as SkOneClassSVM

from kernelkit import OneClassSVM
from kernelkit.exceptions import ConvergenceWarning
from tests.reference.one_class import one_class_dual


def _data(n=200, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[: n // 20] *= 4  # a few far points
    return X


@pytest.mark.parametrize("n, C, gamma", [(200, 20.0, 0.5), (500, 20.0, 1.0)])
def test_notes_dual_objective_matches_reference(n, C, gamma):
    X = _data(n)
    oc = OneClassSVM(C=C, gamma=gamma, tol=1e-9, max_iter=20_000, random_state=0).fit(X)
    K = rbf_kernel(X, gamma=gamma)
    a_ref, D_ref = one_class_dual(K, C)
    a = np.zeros(n)
    a[oc.support_] = oc.dual_coef_[0]
    assert a.min() >= 0 and a.max() <= C / n + 1e-15
    D = a.sum() - 0.5 * a @ K @ a
    np.testing.assert_allclose(oc.dual_objective_, D, rtol=1e-12)
    assert abs(D - D_ref) < 1e-6 and D >= D_ref - 1e-9
    # KKT of the box QP: a_i = C/m where f_i < 1, a_i = 0 where f_i > 1
    f = K @ a
    assert np.all(a[f < 1 - 1e-4] > C / n * (1 - 1e-4))
    assert np.all(a[f > 1 + 1e-4] == 0)


def test_notes_decision_is_f_minus_one():
    X = _data()
    oc = OneClassSVM(C=20.0, gamma=0.5, tol=1e-10, max_iter=5000, random_state=0).fit(X)
    Z = np.random.default_rng(1).normal(size=(30, 2)) * 2
    f = rbf_kernel(Z, oc.support_vectors_, gamma=0.5) @ oc.dual_coef_[0]
    np.testing.assert_allclose(oc.score_samples(Z), f, atol=1e-12)
    np.testing.assert_allclose(oc.decision_function(Z), f - 1.0, atol=1e-12)
    np.testing.assert_array_equal(oc.predict(Z), np.where(f >= 1, 1, -1))
    assert oc.offset_.tolist() == [1.0] and oc.intercept_.tolist() == [-1.0]
    # larger C: larger inlier region; C <= 1 leaves no inlier for a kernel bounded by 1
    with pytest.warns(UserWarning, match="marks every training point as an outlier"):
        small = OneClassSVM(C=1.0, gamma=0.5, random_state=0).fit(X)
    assert np.all(small.predict(X) == -1)
    big = OneClassSVM(C=200.0, gamma=0.5, random_state=0).fit(X)
    assert np.mean(big.predict(X) == 1) > np.mean(oc.predict(X) == 1)


@pytest.mark.parametrize("nu", [0.05, 0.2, 0.5])
def test_nu_matches_scikit_learn(nu):
    X = _data(300, d=3, seed=2)
    ours = OneClassSVM(nu=nu).fit(X)  # gamma="scale" as scikit-learn
    ref = SkOneClassSVM(nu=nu).fit(X)
    Z = np.vstack([X, np.random.default_rng(3).normal(size=(100, 3)) * 2])
    assert np.mean(ours.predict(Z) == ref.predict(Z)) >= 0.99
    np.testing.assert_allclose(ours.decision_function(Z), ref.decision_function(Z), atol=1e-5)
    np.testing.assert_allclose(ours.score_samples(Z), ref.score_samples(Z), atol=1e-5)
    np.testing.assert_allclose(ours.offset_, ref.offset_, rtol=1e-5)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-5)
    assert ours.dual_coef_.shape[0] == 1
    # nu bounds the fraction of training outliers from above and of SVs from below
    assert np.mean(ours.predict(X) == -1) <= nu + 0.02
    assert ours.n_support_[0] >= nu * len(X) - 1


def test_nu_dual_constraints_and_precomputed():
    X = _data(150, seed=4)
    oc = OneClassSVM(nu=0.3, gamma=0.5, tol=1e-8).fit(X)
    np.testing.assert_allclose(oc.dual_coef_.sum(), 0.3 * len(X), rtol=1e-10)
    assert oc.dual_coef_.max() <= 1.0 + 1e-12
    pre = OneClassSVM(kernel="precomputed", nu=0.3, tol=1e-8).fit(rbf_kernel(X, gamma=0.5))
    Z = X[:10] + 0.1
    np.testing.assert_allclose(pre.decision_function(rbf_kernel(Z, X, gamma=0.5)),
                               oc.decision_function(Z), atol=1e-6)


def test_zero_weight_equals_removal():
    X = _data(120, seed=5)
    w = np.ones(len(X))
    w[::5] = 0.0
    kw = dict(C=20.0, gamma=0.5, tol=1e-12, max_iter=20_000, random_state=0)
    a = OneClassSVM(**kw).fit(X, sample_weight=w)
    b = OneClassSVM(**kw).fit(X[w > 0])
    np.testing.assert_allclose(a.dual_objective_, b.dual_objective_, rtol=1e-9)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)


@pytest.mark.parametrize("params, match", [  # scikit-learn's InvalidParameterError wording
    (dict(C=0.0), "'C' parameter"), (dict(C=-2.0), "'C' parameter"),
    (dict(nu=0.0), "'nu' parameter"), (dict(nu=1.5), "'nu' parameter"),
    (dict(nu=-0.1), "'nu' parameter"), (dict(gamma="bogus"), "'gamma' parameter"),
    (dict(max_iter=0), "max_iter"),
])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        OneClassSVM(**params).fit(_data(40))


def test_nu_one_is_accepted():
    oc = OneClassSVM(nu=1.0, gamma=0.5).fit(_data(50))
    np.testing.assert_allclose(oc.dual_coef_, 1.0)


def test_scikit_learn_drop_in_arguments_and_attributes():
    import inspect

    X = _data(150)
    sk_params = set(inspect.signature(SkOneClassSVM).parameters)
    assert sk_params <= set(inspect.signature(OneClassSVM).parameters)
    kw = dict(kernel="rbf", gamma=0.5, nu=0.2, tol=1e-8, max_iter=-1, cache_size=50,
              verbose=False, shrinking=True, degree=3, coef0=0.0)
    ours, sk = OneClassSVM(**kw).fit(X), SkOneClassSVM(**kw).fit(X)
    for name in ["offset_", "intercept_", "dual_coef_", "support_", "support_vectors_",
                 "n_support_", "fit_status_", "shape_fit_", "n_iter_", "n_features_in_"]:
        assert hasattr(ours, name), name
    assert ours.fit_status_ == sk.fit_status_ == 0
    assert ours.shape_fit_ == sk.shape_fit_ == X.shape
    np.testing.assert_allclose(ours.offset_, sk.offset_, rtol=1e-5)
    np.testing.assert_allclose(ours.score_samples(X), sk.score_samples(X), atol=1e-5)
    lin = dict(kernel="linear", nu=0.3)
    # libsvm's one-class linear solve creeps at a tight tol (tol=1e-10: 270 million
    # iterations, 80 s); at 1e-5 it is within 4e-7 of ours at 1e-10
    np.testing.assert_allclose(OneClassSVM(**lin, tol=1e-10).fit(X).coef_,
                               SkOneClassSVM(**lin, tol=1e-5).fit(X).coef_, atol=1e-6)
    with pytest.raises(AttributeError, match="linear kernel"):
        ours.coef_  # noqa: B018


@pytest.mark.parametrize("params", [dict(C=20.0, gamma=0.5), dict(nu=0.2, gamma=0.5)])
def test_max_iter_warns_with_the_gap(params):
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        oc = OneClassSVM(max_iter=1, tol=1e-12, **params).fit(_data(100))
    assert oc.fit_status_ == 1


def test_notes_formulation_warns_when_every_point_is_an_outlier():
    import warnings

    X = _data(80)
    with pytest.warns(UserWarning, match="increase C"):
        oc = OneClassSVM(C=1.0, gamma=0.5).fit(X)  # C = 1: f <= 1 everywhere
    assert np.all(oc.predict(X) == -1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.any(OneClassSVM(C=20.0, gamma=0.5).fit(X).predict(X) == 1)
    np.testing.assert_allclose(  # the positional order: kernel, C, nu, gamma
        OneClassSVM("rbf", 20.0, None, 0.5, random_state=0).fit(X).decision_function(X),
        OneClassSVM(C=20.0, gamma=0.5, random_state=0).fit(X).decision_function(X))


@pytest.mark.parametrize("params", [dict(C=20.0, gamma=0.5), dict(nu=0.2, gamma=0.5)])
def test_verbose_shows_progress_on_stderr(params, capfd):
    pytest.importorskip("tqdm")
    X = _data(60)
    OneClassSVM(**params).fit(X)
    assert capfd.readouterr().err == ""
    OneClassSVM(verbose=True, **params).fit(X)
    assert "OneClassSVM" in capfd.readouterr().err


@pytest.mark.parametrize("C", [5.0, 20.0])
def test_notes_default_tolerance_gives_the_dual_optimum(C):
    # defaults only (tol=None: relative gap 1e-8): the 1e-6 on n = 500
    X = _data(500)
    oc = OneClassSVM(C=C, gamma=1.0).fit(X)
    _, D_ref = one_class_dual(rbf_kernel(X, gamma=1.0), C)
    assert abs(oc.dual_objective_ - D_ref) < 1e-6
    assert OneClassSVM(nu=0.2, gamma=1.0).fit(X).get_params()["tol"] is None


def test_defaults_are_scikit_learns_nu_model():
    """OneClassSVM() is scikit-learn's OneClassSVM() (nu = 0.5), not the notes' C = 1 form."""
    X = _data(150, seed=3)
    ours, sk = OneClassSVM().fit(X), SkOneClassSVM().fit(X)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-4)
    assert np.mean(ours.predict(X) == sk.predict(X)) >= 0.98
    assert 0.4 <= np.mean(ours.predict(X) == -1) <= 0.6  # nu bounds the outlier fraction
    notes = OneClassSVM(C=20.0, gamma=0.5, random_state=0).fit(X)  # one argument away
    assert notes.offset_[0] == 1.0


def test_coef_is_read_only_and_nonpositive_weights_drop_samples():
    X = _data(60, seed=4)
    oc = OneClassSVM(kernel="linear").fit(X)
    with pytest.raises(ValueError):
        oc.coef_[0, 0] = 1.0
    w = np.ones(len(X))
    w[:10] = -0.5  # as libsvm: a weight <= 0 removes its sample
    a = OneClassSVM(kernel="linear", tol=1e-10).fit(X, sample_weight=w)
    b = OneClassSVM(kernel="linear", tol=1e-10).fit(X[10:])
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
    # libsvm at tol=1e-10 takes ~100 million iterations here (40-100 s); at 1e-6 it is
    # within 1.2e-7 of ours
    sk = SkOneClassSVM(kernel="linear", tol=1e-6).fit(X, sample_weight=w)
    np.testing.assert_allclose(a.coef_, sk.coef_, atol=1e-6)
    for bad in (np.zeros(len(X)), np.full(len(X), -0.3)):
        with pytest.raises(ValueError, match="all samples have zero or negative weights"):
            OneClassSVM(kernel="linear").fit(X, sample_weight=bad)
