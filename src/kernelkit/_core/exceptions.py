"""Exceptions and warnings raised by kernelkit (defined in the bottom layer, so that every
layer may raise them; public as :mod:`kernelkit.exceptions`)."""

from __future__ import annotations

__all__ = ["ConvergenceWarning", "JitterWarning", "NumericalError", "NotFittedError",
           "InsufficientMemoryError"]

from sklearn.exceptions import ConvergenceWarning, NotFittedError


class JitterWarning(UserWarning):
    """A matrix needed diagonal jitter before it could be factorized.

    The message names the jitter that was added so that the user can decide to
    increase ``alpha`` / the noise level instead.
    """


class NumericalError(ValueError):
    """A numerical problem that jitter could not fix (for example a kernel that is not PSD).

    Subclasses :class:`ValueError` so that bad-input handling code that expects
    ``ValueError`` keeps working; the message always says what to change.
    """


class InsufficientMemoryError(MemoryError, ValueError):
    """A computation would need more memory than the machine has available; raised before
    anything of that size is allocated.

    The message says how much it would need, how much is available, and which method does
    not need it. A :class:`MemoryError` (what a failed allocation raises) that is also a
    :class:`ValueError` (an input too large for the chosen method).
    """


# their public home, for reprs, pickles and the API reference
for _cls in (JitterWarning, NumericalError, InsufficientMemoryError):
    _cls.__module__ = "kernelkit.exceptions"
del _cls
