"""Kernel ridge regression in its dual form, and its exact leave-one-out CV.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "KernelRidge": "kernel_ridge",
    "KernelRidgeCV": "cv",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
