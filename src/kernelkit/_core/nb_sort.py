"""Sorting inside numba code, in a form that compiles in a fraction of a second.

numba's own ``np.sort`` / ``np.argsort`` are generic quicksorts (NaN-aware comparisons,
several nested specialised functions) whose compilation took 1.5-2.5 s of a first fit in a
fresh environment, once per dtype. The numba loops that sort small arrays (the multiclass
block steps: k classes) call this one function instead: an in-place heapsort (O(n log n)
always, one function: about 0.2 s to compile). Large arrays are sorted by NumPy before
entering numba (the boosting bins).
"""

from __future__ import annotations

from numba import njit

__all__ = ["heapsort"]


@njit(cache=True)
def heapsort(keys, vals):  # pragma: no cover - numba
    """Sort ``keys`` (1-D, no NaN) ascending in place; ``vals`` (the same length, or
    length 0) is permuted with them."""
    n = keys.shape[0]
    carry = vals.shape[0] > 0
    # heapify (roots n//2 - 1 .. 0), then move the maximum to the end n - 1 times
    for step in range(n // 2 + n - 1):
        if step < n // 2:
            root = n // 2 - 1 - step
            end = n
        else:
            end = n - 1 - (step - n // 2)
            keys[0], keys[end] = keys[end], keys[0]
            if carry:
                vals[0], vals[end] = vals[end], vals[0]
            root = 0
        while True:  # sift keys[root] down within keys[:end]
            child = 2 * root + 1
            if child >= end:
                break
            if child + 1 < end and keys[child + 1] > keys[child]:
                child += 1
            if keys[child] <= keys[root]:
                break
            keys[root], keys[child] = keys[child], keys[root]
            if carry:
                vals[root], vals[child] = vals[child], vals[root]
            root = child
