"""Exact stump search on the non-zeros of CSC columns, implicit zeros handled exactly.

A sparse column j holds m_j stored entries (the rows of positive weight only, presorted by
value once per fit) and n_j implicit zeros. In sorted order the column reads

    negative stored values < [the zero group] <= non-negative stored values,

where the zero group is every row of positive weight without a stored entry. Its weight
sums come for free: for any per-row quantity q (w·y, or w per class),

    sum over the zero group of q = sum over all rows of q - sum over the stored entries of q,

so a round costs O(n + nnz) for all features (the dense path: O(n·d)). The candidate
thresholds are the midpoints between consecutive distinct values of the virtual column
(stored values and the zero), exactly those of the dense path, scanned in the same order
with the same tie rules (first feature, lowest threshold, polarity +1), so the chosen
stump is the dense path's.

``order[p]`` is the row of the p-th sorted stored entry, ``~row`` (< 0) when a new
distinct value of the virtual column starts there (a cut before p is a threshold);
``zpos[j]`` is the number of negative stored entries of column j and ``zero[j]`` whether
its zero group is non-empty (a cut before it is a threshold when zpos[j] > 0).
"""

from __future__ import annotations

import heapq

import numba
import numpy as np
from numba import njit, prange

from .._core.twin import twin
from ._stump_numba import _first_min, _impurity, _majority_leaves

__all__ = ["presort_columns", "best_sparse_stump_binary", "best_sparse_stump_classes",
           "best_sparse_stump_gini2", "balanced_columns",
           "cut_class_sums", "cut_threshold", "majority_leaves"]


@twin
def presort_columns(indices, indptr, data, keep, n_keep):  # pragma: no cover - numba
    """Sorted stored entries of every CSC column over the rows with ``keep`` (see module doc).

    Returns (ptr, order, zpos, zero): column j's entries are ``ptr[j]:ptr[j + 1]`` of
    ``order`` (int32 rows, flagged); ``zero[j]`` says whether some kept row has no stored
    entry in column j. The sorted values themselves are not kept (:meth:`SparseColumns.
    column_values` recomputes the chosen column's).
    """
    d = indptr.shape[0] - 1
    cnt = np.zeros(d + 1, np.int64)
    for j in range(d):
        c = 0
        for p in range(indptr[j], indptr[j + 1]):
            if keep[indices[p]]:
                c += 1
        cnt[j + 1] = c
    ptr = np.cumsum(cnt)
    order = np.empty(ptr[d], np.int32)
    zpos = np.zeros(d, np.int64)
    zero = np.zeros(d, np.bool_)
    for j in prange(d):
        m = ptr[j + 1] - ptr[j]
        rows = np.empty(m, np.int32)
        vals = np.empty(m)
        q = 0
        for p in range(indptr[j], indptr[j + 1]):
            if keep[indices[p]]:
                rows[q], vals[q] = indices[p], data[p]
                q += 1
        _flag_column(rows, vals, n_keep - m > 0, order[ptr[j]:ptr[j + 1]], zpos, zero, j)
    return ptr, order, zpos, zero


@njit(cache=True)
def _flag_column(rows, vals, has_zero, out, zpos, zero, j):  # pragma: no cover - numba
    """One column's rows in value order into ``out``, ``~row`` where a new value starts."""
    m = rows.shape[0]
    o = np.argsort(vals, kind="mergesort")
    neg = 0
    for t in range(m):
        if vals[o[t]] < 0.0:
            neg += 1
    zpos[j] = neg
    zero[j] = has_zero
    for t in range(m):
        v = vals[o[t]]
        if t == neg and has_zero:
            new = v != 0.0  # the previous value is the zero group's
        else:
            new = t > 0 and v != vals[o[t - 1]]
        out[t] = ~rows[o[t]] if new else rows[o[t]]


@njit(cache=True)
def _stored_sum(indptr, indices, j, q):  # pragma: no cover - numba
    """Σ of ``q`` over the stored rows of CSC column j (row order: sequential reads of q;
    rows of weight 0 add an exact 0)."""
    s = 0.0
    for p in range(indptr[j], indptr[j + 1]):
        s += q[indices[p]]
    return s


