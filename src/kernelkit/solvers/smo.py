"""SMO for the libsvm-form quadratic program (Fan, Chen and Lin 2005), in numba.

Problem::

    min_b  1/2 b^T Q b + p^T b   s.t.  ys^T b = const,  lower <= b <= upper,
    Q_uv = ys_u ys_v K[idx_u, idx_v],   ys_u in {-1, +1}.

``idx`` maps variables to kernel rows, so that eps-SVR (2n variables on n rows) and C-SVC
share one code path. The estimators' problems in this form:

- C-SVC: ``p = -1``, ``ys = y``, ``0 <= b <= C``, ``idx = arange(n)``;
- eps-SVR: ``p = eps -/+ y`` over the 2n variables, ``idx = [0..n-1, 0..n-1]``;
- libsvm's nu-one-class: ``ys = 1``, ``p = 0``, ``upper = 1`` and a starting point
  ``alpha0`` with ``sum = nu * n`` (first ``floor(nu n)`` ones, then the fractional
  remainder), which fixes the constant ``ys^T b = ys^T alpha0``.

Working-set selection uses second-order information (WSS2 of Fan,
Chen & Lin, JMLR 2005); the step moves ``b_i += ys_i t``, ``b_j -= ys_j t`` (keeping
``ys^T b``) by ``t = min(b_ij / a_ij, room to the bounds)``; inactive variables are shrunk
as in libsvm and the gradient is reconstructed before the final optimality check. Once
shrinking has left ``_COMPACT_BELOW`` of the variables active, the loop runs on those
alone, renumbered, with kernel rows of their columns only (libsvm swaps the active
variables to the front of its arrays and rows to the same end). Where variable t is row
entry t (C-SVC, one-class) and ``_MASKED_ABOVE`` of the variables are active, the j pass
and the gradient update run over all variables with the shrunk ones masked: contiguous
loops that LLVM vectorizes, where the passes through the active list stay scalar.

With ``G = Q b + p``, the solver stops when the maximal KKT violation
``max_{I_up} -ys G - min_{I_low} -ys G`` is below ``tol`` (libsvm's ``eps``). It reports
(``Result.info``) libsvm's offset ``rho`` (decision ``f(x) = sum_r a_r k(x_r, x) - rho``),
the coefficients per kernel row ``a_r = sum_{u: idx_u = r} ys_u b_u`` (``dual_coef``,
length n_rows), ``gap`` (the exact duality gap of the QP with intercept ``-rho``),
``kkt_violation``, ``objective`` (``1/2 b^T Q b + p^T b``), ``gradient`` (G) and
``n_kernel_rows`` (rows computed, cache mode).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numba import njit

from .._core.interpreted import pick
from .._core.result import Result
from .._core.threads import limit_blas
from ..exceptions import ConvergenceWarning
from ..linalg.row_cache import resume_entry, take_row
from ..linalg.rows import KernelRows, RestrictedRows, as_kernel_rows

__all__ = ["solve_smo"]

_TAU = 1e-12
_CONVERGED, _MAX_ITER, _NEED_ROW, _RECONSTRUCT, _COMPACT = 0, 1, 2, 3, 4
# the problem is compacted to the active variables once shrinking leaves this share of them:
# letters (16,000, ~1,600 active at the end) 1.48 -> 1.22 s; an SVR whose support keeps
# 60% of the rows active gains nothing and loses the rows' reuse (2.2 -> 2.9 s at 0.5)
_COMPACT_BELOW = 0.25
# the j pass and the gradient update run over every variable, masked, while more than
# this share of them is active: vectorized, ~3 ns a variable of the problem against ~6.5 ns
# an active one through the active list (letters 1.18 -> 0.87 s at 0.3-0.5; its last
# compacted problem, 1,602 variables, 4.7 against 11 us an iteration), on problems of
# _MASKED_FROM variables or more (a first fit on small data then compiles ~1 s less)
_MASKED_ABOVE = 0.4
_MASKED_FROM = 1_000


@njit(cache=True)
def _set_flags(b, ys, lo, hi, up, low, t):
    # I_up = {b_t < hi_t, ys_t = +1} U {b_t > lo_t, ys_t = -1}; I_low the other way round
    if ys[t] > 0:
        up[t] = b[t] < hi[t]
        low[t] = b[t] > lo[t]
    else:
        up[t] = b[t] > lo[t]
        low[t] = b[t] < hi[t]


@njit(cache=True)
def _select_i(yG, up, active, n_active):
    """i = argmax_{t in I_up} -ys_t G_t (first-order choice), with that maximum."""
    i = -1
    gmax = -np.inf
    for k in range(n_active):
        t = active[k]
        if -yG[t] >= gmax and up[t]:
            gmax = -yG[t]
            i = t
    return i, gmax


@njit(cache=True)
def _sort_active(active, n_active, n_var):
    """Sort ``active[:n_active]`` (distinct indices below n_var) in place, in O(n_var) by
    marking: the same result as np.sort, without compiling numba's generic quicksort and
    its slice-assignment error path (seconds of a first fit's compilation)."""
    mark = np.zeros(n_var, np.bool_)
    for k in range(n_active):
        mark[active[k]] = True
    k = 0
    for t in range(n_var):
        if mark[t]:
            active[k] = t
            k += 1


@njit(cache=True)
def _min8(s, n):
    """min(s[:n]) in eight running minima: numba's LLVM leaves a float min reduction
    scalar, one compare-and-select chain (1.3 ns an entry); eight chains run side by side
    (0.25-0.45 ns)."""
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = np.inf
    e = n - n % 8
    for q in range(0, e, 8):
        v = s[q]
        m0 = v if v < m0 else m0
        v = s[q + 1]
        m1 = v if v < m1 else m1
        v = s[q + 2]
        m2 = v if v < m2 else m2
        v = s[q + 3]
        m3 = v if v < m3 else m3
        v = s[q + 4]
        m4 = v if v < m4 else m4
        v = s[q + 5]
        m5 = v if v < m5 else m5
        v = s[q + 6]
        m6 = v if v < m6 else m6
        v = s[q + 7]
        m7 = v if v < m7 else m7
    for q in range(e, n):
        v = s[q]
        m0 = v if v < m0 else m0
    return min(min(min(m0, m1), min(m2, m3)), min(min(m4, m5), min(m6, m7)))


@njit(cache=True)
def _last_at(s, n, m):
    """The last q < n with s[q] == m (-1 if m is inf: no candidate)."""
    if m == np.inf:
        return -1
    for q in range(n - 1, -1, -1):
        if s[q] == m:
            return q
    return -1


@njit(cache=True)
def _masked_j(yG, low, act, kd, Ki, kii, gmax, n, score, lowg):
    """The j pass over all n variables of a problem whose variable t has kernel row entry
    t (``idx`` the identity), the shrunk ones masked by ``act``: candidates into ``score``
    in one loop without a reduction or an index array, which LLVM vectorizes, then their
    minimum and its last place (2 ns a variable in all, against the indexed pass's 4.4 ns
    an active one).
    Returns (j, max_{I_low} ys G) as the indexed pass does (j = -1 when none)."""
    for t in range(n):
        yg = yG[t]
        in_low = (low[t] != 0) & (act[t] != 0)
        gd = gmax + yg
        a = kii + kd[t] - 2.0 * Ki[t]  # K_ii + K_tt - 2 K_it
        a = a if a > 0.0 else _TAU
        score[t] = -(gd * gd) / a if in_low & (gd > 0.0) else np.inf
        lowg[t] = -yg if in_low else np.inf
    return _last_at(score, n, _min8(score, n)), -_min8(lowg, n)


@njit(cache=True)
def _masked_update(yG, up, act, Ki, Kj, step, n, score):
    """yG += step (K_i - K_j) on all n variables (the shrunk ones too: their gradient then
    stays current, the reconstruction rewrites it anyway), and the next first index
    argmax_{I_up, active} -yG (the last one of equal values, as the indexed pass)."""
    for t in range(n):
        v = yG[t] + step * (Ki[t] - Kj[t])
        yG[t] = v
        score[t] = v if (up[t] != 0) & (act[t] != 0) else np.inf
    m = _min8(score, n)
    return _last_at(score, n, m), -m


class _Vars(NamedTuple):
    """The loop's variables: ``b``, the signed gradient ``yG = ys * G``, the constants
    ``ys``, ``lo``, ``hi``, the flags ``up`` (t in I_up) and ``low`` (t in I_low), and
    ``idx``, each variable's row (and column) in the rows the loop reads."""

    b: np.ndarray
    yG: np.ndarray
    ys: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    up: np.ndarray
    low: np.ndarray
    idx: np.ndarray


class _Masked(NamedTuple):
    """For a problem whose variable t has row entry t: marks of the active variables and
    two rows of scratch candidates (the masked passes of the module notes)."""

    act: np.ndarray
    scratch: np.ndarray


# The loop's state, kept between its calls: one record of named fields (a one-element
# structured array: one argument that numba's dispatcher types as fast as any array, where
# a NamedTuple of ten arrays cost ~10 us more a call; the loop writes ``s = st[0]; s.i =
# ...``, numba and CPython (given the array as a recarray) alike).
_STATE = np.dtype([
    ("n_iter", np.int64),  # iterations done
    ("n_active", np.int64),  # size of the active set (its first entries)
    ("to_shrink", np.int64),  # iterations until the next shrinking
    ("unshrunk", np.int64),  # 1 once the gradient was reconstructed at 10 eps
    ("need_row", np.int64),  # the row asked for (status _NEED_ROW)
    ("i", np.int64),  # the cached first index (-2: to be recomputed, -1: I_up empty)
    ("gmax", np.float64),  # the cached max_{I_up} -ys G
    ("n_passed", np.int64),  # variables passed when the problem was last compacted
    ("n_whole", np.int64),  # variables of the whole problem (more: the others are shrunk)
    ("j", np.int64),  # the second index while its row is fetched (-2: none)
])


def _start_state(n_var: int) -> np.recarray:
    """The state of a fresh solve (a recarray view: ``st.n_iter[0]`` reads in Python)."""
    st = np.zeros(1, _STATE).view(np.recarray)
    st.n_active, st.to_shrink, st.need_row = n_var, min(n_var, 1000), -1
    st.i, st.n_passed, st.n_whole, st.j = -2, n_var, n_var, -2
    return st


def _restart(st, n_var: int) -> None:
    """A new problem of ``n_var`` variables, all active (after a compaction or a
    reconstruction): the first and second index chosen again."""
    st.n_active = st.n_passed = n_var
    st.i = st.j = -2


class _Settings(NamedTuple):
    eps: float  # stop when the maximal KKT violation is below eps
    max_iter: int
    shrinking: bool
    compact_below: float  # return _COMPACT once at most this share of n_passed is active
    masked_above: float  # the masked passes while more than this share is active


@njit(cache=True)
def _smo_loop(v, rows, active, masked, st, cfg):
    """Run SMO until done or until a kernel row / a gradient reconstruction is needed.

    ``v`` the variables (:class:`_Vars`; ``yG = ys * G`` is kept instead of ``G``, then
    ``yG_u += t (K_ui - K_uj)``), ``rows`` the kernel rows they read
    (:class:`~kernelkit.linalg.row_cache.RowsView`, variable t at row/column ``v.idx[t]``),
    ``active`` the active list (its first ``n_active`` entries), ``st`` the state
    (a record of ``_STATE``'s fields), ``cfg`` the settings (:class:`_Settings`).
    ``masked``: None, or for a problem whose variable t has row entry t, the marks of the
    active variables (:class:`_Masked`): while more than ``cfg.masked_above`` of them are
    active, the j pass and the update run over all variables, masked, in loops LLVM
    vectorizes. With None numba prunes those branches and compiles neither helper (a
    first fit on small data compiles ~1 s less).
    Returns 0 converged, 1 max_iter, 2 need row ``need_row``, 3 need reconstruction, 4
    shrinking left at most ``compact_below * n_passed`` variables active (the caller
    may then pass the active variables only, with rows of their columns only).
    Resuming after 2/3 recomputes the same decision from the same state; after 4 it goes on.
    """
    b, yG, ys, lo, hi, up, low, idx = v
    s = st[0]
    kd = rows.diag
    eps = cfg.eps
    n_var = b.shape[0]
    while True:
        n_active = s.n_active
        if cfg.shrinking and s.to_shrink <= 0:
            # libsvm do_shrinking: Gmax1 = max_{I_up} -ys G, Gmax2 = max_{I_low} ys G
            gmax1 = -np.inf
            gmax2 = -np.inf
            for k in range(n_active):
                t = active[k]
                if up[t]:
                    gmax1 = max(gmax1, -yG[t])
                if low[t]:
                    gmax2 = max(gmax2, yG[t])
            if s.unshrunk == 0 and gmax1 + gmax2 <= eps * 10.0:
                s.unshrunk = 1
                if n_active < s.n_whole:
                    return 3
            k = 0
            while k < n_active:
                t = active[k]
                shrink = False
                if b[t] >= hi[t]:  # G_t = ys_t yG_t
                    shrink = (-yG[t] > gmax1) if ys[t] > 0 else (yG[t] > gmax2)
                elif b[t] <= lo[t]:
                    shrink = (yG[t] > gmax2) if ys[t] > 0 else (-yG[t] > gmax1)
                if shrink:
                    if masked is not None:
                        masked.act[t] = False
                    n_active -= 1
                    active[k] = active[n_active]
                    active[n_active] = t
                else:
                    k += 1
            # keep the active indices increasing: the passes below then read memory in order
            _sort_active(active, n_active, n_var)
            s.n_active = n_active
            s.to_shrink = min(s.n_whole, 1000)  # libsvm: every min(l, 1000)
            s.i = -2
            if cfg.compact_below * s.n_passed >= n_active:  # rows this much longer
                return 4  # than the active set: the caller compacts them (resumes as is)
        if s.n_iter >= cfg.max_iter:
            return 1
        if s.i == -2:
            i, gmax = _select_i(yG, up, active, n_active)
            s.i = i
            s.gmax = gmax
        i = s.i
        gmax = s.gmax
        if i < 0:
            if n_active < s.n_whole:
                return 3
            return 0
        ri = idx[i]
        si = take_row(rows, ri)
        if si < 0:
            s.need_row = ri
            return 2
        Ki = rows.data[si]
        # --- j minimises -b_it^2 / a_it over I_low with -ys_t G_t < gmax (second order)
        # Every t's candidate is computed, then one test after the arithmetic: whether t
        # is in I_low and whether grad_diff > 0 are data-dependent, and as nested branches
        # their mispredictions cost more than the arithmetic (letters: 1.73 -> 1.56 s);
        # the division is left for the improvements (-g^2 / a <= m  <=>  -g^2 <= m a, a > 0).
        kii = kd[ri]
        j = s.j  # chosen before its row was fetched (status 2): not chosen again
        search = j < 0
        gmax2 = -np.inf
        wide = False  # the masked passes this iteration
        if masked is not None:
            wide = n_active >= cfg.masked_above * n_var
            if wide and search:
                j, gmax2 = _masked_j(yG, low, masked.act, kd, Ki, kii, gmax, n_var,
                                     masked.scratch[0], masked.scratch[1])
        if search and not wide:
            obj_min = np.inf
            for k in range(n_active):
                t = active[k]
                yg = yG[t]
                in_low = low[t]
                gmax2 = max(gmax2, yg if in_low else -np.inf)
                grad_diff = gmax + yg
                rt = idx[t]
                a_it = kii + kd[rt] - 2.0 * Ki[rt]  # K_ii + K_tt - 2 K_it
                a_it = a_it if a_it > 0.0 else _TAU
                num = -grad_diff * grad_diff
                better = in_low and grad_diff > 0.0 and num <= obj_min * a_it
                if better:
                    obj_min = num / a_it
                    j = t
        if search and (gmax + gmax2 < eps or j < 0):
            if n_active < s.n_whole:
                return 3
            return 0
        rj = idx[j]
        sj = take_row(rows, rj)  # row i holds the newest tick: fetching j keeps it
        if sj < 0:
            s.need_row = rj
            s.j = j
            return 2
        s.j = -2
        Kj = rows.data[sj]
        s.n_iter += 1
        s.to_shrink -= 1
        # --- step along b_i += ys_i t, b_j -= ys_j t: t* = b_ij / a_ij, clipped to the box
        a_ij = kii + kd[rj] - 2.0 * Ki[rj]
        if a_ij <= 0.0:
            a_ij = _TAU
        step = (-yG[i] + yG[j]) / a_ij
        room_i = hi[i] - b[i] if ys[i] > 0 else b[i] - lo[i]
        room_j = b[j] - lo[j] if ys[j] > 0 else hi[j] - b[j]
        clip_i = room_i <= step
        clip_j = room_j <= step
        step = min(step, room_i, room_j)
        if step <= 0.0:
            # no progress possible (degenerate numerics): treat as optimal
            if n_active < s.n_whole:
                return 3
            return 0
        b[i] += ys[i] * step
        b[j] -= ys[j] * step
        if clip_i and step == room_i:  # land exactly on the bound
            b[i] = hi[i] if ys[i] > 0 else lo[i]
        if clip_j and step == room_j:
            b[j] = lo[j] if ys[j] > 0 else hi[j]
        _set_flags(b, ys, lo, hi, up, low, i)
        _set_flags(b, ys, lo, hi, up, low, j)
        # ys_u G_u += ys_u (Q_ui db_i + Q_uj db_j) = t (K_ui - K_uj); next i in the same pass
        if masked is not None:
            if wide:
                s.i, s.gmax = _masked_update(yG, up, masked.act, Ki, Kj, step,
                                                     n_var, masked.scratch[0])
                continue
        i_next = -1
        gnext = -np.inf
        for k in range(n_active):
            u = active[k]
            ru = idx[u]
            g = yG[u] + step * (Ki[ru] - Kj[ru])
            yG[u] = g
            if -g >= gnext and up[u]:  # rarely true first: a predictable branch
                gnext = -g
                i_next = u
        s.i = i_next
        s.gmax = gnext


def _reconstruct(G, b, p, ys, idx, rows: KernelRows, which: np.ndarray,
                 signed: bool = False) -> None:
    """Exact ``G_u = p_u + ys_u (K a)[idx_u]`` (``ys_u G_u`` if ``signed``) for ``which``."""
    if len(which) == 0:
        return
    coef = np.zeros(rows.n)
    np.add.at(coef, idx, ys * b)  # a_r = sum_{u: idx_u = r} ys_u b_u
    nz = np.flatnonzero(coef)
    r_need, inv = np.unique(idx[which], return_inverse=True)
    Ka = rows.rows_dot(r_need, nz, coef[nz])
    G[which] = p[which] + ys[which] * Ka[inv]
    if signed:
        G[which] *= ys[which]


def _rho_and_gap(b, G, ys, lo, hi):
    """libsvm's offset rho and the exact duality gap of the problem with intercept -rho."""
    yG = ys * G
    at_hi = b >= hi
    at_lo = b <= lo
    free = ~(at_hi | at_lo)
    if np.any(free):
        rho = float(np.mean(yG[free]))
    else:
        # ub = min over {at hi, ys=-1} U {at lo, ys=+1}; lb = max over the others
        up_set = (at_hi & (ys < 0)) | (at_lo & (ys > 0))
        lb_set = (at_hi & (ys > 0)) | (at_lo & (ys < 0))
        ub = np.min(yG[up_set]) if np.any(up_set) else np.inf
        lb = np.max(yG[lb_set]) if np.any(lb_set) else -np.inf
        rho = float(0.5 * (ub + lb)) if np.isfinite(ub + lb) else float(
            ub if np.isfinite(ub) else lb if np.isfinite(lb) else 0.0)
    # P - D = sum_u h_u(s_u) - b_u s_u, s_u = ys_u rho - G_u, h_u(s) = max_{lo<=b<=hi} b s
    s = ys * rho - G
    with np.errstate(invalid="ignore"):
        h = np.where(s > 0, hi * s, np.where(s < 0, lo * s, 0.0))
    gap = float(np.sum(h - b * s))
    return rho, max(gap, 0.0)


class _QP(NamedTuple):
    """The problem of the module docstring, validated; ``b`` the (feasible) start."""

    p: np.ndarray
    ys: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    idx: np.ndarray
    b: np.ndarray


def _check_qp(p, ys, lower, upper, idx, alpha0, n_rows) -> _QP:
    """The QP's arrays validated and contiguous."""
    p = np.ascontiguousarray(p, dtype=np.float64)
    n_var = p.shape[0]
    ys = np.ones(n_var) if ys is None else np.ascontiguousarray(ys, dtype=np.float64)
    lo = np.ascontiguousarray(np.broadcast_to(np.asarray(lower, dtype=np.float64), (n_var,)))
    hi = np.ascontiguousarray(np.broadcast_to(np.asarray(upper, dtype=np.float64), (n_var,)))
    idx = np.arange(n_var, dtype=np.int64) if idx is None else np.ascontiguousarray(
        idx, dtype=np.int64)
    if np.any(lo > hi):
        raise ValueError("solve_smo: lower must be <= upper.")
    if ys.shape != (n_var,) or idx.shape != (n_var,) or np.any(np.abs(ys) != 1):
        raise ValueError("solve_smo: ys must be +-1 and ys, idx must have the length of p.")
    if len(idx) and (idx.min() < 0 or idx.max() >= n_rows):
        raise ValueError("solve_smo: idx points outside the kernel matrix.")
    b = np.zeros(n_var) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    if np.any(b < lo - 1e-12) or np.any(b > hi + 1e-12):
        raise ValueError("solve_smo: alpha0 must lie in [lower, upper].")
    return _QP(p, ys, lo, hi, idx, np.clip(b, lo, hi))


def solve_smo(
    K,
    p,
    *,
    ys=None,
    lower,
    upper,
    idx=None,
    alpha0=None,
    X=None,
    tol: float = 1e-3,
    max_iter: int | None = None,
    shrinking: bool = True,
    working_memory: float | None = None,
    warn: bool = True,
    callback=None,
) -> Result:
    """Solve ``min 1/2 b^T Q b + p^T b, ys^T b = ys^T alpha0, lower <= b <= upper`` by SMO.

    Parameters
    ----------
    K : ndarray (n_rows, n_rows), KernelRows, or Kernel
        The kernel matrix, a :class:`~kernelkit.linalg.KernelRows` (dense or
        LRU cache), or a kernel (then ``X`` is required and the rows are computed as
        :class:`KernelRows` decides from ``working_memory``).
    p : ndarray (n_var,)
        Linear term (per estimator: see the module docstring).
    ys : ndarray (n_var,) of {-1, +1}, optional
        Signs in ``Q_uv = ys_u ys_v K[idx_u, idx_v]`` and in the equality constraint;
        default all ``+1``.
    lower, upper : float or ndarray (n_var,)
        Box (``lower <= upper``; ``lower`` may be negative, ``upper`` may be ``inf`` when the
        objective is bounded).
    idx : ndarray of int (n_var,), optional
        Kernel row of each variable (default ``arange(n_var)``).
    alpha0 : ndarray (n_var,), optional
        Feasible starting point (default zeros); fixes the constant ``ys^T alpha0``.
    X : ndarray, optional
        Training inputs when ``K`` is a kernel.
    tol : float, default=1e-3
        Stop when the maximal KKT violation is below ``tol`` (libsvm's ``eps``).
    max_iter : int, optional
        Default ``max(10_000_000, 100 n_var)``.
    shrinking : bool, default=True
    working_memory : float, optional
        MiB for the kernel matrix / row cache when ``K`` is a kernel.
    warn : bool, default=True
        Warn :class:`~kernelkit.exceptions.ConvergenceWarning` (with the duality gap) when
        ``max_iter`` is reached.
    callback : callable, optional
        ``callback(n_iter, b, kkt_violation)`` once the loop has stopped.

    Returns
    -------
    Result
        ``coef`` = ``b`` (n_var,); ``info``: ``rho``, ``dual_coef``, ``gap``,
        ``kkt_violation``, ``objective``, ``gradient``, ``n_kernel_rows`` (module docstring).

    Examples
    --------
    C-SVC on four points (libsvm: ``p = -1``, ``ys = y``, ``0 <= b <= C``):

    >>> import numpy as np
    >>> from kernelkit.solvers import solve_smo
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = solve_smo(X @ X.T, -np.ones(4), ys=y, lower=0.0, upper=10.0, tol=1e-8)
    >>> f = X @ X.T @ res.info["dual_coef"] - res.info["rho"]
    >>> np.round(f, 6).tolist()
    [-2.0, -1.0, 1.0, 2.0]
    """
    rows = as_kernel_rows(K, X, working_memory=working_memory)
    qp = _check_qp(p, ys, lower, upper, idx, alpha0, rows.n)
    max_iter = max(10_000_000, 100 * len(qp.p)) if max_iter is None else int(max_iter)
    res = _run_smo(rows, qp, float(tol), max_iter, bool(shrinking), callback)
    if not res.converged and warn:
        warnings.warn(
            f"SMO reached max_iter={max_iter} with duality gap {res.info['gap']:.3g} (KKT "
            f"violation {res.history[-1]:.3g} > tol={tol}); increase max_iter or tol.",
            ConvergenceWarning, stacklevel=2)
    return res


def _solution_info(rows, p, ys, lo, hi, idx, b, yG) -> dict:
    """solve_smo's ``info`` at ``b``, from the signed gradient ``yG = ys * (Q b + p)``."""
    G = ys * yG
    up = np.where(ys > 0, b < hi, b > lo)
    low = np.where(ys > 0, b > lo, b < hi)
    viol = float((np.max(-ys[up] * G[up]) if up.any() else -np.inf)
                 + (np.max(ys[low] * G[low]) if low.any() else -np.inf))
    rho, gap = _rho_and_gap(b, G, ys, lo, hi)
    coef = np.zeros(rows.n)
    np.add.at(coef, idx, ys * b)  # a_r = sum_{u: idx_u = r} ys_u b_u
    return dict(rho=rho, gap=gap, kkt_violation=viol, dual_coef=coef,
                objective=float(0.5 * np.dot(b, G + p)), gradient=G,
                n_kernel_rows=int(rows.n_computed))


class _Problem:
    """What the loop is given: the variables (:class:`_Vars`), its active list, and the
    rows they read; either the whole problem on the full kernel rows, or the active
    variables of a shrunk one, renumbered ``0 .. m-1`` (``vars`` their numbers in the
    whole problem), on the rows restricted to their columns
    (:meth:`KernelRows.restrict <kernelkit.linalg.KernelRows.restrict>`).

    A compacted problem's loop reads rows of the active variables' length, not n (libsvm
    swaps the active variables to the front; here they are copied at each compaction).
    On letters an iteration then costs 10-12 us instead of 35-43 us.
    """

    def __init__(self, arrays: _Vars, active, cache, variables):
        self.arrays, self.active, self.cache, self.vars = arrays, active, cache, variables
        self.view = cache.view()
        m = len(active)  # every variable active
        # masked passes where variable t is kernel column t (C-SVC, one-class; SVR's 2n
        # variables on n rows gained 2%, within the noise), on problems large enough
        self.act, self.masked = None, None
        if m >= _MASKED_FROM and np.array_equal(arrays.idx, np.arange(m)):
            self.act = np.ones(m, dtype=bool)
            self.masked = _Masked(self.act, np.empty((2, m)))

    @classmethod
    def compacted(cls, full: _Vars, live, rows: KernelRows, idx, previous) -> _Problem:
        live = np.sort(live)
        cache = rows.restrict(np.unique(idx[live]),
                              previous if isinstance(previous, RestrictedRows) else None)
        arrays = _Vars(*(np.ascontiguousarray(a[live]) for a in full[:-1]),
                       cache.pos[idx[live]])
        return cls(arrays, np.arange(len(live), dtype=np.int64), cache, live)

    def write_back(self, full: _Vars, n_active) -> np.ndarray:
        """Copy a compacted problem's values into ``full``; the active variables' numbers."""
        if self.vars is None:
            return self.active[:n_active].copy()
        for name in ("b", "yG", "up", "low"):  # ys, lo, hi and idx do not change
            getattr(full, name)[self.vars] = getattr(self.arrays, name)
        return self.vars[self.active[:n_active]]


def _others(live, n_var) -> np.ndarray:
    """The variables 0 .. n_var-1 not in ``live``."""
    mask = np.ones(n_var, dtype=bool)
    mask[live] = False
    return np.flatnonzero(mask)


def _run_smo(rows: KernelRows, qp: _QP, tol: float, max_iter: int, shrinking: bool,
             callback) -> Result:
    """Drive the numba loop from the feasible ``b`` (updated in place) to its stop.

    The loop returns to Python to fetch a kernel row it lacks or to rebuild the gradient
    of shrunk variables; at the stop every variable's gradient is brought up to date and
    the solution reported (one ``callback`` call).
    """
    p, ys, lo, hi, idx, b = qp
    n_var = p.shape[0]
    G = p.copy()
    if np.any(b != 0):
        _reconstruct(G, b, p, ys, idx, rows, np.arange(n_var))
    st = _start_state(n_var)
    cfg = _Settings(tol, max_iter, shrinking, _COMPACT_BELOW, _MASKED_ABOVE)
    yG = ys * G
    full = _Vars(b, yG, ys, lo, hi, np.where(ys > 0, b < hi, b > lo),
                 np.where(ys > 0, b > lo, b < hi), idx)
    prob = _Problem(full, np.arange(n_var, dtype=np.int64), rows, None)
    # a small problem runs the loop's own code in CPython (_core/interpreted.py): numba's start
    # in a fresh process costs more than the whole solve (float32 rows: compiled, which
    # rounds them as the compiled loop does)
    loop = pick(_smo_loop, n_var) if rows.dtype == np.float64 else _smo_loop
    # rows come one at a time: a one-row product gains nothing from BLAS threads
    with limit_blas(1):
        while True:
            # the record as a plain array for numba (fast typing), as a recarray for CPython
            args = (prob.arrays, prob.view, prob.active, prob.masked,
                    st.view(np.ndarray) if loop is _smo_loop else st, cfg)
            status = loop(*args)
            resume = resume_entry(loop, args)  # typed once, not at every fetched row
            while status == _NEED_ROW:  # the same problem: its arguments as they are
                # one row at a time: SMO touches few rows (letters, n=16,000: ~3,000), and
                # prefetching by violation computed 4x more rows than it saved calls
                prob.cache.fetch(int(st.need_row[0]))
                status = resume(*args)
            live = prob.write_back(full, st.n_active[0])  # the variables still active
            if status == _COMPACT:
                prob = _Problem.compacted(full, live, rows, idx, prob.cache)
                _restart(st, len(live))
            elif status == _RECONSTRUCT:
                _reconstruct(yG, b, p, ys, idx, rows, _others(live, n_var), signed=True)
                prob = _Problem(full, np.arange(n_var, dtype=np.int64), rows, None)
                _restart(st, n_var)
            else:
                break
    if len(live) < n_var:  # stopped at max_iter with variables shrunk
        _reconstruct(yG, b, p, ys, idx, rows, _others(live, n_var), signed=True)
    info = _solution_info(rows, p, ys, lo, hi, idx, b, yG)
    if callback is not None:  # the numba loop runs to the end: one report
        callback(int(st.n_iter[0]), b, info["kkt_violation"])
    return Result(coef=b, n_iter=int(st.n_iter[0]), converged=status == _CONVERGED,
                  history=[info["kkt_violation"]], info=info)
