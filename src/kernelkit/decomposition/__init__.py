"""Kernel PCA.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "KernelPCA": "kernel_pca",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
