"""Scratch matrices reused from one evaluation of an objective to the next.

An optimizer evaluates the same objective (a GP's log marginal likelihood and its gradient)
dozens of times, and each evaluation builds the same n x n matrices: each kernel part's K and
dK/dtheta. Allocated afresh, every one of them is new memory from the operating system, and
its first write pays a page fault per 4 KiB page: at n = 521 that made the elementwise kernel
passes 3-4x slower than the same passes over memory already in use. An :class:`Arena` hands
out, inside :meth:`Arena.evaluation`, the i-th scratch request's buffer of the previous
evaluation (same shape and dtype), so from the second evaluation on no page is new.

Only matrices that die with the evaluation may come from :func:`scratch_empty` (an
evaluation's parts, never what it returns or keeps); outside an evaluation (on this thread)
it is ``np.empty``.

Examples
--------
>>> from kernelkit._core.scratch import Arena, scratch_empty
>>> arena = Arena()
>>> with arena.evaluation():
...     a = scratch_empty((2, 2))
>>> with arena.evaluation():
...     b = scratch_empty((2, 2))
>>> a is b
True
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

__all__ = ["Arena", "scratch_empty"]

_local = threading.local()


class Arena:
    """The buffers of one objective's evaluations, in the order they are requested."""

    def __init__(self):
        self._buffers: list[np.ndarray] = []
        self._next = 0

    @contextlib.contextmanager
    def evaluation(self):
        """Inside: :func:`scratch_empty` on this thread hands out this arena's buffers."""
        previous = getattr(_local, "arena", None)
        self._next = 0
        _local.arena = self
        try:
            yield self
        finally:
            _local.arena = previous

    def take(self, shape: tuple, dtype) -> np.ndarray:
        i = self._next
        self._next += 1
        if i < len(self._buffers):
            buf = self._buffers[i]
            if buf.shape == shape and buf.dtype == dtype:
                return buf
            self._buffers[i] = buf = np.empty(shape, dtype)
            return buf
        buf = np.empty(shape, dtype)
        self._buffers.append(buf)
        return buf


def scratch_empty(shape, dtype=np.float64) -> np.ndarray:
    """An uninitialized C-ordered array: the current evaluation's scratch buffer, if any."""
    arena = getattr(_local, "arena", None)
    if arena is None:
        return np.empty(shape, dtype)
    return arena.take(tuple(int(s) for s in shape), np.dtype(dtype))
