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

import numpy as np
from numba import njit, prange

from ._parallel import twin
from ._stump_numba import _first_min, _impurity, _majority_leaves

__all__ = ["presort_columns", "best_sparse_stump_binary", "best_sparse_stump_classes",
           "cut_class_sums", "cut_threshold", "majority_leaves"]


@twin
def presort_columns(data, indices, indptr, keep, n_keep):  # pragma: no cover - numba
    """Sorted stored entries of every CSC column over the rows with ``keep`` (see module doc).

    Returns (ptr, order, values, zpos, zero): column j's entries are ``ptr[j]:ptr[j + 1]``;
    ``zero[j]`` says whether some kept row has no stored entry in column j.
    """
    d = indptr.shape[0] - 1
    cnt = np.zeros(d + 1, np.int64)
    for j in range(d):
        for p in range(indptr[j], indptr[j + 1]):
            if keep[indices[p]]:
                cnt[j + 1] += 1
    ptr = np.cumsum(cnt)
    order = np.empty(ptr[d], np.int32)
    values = np.empty(ptr[d])
    zpos = np.zeros(d, np.int64)
    zero = np.zeros(d, np.bool_)
    for j in prange(d):
        a, m = ptr[j], ptr[j + 1] - ptr[j]
        rows = np.empty(m, np.int64)
        vals = np.empty(m)
        q = 0
        for p in range(indptr[j], indptr[j + 1]):
            if keep[indices[p]]:
                rows[q], vals[q] = indices[p], data[p]
                q += 1
        o = np.argsort(vals, kind="mergesort")
        has_zero = n_keep - m > 0
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
            order[a + t] = ~rows[o[t]] if new else rows[o[t]]
            values[a + t] = v
    return ptr, order, values, zpos, zero


@twin
def best_sparse_stump_binary(ptr, order, zpos, zero, w, y_pm):  # pragma: no cover - numba
    """Exact best stump for y ∈ {±1} (weighted error), as ``best_stump_sorted_binary``.

    With S = Σ w·y left of a cut and W₋ = Σ_{y=−1} w, "+1 on x ≥ θ" errs ε₊ = W₋ + S, the
    other polarity W − ε₊. Returns (feature, cut, polarity, error): cut 0 is the constant
    stump, cut p + 1 the cut before sorted stored entry p, cut −1 the cut before the zero
    group.
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
    for j in prange(d):
        a, b = ptr[j], ptr[j + 1]
        Z = T if zero[j] else 0.0  # Σ w·y over the zero group = T − Σ over the stored
        if zero[j]:
            for p in range(a, b):
                i = order[p]
                Z -= wy[~i if i < 0 else i]
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


@njit(cache=True)
def _zero_group(a, b, order, y, w, T, zero, Z):  # pragma: no cover - numba
    """Z ← T − Σ_{stored entries a..b} w per class: the zero group's class weights."""
    for k in range(T.shape[0]):
        Z[k] = T[k] if zero else 0.0
    if zero:
        for p in range(a, b):
            i = order[p]
            Z[y[~i if i < 0 else i]] -= w[~i if i < 0 else i]


@njit(cache=True)
def _score(L, T, R, criterion):  # pragma: no cover - numba
    for k in range(T.shape[0]):
        R[k] = T[k] - L[k]
    return _impurity(L, criterion) + _impurity(R, criterion)


@twin
def best_sparse_stump_classes(ptr, order, zpos, zero, y, w, n_classes,
                              criterion):  # pragma: no cover - numba
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
    for j in prange(d):
        a, b = ptr[j], ptr[j + 1]
        Z, L, R = work[j, 0], work[j, 1], work[j, 2]
        _zero_group(a, b, order, y, w, T, zero[j], Z)
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
def cut_class_sums(ptr, order, zpos, zero, j, cut, y, w, n_classes):  # pragma: no cover
    """(L, T): class weights left of ``cut`` on column j, and in total (for the leaves)."""
    T = np.zeros(n_classes)
    for i in range(w.shape[0]):
        T[y[i]] += w[i]
    L = np.zeros(n_classes)
    if cut == 0:
        return L, T
    a, b = ptr[j], ptr[j + 1]
    stop = a + zpos[j] if cut == -1 else a + cut - 1  # the stored entries left of the cut
    for p in range(a, stop):
        i = order[p]
        L[y[~i if i < 0 else i]] += w[~i if i < 0 else i]
    if cut > 0 and zpos[j] <= cut - 1:  # the zero group lies left of the cut too
        Z = np.empty(n_classes)
        _zero_group(a, b, order, y, w, T, zero[j], Z)
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
    """A fit's presorted sparse columns: the CSC matrix and its sorted stored entries."""

    def __init__(self, X, sample_weight=None):
        X = X.tocsc()
        if not X.has_canonical_format:  # duplicates add up, as scipy reads them
            X = X.copy()
            X.sum_duplicates()
        n = X.shape[0]
        keep = np.ones(n, np.bool_) if sample_weight is None else np.asarray(sample_weight) > 0
        self.X = X  # every row (also weight 0) for the training predictions
        self.ptr, self.order, self.values, self.zpos, self.zero = presort_columns(
            X.data.astype(np.float64, copy=False), X.indices.astype(np.int64),
            X.indptr.astype(np.int64), keep, int(keep.sum()), work=X.nnz * 16)

    def best(self, run, w, y_idx, y_pm, K, criterion):
        """(feature, threshold, left class, right class, weighted error) of the best stump."""
        if criterion == 2 and K == 2:
            j, cut, pol, err = run(best_sparse_stump_binary, self.ptr, self.order, self.zpos,
                                   self.zero, w, y_pm, work=self.order.size + w.size)
            left, right = (0, 1) if pol > 0 else (1, 0)
        else:
            j, cut, _ = run(best_sparse_stump_classes, self.ptr, self.order, self.zpos,
                            self.zero, y_idx, w, K, criterion,
                            work=(self.order.size + w.size) * K)
            L, T = cut_class_sums(self.ptr, self.order, self.zpos, self.zero, j, cut, y_idx,
                                  w, K)
            left, right, err = majority_leaves(L, T)
        j, cut = int(j), int(cut)
        theta = cut_threshold(self.values[self.ptr[j]:self.ptr[j + 1]], int(self.zpos[j]),
                              bool(self.zero[j]), cut)
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