@njit(cache=True)
def _stored_sums_signed(indptr, indices, j, sw):  # pragma: no cover - numba
    """(Σ w·1[y = 0], Σ w·1[y = 1]) over the stored rows of CSC column j, in row order, from
    the signed weights ``sw`` (+w for class 1, −w for class 0: one gather a row)."""
    s0 = 0.0
    s1 = 0.0
    for p in range(indptr[j], indptr[j + 1]):
        x = sw[indices[p]]
        s1 += max(x, 0.0)  # adding an exact 0.0 leaves a sum unchanged
        s0 += max(-x, 0.0)
    return s0, s1


def balanced_columns(indptr, n_chunks: int) -> tuple[np.ndarray, np.ndarray]:
    """(cols, bounds): the columns in ``n_chunks`` runs ``cols[bounds[c]:bounds[c + 1]]``
    of about equal numbers of non-zeros, one run a thread (a column goes, by decreasing
    size, to the lightest run so far). Power-law columns in their own order would leave
    one thread with most of the work."""
    n_chunks = max(1, int(n_chunks))
    sizes = np.diff(indptr)
    load = [(0, c) for c in range(n_chunks)]
    runs: list[list[int]] = [[] for _ in range(n_chunks)]
    for j in np.argsort(-sizes, kind="stable").tolist():
        lo, c = heapq.heappop(load)
        runs[c].append(j)
        heapq.heappush(load, (lo + int(sizes[j]), c))
    bounds = np.zeros(n_chunks + 1, np.int64)
    bounds[1:] = np.cumsum([len(r) for r in runs])
    return np.array([j for r in runs for j in r], np.int64), bounds


@twin
def best_sparse_stump_binary(ptr, order, zpos, zero, cols, bounds, indptr, indices, w,
                             y_pm):  # pragma: no cover - numba
    """Exact best stump for y ∈ {±1} (weighted error), as ``best_stump_sorted_binary``.

    With S = Σ w·y left of a cut and W₋ = Σ_{y=−1} w, "+1 on x ≥ θ" errs ε₊ = W₋ + S, the
    other polarity W − ε₊. Returns (feature, cut, polarity, error): cut 0 is the constant
    stump, cut p + 1 the cut before sorted stored entry p, cut −1 the cut before the zero
    group. Columns run in the per-thread runs of ``cols`` (:func:`balanced_columns`); the
    result does not depend on them.
    """
    n = w.shape[0]
    d = zpos.shape[0]
    wy = np.empty(n)
    W = 0.0
    w_neg = 0.0
    T = 0.0
    for i in range(n):
        wy[i] = w[i] * y_pm[i]
        W += w[i]
        T += wy[i]
        if y_pm[i] < 0:
            w_neg += w[i]
    tol = 1e-12 * W
    errs = np.empty(d)
    cuts = np.empty(d, np.int64)
    pols = np.empty(d, np.int64)
    for c in prange(bounds.shape[0] - 1):  # one chunk of columns a thread
        for q in range(bounds[c], bounds[c + 1]):
            j = cols[q]
            a, b = ptr[j], ptr[j + 1]
            # Σ w·y over the zero group = T − Σ over the stored entries
            Z = T - _stored_sum(indptr, indices, j, wy) if zero[j] else 0.0
            be, bc, bp = w_neg, 0, 1  # the constant stumps
            if W - w_neg < be - tol:
                be, bp = W - w_neg, -1
            s = 0.0
            for p in range(a, b + 1):
                if p == a + zpos[j] and zero[j]:  # the zero group, before the first value >= 0
                    if zpos[j] > 0:
                        e = w_neg + s
                        if e < be - tol:
                            be, bc, bp = e, -1, 1
                        if W - e < be - tol:
                            be, bc, bp = W - e, -1, -1
                    s += Z
                if p == b:
                    break
                i = order[p]
                if i < 0:
                    i = ~i
                    e = w_neg + s  # ε₊ of the cut before p
                    if e < be - tol:
                        be, bc, bp = e, p - a + 1, 1
                    if W - e < be - tol:
                        be, bc, bp = W - e, p - a + 1, -1
                s += wy[i]
            errs[j], cuts[j], pols[j] = be, bc, bp
    jb = _first_min(errs, tol)
    return jb, cuts[jb], pols[jb], max(errs[jb], 0.0)


