"""Re-export of the common solver Result."""

from .._result import Result

__all__ = ["Result"]
