"""kernelkit._memory.row_store: row caches on small pages."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kernelkit._memory import SMALL_PAGES_FROM, row_store


def _vm_flags(address: int) -> list[str]:
    """The VmFlags of the mapping of this process that holds ``address`` (Linux)."""
    flags, inside = None, False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(part, 16) for part in head.split("-"))
                inside = lo <= address < hi
            elif inside and line.startswith("VmFlags:"):
                flags = line.split()[1:]
    assert flags is not None
    return flags


def test_a_small_store_is_a_plain_array():
    a = row_store((3, 5), np.float64)
    assert a.shape == (3, 5) and a.dtype == np.float64 and a.flags.c_contiguous
    assert a.base is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise flags: Linux")
def test_a_large_store_is_mapped_without_huge_pages_and_holds_rows():
    rows = SMALL_PAGES_FROM // (4 * 4096) + 1
    a = row_store((rows, 4096), np.float32)
    assert a.shape == (rows, 4096) and a.dtype == np.float32
    assert a.flags.c_contiguous and a.flags.writeable
    assert "nh" in _vm_flags(a.ctypes.data)  # MADV_NOHUGEPAGE on its mapping
    a[7] = np.arange(4096)
    a[-1] = 2.5
    assert a[7, 4095] == 4095.0 and a[-1, 0] == 2.5
    # what keeps the mapping alive is the array itself (its base)
    view = a[7]
    del a
    assert view[10] == 10.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise flags: Linux")
def test_kernel_rows_keep_a_large_matrix_on_small_pages():
    # room for the whole float32 matrix (67 MB): rows computed as the solver asks
    from kernelkit.kernels import RBF
    from kernelkit.linalg.rows import KernelRows

    X = np.random.default_rng(0).normal(size=(4100, 3)).astype(np.float32)
    rows = KernelRows(RBF(0.7), X, working_memory=100)
    assert rows.mode == "lazy" and rows.dtype == np.float32
    assert "nh" in _vm_flags(rows.data.ctypes.data)
    np.testing.assert_allclose(rows.row(5), RBF(0.7)(X[:10], X)[5], rtol=1e-5)
