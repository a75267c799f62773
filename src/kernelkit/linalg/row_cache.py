"""The kernel-row cache the dual solvers share, and the view its numba loops read.

A cache holds rows of a kernel matrix in ``data`` (slots x columns): ``slot_of[r]`` is the
slot of row ``r`` or -1, ``row_of_slot`` the other way round, ``last_used[s]`` the tick at
which slot ``s`` was last read and ``tick[0]`` the clock. A solver's numba loop is given
:class:`RowsView` (one argument: a NamedTuple of those arrays and the diagonal) and asks
:func:`take_row` for a row; when the row is absent the loop returns to Python with the row
it needs, Python calls the cache's ``fetch`` (:class:`SlotCache` places it, evicting the
least recently used slot) and the loop resumes. Because the loop marks every row it reads
with a fresh tick, the row a step read first is never the one evicted for its second row.

:class:`SlotCache` is the Python side (slot choice, eviction, bookkeeping); the caches that
form rows (:class:`~kernelkit.linalg.rows.KernelRows` and its restriction to a subset of
columns, :class:`~kernelkit.linalg.rows.RestrictedRows`) subclass it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["RowsView", "SlotCache", "resume_entry", "take_row"]


class RowsView(NamedTuple):
    """What a numba loop reads of a row cache (one argument; numba types it as a tuple of
    arrays, CPython reads the same attributes in the interpreted twins of the loops).

    Attributes
    ----------
    data : ndarray (n_slots, n_columns), float32 or float64
        The rows held; row ``r`` is ``data[slot_of[r]]`` when ``slot_of[r] >= 0``.
    slot_of : ndarray (n_rows,) int64
    last_used : ndarray (n_slots,) int64
    tick : ndarray (1,) int64
    diag : ndarray (n_rows,) float64
        ``K[r, r]`` of every row (the rows' entry at their own column, when held).
    """

    data: np.ndarray
    slot_of: np.ndarray
    last_used: np.ndarray
    tick: np.ndarray
    diag: np.ndarray


@njit(cache=True, inline="always")
def take_row(rows, r):
    """The slot of row ``r`` in the view ``rows``, marked as just used; -1 if the row is not
    held (the caller then asks Python for it)."""
    s = rows.slot_of[r]
    if s >= 0:
        rows.tick[0] += 1
        rows.last_used[s] = rows.tick[0]
    return s


def resume_entry(loop, args):
    """What to call to resume ``loop`` with the same ``args`` after each row fetch.

    numba's dispatcher types every argument at every call, and a NamedTuple of arrays (the
    view, a solver's variables) is typed in Python, ~1 us an array: an SMO call then cost
    12 us against 1.5 us through the compiled version's entry point, which this returns
    once ``loop`` has run on ``args`` (one typing per problem, not per fetched row). A loop
    that is not compiled for those types (or a CPython twin) is returned as it is.
    """
    overloads = getattr(loop, "overloads", None)
    if not overloads:
        return loop
    cres = overloads.get(tuple(loop.typeof_pyval(a) for a in args))
    return loop if cres is None else cres.entry_point


class SlotCache:
    """Slots of a row cache and their least-recently-used eviction (the Python side).

    Subclasses set ``data`` (n_slots x n_columns), ``diag`` and ``mode`` (``"dense"``,
    ``"lazy"``: a slot per row, row r in slot r; ``"lru"``: fewer slots than rows) and call
    :meth:`_init_slots`; they form rows and place them with :meth:`_free_slots` and
    :meth:`_placed`.
    """

    data: np.ndarray
    diag: np.ndarray
    mode: str

    def _init_slots(self, n_rows: int, n_slots: int, identity: bool = False) -> None:
        """Empty slots (or, ``identity``, row r in slot r: a dense matrix)."""
        if identity:
            self.slot_of = np.arange(n_rows, dtype=np.int64)
            self.row_of_slot = np.arange(n_slots, dtype=np.int64)
        else:
            self.slot_of = np.full(n_rows, -1, dtype=np.int64)
            self.row_of_slot = np.full(n_slots, -1, dtype=np.int64)
        self.last_used = np.zeros(n_slots, dtype=np.int64)
        self.tick = np.zeros(1, dtype=np.int64)
        self.n_computed = 0

    @property
    def dense(self) -> bool:
        """Whether there is storage for every row (no eviction)."""
        return self.mode != "lru"

    @property
    def n_slots(self) -> int:
        return self.data.shape[0]

    @property
    def dtype(self):
        return self.data.dtype

    def view(self) -> RowsView:
        """The arrays a numba loop reads (valid until the storage is replaced, as
        ``KernelRows.fetch_all`` may do on a lazy cache never read)."""
        return RowsView(self.data, self.slot_of, self.last_used, self.tick, self.diag)

    def _free_slots(self, rows) -> np.ndarray:
        """Slots for ``rows``: their own in lazy mode, else the least recently used ones
        (one row, as the solvers ask: argmin, no sort; never-used slots first), their rows
        evicted. A row a loop has just read (:func:`take_row`) holds the newest tick, so
        it is not evicted while fewer rows than slots are asked for."""
        if self.mode == "lazy":
            return rows
        slots = np.argsort(self.last_used, kind="stable")[: len(rows)] if len(rows) > 1 \
            else np.array([np.argmin(self.last_used)])
        old = self.row_of_slot[slots]
        self.slot_of[old[old >= 0]] = -1
        return slots

    def _slot_for_one(self) -> int:
        """The least recently used slot, its row evicted (one row: scalar bookkeeping, the
        lru mode's usual request)."""
        s = int(np.argmin(self.last_used))
        old = self.row_of_slot[s]
        if old >= 0:
            self.slot_of[old] = -1
        return s

    def _placed_one(self, r: int, s: int) -> None:
        """:meth:`_placed` for one formed row ``r`` in slot ``s``."""
        self.slot_of[r] = s
        self.row_of_slot[s] = r
        self.tick[0] += 1
        self.last_used[s] = self.tick[0]
        self.n_computed += 1

    def _placed(self, rows, slots, computed: bool = True) -> None:
        """Record that ``rows`` now sit in ``slots`` (one tick, all of them); ``computed``:
        they were formed (counted in ``n_computed``), not copied from rows held."""
        self.slot_of[rows] = slots
        self.row_of_slot[slots] = rows
        self.tick[0] += 1
        self.last_used[slots] = self.tick[0]
        self.n_computed += len(rows) if computed else 0
