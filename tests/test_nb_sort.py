"""kernelkit._core.nb_sort: the heapsort numba loops use instead of numba's np.sort."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit._core.nb_sort import heapsort


def _cases():
    rng = np.random.default_rng(0)
    yield "empty", np.empty(0)
    yield "one", np.array([3.0])
    yield "random", rng.normal(size=1000)
    yield "small", rng.normal(size=7)
    yield "ties", rng.integers(0, 5, size=2000).astype(float)
    yield "sorted", np.arange(3000.0)
    yield "reversed", np.arange(3000.0)[::-1].copy()
    yield "constant", np.full(500, 2.5)
    yield "organ pipe", np.concatenate([np.arange(1000.0), np.arange(1000.0)[::-1]])
    yield "signed zeros and infinities", np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0] * 9)
    yield "int64", rng.integers(-10**12, 10**12, size=4000)


@pytest.mark.parametrize("name,a", list(_cases()), ids=[c[0] for c in _cases()])
def test_heapsort_equals_numpy(name, a):
    b = a.copy()
    heapsort(b, b[:0])
    np.testing.assert_array_equal(b, np.sort(a))


@pytest.mark.parametrize("name,a", list(_cases()), ids=[c[0] for c in _cases()])
def test_heapsort_carries_the_values(name, a):
    keys = a.copy()
    vals = np.arange(len(a))
    heapsort(keys, vals)
    np.testing.assert_array_equal(keys, np.sort(a))
    np.testing.assert_array_equal(a[vals], keys)  # vals is a permutation matching the keys
    np.testing.assert_array_equal(np.sort(vals), np.arange(len(a)))


def test_median_of_three_killer_is_sorted():
    """Musser's median-of-three killer (quadratic for a plain quicksort) is sorted too."""
    n = 1 << 14
    a = np.empty(n)
    k = n // 2  # Musser's construction for median-of-three
    for i in range(1, k + 1):
        if i % 2:
            a[i - 1] = i
            a[i] = k + i
        a[k + i - 1] = 2 * i
    keys = a.copy()
    vals = np.arange(n)
    heapsort(keys, vals)
    np.testing.assert_array_equal(keys, np.sort(a))
    np.testing.assert_array_equal(a[vals], keys)