@twin
def best_sparse_stump_gini2(ptr, order, zpos, zero, cols, bounds, indptr, indices,
                            sw):  # pragma: no cover - numba
    """Two-class Gini stump: :func:`best_sparse_stump_classes` with K = 2 and criterion 0
    on scalars (the same sums in the same order: the same values bit for bit).

    Most cuts cannot beat the column's best so far; they are ruled out without a division:
    for two classes W_s − (c₀² + c₁²)/W_s = 2c₀c₁/W_s, so the criterion is below β iff
    2(L₀L₁·W_R + R₀R₁·W_L) < β·W_L·W_R. That test runs with a margin ``slack`` (far above
    its rounding error) and only the cuts it lets through get the exact value and the exact
    comparison: the choice is the one the exact values make.

    The weights come signed, ``sw = +w`` for class 1 and ``−w`` for class 0, so that a row
    costs one random read in the value-ordered scan instead of two (its class and its
    weight); negation is exact, so the sums are those of (y, w).
    """
    n = sw.shape[0]
    d = zpos.shape[0]
    T0 = 0.0
    T1 = 0.0
    for i in range(n):
        T1 += max(sw[i], 0.0)
        T0 += max(-sw[i], 0.0)
    W = T0 + T1
    tol = 1e-12 * W
    slack = 1e-13 * W
    vals = np.empty(d)
    cuts = np.zeros(d, np.int64)
    for c in prange(bounds.shape[0] - 1):  # one chunk of columns a thread
        for q in range(bounds[c], bounds[c + 1]):
            j = cols[q]
            a, b = ptr[j], ptr[j + 1]
            Z0 = Z1 = 0.0
            if zero[j]:  # the zero group's class weights: T − Σ over the stored entries
                s0, s1 = _stored_sums_signed(indptr, indices, j, sw)
                Z0, Z1 = T0 - s0, T1 - s1
            L0 = L1 = wl = 0.0
            best, bc = np.inf, 0
            for p in range(a, b + 1):
                if p == a + zpos[j] and zero[j]:  # the zero group, before the first value >= 0
                    if zpos[j] > 0 and wl > 0.0 and W - wl > 0.0:
                        v = _gini2(L0, L1, T0 - L0, T1 - L1)
                        if v < best - tol:
                            best, bc = v, -1
                    L0 += Z0
                    L1 += Z1
                    wl += Z0
                    wl += Z1
                if p == b:
                    break
                i = order[p]
                if i < 0:
                    i = ~i
                    if wl > 0.0 and W - wl > 0.0 and _may_beat(L0, L1, T0 - L0, T1 - L1,
                                                               best - tol + slack):
                        v = _gini2(L0, L1, T0 - L0, T1 - L1)
                        if v < best - tol:
                            best, bc = v, p - a + 1
                x = sw[i]
                L1 += max(x, 0.0)
                L0 += max(-x, 0.0)
                wl += abs(x)
            vals[j], cuts[j] = best, bc
    jb = _first_min(vals, tol)
    return jb, cuts[jb] if vals[jb] < np.inf else 0, vals[jb]


@njit(cache=True)
def _may_beat(L0, L1, R0, R1, beta):  # pragma: no cover - numba
    """False only when the two-class Gini criterion of (L, R) is surely ≥ β (no division:
    see :func:`best_sparse_stump_gini2`); True where unsure (β = ∞, an empty side)."""
    WL = L0 + L1
    WR = R0 + R1
    if beta == np.inf or not (WL > 0.0 and WR > 0.0):
        return True
    return 2.0 * (L0 * L1 * WR + R0 * R1 * WL) < beta * WL * WR


@njit(cache=True)
def _gini2(L0, L1, R0, R1):  # pragma: no cover - numba
    """W_L·gini(L) + W_R·gini(R) = Σ_side (W − Σ_k c_k²/W), as ``_impurity`` computes it."""
    v = 0.0
    WL = L0 + L1
    if WL > 0.0:
        v = WL - (L0 * L0 + L1 * L1) / WL
    WR = R0 + R1
    if WR > 0.0:
        v += WR - (R0 * R0 + R1 * R1) / WR
    return v


