"""Gaussian processes: regression, classification, posterior, sampling, marginal likelihood.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "GaussianProcessRegressor": "gpr",
    "SparseGaussianProcessRegressor": "sgpr",
    "GaussianProcessClassifier": "gpc",
    "MultiOutputGaussianProcessRegressor": "multi_output",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
