"""Serial and parallel twins of a numba kernel, chosen by the size of the work.

A parallel region costs a thread launch and a join: microseconds on an idle machine, but up
to milliseconds on a busy one, which dominates small boosting rounds; a parallel kernel also
takes longer to compile (a first fit on a small problem in a fresh environment compiles only
the serial twin; a small pass with nothing compiled yet runs interpreted). Each kernel is
compiled twice from one source (``prange`` is ``range`` in
the serial twin) and a call picks the parallel twin only when ``work`` (≈ the number of
inner-loop steps) is large. The serial twin releases the GIL, so that Python threads may
run it side by side (``kernel.seq(...)``, e.g. on the tiles of a fused product).
"""

from __future__ import annotations

import types

import numba
from numba import njit

from .interpreted import INTERPRETED_WORK, pick

__all__ = ["PARALLEL_WORK", "twin"]

PARALLEL_WORK = 1_000_000


def _copy(f, suffix):
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__ + suffix, f.__defaults__,
                           f.__closure__)
    g.__qualname__ = f.__qualname__ + suffix  # its own numba cache file
    g.__doc__ = f.__doc__
    g.__module__ = f.__module__
    return g


def twin(f):
    """Decorator: ``kernel(*args, work=n)`` runs the parallel twin when ``n ≥ PARALLEL_WORK``,
    and the serial one interpreted (``interpreted.py``) when ``n ≤ INTERPRETED_WORK`` and it
    has no machine code in this process yet; without ``work``, the serial twin."""
    seq = njit(cache=True, nogil=True)(_copy(f, "_seq"))  # callable from worker threads
    par = njit(parallel=True, cache=True)(_copy(f, "_par"))

    def call(*args, work: int | None = None):
        if work is not None and work >= PARALLEL_WORK and numba.get_num_threads() > 1:
            return par(*args)
        if work is not None:  # a small pass interpreted: numba not started for it
            return pick(seq, work, INTERPRETED_WORK)(*args)
        return seq(*args)

    call.__doc__, call.__name__ = f.__doc__, f.__name__
    call.seq, call.par = seq, par
    return call
