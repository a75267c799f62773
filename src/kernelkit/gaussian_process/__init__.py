"""Gaussian-process regression: posterior, sampling, marginal likelihood.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._lazy import attach

_NAMES = {
    "GaussianProcessRegressor": "gpr",
    "SparseGaussianProcessRegressor": "sgpr",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
