"""MajorityVote: weighted vote, deterministic ties, prefit and unfitted members."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from kernelkit import MajorityVote
from kernelkit.ensemble import DecisionStump, DecisionTree, LinearThreshold


class _Const:
    """A prefit classifier that always predicts one label."""

    def __init__(self, label, classes):
        self.label, self.classes_ = label, np.asarray(classes)
        self.n_features_in_ = 2

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


def _data(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.where(X[:, 0] + X[:, 1] > 0, 1, -1)


def test_weighted_vote_equals_sign_of_weighted_sum():
    X, y = _data()
    members = [DecisionStump(), DecisionTree(max_depth=2), LinearThreshold()]
    w = np.array([0.2, 0.3, 0.6])
    vote = MajorityVote(members, weights=w).fit(X, y)
    H = np.array([m.predict(X) for m in vote.estimators_])  # ±1 votes
    np.testing.assert_array_equal(vote.predict(X), np.where(w @ H > 0, 1, -1))
    np.testing.assert_allclose(vote.decision_function(X), w @ H / w.sum())
    np.testing.assert_allclose(vote.predict_proba(X).sum(axis=1), 1.0)


def test_ties_go_to_the_first_class():
    X = np.zeros((3, 2))
    classes = ["a", "b", "c"]
    vote = MajorityVote([_Const("c", classes), _Const("b", classes)]).fit(X, ["a", "b", "c"])
    assert vote.predict(X).tolist() == ["b", "b", "b"]  # b and c tie: b comes first
    vote = MajorityVote([_Const(1, [-1, 1]), _Const(-1, [-1, 1])]).fit(X, [-1, 1, 1])
    assert vote.predict(X).tolist() == [-1, -1, -1]
    vote = MajorityVote([_Const(1, [-1, 1]), _Const(-1, [-1, 1])], weights=[2, 1]).fit(
        X, [-1, 1, 1])
    assert vote.predict(X).tolist() == [1, 1, 1]


def test_prefit_members_are_kept_and_unfitted_are_cloned():
    X, y = _data()
    prefit = LogisticRegression().fit(X[:20], y[:20])
    coef = prefit.coef_.copy()
    unfitted = DecisionTreeClassifier(max_depth=2)
    vote = MajorityVote([("lr", prefit), ("tree", unfitted), ("s", "stump")]).fit(X, y)
    assert vote.estimators_[0] is prefit
    np.testing.assert_array_equal(prefit.coef_, coef)  # not refitted
    assert vote.estimators_[1] is not unfitted and not hasattr(unfitted, "tree_")
    assert vote.score(X, y) > 0.9


def test_sample_weight_is_passed_on():
    X, y = _data(1)
    sw = np.where(y > 0, 10.0, 0.1)
    vote = MajorityVote([DecisionStump()]).fit(X, y, sample_weight=sw)
    ref = DecisionStump().fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(vote.predict(X), ref.predict(X))


@pytest.mark.parametrize("kw, match", [
    (dict(estimators=[]), "non-empty"),
    (dict(estimators="stump"), "'estimators' parameter of MajorityVote must be"),
    (dict(estimators=[]), "non-empty"),
    (dict(estimators=["forest"]), "unknown member"),
    (dict(estimators=[object()]), "fit and predict"),
    (dict(estimators=[DecisionStump]), "instances"),
    (dict(estimators=[DecisionStump()], weights=[1.0, 2.0]), "weights"),
    (dict(estimators=[DecisionStump()], weights=[-1.0]), "weights"),
])
def test_bad_input(kw, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        MajorityVote(**kw).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes; got 1 class"):
        MajorityVote([DecisionStump()]).fit(X, np.ones(len(y)))


def test_prefit_committee_votes_without_fit():
    X, y = _data(2)
    members = [LogisticRegression().fit(X, y), DecisionStump().fit(X, y),
               DecisionTree(max_depth=2).fit(X, y)]
    w = [0.5, 0.2, 0.4]
    unfit = MajorityVote(members, weights=w)
    fitted = MajorityVote(members, weights=w).fit(X, y)
    np.testing.assert_array_equal(unfit.predict(X), fitted.predict(X))
    np.testing.assert_allclose(unfit.decision_function(X), fitted.decision_function(X))
    np.testing.assert_allclose(unfit.predict_proba(X), fitted.predict_proba(X))
    H = np.array([m.predict(X) for m in members])
    np.testing.assert_array_equal(unfit.predict(X), np.where(np.dot(w, H) > 0, 1, -1))
    # one unfitted member: fit is needed
    with pytest.raises(NotFittedError):
        MajorityVote(members + [DecisionStump()]).predict(X)
