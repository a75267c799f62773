"""kernelkit._core.threads.single_threaded: the one "small problem -> one thread" rule."""

from __future__ import annotations

import numba
import pytest

from kernelkit._core.threads import blas_threads, single_threaded


def test_single_threaded_pins_blas_and_numba_and_restores_them():
    before = (blas_threads(), numba.get_num_threads())
    with single_threaded(True):
        assert (blas_threads(), numba.get_num_threads()) == (1, 1)
    assert (blas_threads(), numba.get_num_threads()) == before
    with pytest.raises(RuntimeError), single_threaded(True):
        raise RuntimeError("restored on the way out too")
    assert (blas_threads(), numba.get_num_threads()) == before


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_single_threaded_leaves_large_problems_alone():
    old = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with single_threaded(False):
            assert numba.get_num_threads() == 2
    finally:
        numba.set_num_threads(old)
