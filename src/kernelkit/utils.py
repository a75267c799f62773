"""Utilities: discovery of the public estimators."""

from __future__ import annotations

import inspect

from sklearn.base import BaseEstimator

__all__ = ["all_estimators"]


def all_estimators(type_filter: str | None = None) -> list[tuple[str, type]]:
    """Every public kernelkit estimator as ``(name, class)``, sorted by name.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "transformer", "outlier_detector"}, optional

    Examples
    --------
    >>> from kernelkit.utils import all_estimators
    >>> all(isinstance(name, str) for name, _ in all_estimators())
    True
    """
    from sklearn.base import ClassifierMixin, OutlierMixin, RegressorMixin, TransformerMixin

    import kernelkit

    mixins = {
        "classifier": ClassifierMixin,
        "regressor": RegressorMixin,
        "transformer": TransformerMixin,
        "outlier_detector": OutlierMixin,
    }
    if type_filter is not None and type_filter not in mixins:
        raise ValueError(f"type_filter must be one of {sorted(mixins)} or None.")
    out = []
    for name in kernelkit.__all__:
        obj = getattr(kernelkit, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            if type_filter is None or issubclass(obj, mixins[type_filter]):
                out.append((name, obj))
    return sorted(out)
