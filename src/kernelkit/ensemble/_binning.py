"""Feature binning shared by the histogram weak learners (stumps and trees).

Every feature is cut once into at most ``max_bins`` (≤ 256) bins and the sample codes are
stored as ``uint8`` in a column-major ``(n_features, n_samples)`` array, so that a boosting
round reads each feature as one contiguous byte stream.

* A feature with ``≤ max_bins`` distinct values is binned **exactly**: one bin per distinct
  value, the edges are the midpoints between consecutive distinct values, so every threshold
  a brute-force search over the raw values could use is available.
* A feature with more distinct values gets **quantile** bins: edges at the midpoints between
  the order statistic v_k of rank ``⌊k·m/max_bins⌋`` (k = 1..max_bins−1) and the next larger
  value (so heavy ties cannot hide a cut), duplicates removed,
  of the column or, when n > 20,000, of the deterministic subsample of every ⌈n/20,000⌉-th
  row (m its size). Split search is then exact over those candidate thresholds only.
  (With a subsample, a feature is still binned exactly whenever its full column has
  ≤ max_bins distinct values: the subsample's bins are verified against every row and the
  full column is sorted when one value is missing.)

``code(x) = #{edges ≤ x}``, hence ``code(x) ≥ b  ⇔  x ≥ edges[b−1]``: a split "bin ≥ b" found
on the codes is the raw-feature test ``x ≥ edges[b−1]`` (b = 0 is the constant "always").
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._core.twin import twin

__all__ = ["MAX_BINS", "bin_features", "Binned"]

MAX_BINS = 256


@njit(cache=True)
def _edges_one(col_sorted, max_bins, out):
    """Edges of one sorted column into ``out``; returns (how many, exact?)."""
    n = col_sorted.shape[0]
    # count distinct values
    n_distinct = 1
    for i in range(1, n):
        if col_sorted[i] != col_sorted[i - 1]:
            n_distinct += 1
    m = 0
    if n_distinct <= max_bins:
        # exact: midpoints between consecutive distinct values
        for i in range(1, n):
            a = col_sorted[i - 1]
            b = col_sorted[i]
            if b != a:
                mid = a + (b - a) / 2.0
                if mid <= a or mid > b:  # rounding between adjacent floats
                    mid = b
                out[m] = mid
                m += 1
    else:
        # quantile cut points: the edge after the value at rank ⌊k·n/max_bins⌋ (the next
        # larger value, so ties never hide a cut), duplicates removed
        for k in range(1, max_bins):
            a = col_sorted[(k * n) // max_bins]
            p = _code(col_sorted, a, n)  # np.searchsorted(col_sorted, a, side="right")
            if p >= n:
                break
            b = col_sorted[p]
            mid = a + (b - a) / 2.0
            if mid <= a or mid > b:
                mid = b
            if m > 0 and mid <= out[m - 1]:
                continue
            out[m] = mid
            m += 1
    return m, n_distinct <= max_bins


SUBSAMPLE = 20_000


@njit(cache=True, inline="always")
def _code(e, x, hi):  # pragma: no cover - numba
    """#{e[:hi] ≤ x} for sorted e: a count when hi ≤ 32, else a branch-free binary search.

    (np.searchsorted per element is several times slower.)
    """
    if hi <= 32:  # few edges: count them (SIMD, no dependent loads)
        c = 0
        for r in range(hi):
            c += e[r] <= x
        return c
    base = 0
    n = hi
    while n > 1:  # invariant: the answer lies in [base, base + n]
        half = n >> 1
        base = base + half if e[base + half - 1] <= x else base
        n -= half
    return base + (1 if e[base] <= x else 0)


@njit(cache=True)
def _codes_one(col, e, out):
    for i in range(col.shape[0]):
        out[i] = _code(e, col[i], e.shape[0])


@twin
def _codes_all(XT, edges, n_edges, codes):
    for j in prange(XT.shape[0]):
        _codes_one(XT[j], edges[j, :n_edges[j]], codes[j])


@njit(cache=True)
def _distinct_small(col, max_bins, vals):  # pragma: no cover - numba
    """Sorted distinct values of ``col`` into ``vals``; their number, or −1 if > max_bins.

    One pass with a binary search and an insertion into the (≤ max_bins) sorted values:
    O(n log max_bins), and it gives up after max_bins + 1 distinct values.
    """
    k = 0
    for i in range(col.shape[0]):
        x = col[i]
        c = _code(vals, x, k)  # #{vals[:k] ≤ x}
        if c > 0 and vals[c - 1] == x:
            continue
        if k == max_bins:
            return -1
        for r in range(k, c, -1):
            vals[r] = vals[r - 1]
        vals[c] = x
        k += 1
    return k


@twin
def _distinct_all(XT, max_bins, edges, n_edges, is_exact):
    """Exact edges (midpoints between the distinct values) of every column with at most
    ``max_bins`` distinct values; ``n_edges[j] = -1`` marks a column that needs quantiles."""
    for j in prange(XT.shape[0]):
        vals = np.empty(max_bins)
        k = _distinct_small(XT[j], max_bins, vals)
        if k < 0:
            n_edges[j] = -1
            is_exact[j] = False
            continue
        m = 0
        for r in range(1, k):
            a = vals[r - 1]
            b = vals[r]
            mid = a + (b - a) / 2.0
            if mid <= a or mid > b:  # rounding between adjacent floats
                mid = b
            edges[j, m] = mid
            m += 1
        n_edges[j] = m
        is_exact[j] = True


@njit(cache=True)
def _quantile_edges(S, cols, max_bins, edges, n_edges):  # pragma: no cover - numba
    """Quantile edges of columns ``cols`` from their sorted (subsampled) rows ``S``."""
    for r in range(cols.shape[0]):
        n_edges[cols[r]], _ = _edges_one(S[r], max_bins, edges[cols[r]])


def _bin_all(XT, max_bins, edges, n_edges, codes, subsample, is_exact, *, work):
    """Edges of every column of ``XT`` (d, n) and the codes of its rows.

    Columns with more than ``max_bins`` distinct values get quantile edges from their
    sorted subsample of <= ``subsample`` rows; the sort is NumPy's, on column batches of
    <= 2^22 values (32 MiB): many times faster than a sort inside numba, and nothing to
    compile. ``codes=None``: the edges only.
    """
    d, n = XT.shape
    _distinct_all(XT, max_bins, edges, n_edges, is_exact, work=work)
    need = np.flatnonzero(n_edges < 0)
    if len(need):
        stride = (n + subsample - 1) // subsample
        rows = (n + stride - 1) // stride
        batch = max(1, (1 << 22) // rows)
        for s in range(0, len(need), batch):
            cols = need[s:s + batch]
            S = np.sort(XT[cols, ::stride], axis=1)
            _quantile_edges(S, cols, max_bins, edges, n_edges)
    if codes is not None:
        _codes_all(XT, edges, n_edges, codes, work=work)


class Binned:
    """Binned training data: ``codes`` (d, n) uint8, ``edges`` (d, max_bins−1), ``n_bins`` (d,).

    ``threshold(j, b)`` is the raw-feature threshold of the split "code ≥ b" on feature j;
    ``exact[j]`` says whether feature j got one bin per distinct value.
    """

    __slots__ = ("codes", "edges", "n_bins", "exact")

    def __init__(self, codes: np.ndarray, edges: np.ndarray, n_bins: np.ndarray,
                 exact: np.ndarray | None = None):
        self.codes, self.edges, self.n_bins = codes, edges, n_bins
        self.exact = np.ones(len(n_bins), bool) if exact is None else exact

    def subset(self, features: np.ndarray) -> Binned:
        """The binned data of some features only (copies their codes)."""
        return Binned(np.ascontiguousarray(self.codes[features]), self.edges[features],
                      self.n_bins[features], self.exact[features])

    def threshold(self, j: int, b: int) -> float:
        if b <= 0:
            return -np.inf
        return np.inf if b >= self.n_bins[j] else float(self.edges[j, b - 1])


def bin_features(X: np.ndarray, max_bins: int = MAX_BINS, fit_rows=None) -> Binned:
    """Bin every column of ``X`` (n, d) into at most ``max_bins`` ≤ 256 bins (see module doc).

    ``fit_rows`` (a boolean mask) restricts the rows the edges are computed from (e.g. the
    rows of positive weight, so that a zero weight is the same as a removed row); every
    row gets a code.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.ensemble._binning import bin_features
    >>> B = bin_features(np.array([[0.0], [1.0], [1.0], [3.0]]))
    >>> B.codes.tolist(), B.edges[0, :2].tolist()
    ([[0, 1, 1, 2]], [0.5, 2.0])
    """
    if not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins must lie in [2, {MAX_BINS}]; got {max_bins}.")
    XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
    d, n = XT.shape
    edges = np.full((d, max_bins - 1), np.inf)
    n_edges = np.zeros(d, dtype=np.int64)
    codes = np.empty((d, n), dtype=np.uint8)
    exact = np.ones(d, dtype=np.bool_)
    if n > 0 and d > 0:
        if fit_rows is None or np.all(fit_rows):
            _bin_all(XT, max_bins, edges, n_edges, codes, SUBSAMPLE, exact, work=n * d)
        else:
            XF = np.ascontiguousarray(XT[:, np.asarray(fit_rows, dtype=bool)])
            _bin_all(XF, max_bins, edges, n_edges, None, SUBSAMPLE, exact, work=n * d)
            _codes_all(XT, edges, n_edges, codes, work=n * d)
    return Binned(codes, edges, n_edges + 1, exact)
