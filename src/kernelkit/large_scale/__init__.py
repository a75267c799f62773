"""Past memory and past one machine: Nystrom KRR (Falkon), Nystroem, random features.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "NystromKernelRidge": "nystrom_krr",
    "Nystroem": "features",
    "RandomFourierFeatures": "features",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
