"""Weighted majority vote of a committee of classifiers."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from .._core.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_is_fitted,
    check_sample_weight,
    check_two_classes,
    validate_data,
)
from .adaboost import _NAMED, _label_index

__all__ = ["MajorityVote"]


def _is_fitted(est) -> bool:
    """sklearn's check; for duck-typed classifiers: has a fitted ``name_`` attribute."""
    try:
        check_is_fitted(est)
    except NotFittedError:
        return False
    except (TypeError, AttributeError):
        return any(k.endswith("_") and not k.startswith("__") for k in vars(est))
    return True


class MajorityVote(ClassifierMixin, BaseEstimator):
    """Weighted majority vote H(x) = argmax_k Σ_m w_m·1[h_m(x) = k].

    For two classes with members voting ±1 this is sign(Σ_m w_m h_m(x)).

    Members may be given fitted or unfitted. ``fit`` uses every already-fitted member as it
    is (it is *not* refitted — a prefit committee) and fits a clone of every unfitted one
    on ``(X, y)`` (with ``sample_weight`` when given and the member accepts it). Fitted
    members must predict labels; the committee's ``classes_`` is the sorted union of the
    labels of ``y`` and of the prefit members' ``classes_``.

    A committee whose members are *all* already fitted can also vote without ``fit``:
    ``predict``, ``decision_function`` and ``predict_proba`` then use the members as they are,
    with ``classes_`` the union of their ``classes_`` (``fit`` is still needed when any
    member is unfitted; it raises ``NotFittedError`` otherwise).

    Ties are broken deterministically: the class that comes first in ``classes_`` (the
    smallest label) wins; for two classes a zero vote predicts ``classes_[0]``.

    Parameters
    ----------
    estimators : list of classifiers or of (name, classifier) pairs
        A member may also be named "stump", "tree" or "linear" (the kernelkit weak
        learners with default parameters).
    weights : array-like of shape (n_members,), optional
        Non-negative vote weights w_m (uniform when None).

    Attributes
    ----------
    estimators_ : list of fitted classifiers
    weights_ : ndarray of shape (n_members,)
    classes_ : ndarray
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import MajorityVote
    >>> from kernelkit.ensemble import DecisionStump
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
    >>> vote = MajorityVote([DecisionStump(), DecisionStump()]).fit(X, [0, 0, 1, 1])
    >>> vote.predict(X).tolist()
    [0, 0, 1, 1]
    """

    _test_params = [dict(estimators=[("a", "stump"), ("b", "tree"), ("c", "linear")])]

    # scikit-learn's parameter validation (VotingClassifier's constraints; a tuple of members
    # is accepted too); each member is checked by _members, naming what it lacks
    _parameter_constraints: dict = {
        "estimators": [list, tuple],
        "weights": ["array-like", None],
    }

    def __init__(self, estimators, weights=None):
        self.estimators = estimators
        self.weights = weights

    def _members(self):
        if isinstance(self.estimators, str | bytes) or not hasattr(self.estimators, "__len__") \
                or len(self.estimators) == 0:
            raise ValueError("estimators must be a non-empty list of classifiers or of "
                             f"(name, classifier) pairs; got {self.estimators!r}.")
        out = []
        for m in self.estimators:
            est = m[1] if isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str) else m
            if isinstance(est, str):
                if est not in _NAMED:
                    raise ValueError(f"unknown member {est!r}; use a classifier or one of "
                                     f"{sorted(_NAMED)}.")
                est = _NAMED[est]()
            if isinstance(est, type):
                raise ValueError(f"members must be instances, e.g. {est.__name__}(); got the "
                                 f"class {est!r}.")
            if not (hasattr(est, "fit") and hasattr(est, "predict")):
                raise ValueError(f"every member needs fit and predict; got {est!r}.")
            out.append(est)
        return out

    def fit(self, X, y, sample_weight=None):
        """Fit the unfitted members (clones) and set up the vote.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Passed to members that accept it.

        Returns
        -------
        self
        """
        self._validate_params()
        members = self._members()
        # sparse X is passed through as given: each member accepts it or says it does not
        X, y = validate_data(self, X, y, dtype=FLOAT_DTYPES, accept_sparse=("csr", "csc"))
        check_classification_targets(y)
        labels = np.unique(y)
        check_two_classes(self, y, labels)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        fitted = []
        for est in members:
            if _is_fitted(est):
                fitted.append(est)  # prefit: used as it is
                continue
            est = clone(est)
            if sample_weight is not None and has_fit_parameter(est, "sample_weight"):
                est.fit(X, y, sample_weight=sample_weight)
            else:
                est.fit(X, y)
            fitted.append(est)
        w = self._weights(len(fitted))
        extra = [np.asarray(e.classes_) for e in fitted if hasattr(e, "classes_")]
        self.classes_ = np.unique(np.concatenate([labels] + extra)) if extra else labels
        self.estimators_ = fitted
        self.weights_ = w
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:  # sparse X when every member takes it
            members = self._members()
            tags.input_tags.sparse = bool(members) and all(
                get_tags(m).input_tags.sparse for m in members)
        except (ValueError, TypeError, AttributeError):
            tags.input_tags.sparse = False
        return tags

    def _weights(self, m: int) -> np.ndarray:
        if self.weights is None:
            return np.ones(m)
        w = np.asarray(self.weights, dtype=np.float64).reshape(-1)
        if w.shape[0] != m or not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
            raise ValueError(f"weights must be {m} finite non-negative numbers with a positive "
                             f"sum; got {self.weights!r}.")
        return w

    def _votes(self, X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(V, weights, classes) with V[i, k] = Σ_m w_m·1[h_m(x_i) = classes[k]]."""
        if hasattr(self, "estimators_"):
            check_is_fitted(self)
            members, weights, classes = self.estimators_, self.weights_, self.classes_
            X = validate_data(self, X, dtype=FLOAT_DTYPES, reset=False,
                              accept_sparse=("csr", "csc"))
        else:  # not fitted: a committee of prefit members votes as it is
            try:
                members = self._members()
            except ValueError:
                members = []
            if not members or not all(_is_fitted(e) and hasattr(e, "classes_")
                                      for e in members):
                check_is_fitted(self)  # raises NotFittedError
            weights = self._weights(len(members))
            classes = np.unique(np.concatenate([np.asarray(e.classes_) for e in members]))
        preds = [np.asarray(est.predict(X)) for est in members]
        V = np.zeros((preds[0].shape[0], len(classes)))
        rows = np.arange(V.shape[0])
        for w, est, p in zip(weights, members, preds):
            V[rows, _label_index(classes, p, f"member {est!r}'s prediction")] += w
        return V, weights, classes

    def decision_function(self, X) -> np.ndarray:
        """Vote share: (V₁ − V₀)/Σw for two classes, else V/Σw of shape (n, K)."""
        V, w, _ = self._votes(X)
        V = V / w.sum()
        return V[:, 1] - V[:, 0] if V.shape[1] == 2 else V

    def predict(self, X) -> np.ndarray:
        """The class with the largest total weight (ties → first in ``classes_``)."""
        V, _, classes = self._votes(X)
        return classes[np.argmax(V, axis=1)]

    def predict_proba(self, X) -> np.ndarray:
        """Fraction of the vote weight per class."""
        V, w, _ = self._votes(X)
        return V / w.sum()
