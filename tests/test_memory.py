"""kernelkit._core.memory.row_store: row caches on small pages."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kernelkit._core.memory import SMALL_PAGES_FROM, row_store


def _smaps_field(address: int, field: str) -> str:
    """The ``field`` line of /proc/self/smaps for the mapping that holds ``address``."""
    value, inside = None, False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(part, 16) for part in head.split("-"))
                inside = lo <= address < hi
            elif inside and line.startswith(field + ":"):
                value = line[len(field) + 1 :].strip()
    assert value is not None
    return value


def _vm_flags(address: int) -> list[str]:
    """The VmFlags of the mapping of this process that holds ``address`` (Linux)."""
    return _smaps_field(address, "VmFlags").split()


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


def _rss_kib(address: int) -> int:
    """Resident KiB of the mapping of this process that holds ``address`` (Linux)."""
    return int(_smaps_field(address, "Rss").split()[0])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise flags: Linux")
def test_a_populated_store_is_mapped_at_once_on_small_pages():
    from kernelkit._core import memory as _memory

    rows = SMALL_PAGES_FROM // (4 * 4096) + 1
    lazy = row_store((rows, 4096), np.float32)
    full = row_store((rows, 4096), np.float32, populate=True)
    assert "nh" in _vm_flags(full.ctypes.data)
    assert _rss_kib(lazy.ctypes.data) < 1024  # nothing written: nothing mapped yet
    if not _memory._huge_pages_always():  # MAP_POPULATE: every page mapped, zero-filled
        assert _rss_kib(full.ctypes.data) >= full.nbytes // 1024
    assert not full.any()
    full[-1] = 3.0
    assert full[-1, -1] == 3.0 and full.flags.writeable


def test_the_whole_matrix_by_parallel_blocks_in_place(monkeypatch):
    # fetch_all: consecutive row blocks written in place, on two threads
    from kernelkit.kernels import RBF, Matern
    from kernelkit.linalg import rows as rows_mod

    monkeypatch.setattr(rows_mod, "ROW_BLOCK_MIB", 0.05)  # blocks of 21 rows
    monkeypatch.setattr(rows_mod, "parallel_threads", lambda n_entries: 2)
    X = np.random.default_rng(1).normal(size=(300, 3))
    for kernel in (RBF(0.9), Matern(1.3, nu=1.5)):
        rows = rows_mod.KernelRows(kernel, X, dense=True)
        K = rows.fetch_all()
        np.testing.assert_allclose(K, kernel(X), rtol=1e-12, atol=1e-14)
        assert rows.n_computed == 300 and np.all(rows.slot_of == np.arange(300))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise: Linux")
def test_rows_of_a_store_are_mapped_before_they_are_written():
    from kernelkit._core.memory import populate_rows, store_mapping

    assert store_mapping(np.empty((3, 4))) is None
    populate_rows(None, np.empty((3, 4)), 1)  # a plain array: nothing to do
    rows = SMALL_PAGES_FROM // (4 * 10_000) + 1
    a = row_store((rows, 10_000), np.float32)  # rows of 40,000 B: not page-aligned
    mapping = store_mapping(a)
    assert mapping is not None
    before = _rss_kib(a.ctypes.data)
    populate_rows(mapping, a, 7, count=3)
    from kernelkit._core import memory as _memory

    if _memory._populate_works:  # MADV_POPULATE_WRITE (Linux 5.14+)
        assert _rss_kib(a.ctypes.data) - before >= 3 * 40_000 // 1024
    assert not a[7:10].any()  # mapped pages read as zeros, and take writes
    a[9, -1] = 5.0
    assert a[9, -1] == 5.0
