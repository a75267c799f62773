"""Re-export of the common solver Result."""

from .._core.result import Result

__all__ = ["Result"]
