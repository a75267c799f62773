"""Error messages: one wording per condition, the estimator named, no NumPy reprs.

Every public estimator (and the structured models) is given the same bad inputs; the
messages must name the estimator, never show ``np.int64(1)`` or ``array([...])``, and a
single class in y gets the one shared wording of ``check_two_classes``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.base import clone, is_classifier

from kernelkit._core.validation import check_two_classes, plain
from kernelkit.structured import ChainOracle, MulticlassOracle, StructuredSVM
from kernelkit.utils import all_estimators

ESTIMATORS = [cls(**getattr(cls, "_test_params", [{}])[0]) for _, cls in all_estimators()]
CLASSIFIERS = [e for e in ESTIMATORS if is_classifier(e)]
NUMPY_REPR = re.compile(r"np\.\w+\(|array\(|dtype=")


def _ids(ests):
    return [type(e).__name__ for e in ests]


@pytest.mark.parametrize("label", [1, "spam"])
@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=_ids(CLASSIFIERS))
def test_one_class_wording(estimator, label):
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.full(20, label)
    with pytest.raises(ValueError) as info:
        clone(estimator).fit(X, y)
    name = type(estimator).__name__
    assert str(info.value) == (f"{name} needs samples of at least 2 classes; got 1 class: "
                               f"{label!r}.")


@pytest.mark.parametrize("oracle", [MulticlassOracle(), ChainOracle(3)])
def test_structured_svm_refuses_one_class(oracle):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(3, 2)) for _ in range(6)]
    Y = [np.full(3, 2) for _ in range(6)]
    if isinstance(oracle, MulticlassOracle):
        X, Y = np.vstack(X)[:6], np.full(6, 2)
    with pytest.raises(ValueError, match=r"^StructuredSVM needs samples of at least 2 "
                                         r"classes; got 1 class: 2\.$"):
        StructuredSVM(oracle).fit(X, Y)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_one_dimensional_X_is_named_not_dumped(estimator):
    X = np.random.default_rng(0).normal(size=500)
    y = np.where(X > 0, 1, 0) if is_classifier(estimator) else X.copy()
    est = clone(estimator)
    with pytest.raises(ValueError) as info:
        est.fit(X) if "y" not in _fit_params(est) else est.fit(X, y)
    msg = str(info.value)
    assert type(estimator).__name__ in msg and "(500,)" in msg and "Reshape your data" in msg
    assert len(msg) < 300 and not NUMPY_REPR.search(msg)


def _fit_params(est):
    import inspect

    params = inspect.signature(est.fit).parameters
    return [p for p in params if params[p].default is inspect.Parameter.empty]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
@pytest.mark.parametrize("kind", ["nan", "empty", "one_class", "mismatched"])
def test_messages_name_the_estimator_without_numpy_reprs(estimator, kind):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, 1, 0) if is_classifier(estimator) else X[:, 0].copy()
    supervised = "y" in _fit_params(estimator)
    if kind == "nan":
        X[2, 1] = np.nan
    elif kind == "empty":
        X, y = X[:0], y[:0]
    elif kind == "one_class":
        if not is_classifier(estimator):
            pytest.skip("only classifiers need two classes")
        y = np.full(30, np.int64(1))
    elif kind == "mismatched":
        if not supervised:
            pytest.skip("no y to mismatch")
        y = y[:-2]
    est = clone(estimator)
    with pytest.raises(ValueError) as info:
        est.fit(X, y) if supervised else est.fit(X)
    msg = str(info.value)
    assert not NUMPY_REPR.search(msg), msg
    if kind != "mismatched":  # scikit-learn's length check names the lengths, not the model
        assert type(estimator).__name__ in msg, msg


@pytest.mark.parametrize("value, text", [(np.int64(1), "1"), (np.str_("a"), "'a'"),
                                         (np.float64(0.5), "0.5"),
                                         (np.array([1, 2]), "[1, 2]"),
                                         (np.arange(10), "[0, 1, 2, 3, 4, 5, ...]")])
def test_plain_shows_values_as_written(value, text):
    assert plain(value) == text


def test_check_two_classes_returns_the_classes():
    assert check_two_classes("X", np.array([2, 1, 2])).tolist() == [1, 2]
    with pytest.raises(ValueError, match="^Model needs samples of at least 2 classes; got 1 "
                                         "class: 'b'.$"):
        check_two_classes("Model", np.array(["b", "b"]))
