"""Exceptions and warnings raised by kernelkit."""

from __future__ import annotations

from ._core.exceptions import (
    ConvergenceWarning,
    InsufficientMemoryError,
    JitterWarning,
    NotFittedError,
    NumericalError,
)

__all__ = ["ConvergenceWarning", "JitterWarning", "NumericalError", "NotFittedError",
           "InsufficientMemoryError"]