@njit(cache=True)
def _zero_group(indptr, indices, j, y, w, T, zero, Z):  # pragma: no cover - numba
    """Z ← T − Σ_{stored entries of column j} w per class: the zero group's class weights
    (summed in row order, as :func:`_stored_sums_signed`)."""
    Z[:] = 0.0
    if not zero:
        return
    for p in range(indptr[j], indptr[j + 1]):
        i = indices[p]
        Z[y[i]] += w[i]
    for k in range(T.shape[0]):
        Z[k] = T[k] - Z[k]


@njit(cache=True)
def _score(L, T, R, criterion):  # pragma: no cover - numba
    for k in range(T.shape[0]):
        R[k] = T[k] - L[k]
    return _impurity(L, criterion) + _impurity(R, criterion)


@twin
def best_sparse_stump_classes(ptr, order, zpos, zero, cols, bounds, indptr, indices, y, w,
                              n_classes, criterion):  # pragma: no cover - numba
    """Exact best K-class stump (0 gini, 1 entropy, 2 error), as
    ``best_stump_sorted_classes``: impurity skips cuts with an empty side, "error" has the
    constant stump at cut 0. Returns (feature, cut, criterion value), the cut coded as in
    :func:`best_sparse_stump_binary`."""
    n = w.shape[0]
    d = zpos.shape[0]
    K = n_classes
    T = np.zeros(K)
    for i in range(n):
        T[y[i]] += w[i]
    W = T.sum()
    tol = 1e-12 * W
    vals = np.empty(d)
    cuts = np.zeros(d, np.int64)
    work = np.empty((d, 3, K))  # Z, L, R of every column: no allocation inside the loop
    for c in prange(bounds.shape[0] - 1):  # one chunk of columns a thread
        for q in range(bounds[c], bounds[c + 1]):
            j = cols[q]
            a, b = ptr[j], ptr[j + 1]
            Z, L, R = work[j, 0], work[j, 1], work[j, 2]
            _zero_group(indptr, indices, j, y, w, T, zero[j], Z)
            L[:] = 0.0
            best = W - T.max() if criterion == 2 else np.inf  # the constant stump
            bc = 0
            wl = 0.0
            for p in range(a, b + 1):
                if p == a + zpos[j] and zero[j]:  # the zero group, before the first value >= 0
                    if zpos[j] > 0 and (criterion == 2 or (wl > 0.0 and W - wl > 0.0)):
                        v = _score(L, T, R, criterion)
                        if v < best - tol:
                            best, bc = v, -1
                    for k in range(K):
                        L[k] += Z[k]
                        wl += Z[k]
                if p == b:
                    break
                i = order[p]
                if i < 0:
                    i = ~i
                    if criterion == 2 or (wl > 0.0 and W - wl > 0.0):
                        v = _score(L, T, R, criterion)
                        if v < best - tol:
                            best, bc = v, p - a + 1
                L[y[i]] += w[i]
                wl += w[i]
            vals[j], cuts[j] = best, bc
    jb = _first_min(vals, tol)
    return jb, cuts[jb] if vals[jb] < np.inf else 0, vals[jb]


@njit(cache=True)
def cut_class_sums(ptr, order, zpos, zero, indptr, indices, j, cut, y, w,
                   n_classes):  # pragma: no cover - numba
    """(L, T): class weights left of ``cut`` on column j, and in total (for the leaves)."""
    T = np.zeros(n_classes)
    for i in range(w.shape[0]):
        T[y[i]] += w[i]
    L = np.zeros(n_classes)
    if cut == 0:
        return L, T
    a = ptr[j]
    stop = a + zpos[j] if cut == -1 else a + cut - 1  # the stored entries left of the cut
    for p in range(a, stop):
        i = order[p]
        L[y[~i if i < 0 else i]] += w[~i if i < 0 else i]
    if cut > 0 and zpos[j] <= cut - 1:  # the zero group lies left of the cut too
        Z = np.empty(n_classes)
        _zero_group(indptr, indices, j, y, w, T, zero[j], Z)
        L += Z
    return L, T


def cut_threshold(values: np.ndarray, zpos: int, zero: bool, cut: int) -> float:
    """The threshold θ of a cut on one column's sorted stored values (``x ≥ θ`` goes right):
    the midpoint of the two values around it, as the dense path computes it."""
    if cut == 0:
        return -np.inf
    if cut == -1:
        lo, hi = float(values[zpos - 1]), 0.0
    else:
        p = cut - 1
        hi = float(values[p])
        lo = 0.0 if zero and p == zpos else float(values[p - 1])
    mid = lo + (hi - lo) / 2.0
    return hi if mid <= lo or mid > hi else mid


