"""AdaBoostClassifier: AdaBoost under scikit-learn's name, signature and defaults (issue 35)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoostClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import kernelkit
from kernelkit.ensemble import AdaBoost, AdaBoostClassifier


def _data(n=150, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    score = X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


def test_the_name_is_public_at_the_top_level_and_in_ensemble():
    assert kernelkit.AdaBoostClassifier is AdaBoostClassifier
    assert "AdaBoostClassifier" in kernelkit.__all__
    assert issubclass(AdaBoostClassifier, AdaBoost)


def test_scikit_learn_parameters_keep_their_names_kinds_and_defaults():
    ours = inspect.signature(AdaBoostClassifier).parameters
    theirs = inspect.signature(SkAdaBoostClassifier).parameters
    for name, p in theirs.items():
        assert name in ours, name
        assert (ours[name].kind, ours[name].default) == (p.kind, p.default), name
    assert list(ours)[:len(theirs)] == list(theirs)  # scikit-learn's first, ours after


def test_a_scikit_learn_grid_runs_unchanged_in_a_pipeline():
    X, y = _data()
    grid = {"adaboostclassifier__n_estimators": [5, 20],
            "adaboostclassifier__learning_rate": [0.5, 1.0],
            "adaboostclassifier__estimator": [None, DecisionTreeClassifier(max_depth=2)],
            "adaboostclassifier__random_state": [0]}
    sk_pipe = make_pipeline(StandardScaler(), SkAdaBoostClassifier())
    pipe = make_pipeline(StandardScaler(), AdaBoostClassifier())
    assert [n for n, _ in pipe.steps] == [n for n, _ in sk_pipe.steps]
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert set(search.best_params_) == set(grid)
    assert search.best_estimator_[-1].n_estimators_ <= 20


@pytest.mark.parametrize("classes", [2, 3])
def test_with_scikit_learns_stumps_it_is_scikit_learns_ensemble(classes):
    X, y = _data(classes=classes)
    stump = DecisionTreeClassifier(max_depth=1)
    sk = SkAdaBoostClassifier(stump, random_state=0).fit(X, y)
    ours = AdaBoostClassifier(stump, random_state=0).fit(X, y)
    assert ours.n_estimators_ == len(sk.estimators_) == 50
    # SAMME's α_t = log((1 - ε)/ε) + log(K - 1) in estimator_weights_, as scikit-learn's
    np.testing.assert_allclose(ours.estimator_weights_, sk.estimator_weights_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


def test_the_same_estimator_as_adaboost_with_samme_weights():
    X, y = _data()
    a = AdaBoost(n_estimators=50, algorithm="SAMME").fit(X, y)
    b = AdaBoostClassifier().fit(X, y)
    np.testing.assert_array_equal(a.estimator_weights_, b.estimator_weights_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    d = AdaBoost(n_estimators=50).fit(X, y)  # the notes' α_t: half of SAMME's, same model
    np.testing.assert_allclose(2 * d.estimator_weights_, b.estimator_weights_, rtol=1e-14)


def test_save_and_load_keep_the_class(tmp_path):
    X, y = _data()
    clf = AdaBoostClassifier(n_estimators=10).fit(X, y)
    path = kernelkit.save(clf, tmp_path / "ada.kkm")
    back = kernelkit.load(path)
    assert type(back) is AdaBoostClassifier and back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
