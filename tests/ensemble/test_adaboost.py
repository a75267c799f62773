"""AdaBoost against the notes' formulas, its bounds, scikit-learn and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from kernelkit import AdaBoost
from kernelkit.ensemble import DecisionStump, DecisionTree, FunctionDictionary, LinearThreshold
from tests.reference.adaboost import adaboost_reference, brute_force_stump, samme_reference


def _circle(n=120, seed=0, noise=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 + noise * rng.normal(size=n) > 1.2, 1, -1)
    return X, y


def _H(clf, X):
    """±1 predictions of every weak learner, round by round."""
    return np.array([np.where(e.predict(X) == clf.classes_[1], 1, -1) for e in clf.estimators_])


def test_alpha_D_Z_match_the_notes():
    X, y = _circle(noise=0.5)
    T = 12
    clf = AdaBoost(n_estimators=T).fit(X, y)
    assert clf.n_estimators_ == T
    ref = adaboost_reference(_H(clf, X), y)
    np.testing.assert_allclose(clf.estimator_errors_, ref["eps"], rtol=1e-10)
    np.testing.assert_allclose(clf.estimator_weights_, ref["alpha"], rtol=1e-10)
    np.testing.assert_allclose(clf.Z_, ref["Z"], rtol=1e-10)  # = 2√(ε(1−ε))
    np.testing.assert_allclose(clf.training_error_bound_, ref["bound"], rtol=1e-10)
    np.testing.assert_allclose(clf.training_errors_, ref["train_error"], atol=1e-12)
    np.testing.assert_allclose(np.exp(clf.log_sample_weight_), ref["D"][T], rtol=1e-9)
    for t in (1, 5):  # D_{t+1} after t rounds, and each ε_t is the best stump's error on D_t
        part = AdaBoost(n_estimators=t).fit(X, y)
        np.testing.assert_allclose(np.exp(part.log_sample_weight_), ref["D"][t], rtol=1e-9)
        best, _, _ = brute_force_stump(X, (y > 0).astype(int), ref["D"][t])
        assert clf.estimator_errors_[t] == pytest.approx(best, abs=1e-12)
    np.testing.assert_allclose(clf.unnormalized_decision_function(X), ref["alpha"] @ _H(clf, X))


def test_initial_distribution_from_sample_weight():
    X, y = _circle(noise=0.5, seed=1)
    sw = np.random.default_rng(1).random(len(y))
    clf = AdaBoost(n_estimators=6).fit(X, y, sample_weight=sw)
    ref = adaboost_reference(_H(clf, X), y, sample_weight=sw)
    np.testing.assert_allclose(clf.estimator_weights_, ref["alpha"], rtol=1e-10)
    np.testing.assert_allclose(clf.training_errors_, ref["train_error"], atol=1e-12)


@pytest.mark.parametrize("estimator", ["stump", "tree", "linear", DecisionTree(2, "error")])
@pytest.mark.parametrize("multiclass", [False, True])
def test_training_error_never_exceeds_the_bound(estimator, multiclass):
    X, y = _circle(n=150, noise=0.7, seed=2)
    if multiclass:
        y = np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])
    clf = AdaBoost(estimator, n_estimators=40).fit(X, y)
    assert np.all(clf.training_errors_ <= clf.training_error_bound_ + 1e-12)
    assert clf.training_errors_[-1] == pytest.approx(np.mean(clf.predict(X) != y))


def test_gamma_bound():
    """∏Z_t ≤ (1 − 4γ²)^{T/2} when every ε_t ≤ ½ − γ."""
    X, y = _circle(noise=0.4, seed=3)
    clf = AdaBoost(n_estimators=30).fit(X, y)
    for T in range(1, clf.n_estimators_ + 1):
        gamma = 0.5 - clf.estimator_errors_[:T].max()
        assert gamma > 0
        assert clf.training_error_bound_[T - 1] <= (1 - 4 * gamma**2) ** (T / 2) + 1e-12


def test_samme_matches_reference():
    X, _ = _circle(n=150, seed=4)
    y = np.digitize(X[:, 0] - X[:, 2], [-0.8, 0.0, 0.8])  # K = 4
    clf = AdaBoost("stump", n_estimators=10).fit(X, y)
    P = np.array([np.searchsorted(clf.classes_, e.predict(X)) for e in clf.estimators_])
    ref = samme_reference(P, y, K=4)
    np.testing.assert_allclose(clf.estimator_errors_, ref["eps"], rtol=1e-10)
    np.testing.assert_allclose(clf.estimator_weights_, ref["alpha"], rtol=1e-10)
    np.testing.assert_allclose(np.exp(clf.log_sample_weight_), ref["D"][-1], rtol=1e-9)


def test_samme_binary_equals_discrete_with_doubled_alpha():
    X, y = _circle(noise=0.5, seed=5)
    a = AdaBoost(n_estimators=8).fit(X, y)
    b = AdaBoost(n_estimators=8, algorithm="SAMME").fit(X, y)
    np.testing.assert_allclose(b.estimator_weights_, 2 * a.estimator_weights_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_same_as_sklearn_with_the_same_base_estimator():
    X, y = _circle(n=200, noise=0.6, seed=6)
    base = DecisionTreeClassifier(max_depth=1, random_state=0)
    ours = AdaBoost(base, n_estimators=10, algorithm="SAMME", random_state=0).fit(X, y)
    sk = AdaBoostClassifier(base, n_estimators=10, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.estimator_errors_, sk.estimator_errors_, rtol=1e-6)
    np.testing.assert_allclose(ours.estimator_weights_, sk.estimator_weights_, rtol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


def test_stump_error_is_no_worse_than_sklearn_stump_each_round():
    X, y = _circle(n=200, noise=0.6, seed=7)
    clf = AdaBoost(n_estimators=15).fit(X, y)
    D = np.full(len(y), 1 / len(y))
    for t, e in enumerate(clf.estimators_):  # on our own D_t, sklearn's gini stump is no better
        sk = DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight=D)
        assert clf.estimator_errors_[t] <= np.sum(D * (sk.predict(X) != y)) + 1e-12
        h = np.where(e.predict(X) == 1, 1, -1)
        a = clf.estimator_weights_[t]
        D = D * np.exp(-a * y * h)
        D /= D.sum()


def test_long_runs_stay_finite_in_log_space():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(100, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)  # separable, but not by one stump
    clf = AdaBoost("stump", n_estimators=2000).fit(X, y)
    assert clf.n_estimators_ == 2000
    for a in (clf.estimator_weights_, clf.Z_, clf.training_error_bound_, clf.margins(X, y)):
        assert np.all(np.isfinite(a))
    assert np.all(np.isfinite(clf.log_sample_weight_))
    assert np.exp(clf.log_sample_weight_).sum() == pytest.approx(1.0)
    assert np.all(np.exp(clf.log_sample_weight_) > 0)
    assert clf.training_errors_[-1] == 0.0


def test_perfect_weak_learner_stops():
    X = np.arange(10.0)[:, None]
    y = np.where(X[:, 0] > 4, 1, -1)
    with pytest.warns(UserWarning, match="perfect"):
        clf = AdaBoost(n_estimators=50).fit(X, y)
    assert clf.n_estimators_ == 1 and clf.stop_reason_ == "perfect weak learner"
    assert np.isfinite(clf.estimator_weights_[0]) and clf.estimator_weights_[0] > 5
    assert clf.score(X, y) == 1.0 and clf.training_errors_[-1] == 0.0
    # Z_t = 2√(ε(1 − ε)) = 0, so ∏Z = 0 = the training error and (1 − 4γ²)^{T/2} (γ = ½)
    assert clf.estimator_errors_[0] == 0.0 and clf.Z_[0] == 0.0
    assert clf.training_error_bound_[0] == 0.0


def test_perfect_round_after_others_outvotes_them():
    # XOR-like: no depth-3 tree separates it at first, one does after two reweightings
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where((X[:, 0] > 0) ^ (X[:, 1] > 0.3), 1, -1)
    with pytest.warns(UserWarning, match="perfect"):
        clf = AdaBoost(DecisionTree(max_depth=3), n_estimators=50).fit(X, y)
    assert clf.stop_reason_ == "perfect weak learner" and clf.n_estimators_ == 3
    a = clf.estimator_weights_
    assert a[-1] > a[:-1].sum()  # the perfect round outvotes the others
    np.testing.assert_allclose(clf.Z_[:-1], 2 * np.sqrt(clf.estimator_errors_[:-1] *
                                                      (1 - clf.estimator_errors_[:-1])))
    assert clf.Z_[-1] == 0.0 and clf.training_errors_[-1] == 0.0
    assert clf.score(X, y) == 1.0


def test_no_better_than_chance_stops_with_warning():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(100, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=100) > 0, 1, -1)
    fd = FunctionDictionary([lambda X: np.where(X[:, 0] > 0, 1, -1)], allow_negation=False)
    with pytest.warns(UserWarning, match="no better than chance"):
        clf = AdaBoost(fd, n_estimators=10).fit(X, y)
    assert clf.n_estimators_ == 1 and clf.stop_reason_ == "weak learner no better than chance"


def test_labels_are_mapped_and_methods_agree():
    X, y = _circle(noise=0.5, seed=10)
    ys = np.where(y > 0, "pos", "neg")  # classes_ = ["neg", "pos"]: neg → −1, pos → +1
    a = AdaBoost(n_estimators=20).fit(X, y)
    b = AdaBoost(n_estimators=20).fit(X, ys)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(b.predict(X), np.where(b.decision_function(X) > 0, "pos", "neg"))
    staged = list(b.staged_predict(X))
    assert len(staged) == b.n_estimators_
    np.testing.assert_array_equal(staged[-1], b.predict(X))
    np.testing.assert_allclose(list(b.staged_decision_function(X))[-1], b.decision_function(X))
    errs = [np.mean(p != ys) for p in staged]
    np.testing.assert_allclose(errs, b.training_errors_)
    m = b.margins(X, ys)
    F = b.unnormalized_decision_function(X)  # the notes' F = Σ α_t h_t
    np.testing.assert_allclose(m, y * F / b.estimator_weights_.sum())
    np.testing.assert_allclose(b.decision_function(X), 2 * F / b.estimator_weights_.sum())
    np.testing.assert_allclose(list(b.staged_unnormalized_decision_function(X))[-1], F)
    assert np.all(np.abs(m) <= 1 + 1e-12)
    P = b.predict_proba(X)  # scikit-learn's SAMME probability σ(2F/Σα)
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-b.decision_function(X))))
    fi = b.feature_importances_
    assert fi.shape == (3,) and fi.sum() == pytest.approx(1.0)


def test_multiclass_margins_and_proba():
    X, _ = _circle(n=150, seed=11)
    y = np.digitize(X[:, 0] + 0.7 * X[:, 1], [-0.5, 0.5])  # no depth-3 tree is perfect
    clf = AdaBoost("tree", n_estimators=15).fit(X, y)
    assert clf.n_estimators_ == 15
    m = clf.margins(X, y)
    np.testing.assert_array_equal(m > 0, clf.predict(X) == y)
    assert np.all(np.abs(m) <= 1 + 1e-12)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[clf.decision_function(X).argmax(1)], clf.predict(X))


def test_all_weak_learners_and_float32():
    X, y = _circle(n=200, noise=0.3, seed=12)
    fd = FunctionDictionary([lambda X, j=j, c=c: np.where(X[:, j] > c, 1, -1)
                             for j in range(2) for c in np.linspace(-1.5, 1.5, 7)])
    for est in ["stump", "tree", "linear", DecisionStump(max_bins=16), LinearThreshold(), fd,
                DecisionTreeClassifier(max_depth=2)]:
        clf = AdaBoost(est, n_estimators=30).fit(X.astype(np.float32), y)
        assert clf.score(X, y) > 0.7, est
        assert np.all(clf.training_errors_ <= clf.training_error_bound_ + 1e-12)


def test_early_stopping():
    X, y = _circle(n=300, noise=1.0, seed=13)
    clf = AdaBoost(n_estimators=500, early_stopping=True, n_iter_no_change=5,
                   random_state=0).fit(X, y)
    assert clf.stop_reason_ == "early stopping"
    assert clf.n_estimators_ < 500
    assert clf.n_estimators_ == int(np.argmin(clf.validation_errors_)) + 1
    clf.set_params(early_stopping=False, n_estimators=5).fit(X, y)  # refit: no stale state
    assert clf.n_estimators_ == 5 and not hasattr(clf, "validation_errors_")


def test_sklearn_api_extras():
    """estimator=None is the stump (as scikit-learn's default), estimator_, staged_score and
    staged_predict_proba as in AdaBoostClassifier."""
    X, y = _circle(noise=0.5, seed=16)
    a = AdaBoost(None, n_estimators=8).fit(X, y)
    b = AdaBoost("stump", n_estimators=8).fit(X, y)
    np.testing.assert_array_equal(a.estimator_weights_, b.estimator_weights_)
    assert isinstance(a.estimator_, DecisionStump) and not hasattr(a.estimator_, "feature_")
    sk = AdaBoost(DecisionTreeClassifier(max_depth=1), n_estimators=3).fit(X, y)
    assert isinstance(sk.estimator_, DecisionTreeClassifier) and not hasattr(sk.estimator_,
                                                                              "tree_")
    sw = np.random.default_rng(0).random(len(y))
    scores = list(a.staged_score(X, y, sample_weight=sw))
    probas = list(a.staged_predict_proba(X))
    assert len(scores) == len(probas) == a.n_estimators_
    assert scores[-1] == pytest.approx(a.score(X, y, sample_weight=sw))
    np.testing.assert_allclose(scores, [np.average(p == y, weights=sw)
                                        for p in a.staged_predict(X)])
    np.testing.assert_allclose(probas[-1], a.predict_proba(X))


def test_kernelkit_weak_learner_is_prepared_once_per_fit(monkeypatch):
    """The binning/presorting (``_boost_prepare``) runs once and every round reuses it."""
    calls = []
    orig = DecisionStump._boost_prepare

    def spy(self, *args, **kw):
        calls.append(1)
        return orig(self, *args, **kw)

    monkeypatch.setattr(DecisionStump, "_boost_prepare", spy)
    X, y = _circle(noise=0.5, seed=17)
    clf = AdaBoost(n_estimators=15).fit(X, y)
    assert clf.n_estimators_ == 15 and len(calls) == 1


@pytest.mark.parametrize("params, match", [
    (dict(n_estimators=0), "n_estimators"),
    (dict(n_estimators=2.5), "n_estimators"),
    (dict(learning_rate=0.0), "learning_rate"),
    (dict(learning_rate=-1.0), "learning_rate"),
    (dict(algorithm="real"), "algorithm"),
    (dict(estimator="forest"), "estimator"),
    (dict(estimator=KNeighborsClassifier()), "sample_weight"),
    (dict(estimator=DecisionStump), "instance"),
    (dict(estimator=DecisionTreeRegressor(max_depth=1)), "classifier"),
    (dict(early_stopping=True, validation_fraction=1.5), "validation_fraction"),
    (dict(early_stopping="yes"), "early_stopping"),
    (dict(n_iter_no_change=0), "n_iter_no_change"),
    (dict(learning_rate=np.nan), "learning_rate"),
])
def test_bad_parameters(params, match):
    X, y = _circle(n=40)
    with pytest.raises(ValueError, match=match):
        AdaBoost(**params).fit(X, y)


def test_one_class_is_an_error():
    X, _ = _circle(n=40)
    with pytest.raises(ValueError, match="at least 2 classes; got 1 class"):
        AdaBoost().fit(X, np.ones(40))


def test_verbose_and_learning_rate():
    X, y = _circle(noise=0.5, seed=14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = AdaBoost(n_estimators=5, learning_rate=0.5).fit(X, y)
    full = AdaBoost(n_estimators=1).fit(X, y)
    assert clf.estimator_weights_[0] == pytest.approx(0.5 * full.estimator_weights_[0])
    # Z_t is the actual normalizer for any learning rate, and still bounds the error
    eps, a = clf.estimator_errors_[0], clf.estimator_weights_[0]
    assert clf.Z_[0] == pytest.approx((1 - eps) * np.exp(-a) + eps * np.exp(a))
    assert np.all(clf.training_errors_ <= clf.training_error_bound_ + 1e-12)


def test_save_load_round_trip(tmp_path):
    pytest.importorskip("kernelkit.io")
    import kernelkit

    X, y = _circle(noise=0.5, seed=15)
    ys = np.where(y > 0, "b", "a")
    for est in ["stump", "tree", "linear"]:
        clf = AdaBoost(est, n_estimators=10).fit(X, ys)
        kernelkit.save(clf, tmp_path / "ada.kkm")
        back = kernelkit.load(tmp_path / "ada.kkm")
        np.testing.assert_array_equal(back.predict(X), clf.predict(X))
        np.testing.assert_allclose(back.decision_function(X), clf.decision_function(X))
