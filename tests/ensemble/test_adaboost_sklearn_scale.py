"""AdaBoost on scikit-learn's scale (issue 22, item 4): normalized decision, SAMME
probabilities, log-space ε_t, the ∏Z_t bound at every learning rate, X of any dimension."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris
from sklearn.ensemble import AdaBoostClassifier
from sklearn.metrics import log_loss
from sklearn.tree import DecisionTreeClassifier

from kernelkit import AdaBoost

X_IRIS, Y_IRIS = load_iris(return_X_y=True)


def test_decision_and_proba_follow_sklearn_on_iris():
    ours = AdaBoost(n_estimators=50).fit(X_IRIS, Y_IRIS)
    peer = AdaBoostClassifier(n_estimators=50).fit(X_IRIS, Y_IRIS)
    np.testing.assert_allclose(ours.estimator_weights_, peer.estimator_weights_, rtol=1e-10)
    np.testing.assert_allclose(ours.decision_function(X_IRIS), peer.decision_function(X_IRIS),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X_IRIS), peer.predict_proba(X_IRIS),
                               rtol=1e-10)
    assert log_loss(Y_IRIS, ours.predict_proba(X_IRIS)) == pytest.approx(
        log_loss(Y_IRIS, peer.predict_proba(X_IRIS)), rel=1e-10)
    for a, b in zip(ours.staged_predict_proba(X_IRIS), peer.staged_predict_proba(X_IRIS)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(ours.predict_log_proba(X_IRIS), peer.predict_log_proba(X_IRIS),
                               rtol=1e-10)


def test_two_class_decision_is_sklearns_and_unnormalized_F_stays():
    X, y = X_IRIS[50:], Y_IRIS[50:]
    tree = DecisionTreeClassifier(max_depth=1)  # the same (Gini) stumps on both sides
    ours = AdaBoost(tree, n_estimators=20).fit(X, y)
    peer = AdaBoostClassifier(tree, n_estimators=20).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), peer.decision_function(X),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), peer.predict_proba(X), rtol=1e-10)
    F = ours.unnormalized_decision_function(X)  # the notes' Σ α_t h_t, α = ½ log((1−ε)/ε)
    H = np.array([np.where(e.predict(X) == ours.classes_[1], 1.0, -1.0)
                  for e in ours.estimators_])
    np.testing.assert_allclose(F, ours.estimator_weights_ @ H)
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(ours.margins(X, y), y_pm * F / ours.estimator_weights_.sum())


def test_large_learning_rate_does_not_stop_falsely_perfect():
    """learning_rate=23 on iris: ε_t is tiny but not 0; Z_ stays finite and ∏Z_t ≥ error."""
    with pytest.warns(UserWarning, match="Sample weights have reached infinite values"):
        clf = AdaBoost(n_estimators=30, learning_rate=23.0).fit(X_IRIS, Y_IRIS)
    assert clf.stop_reason_ != "perfect weak learner"
    assert np.all(clf.estimator_errors_ > 0)
    assert np.all(np.isfinite(clf.Z_)) and np.all(clf.Z_ > 0)
    assert np.all(clf.training_errors_ <= clf.training_error_bound_)


@settings(max_examples=25, deadline=None)
@given(lr=st.floats(0.01, 40.0), seed=st.integers(0, 10_000), k=st.sampled_from([2, 3]))
def test_training_error_below_product_of_Z_for_every_learning_rate(lr, seed, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=60),
                    [-0.5, 0.5][: k - 1])
    if len(np.unique(y)) < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = AdaBoost(n_estimators=15, learning_rate=lr).fit(X, y)
    assert np.all(np.isfinite(clf.Z_))  # (∏Z_t itself may overflow when lr >> 1)
    # error of F_t ≤ ∏_{s≤t} Z_s (exact in real arithmetic; 1e-12 for rounding)
    assert np.all(clf.training_errors_ <= clf.training_error_bound_ * (1 + 1e-12))
    if clf.stop_reason_ == "perfect weak learner":
        assert clf.training_errors_[-1] == 0.0


class _FlatTree(ClassifierMixin, BaseEstimator):
    """A tree on X of any dimension (flattened per sample)."""

    def fit(self, X, y, sample_weight=None):
        self.tree_ = DecisionTreeClassifier(max_depth=1).fit(
            X.reshape(len(X), -1), y, sample_weight=sample_weight)
        self.classes_ = self.tree_.classes_
        return self

    def predict(self, X):
        return self.tree_.predict(X.reshape(len(X), -1))


def test_X_of_any_dimension_when_the_weak_learner_takes_it():
    X3 = X_IRIS.reshape(150, 2, 2)
    clf = AdaBoost(_FlatTree(), n_estimators=10).fit(X3, Y_IRIS)
    flat = AdaBoost(_FlatTree(), n_estimators=10).fit(X_IRIS, Y_IRIS)
    np.testing.assert_allclose(clf.predict_proba(X3), flat.predict_proba(X_IRIS))
    with pytest.raises(ValueError):  # kernelkit's stump reads 2-D X
        AdaBoost().fit(X3, Y_IRIS)


class _NoWeights(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_sklearn_errors_and_key_phrases():
    with pytest.raises(ValueError, match="_NoWeights doesn't support sample_weight"):
        AdaBoost(_NoWeights()).fit(X_IRIS, Y_IRIS)
    sw = np.ones(150)
    sw[-1] = -10
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        AdaBoost().fit(X_IRIS, Y_IRIS, sample_weight=sw)
    with pytest.raises(ValueError, match="at least one non-zero"):
        AdaBoost().fit(X_IRIS, Y_IRIS, sample_weight=np.zeros(150))
    X_fail = [[1, 1], [1, 1], [1, 1], [1, 1]]
    with pytest.raises(ValueError, match="worse than random"):
        AdaBoost(DecisionTreeClassifier()).fit(X_fail, ["foo", "bar", "baz", "qux"])


def test_log_weighted_error_agrees_with_the_direct_sum_and_survives_underflow():
    """log ε_t from D_t's sum (fast path) and from log D_t (tiny ε_t) agree with the formula."""
    from kernelkit.ensemble._stump_numba import log_weighted_error

    rng = np.random.default_rng(0)
    n = 1000
    y = rng.integers(0, 2, n)
    pred = y.copy()
    wrong = rng.random(n) < 0.2
    pred[wrong] ^= 1
    log_d = rng.normal(size=n)
    log_d -= np.logaddexp.reduce(log_d)
    w = np.exp(log_d)
    # ε_t = Σᵢ D_t(i)·1[h_t(xᵢ) ≠ yᵢ]
    assert np.isclose(log_weighted_error(log_d, w, pred, y), np.log(w[wrong].sum()), rtol=1e-12)
    # the misclassified weights underflow in D_t (e^-800) but not in log D_t
    log_d2 = log_d.copy()
    log_d2[wrong] -= 800.0
    w2 = np.exp(log_d2)
    assert w2[wrong].sum() == 0.0
    expected = np.logaddexp.reduce(log_d2[wrong])
    assert np.isclose(log_weighted_error(log_d2, w2, pred, y), expected, rtol=1e-12)
    assert log_weighted_error(log_d, w, y, y) == -np.inf  # perfect: no misclassified sample


