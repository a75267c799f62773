"""Linear models: least squares as maximum likelihood, ridge as MAP, Bayesian linear regression.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "LinearRegression": "least_squares",
    "Ridge": "ridge",
    "BayesianLinearRegression": "bayesian",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
