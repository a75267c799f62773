"""The boosting fit's per-fit choice between a kernel's serial and parallel twin (the twins
themselves: :mod:`kernelkit._core.twin`)."""

from __future__ import annotations

import time

import numba

from .._core.interpreted import INTERPRETED_WORK, pick
from .._core.twin import PARALLEL_WORK

__all__ = ["Chooser"]


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
            # the serial twin; a small pass interpreted until it is compiled (_core/interpreted.py)
            return pick(kernel.seq, work, INTERPRETED_WORK)(*args)
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
