"""Losses for regularized risk minimization: value, derivative, conjugate, dual step.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

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

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