def majority_leaves(L: np.ndarray, T: np.ndarray):
    """(left class, right class, weighted error) of weighted-majority leaves."""
    W = float(T.sum())
    return _majority_leaves(L, T, W, 1e-12 * W)


class SparseColumns:
    """A fit's presorted sparse columns: the CSC matrix and the value order of its stored
    entries (int32 rows; X's own data, indices and indptr are read as they are, never
    copied when X is canonical CSC)."""

    def __init__(self, X, sample_weight=None):
        X = X.tocsc()
        if not X.has_canonical_format:  # duplicates add up, as scipy reads them
            X = X.copy()
            X.sum_duplicates()
        n = X.shape[0]
        self.keep = None if sample_weight is None else np.asarray(sample_weight) > 0
        keep = np.ones(n, np.bool_) if self.keep is None else self.keep
        self.X = X  # every row (also weight 0) for the training predictions
        self.ptr, self.order, self.zpos, self.zero = presort_columns(
            X.indices, X.indptr, X.data, keep, int(keep.sum()), work=X.nnz * 16)
        self.cols, self.bounds = balanced_columns(X.indptr, numba.get_num_threads())

    def column_values(self, j: int) -> np.ndarray:
        """Column j's stored values of the kept rows, sorted (``order``'s values)."""
        a, b = self.X.indptr[j], self.X.indptr[j + 1]
        v = self.X.data[a:b]
        if self.keep is not None:
            v = v[self.keep[self.X.indices[a:b]]]
        return np.sort(v.astype(np.float64))

    def best(self, run, w, y_idx, y_pm, K, criterion):
        """(feature, threshold, left class, right class, weighted error) of the best stump."""
        cols = (self.ptr, self.order, self.zpos, self.zero, self.cols, self.bounds,
                self.X.indptr, self.X.indices)
        work = self.order.size + w.size
        if criterion == 2 and K == 2:
            j, cut, pol, err = run(best_sparse_stump_binary, *cols, w, y_pm, work=work)
            left, right = (0, 1) if pol > 0 else (1, 0)
        else:
            if criterion == 0 and K == 2:
                sw = np.where(y_idx == 1, w, -w)  # signed weights: one read a row
                j, cut, _ = run(best_sparse_stump_gini2, *cols, sw, work=work)
            else:
                j, cut, _ = run(best_sparse_stump_classes, *cols, y_idx, w, K, criterion,
                                work=work * K)
            L, T = cut_class_sums(self.ptr, self.order, self.zpos, self.zero, self.X.indptr,
                                  self.X.indices, j, cut, y_idx, w, K)
            left, right, err = majority_leaves(L, T)
        j, cut = int(j), int(cut)
        theta = cut_threshold(self.column_values(j), int(self.zpos[j]), bool(self.zero[j]),
                              cut)
        return j, theta, int(left), int(right), float(err)

    def predict(self, j, theta, left, right):
        """Class index of every training row: ``right`` where x_j ≥ θ, else ``left``."""
        X = self.X  # CSC, canonical: column j's rows and values directly
        out = np.full(X.shape[0], right if 0.0 >= theta else left, np.int64)
        a, b = X.indptr[j], X.indptr[j + 1]
        out[X.indices[a:b]] = np.where(X.data[a:b] >= theta, right, left)
        return out


def column_split(X, j: int, theta: float, left: int, right: int) -> np.ndarray:
    """``right`` where ``X[:, j] >= theta`` else ``left``, for sparse X (zeros included)."""
    col = X[:, [j]].tocsc()
    col.sum_duplicates()  # a new matrix: duplicates add up
    out = np.full(X.shape[0], right if 0.0 >= theta else left, np.int64)
    rows = col.indices[col.indptr[0]:col.indptr[1]]
    vals = np.asarray(col.data[col.indptr[0]:col.indptr[1]])
    out[rows] = np.where(vals >= theta, right, left)
    return out


__all__ += ["SparseColumns", "column_split"]
