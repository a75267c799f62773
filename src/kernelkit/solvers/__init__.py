"""Solvers: problem -> Result; each takes a callback and returns kernelkit._core.result.Result.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "Result": "_result_alias",
    "solve_dual_cd": "dual_cd",
    "solve_newton": "newton",
    "solve_smo": "smo",
    "solve_multiclass_cd": "multiclass_cd",
    "solve_falkon": "nystrom",
    "solve_dual": "dual",
    "DualProblem": "dual",
    "solve_krr": "krr",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
