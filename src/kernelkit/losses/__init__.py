"""Losses for regularized risk minimization: value, derivative, conjugate, dual step.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

import importlib
import importlib.util

_NAMES = {
    "Loss": "base",
    "resolve_loss": "_resolve",
    "Squared": "regression",
    "Absolute": "regression",
    "EpsilonInsensitive": "regression",
    "Huber": "regression",
    "Quantile": "regression",
    "Hinge": "classification",
    "SquaredHinge": "classification",
    "Logistic": "classification",
    "WestonWatkins": "multiclass",
    "CrammerSinger": "multiclass",
}


def _available(name: str) -> bool:
    return importlib.util.find_spec(f"{__name__}.{_NAMES[name]}") is not None


__all__ = sorted(n for n in _NAMES if _available(n))


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
