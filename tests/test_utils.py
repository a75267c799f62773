"""all_estimators discovery and the lazy public namespace."""

from __future__ import annotations

import pytest
from sklearn.base import BaseEstimator, is_classifier, is_regressor

import kernelkit
from kernelkit.utils import all_estimators


def test_all_estimators_are_public_estimators():
    found = all_estimators()
    assert [n for n, _ in found] == sorted(n for n, _ in found)
    for name, cls in found:
        assert issubclass(cls, BaseEstimator)
        assert getattr(kernelkit, name) is cls


def test_type_filter():
    everything = set(all_estimators())
    classifiers = set(all_estimators("classifier"))
    regressors = set(all_estimators("regressor"))
    assert classifiers <= everything and regressors <= everything
    assert not classifiers & regressors
    for _, cls in classifiers:
        params = (getattr(cls, "_test_params", None) or [{}])[0]
        assert is_classifier(cls(**params))
    for _, cls in regressors:
        params = (getattr(cls, "_test_params", None) or [{}])[0]
        assert is_regressor(cls(**params))
    with pytest.raises(ValueError, match="type_filter"):
        all_estimators("clusterer")


def test_lazy_namespace():
    assert set(kernelkit.__all__) <= set(dir(kernelkit))
    with pytest.raises(AttributeError, match="no attribute"):
        kernelkit.NotAThing  # noqa: B018