@pytest.mark.parametrize("seed", range(8))
def test_one_learner_decision_is_exactly_one_or_minus_one_over_k_minus_one(seed):
    """scikit-learn's test_adaboost_decision_function compares the set of values: (K G - A) /
    ((K - 1) A) gave 0.9999999999999999 for some alpha (seed 42 of its fixture); r - (1 - r)
    / (K - 1) with r = G / A gives 1 and -1/(K - 1) exactly."""
    from sklearn import datasets

    from kernelkit import AdaBoost

    X, y = datasets.make_classification(n_classes=3, n_clusters_per_class=1,
                                        random_state=seed)
    clf = AdaBoost(n_estimators=1, random_state=seed).fit(X, y)
    assert set(np.unique(clf.decision_function(X))) == {1.0, -0.5}
    for score in clf.staged_decision_function(X):
        assert set(np.unique(score)) == {1.0, -0.5}


def test_tiny_sample_weights_fit_the_same_model():
    """Only the ratios of the weights matter (D_1 = w / sum w): weights of 1e-263 (scikit-
    learn's test_adaboost_numerically_stable_feature_importance_with_small_weights) were
    refused by the 1e+-100 bound; they now give the unit-weight model."""
    from kernelkit import AdaBoost

    rng = np.random.default_rng(42)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    tiny = AdaBoost(n_estimators=10).fit(X, y, sample_weight=np.full(300, 1e-263))
    unit = AdaBoost(n_estimators=10).fit(X, y)
    np.testing.assert_array_equal(tiny.estimator_weights_, unit.estimator_weights_)
    np.testing.assert_array_equal(tiny.decision_function(X), unit.decision_function(X))
    assert np.all(np.isfinite(tiny.feature_importances_))
