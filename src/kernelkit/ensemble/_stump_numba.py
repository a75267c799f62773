"""Numba kernels of the histogram weak learners and of the boosting weight update.

All split searches read the binned codes ``codes[j, i]`` (uint8, one contiguous row per
feature) and run in parallel over features (``prange``): every thread owns its feature's
histogram, so there are no races. A round costs O(n·d) for the histograms plus
O(d·bins·K) for the scans — no sort, no tree fit.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._core.interpreted import pick
from .._core.twin import twin

__all__ = [
    "best_stump_binary",
    "class_histograms",
    "reweighted_rows",
    "update_class_histograms",
    "best_stump_from_histograms",
    "flag_sorted",
    "best_stump_sorted_binary",
    "best_stump_sorted_classes",
    "tree_level_histograms",
    "tree_best_splits",
    "tree_route",
    "node_class_totals",
    "tree_predict_raw",
    "stump_predict_codes",
    "exp_weights",
    "log_weighted_error",
    "boost_update",
]


@njit(cache=True)
def _sum(a):  # pragma: no cover - numba
    """Sum of a 1-D array in index order (numba's ``a.sum()`` adds in the same order, but
    its generic reduction costs a few tenths of a second of compilation per type)."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit(cache=True)
def _max(a):  # pragma: no cover - numba
    """Largest entry of a non-empty 1-D array (as ``a.max()``, without compiling it)."""
    m = a[0]
    for i in range(1, a.shape[0]):
        if a[i] > m:
            m = a[i]
    return m


@njit(cache=True)
def _wy_hists(codes, wy, hist, j0, m):  # pragma: no cover - numba
    """hist[j, b] = Σ_{code_j = b} w·y for the m ≤ 4 features j0..j0+m−1.

    Four features share one pass over the samples: four independent accumulation chains
    instead of one (≈1.5× faster than feature by feature).
    """
    n = codes.shape[1]
    if m == 4:
        c0, c1, c2, c3 = codes[j0], codes[j0 + 1], codes[j0 + 2], codes[j0 + 3]
        h0, h1, h2, h3 = hist[j0], hist[j0 + 1], hist[j0 + 2], hist[j0 + 3]
        for i in range(n):
            v = wy[i]
            h0[c0[i]] += v
            h1[c1[i]] += v
            h2[c2[i]] += v
            h3[c3[i]] += v
    else:
        for j in range(j0, j0 + m):
            col = codes[j]
            h = hist[j]
            for i in range(n):
                h[col[i]] += wy[i]


@njit(cache=True)
def _class_hists(codes, y, w, hist, j0, m):  # pragma: no cover - numba
    """hist[j, b, k] = Σ_{code_j = b, y = k} w for the m ≤ 4 features j0..j0+m−1."""
    n = codes.shape[1]
    if m == 4:
        c0, c1, c2, c3 = codes[j0], codes[j0 + 1], codes[j0 + 2], codes[j0 + 3]
        h0, h1, h2, h3 = hist[j0], hist[j0 + 1], hist[j0 + 2], hist[j0 + 3]
        for i in range(n):
            k = y[i]
            v = w[i]
            h0[c0[i], k] += v
            h1[c1[i], k] += v
            h2[c2[i], k] += v
            h3[c3[i], k] += v
    else:
        for j in range(j0, j0 + m):
            col = codes[j]
            h = hist[j]
            for i in range(n):
                h[col[i], y[i]] += w[i]


@njit(cache=True)
def _first_min(vals, tol):  # pragma: no cover - numba
    """Index of the smallest value; ties (within ``tol``) go to the first index."""
    jb = 0
    for j in range(1, vals.shape[0]):
        if vals[j] < vals[jb] - tol:
            jb = j
    return jb


@njit(cache=True)
def _majority_leaves(L, T, W, tol):  # pragma: no cover - numba
    """Weighted-majority class of the left side (class sums L) and of the right (T − L),
    ties to the first class, and the weighted error of those two leaves."""
    kl = 0
    kr = 0
    for k in range(1, L.shape[0]):
        if L[k] > L[kl] + tol:
            kl = k
        if T[k] - L[k] > T[kr] - L[kr] + tol:
            kr = k
    return kl, kr, max(W - L[kl] - (T[kr] - L[kr]), 0.0)


