"""The kernel-row cache's numba view: a contract over its modes, dtypes and restriction.

A loop reads rows through :class:`RowsView` and :func:`take_row` (compiled, and as the
CPython twin that small problems run); Python fetches what the loop asks for. The rows read
must be K's rows, eviction must stay within the slots and never drop the row a step read
first, and ``restrict(cols)`` must give ``K[r, cols]`` (the block ``K[cols][:, cols]`` in
column order when it fits the budget) and reuse the rows held, and with ``in_place`` the
storage of the restriction it narrows.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from kernelkit._core.interpreted import interpreted
from kernelkit.kernels import RBF
from kernelkit.linalg import (
    KernelRows,
    RestrictedRows,
    RowsView,
    as_kernel_rows,
    resume_entry,
    take_row,
)

N = 40


def _X():
    return np.random.default_rng(0).normal(size=(N, 3))


def _rows(mode, dtype):
    X = _X()
    if mode == "dense":
        return as_kernel_rows(RBF(0.9)(X).astype(dtype))
    slots = N if mode == "lazy" else 6
    return KernelRows(RBF(0.9), X, dense=mode == "lazy", dtype=dtype,
                      working_memory=slots * N * np.dtype(dtype).itemsize / 2**20)


@njit(cache=True)
def _read(rows, order, out):
    """Rows ``order`` into ``out`` as a solver reads them: row pairs (i, j), i taken
    first and kept while j is fetched; returns how many were read before one was missing
    (the caller fetches ``order[k]`` and calls again)."""
    for k in range(out.shape[0]):
        if not np.isnan(out[k, 0]):
            continue
        s = take_row(rows, order[k])
        if s < 0:
            return k
        if k % 2 == 1:  # the pair's first row is still held (not evicted by fetching k)
            if rows.slot_of[order[k - 1]] < 0:
                return -2
        out[k, :] = rows.data[s]
        if k % 2 == 0 and k + 1 < out.shape[0]:
            s2 = take_row(rows, order[k + 1])
            if s2 < 0:
                return k + 1
            out[k + 1, :] = rows.data[s2]
            out[k, :] = rows.data[s]  # row k is re-read after the fetch of its partner
    return out.shape[0]


def _drive(rows, order, loop):
    out = np.full((len(order), rows.data.shape[1]), np.nan)
    while True:
        k = loop(rows.view(), order, out)
        assert k != -2, "the pair's first row was evicted by fetching its second"
        if k == len(order):
            return out
        rows.fetch(int(order[k]))
        # the slots never grow, and each held row maps to the slot that holds it
        held = np.flatnonzero(rows.slot_of >= 0)
        assert len(held) <= rows.n_slots
        np.testing.assert_array_equal(rows.row_of_slot[rows.slot_of[held]], held)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["dense", "lazy", "lru"])
def test_view_reads_the_rows_of_K(mode, dtype, compiled):
    rows = _rows(mode, dtype)
    assert rows.mode == mode and rows.dtype == dtype
    assert isinstance(rows.view(), RowsView)
    K = RBF(0.9)(_X())
    order = np.random.default_rng(1).integers(0, N, size=60).astype(np.int64)
    out = _drive(rows, order, _read if compiled else interpreted(_read))
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, K[order], atol=tol)
    np.testing.assert_array_equal(rows.view().diag, np.diag(K))
    if mode == "lru":
        assert rows.n_slots == 6 and rows.n_computed > 6  # rows were evicted and formed again


def test_take_row_marks_the_row_used():
    rows = _rows("lru", np.float64)
    rows.fetch(3)
    rows.fetch(5)
    view = rows.view()
    before = view.tick[0]
    assert take_row(view, 3) == rows.slot_of[3]
    assert view.tick[0] == before + 1 and view.last_used[rows.slot_of[3]] == view.tick[0]
    assert take_row(view, 7) == -1 and view.tick[0] == before + 1  # absent: no tick
    # row 5 is now the least recently used of the held rows: it goes first
    for r in range(10, 10 + rows.n_slots - 2):
        rows.fetch(r)
    rows.fetch(30)
    assert rows.slot_of[5] < 0 and rows.slot_of[3] >= 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["dense", "lazy", "lru"])
def test_restrict_gives_K_at_the_columns(mode, dtype):
    rows = _rows(mode, dtype)
    K = RBF(0.9)(_X())
    for r in (0, 4, 9):
        rows.fetch(r)
    cols = np.array([1, 4, 9, 17, 30, 33], dtype=np.int64)
    sub = rows.restrict(cols)
    assert isinstance(sub, RestrictedRows)
    np.testing.assert_array_equal(sub.view().diag, np.diag(K)[cols])
    # the rows held (and among cols) are copied in: no new row formed for them
    held = [c for c, r in enumerate(cols) if rows.slot_of[r] >= 0]
    assert held and all(sub.slot_of[c] >= 0 for c in held) and sub.n_computed == 0
    order = np.array([0, 1, 2, 3, 4, 5, 5, 0, 2, 3], dtype=np.int64)
    out = _drive(sub, order, _read)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, K[np.ix_(cols[order], cols)], atol=tol)
    # a restriction of fewer columns reuses the previous one's rows, most recent first
    fewer = cols[[1, 3, 4]]
    again = rows.restrict(fewer, previous=sub)
    assert again.n_computed == 0 and np.all(again.slot_of >= 0)
    for c in range(len(fewer)):
        np.testing.assert_allclose(again.data[again.slot_of[c]], K[fewer[c], fewer], atol=tol)


def test_restrict_keeps_the_memory_budget():
    rows = _rows("lru", np.float64)  # 6 slots of 40 entries
    cols = np.arange(0, N, 2, dtype=np.int64)  # 20 columns: room for 12 rows
    sub = rows.restrict(cols)
    assert sub.n_slots == 12 and sub.data.nbytes <= rows.data.nbytes


def test_kernel_rows_give_each_solver_its_form():
    X = _X()
    K = RBF(0.9)(X)
    rows = KernelRows(RBF(0.9), X, dtype=np.float64)
    np.testing.assert_allclose(rows.operator(), K, atol=1e-12)
    assert rows.operator() is rows.operator()  # formed once
    np.testing.assert_allclose(rows.matrix(), K, atol=1e-12)
    np.testing.assert_array_equal(as_kernel_rows(K).operator(), K)
    with pytest.raises(ValueError, match="square"):
        as_kernel_rows(np.ones((3, 2)))


def test_resume_entry_runs_the_same_compiled_loop():
    rows = _rows("lru", np.float64)
    order = np.array([3, 8, 3, 12], dtype=np.int64)
    out = np.full((4, N), np.nan)
    args = (rows.view(), order, out)
    k = _read(*args)
    resume = resume_entry(_read, args)
    assert resume is not _read and callable(resume)
    while k < len(order):
        rows.fetch(int(order[k]))
        k = resume(*args)
    np.testing.assert_allclose(out, RBF(0.9)(_X())[order], atol=1e-12)
    twin = interpreted(_read)
    assert resume_entry(twin, args) is twin  # a CPython twin is called as it is


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["dense", "lazy"])
def test_a_restriction_that_fits_is_the_compact_block_in_column_order(mode, dtype):
    # every row held (a whole matrix): the m x m block K[cols][:, cols], row c in slot c,
    # copied from the rows (none formed) - what the multiclass solver reads as a matrix
    rows = _rows(mode, dtype)
    rows.matrix()
    cols = np.array([0, 3, 4, 11, 20, 21, 39], dtype=np.int64)
    sub = rows.restrict(cols)
    assert sub.mode == "lazy" and sub.data.shape == (len(cols), len(cols))
    assert sub.data.flags.c_contiguous and sub.n_computed == 0
    np.testing.assert_array_equal(sub.slot_of, np.arange(len(cols)))
    np.testing.assert_array_equal(sub.data, rows.data[np.ix_(cols, cols)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_restriction_in_place_equals_the_direct_one_in_the_same_storage(dtype):
    rows = _rows("dense", dtype)
    K = rows.matrix()
    rng = np.random.default_rng(5)
    cols = np.sort(rng.choice(N, 31, replace=False))
    sub = rows.restrict(cols)
    store, cap = sub.data.base, sub.capacity
    for m in (23, 9, 1):  # shrinking: narrowed where it lies, no new storage
        cols = np.sort(rng.choice(cols, m, replace=False))
        sub = rows.restrict(cols, sub, in_place=True)
        assert sub.capacity == cap and np.shares_memory(sub.data, store)
        assert sub.n_computed == 0 and np.all(sub.slot_of == np.arange(m))
        np.testing.assert_array_equal(sub.data, K[np.ix_(cols, cols)])
        np.testing.assert_array_equal(sub.data, rows.restrict(cols).data)
    # columns that are not among the last ones (examples back from a refresh): copied
    # from the full rows, into the same storage while it is large enough, else a new one
    for m, same in ((31, True), (35, False)):
        cols = np.sort(rng.choice(N, m, replace=False))
        sub = rows.restrict(cols, sub, in_place=True)
        assert np.shares_memory(sub.data, store) == same
        np.testing.assert_array_equal(sub.data, K[np.ix_(cols, cols)])


def test_restriction_in_place_keeps_the_rows_it_holds_only():
    # a lazy restriction of cached rows holds some rows; narrowed in place, the others are
    # formed when asked (at the columns only), the rows held keep their values
    rows = _rows("lru", np.float64)  # 6 slots of 40: room for a 15 x 15 block
    K = RBF(0.9)(_X())
    cols = np.arange(0, 30, 2, dtype=np.int64)
    for r in (0, 4, 8):
        rows.fetch(r)
    sub = rows.restrict(cols)
    assert sub.mode == "lazy" and sub.n_computed == 0
    sub.fetch(5)  # kernel row 10, formed at the columns
    fewer = cols[[0, 2, 5, 7, 9]]  # rows 0 (held), 4 (held), 10 (formed), 14, 18
    again = rows.restrict(fewer, sub, in_place=True)
    np.testing.assert_array_equal(again.slot_of, [0, 1, 2, -1, -1])
    out = _drive(again, np.arange(len(fewer), dtype=np.int64), _read)
    np.testing.assert_allclose(out, K[np.ix_(fewer, fewer)], atol=1e-12)
    assert again.n_computed == 2  # rows 14 and 18 only
