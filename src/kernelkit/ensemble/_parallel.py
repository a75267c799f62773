"""Serial and parallel twins of a numba kernel, chosen by the size of the work.

A parallel region costs a thread launch and a join: microseconds on an idle machine, but up
to milliseconds on a busy one, which dominates small boosting rounds. Each kernel is
compiled twice from one source (``prange`` is ``range`` in the serial twin) and a call picks
the parallel twin only when ``work`` (≈ the number of inner-loop steps) is large.
"""

from __future__ import annotations

import time
import types

import numba
from numba import njit

__all__ = ["PARALLEL_WORK", "twin", "Chooser"]

PARALLEL_WORK = 1_000_000


def _copy(f, suffix):
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__ + suffix, f.__defaults__,
                           f.__closure__)
    g.__qualname__ = f.__qualname__ + suffix  # its own numba cache file
    g.__doc__ = f.__doc__
    g.__module__ = f.__module__
    return g


def twin(f):
    """Decorator: ``kernel(*args, work=n)`` runs the parallel twin when ``n ≥ PARALLEL_WORK``."""
    seq = njit(cache=True)(_copy(f, "_seq"))
    par = njit(parallel=True, cache=True)(_copy(f, "_par"))

    def call(*args, work: int = 0):
        if work >= PARALLEL_WORK and numba.get_num_threads() > 1:
            return par(*args)
        return seq(*args)

    call.__doc__, call.__name__ = f.__doc__, f.__name__
    call.seq, call.par = seq, par
    return call


class Chooser:
    """Per-fit choice between a kernel's serial and parallel twin, by timing both.

    Used across the rounds of one boosting fit (it lives in the fit's context, not in a
    module): below ``min_work`` (≈ 1 ms of serial work, where a thread launch on a busy
    machine costs more than it can save) the serial twin runs; above, the first four calls
    alternate
    serial/parallel (two warm-ups, then one timed call each) and the faster twin runs from
    then on. Both twins compute the same numbers (threads only split the features), so the
    choice changes the speed, never the result.
    """

    def __init__(self, min_work: int = PARALLEL_WORK):
        self.min_work = min_work
        self.calls: dict[str, int] = {}
        self.times: dict[str, list[float]] = {}

    def __call__(self, kernel, *args, work: int):
        if work < self.min_work or numba.get_num_threads() < 2:
            return kernel.seq(*args)
        name = kernel.__name__
        i = self.calls.get(name, 0)
        self.calls[name] = i + 1
        if i < 4:
            f = kernel.par if i % 2 else kernel.seq
            t0 = time.perf_counter()
            out = f(*args)
            if i >= 2:
                self.times.setdefault(name, [0.0, 0.0])[i % 2] = time.perf_counter() - t0
            return out
        t = self.times[name]
        return (kernel.par if t[1] < t[0] else kernel.seq)(*args)