@twin
def best_stump_binary(codes, n_bins, w, y_pm, hist):  # pragma: no cover - numba
    """Best stump for y ∈ {±1}: minimum weighted error over features, bins and polarities.

    ``hist``: zeros of shape (d, max n_bins), the w·y histograms' storage (allocated by the
    caller: an allocation inside numba is one more overload to compile on a first call).

    With S(b) = Σ_{code<b} w·y and W₋ = Σ_{y=−1} w, the stump that predicts +1 on
    ``code ≥ b`` errs with ε₊(b) = W₋ + S(b); the opposite polarity with ε₋ = W − ε₊.
    Returns (feature, bin, polarity, error); bin 0 is the constant stump.
    """
    d = codes.shape[0]
    n = codes.shape[1]
    wy = np.empty(n)
    W = 0.0
    w_neg = 0.0
    for i in range(n):
        wy[i] = w[i] * y_pm[i]
        W += w[i]
        if y_pm[i] < 0:
            w_neg += w[i]
    tol = 1e-12 * W  # improvements below this are ties (robust to summation order)
    errs = np.empty(d)
    bins = np.empty(d, np.int64)
    pols = np.empty(d, np.int64)
    for blk in prange((d + 3) // 4):  # histograms of w·y over the bins, 4 features a pass
        _wy_hists(codes, wy, hist, 4 * blk, min(4, d - 4 * blk))
    for j in prange(d):
        nb = n_bins[j]
        h = hist[j]
        s = 0.0
        be = np.inf
        bb = 0
        bp = 1
        for b in range(nb + 1):
            e = w_neg + s  # ε₊(b)
            if e < be - tol:
                be, bb, bp = e, b, 1
            e2 = W - e  # ε₋(b)
            if e2 < be - tol:
                be, bb, bp = e2, b, -1
            if b < nb:
                s += h[b]
        errs[j], bins[j], pols[j] = be, bb, bp
    jb = _first_min(errs, tol)  # first minimum: deterministic ties
    return jb, bins[jb], pols[jb], max(errs[jb], 0.0)


@njit(cache=True)
def stump_predict_codes(col, b, left, right):  # pragma: no cover - numba
    """Class index of every training sample: ``right`` where code ≥ b, else ``left``."""
    n = col.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = right if col[i] >= b else left
    return out


@twin
def class_histograms(codes, y, w, n_classes, max_bins):  # pragma: no cover - numba
    """hist[j, b, k] = Σ_{code_j = b, y = k} w, four features a pass."""
    d = codes.shape[0]
    hist = np.zeros((d, max_bins, n_classes))
    for blk in prange((d + 3) // 4):
        _class_hists(codes, y, w, hist, 4 * blk, min(4, d - 4 * blk))
    return hist


@njit(cache=True)
def reweighted_rows(w_new, w_old, pred_old, y, delta, rows):  # pragma: no cover - numba
    """Rows whose weight changed other than by the common factor of the larger group.

    A boosting round multiplies the weights of the rows h got right by one factor and of
    those it got wrong by another (then normalizes). With c = Σ_big w_new / Σ_big w_old over
    the larger of the two groups (by ``pred_old`` = h's predictions), every row with
    |w_new − c·w_old| > 1e-12·max(w_new, c·w_old) is listed in ``rows`` with
    ``delta = w_new − c·w_old``: then Σ w_new = c·Σ w_old + Σ delta over any set of rows,
    up to ≤ 1e-12 relative per round. Returns (number of rows listed, c).
    """
    n = w_new.shape[0]
    n_wrong = 0
    sn_w = 0.0  # Σ w_new, Σ w_old over the rows h got wrong, and over those it got right
    so_w = 0.0
    sn_r = 0.0
    so_r = 0.0
    for i in range(n):
        wrong = pred_old[i] != y[i]
        n_wrong += wrong
        sn_w += w_new[i] if wrong else 0.0
        so_w += w_old[i] if wrong else 0.0
        sn_r += 0.0 if wrong else w_new[i]
        so_r += 0.0 if wrong else w_old[i]
    sn, so = (sn_w, so_w) if 2 * n_wrong >= n else (sn_r, so_r)  # the larger group
    c = sn / so if so > 0.0 else 1.0
    m = 0
    for i in range(n):
        cw = c * w_old[i]
        dlt = w_new[i] - cw
        if abs(dlt) > 1e-12 * max(w_new[i], cw):
            rows[m] = i
            delta[m] = dlt
            m += 1
    return m, c


@twin
def update_class_histograms(codes, y, hist, c, delta, rows, m):  # pragma: no cover - numba
    """hist ← c·hist + Σ_{listed rows} delta at (code, class): the histograms of w_new."""
    d = codes.shape[0]
    for j in prange(d):
        h = hist[j]
        col = codes[j]
        for b in range(h.shape[0]):
            for k in range(h.shape[1]):
                h[b, k] *= c
        for r in range(m):
            i = rows[r]
            h[col[i], y[i]] += delta[r]


@twin
def best_stump_from_histograms(hist, n_bins, criterion):  # pragma: no cover - numba
    """Best K-class stump from class histograms: criterion 0 gini, 1 entropy, 2 error.

    The split "code ≥ b" leaves L_k(b) = Σ_{c<b} hist[j, c, k] on the left; its score is
    i(L) + i(T − L) with i the weighted impurity (:func:`_impurity`; for "error"
    i(c) = Σc − max c, so the score is the weighted error of majority leaves). Impurity
    skips splits with an empty side (none left: the constant stump); "error" includes the
    constant stump (b = 0). Ties go to the first feature, the lowest bin. Leaves predict
    their weighted majority (ties → the first class). Returns
    (feature, bin, left class, right class, weighted error, score).
    """
    d = hist.shape[0]
    K = hist.shape[2]
    T = np.zeros(K)
    for b in range(n_bins[0]):
        for k in range(K):
            T[k] += hist[0, b, k]
    W = _sum(T)
    tol = 1e-12 * W
    vals = np.empty(d)
    bins = np.zeros(d, np.int64)
    for j in prange(d):
        nb = n_bins[j]
        h = hist[j]
        L = np.zeros(K)
        R = np.empty(K)
        best = np.inf
        bb = 0
        wl = 0.0
        for b in range(nb):
            if b > 0:
                for k in range(K):
                    L[k] += h[b - 1, k]
                    wl += h[b - 1, k]
            if criterion != 2 and (wl <= tol or W - wl <= tol):
                continue
            for k in range(K):
                R[k] = T[k] - L[k]
            v = _impurity(L, criterion) + _impurity(R, criterion)
            if v < best - tol:
                best = v
                bb = b
        vals[j] = best
        bins[j] = bb
    jb = _first_min(vals, tol)
    b = bins[jb] if vals[jb] < np.inf else 0
    L = np.zeros(K)
    for c in range(b):
        for k in range(K):
            L[k] += hist[jb, c, k]
    kl, kr, err = _majority_leaves(L, T, W, tol)
    return jb, b, kl, kr, err, vals[jb]


@twin
def flag_sorted(XS, order, rows):  # pragma: no cover - numba
    """Presorted rows as int32 with a start flag, from per-feature argsorts of ``XS``.

    ``XS[j]`` holds feature j on the rows ``rows`` and ``order[j]`` sorts it. Then
    ``out[j, p] = i`` (the row of the p-th smallest value) when its value equals the
    previous one, ``~i`` (< 0) when a new distinct value starts at p ≥ 1: a cut before p
    is a threshold.
    """
    d, m = XS.shape
    out = np.empty((d, m), np.int32)
    for j in prange(d):
        v = XS[j]
        o = order[j]
        out[j, 0] = rows[o[0]]
        for p in range(1, m):
            i = rows[o[p]]
            out[j, p] = ~i if v[o[p]] != v[o[p - 1]] else i
    return out


@twin
def best_stump_sorted_binary(order, w, y_pm):  # pragma: no cover - numba
    """Exact best stump for y ∈ {±1} over presorted features (every distinct threshold).

    Walks each feature in sorted order with S = Σ_{before the cut} w·y; at every start of a
    new value the stump "+1 on x ≥ θ" errs with ε₊ = W₋ + S and its opposite with W − ε₊,
    as in :func:`best_stump_binary`. Returns (feature, position, polarity, error);
    position 0 is the constant stump, position p the cut before the p-th sorted row.
    """
    d, m = order.shape
    n = w.shape[0]
    wy = np.empty(n)
    W = 0.0
    w_neg = 0.0
    for i in range(n):
        wy[i] = w[i] * y_pm[i]
        W += w[i]
        if y_pm[i] < 0:
            w_neg += w[i]
    tol = 1e-12 * W
    errs = np.empty(d)
    pos = np.empty(d, np.int64)
    pols = np.empty(d, np.int64)
    for j in prange(d):
        col = order[j]
        # p = 0: the constant stumps
        be = w_neg
        bp = 1
        bb = 0
        if W - w_neg < be - tol:
            be, bp = W - w_neg, -1
        s = 0.0
        for p in range(m):
            i = col[p]
            if i < 0:
                i = ~i
                e = w_neg + s  # ε₊ of the cut before p
                if e < be - tol:
                    be, bb, bp = e, p, 1
                e2 = W - e
                if e2 < be - tol:
                    be, bb, bp = e2, p, -1
            s += wy[i]
        # the cut after the last row (θ = +inf) is the constant stump again: skipped
        errs[j], pos[j], pols[j] = be, bb, bp
    jb = _first_min(errs, tol)
    return jb, pos[jb], pols[jb], max(errs[jb], 0.0)


@twin
def best_stump_sorted_classes(order, y, w, n_classes, criterion):  # pragma: no cover
    """Exact best K-class stump over presorted features: criterion 0 gini, 1 entropy, 2 error.

    Per-class sums L_k left of the cut, updated row by row in sorted order and scored at
    every new distinct value (O(K) there). Impurity: cuts with an empty side are skipped;
    error: the constant stump is the candidate at position 0. Leaves predict their
    weighted majority. Returns (feature, position, left class, right class, error,
    criterion value).
    """
    d, m = order.shape
    K = n_classes
    T = np.zeros(K)
    for p in range(m):
        i = order[0, p]
        if i < 0:
            i = ~i
        T[y[i]] += w[i]
    W = _sum(T)
    tol = 1e-12 * W
    vals = np.empty(d)
    pos = np.zeros(d, np.int64)
    for j in prange(d):
        col = order[j]
        L = np.zeros(K)
        R = np.empty(K)
        best = np.inf
        bb = 0
        if criterion == 2:  # the constant stump
            best = W - _max(T)
        wl = 0.0
        for p in range(m):
            i = col[p]
            if i < 0:
                i = ~i
                if criterion == 2 or (wl > 0.0 and W - wl > 0.0):
                    for k in range(K):
                        R[k] = T[k] - L[k]
                    v = _impurity(L, criterion) + _impurity(R, criterion)
                    if v < best - tol:
                        best = v
                        bb = p
            L[y[i]] += w[i]
            wl += w[i]
        vals[j] = best
        pos[j] = bb
    jb = _first_min(vals, tol)
    b = pos[jb] if vals[jb] < np.inf else 0
    L = np.zeros(K)
    col = order[jb]
    for p in range(b):
        i = col[p]
        if i < 0:
            i = ~i
        L[y[i]] += w[i]
    kl, kr, err = _majority_leaves(L, T, W, tol)
    return jb, b, kl, kr, err, vals[jb]


@twin
def tree_level_histograms(codes, y, w, node, hist):  # pragma: no cover
    """hist[m, j, b, k] += Σ w over samples in node m (of this level) with code b, class k
    (``hist``: zeros of shape (nodes, d, max bins, classes), allocated by the caller)."""
    d = codes.shape[0]
    n = codes.shape[1]
    for blk in prange((d + 3) // 4):  # four features a pass, as in _class_hists
        j0 = 4 * blk
        if d - j0 >= 4:
            c0, c1, c2, c3 = codes[j0], codes[j0 + 1], codes[j0 + 2], codes[j0 + 3]
            for i in range(n):
                m = node[i]
                if m >= 0:
                    k = y[i]
                    v = w[i]
                    hist[m, j0, c0[i], k] += v
                    hist[m, j0 + 1, c1[i], k] += v
                    hist[m, j0 + 2, c2[i], k] += v
                    hist[m, j0 + 3, c3[i], k] += v
        else:
            for j in range(j0, d):
                col = codes[j]
                for i in range(n):
                    m = node[i]
                    if m >= 0:
                        hist[m, j, col[i], y[i]] += w[i]
    return hist


@njit(cache=True)
def _impurity(c, criterion):  # pragma: no cover - numba
    """Weighted impurity W·i(node) of class weights ``c``: 0 gini, 1 entropy, 2 error."""
    W = _sum(c)
    if W <= 0.0:
        return 0.0
    if criterion == 0:
        s = 0.0
        for k in range(c.shape[0]):
            s += c[k] * c[k]
        return W - s / W
    if criterion == 1:
        s = 0.0
        for k in range(c.shape[0]):
            if c[k] > 0.0:
                s -= c[k] * np.log(c[k] / W)
        return s
    return W - _max(c)


@twin
def tree_best_splits(hist, n_bins, criterion, feat, bins, gain, scratch):  # pragma: no cover
    """Best split per node: (feature, bin, impurity decrease); feature −1 when none helps.

    Written into ``feat`` (−1s), ``bins`` and ``gain`` (zeros) of length n_nodes, with
    ``scratch`` zeros of shape (n_nodes, 3, K): the caller allocates them (each allocation
    inside numba is one more overload to compile on a first call).
    """
    n_nodes, d, _, K = hist.shape
    for m in prange(n_nodes):
        tot = scratch[m, 0]
        for b in range(n_bins[0]):
            for k in range(K):
                tot[k] += hist[m, 0, b, k]
        parent = _impurity(tot, criterion)
        W = _sum(tot)
        tol = 1e-12 * W
        if parent <= tol:  # pure (or empty) node: a leaf
            continue
        best = parent + tol  # like scikit-learn, a split that does not help is still taken
        L = scratch[m, 1]
        R = scratch[m, 2]
        for j in range(d):
            L[:] = 0.0
            for b in range(1, n_bins[j]):
                for k in range(K):
                    L[k] += hist[m, j, b - 1, k]
                wl = _sum(L)
                if wl <= 0.0 or wl >= W:
                    continue
                for k in range(K):
                    R[k] = tot[k] - L[k]
                if _sum(R) <= 0.0:
                    continue
                v = _impurity(L, criterion) + _impurity(R, criterion)
                if v < best - tol or (feat[m] < 0 and v <= best):
                    best = v
                    feat[m] = j
                    bins[m] = b
        if feat[m] >= 0:
            gain[m] = max(parent - best, 0.0)
    return feat, bins, gain


@njit(cache=True)
def tree_route(codes, node, heap, feat, bins):  # pragma: no cover - numba
    """Send samples of this level to the next: child 2m + (code ≥ b), −1 where m is a leaf.

    ``heap[i]`` (the sample's node in heap layout) follows it down, in place.
    """
    n = node.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        m = node[i]
        if m < 0 or feat[m] < 0:
            out[i] = -1
        else:
            side = 1 if codes[feat[m], i] >= bins[m] else 0
            out[i] = 2 * m + side
            heap[i] = 2 * heap[i] + 1 + side
    return out


@njit(cache=True)
def node_class_totals(node, y, w, tot):  # pragma: no cover - numba
    """tot[m, k] += Σ w over samples in node m with class k (O(n), no features; ``tot``:
    zeros of shape (nodes, classes))."""
    for i in range(node.shape[0]):
        if node[i] >= 0:
            tot[node[i], y[i]] += w[i]
    return tot


@twin
def tree_predict_raw(X, feature, threshold, value):  # pragma: no cover - numba
    """Leaf class index of rows of X: go right when x_j ≥ θ."""
    n = X.shape[0]
    out = np.empty(n, np.int64)
    for i in prange(n):
        g = 0
        while feature[g] >= 0:
            g = 2 * g + 1 + (1 if X[i, feature[g]] >= threshold[g] else 0)
        out[i] = value[g]
    return out


@njit(cache=True)
def exp_weights(log_d, out):  # pragma: no cover - numba
    """D_t = exp(log D_t) into ``out``."""
    for i in range(log_d.shape[0]):
        out[i] = np.exp(log_d[i])
    return out


@njit(cache=True)
def log_weighted_error(log_d, w, pred, y):  # pragma: no cover - numba
    """log ε_t = log Σᵢ D_t(i)·1[h_t(xᵢ) ≠ yᵢ], with ``w`` = D_t = exp(log D_t).

    One pass sums ``w``; only where that sum is tiny (below 1e-200, so that weights lost to
    underflow in ``w`` could matter) is ε_t summed again by log-sum-exp over log D_t, which is
    exact where ε_t itself underflows (weights of e^-800 are normal in log D). −inf only when
    every misclassified sample has weight 0 (a truly perfect weak learner).
    """
    e = 0.0
    for i in range(w.shape[0]):
        if pred[i] != y[i]:
            e += w[i]
    if e > 1e-200:  # each underflowed w_i < 1e-308: n of them change e by < 1e-290 relative
        return np.log(e)
    mx = -np.inf
    for i in range(log_d.shape[0]):
        if pred[i] != y[i] and log_d[i] > mx:
            mx = log_d[i]
    if mx == -np.inf:
        return mx
    s = 0.0
    for i in range(log_d.shape[0]):
        if pred[i] != y[i]:
            s += np.exp(log_d[i] - mx)
    return mx + np.log(s)


@njit(cache=True)
def _votes_and_log_weights(log_d, pred, y, alpha, G, top, gtop, d1):  # pragma: no cover
    """log D += α(1[h ≠ y] − ½) (unnormalized); votes; training error; returns (max, error)."""
    n = log_d.shape[0]
    ha = 0.5 * alpha
    mx = -np.inf
    for i in range(n):
        ld = log_d[i] + (ha if pred[i] != y[i] else -ha)
        log_d[i] = ld
        mx = max(mx, ld)
    for i in range(n):  # selects, not branches: the outcomes are data-dependent
        p = pred[i]
        g = G[p, i] + alpha
        G[p, i] = g
        gt = gtop[i]
        tp = top[i]
        better = (g > gt) | ((g == gt) & (p < tp))
        tp = np.int64(p) if better else tp
        gtop[i] = g if better else gt
        top[i] = tp
    err = 0.0
    for i in range(n):
        err += d1[i] * (top[i] != y[i])
    return mx, err


def boost_update(log_d, pred, y, alpha, G, top, gtop, d1, w):
    """One round's bookkeeping, in place; returns (log Z_t, training error of F_t).

    log D_{t+1} = log D_t + α(1[h ≠ y] − ½) − log Z_t with Z_t = Σᵢ D_t(i) e^{α(1[h≠y] − ½)}
    by log-sum-exp (nothing under- or overflows), and D_{t+1} = exp(log D_{t+1}) into ``w``.
    Votes G[k, i] += α·1[h(xᵢ) = k] (class-major: a round touches few rows, sequentially),
    ``top[i]`` = argmax_k G[k, i] (ties → the first class) and ``gtop[i]`` = its vote, kept
    up to date in O(1) since α > 0; the training error is Σᵢ D₁(i)·1[top[i] ≠ yᵢ].
    The exponentials run in NumPy (SIMD), the per-sample logic in numba.
    """
    # a small problem interpreted: numba not started for it (_core/interpreted.py)
    mx, err = pick(_votes_and_log_weights, log_d.shape[0])(log_d, pred, y, alpha, G, top,
                                                           gtop, d1)
    np.subtract(log_d, mx, out=w)
    np.exp(w, out=w)
    s = float(w.sum())
    log_z = mx + np.log(s)  # log Z_t = log Σ exp(log D_t + u) (log D_t normalized)
    log_d -= log_z
    w /= s
    return float(log_z), float(err)
