"""Solvers: each is a function returning kernelkit._result.Result.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

import importlib
import importlib.util

_NAMES = {
    "Result": "_result_alias",
    "solve_dual_cd": "dual_cd",
    "solve_newton": "newton",
    "solve_smo": "smo",
    "solve_multiclass_cd": "multiclass_cd",
    "solve_falkon": "nystrom",
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
