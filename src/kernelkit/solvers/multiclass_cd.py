"""Per-example block dual coordinate descent for all-together multiclass SVMs.

Primal (f_j(x) = sum_i alpha_ij k(x_i, x), no offsets, C_i = C * sample_weight_i)::

    min_f  1/2 sum_j ||f_j||^2 + sum_i C_i l(y_i, f(x_i))

with l the Crammer-Singer loss  max_{r != y} (1 - (f_y - f_r))_+  or the Weston-Watkins
loss  sum_{r != y} (1 - (f_y - f_r))_+.  Both duals share one objective::

    max_alpha  D(alpha) = sum_i alpha_{i y_i} - 1/2 sum_j alpha_{:j}^T K alpha_{:j}
    s.t.       sum_j alpha_ij = 0 for every i, and per example
               Crammer-Singer:  alpha_ij <= C_i [j = y_i]
               Weston-Watkins:  -C_i <= alpha_ij <= 0  (j != y_i),  alpha_{i y_i} free

(alpha_i = -C_i a_i with a_i in the domain of the loss conjugate, see
:mod:`kernelkit.losses.multiclass`). One block step maximises D exactly over alpha_i with
the others fixed: with F_i = (f_1(x_i), ..., f_k(x_i)) and v = alpha_i + (e_{y_i} - F_i)/K_ii
it is the Euclidean projection of v onto {sum_j a_j = 0, lo <= a <= hi}, i.e.
a_j = clip(v_j - theta, lo_j, hi_j) with theta the root of a monotone piecewise-linear
function, found by sorting its breakpoints (O(k log k)). For Crammer-Singer (no lower
bounds) this is the sorted closed form of Crammer & Singer (2001) / Keerthi et al. (2008):
a simplex projection of hi - v. The steps live with the losses
(:mod:`kernelkit.losses.multiclass`, ``dual_step``).

The scores F = K alpha are kept up to date (one kernel row per changed block), so the
duality gap  P - D = sum_i [C_i l(y_i, F_i) + <alpha_i, F_i> - alpha_{i y_i}]  (a sum of
non-negative per-example Fenchel-Young terms) costs O(n k) per pass. Shrinking (libsvm
style) drops examples with alpha_i = 0 and every margin > 1 from the passes *and* from the
score updates; as alpha_i = 0 there, only their loss terms are unknown. Every 10 passes,
and before the solver may stop, their scores are recomputed from the nonzeros of alpha,
examples with a positive gap term come back, and the stopping rule uses the gap of all
examples.

A sweep reads one kernel row per changed block, so it is bound by reading K among the
active examples. Two things cut that reading (on letters, 16,000 examples and 26 classes,
they halve the fit):

- once shrinking leaves at most ``_COMPACT_BELOW`` of the held block active, the kernel
  among the active examples is the kernel rows' restriction to their columns
  (:meth:`KernelRows.restrict <kernelkit.linalg.KernelRows.restrict>`: an m x m block in
  column order, as it fits the memory of K), whose rows are then read whole instead of
  gathered from rows of length n; later shrinks restrict it again in place (narrowed
  where it lies: no second block beside it), and a refresh keeps it when no shrunk
  example comes back (the examples that come back need rows of K: the block is then
  copied from K again, into the same storage while it is large enough). While the
  active examples are the block's rows in order, shrinking waits until it can compact
  the block: dropping a few examples would have every row gathered at their columns
  (on 10,000 letters a sweep took 1.5x as long gathered; the examples kept meanwhile
  take a null step each);
- after each pass the ``_WORKING_SET_SHARE`` of the active examples with the largest gap
  terms (the largest KKT violations: on letters the top fifth holds 75-85% of the gap) is
  solved on its own, by sweeps on the kernel among them until a sweep gains at most
  ``_WORKING_SET_GAIN`` of the round's first (at most ``_WORKING_SET_PASSES`` sweeps: on
  10,000 letters a round takes 8 sweeps at gamma 0.1, a median, and 5-6 at gamma 0.2, and
  the fit at gamma 0.1 needs 38-40 passes where five sweeps a round needed 50-54), and the
  change of their alpha then reaches every active score in one product; only every
  ``_FULL_EVERY``-th pass (and the first two) sweeps all active examples.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._core.interpreted import pick
from .._core.result import Result
from .._core.twin import twin
from ..exceptions import ConvergenceWarning
from ..linalg.blocks import fits_in_memory
from ..linalg.rows import KernelRows, as_kernel_rows, gather_rows
from ..losses.multiclass import MulticlassLoss, block_step

__all__ = ["solve_multiclass_cd", "multiclass_dual_objective"]

# the schedule of the passes (module notes), tuned on letters (16,000 x 26 classes):
_REFRESH_EVERY = 10  # passes between checks of the shrunk examples
_COMPACT_BELOW = 0.8  # compact the held kernel block once the active set is this share of it
_FULL_EVERY = 2  # every other pass sweeps all active examples
_WORKING_SET_SHARE = 0.3  # after each pass, the 30% of the active examples with the largest
_WORKING_SET_PASSES = 15  # gap terms are swept on their own (_solve_working_set), at most 15
_WORKING_SET_GAIN = 0.2  # times, until a sweep gains at most 0.2 of the round's first
_LOSSES = {"crammer_singer": 0, "weston_watkins": 1}
# with a float32 K, the live scores are float32 too when tol is at least this (their
# rounding, ~1e-7 of a score per update, drifts to ~1e-5 over a fit: far below such a gap)
_FLOAT32_SCORES_TOL = 1e-4


# ------------------------------------------------------------------ passes (numba)
@njit(cache=True)
def _loss_t(kind, F, t, y):  # pragma: no cover - numba
    # CS: max_{r != y} (1 + F_r - F_y)_+ ; WW: sum_{r != y} (1 + F_r - F_y)_+  at F[:, t]
    k = F.shape[0]
    fy = F[y, t]
    s = 0.0
    for r in range(k):
        if r != y:
            h = 1.0 + F[r, t] - fy
            if h > 0.0:
                s = max(s, h) if kind == 0 else s + h
    return s


@njit(cache=True)
def _pass(kind, Kb, loc, in_order, diag, y, Cv, A, Fa, active, order):  # pragma: no cover
    """Exact block steps over ``active[order]``; returns (dual increase, blocks changed).

    ``Fa[:, t]`` holds the scores F_i = (K alpha)_i of example ``i = active[t]``; only the
    active examples' scores are kept up to date (libsvm-style shrinking). ``Kb`` holds the
    kernel among a superset of the active examples, ``active[t]`` at row and column
    ``loc[t]``; ``in_order`` says that ``loc`` is ``0 .. len(active) - 1`` (then a row is
    read as it lies, without gathering the active columns).
    """
    n_cls = A.shape[1]
    n_act = active.shape[0]
    v = np.empty(n_cls)
    a = np.empty(n_cls)
    d = np.empty(n_cls)
    dF = np.empty(n_cls, Fa.dtype)  # d in the scores' precision (float32 SIMD lanes)
    lo = np.empty(n_cls)
    hi = np.empty(n_cls)
    buf = np.empty(0 if in_order else n_act, Fa.dtype)
    gain = 0.0
    n_changed = 0
    for t in order:
        i = active[t]
        kii = max(diag[i], 1e-12)
        yi = y[i]
        # v = alpha_i + (e_y - F_i) / K_ii  (unconstrained block maximiser)
        for j in range(n_cls):
            v[j] = A[i, j] - Fa[j, t] / kii
        v[yi] += 1.0 / kii
        block_step(kind, v, yi, Cv[i], lo, hi, a, A[i, yi])
        changed = False
        dd = 0.0
        lin = 0.0
        for j in range(n_cls):
            d[j] = a[j] - A[i, j]
            dF[j] = d[j]
            changed = changed or d[j] != 0.0
            dd += d[j] * d[j]
            lin += d[j] * Fa[j, t]
            A[i, j] = a[j]
        if not changed:
            continue
        # D increase: d_y - <d, F_i> - K_ii/2 ||d||^2
        gain += d[yi] - lin - 0.5 * kii * dd
        n_changed += 1
        # F_j += d_j K[:, i] on the active examples (K symmetric: row i), the few changed
        # classes only; this reads the row once a pass, and the pass is bound by that read
        _add_row(Kb[loc[t]], loc, in_order, dF, Fa, buf)
    return gain, n_changed


@njit(cache=True)
def _add_row(Ki, loc, in_order, d, Fa, buf):  # pragma: no cover - numba
    """``Fa[j, u] += d[j] Ki[loc[u]]`` for the classes with ``d[j] != 0`` (``Ki`` read as
    it lies when ``in_order``, else gathered into ``buf`` once)."""
    n_act = loc.shape[0]
    if not in_order:
        for u in range(n_act):
            buf[u] = Ki[loc[u]]
    for j in range(d.shape[0]):
        dj = d[j]
        if dj != 0.0:
            Fj = Fa[j]
            if in_order:
                for u in range(n_act):
                    Fj[u] += dj * Ki[u]
            else:
                for u in range(n_act):
                    Fj[u] += dj * buf[u]


#: columns of a chunk of :func:`_add_changes` (a thread's share: 26 classes x 1024 float32
#: scores, 104 KiB, stay in the core's cache while the rows add to them)
_ADD_CHUNK = 1024
_ADD_ROWS = 32  # rows taken at a time: their per-class lists, and their chunks when gathered


@twin
def _add_changes(Kb, loc, in_order, rows, dA, Fa):  # pragma: no cover - numba
    # Fa[j, u] += dA[q, j] Kb[rows[q], loc[u]] for q = 0, 1, ... in order (the updates of
    # _pass one row after the other, bit for bit): _ADD_ROWS rows at a time, by chunks of
    # columns (a thread's share); in a chunk, class by class, four rows in one sweep of the
    # scores (one read and write of them per four rows: the sweep is bound by the cache)
    n_cls, n_act = Fa.shape
    n_rows = rows.shape[0]
    cnt = np.empty(n_cls, np.int64)
    who = np.empty((n_cls, _ADD_ROWS), np.int64)
    for g0 in range(0, n_rows, _ADD_ROWS):
        ng = min(_ADD_ROWS, n_rows - g0)
        cnt[:] = 0
        for q in range(ng):  # per class, the rows that change it, in order
            for j in range(n_cls):
                if dA[g0 + q, j] != 0.0:
                    who[j, cnt[j]] = q
                    cnt[j] += 1
        for c in prange((n_act + _ADD_CHUNK - 1) // _ADD_CHUNK):
            t0 = c * _ADD_CHUNK
            w = min(n_act, t0 + _ADD_CHUNK) - t0
            # the chunk of each row, gathered at the active columns (or read as it lies)
            S = np.empty((0 if in_order else ng, w), Kb.dtype)
            if not in_order:
                for q in range(ng):
                    Kq = Kb[rows[g0 + q]]
                    Sq = S[q]
                    for t in range(w):
                        Sq[t] = Kq[loc[t0 + t]]
            for j in range(n_cls):
                Fj = Fa[j][t0:t0 + w]
                h = 0
                while h + 4 <= cnt[j]:
                    q0, q1, q2, q3 = who[j, h], who[j, h + 1], who[j, h + 2], who[j, h + 3]
                    d0, d1 = dA[g0 + q0, j], dA[g0 + q1, j]
                    d2, d3 = dA[g0 + q2, j], dA[g0 + q3, j]
                    K0 = _chunk(Kb, S, rows, g0, q0, t0, w, in_order)
                    K1 = _chunk(Kb, S, rows, g0, q1, t0, w, in_order)
                    K2 = _chunk(Kb, S, rows, g0, q2, t0, w, in_order)
                    K3 = _chunk(Kb, S, rows, g0, q3, t0, w, in_order)
                    for t in range(w):  # the four adds in order: rounded as one by one
                        Fj[t] = (((Fj[t] + d0 * K0[t]) + d1 * K1[t]) + d2 * K2[t]) \
                            + d3 * K3[t]
                    h += 4
                while h < cnt[j]:
                    q0 = who[j, h]
                    d0 = dA[g0 + q0, j]
                    K0 = _chunk(Kb, S, rows, g0, q0, t0, w, in_order)
                    for t in range(w):
                        Fj[t] += d0 * K0[t]
                    h += 1


@njit(cache=True, inline="always")
def _chunk(Kb, S, rows, g0, q, t0, w, in_order):  # pragma: no cover - numba
    # row g0 + q of the group at the chunk's columns: as it lies, or its gathered copy
    return Kb[rows[g0 + q]][t0:t0 + w] if in_order else S[q][:w]


@njit(cache=True)
def _gap_terms(kind, y, Cv, A, Fa, active, g):  # pragma: no cover - numba
    # per example: C_i l(y_i, F_i) + <alpha_i, F_i> - alpha_{i y_i} >= 0 (Fenchel-Young);
    # examples outside ``active`` have alpha_i = 0 and are assumed to have zero loss
    k = A.shape[1]
    quad = 0.0
    lin = 0.0
    risk = 0.0
    for t in range(active.shape[0]):
        i = active[t]
        s = 0.0
        for j in range(k):
            s += A[i, j] * Fa[j, t]
        li = Cv[i] * _loss_t(kind, Fa, t, y[i])
        g[i] = max(li + s - A[i, y[i]], 0.0)
        quad += s
        lin += A[i, y[i]]
        risk += li
    return quad, lin, risk


@njit(cache=True)
def _shrinkable(A, Fa, active, y, out):  # pragma: no cover - numba
    # an example whose block sits at alpha_i = 0 with every margin > 1 has a null step
    k = A.shape[1]
    for t in range(active.shape[0]):
        i = active[t]
        fy = Fa[y[i], t]
        keep = False
        for j in range(k):
            if A[i, j] != 0.0 or (j != y[i] and 1.0 + Fa[j, t] - fy >= 0.0):
                keep = True
                break
        out[t] = not keep


#: columns of one chunk of :func:`_scores_by_rows` (a thread's share: the chunk of the
#: scores, 26 classes x 512 float64 = 104 KiB, stays in the core's cache while every row
#: adds to it)
_CHUNK = 512


@twin
def _scores_by_rows(K, sv, starts, cls, val, cols, out):  # pragma: no cover - numba
    # out[j, t] = sum over nonzeros (s, j, a) of alpha: a K[s, cols[t]] (K symmetric), the
    # nonzeros grouped by row s (sv[r], classes cls[starts[r]:starts[r + 1]]); by chunks of
    # columns, each summed in float64 in the order of the nonzeros, one vector add per
    # nonzero (a row's chunk read once)
    n_cls, m = out.shape
    for c in prange((m + _CHUNK - 1) // _CHUNK):
        t0 = c * _CHUNK
        w = min(m, t0 + _CHUNK) - t0
        acc = np.zeros((n_cls, w))
        kr = np.empty(w)
        for r in range(sv.shape[0]):
            Ks = K[sv[r]]
            for t in range(w):
                kr[t] = Ks[cols[t0 + t]]
            for q in range(starts[r], starts[r + 1]):
                a = acc[cls[q]]
                v = val[q]
                for t in range(w):
                    a[t] += v * kr[t]
        for j in range(n_cls):
            for t in range(w):
                out[j, t0 + t] = acc[j, t]


def _scores(K, A, cols, dtype=np.float64):
    """``(K alpha)[cols].T``, shape (n_classes, len(cols)), in ``dtype``, from the nonzeros
    of alpha (summed in float64): the rows ``K[s]`` of the support vectors s at the columns
    ``cols`` (K is symmetric), each read once, times the nonzeros of ``alpha_s``."""
    sv, cls = np.nonzero(A)  # row-major: grouped by row s, in order
    rows, starts = np.unique(sv, return_index=True)
    starts = np.append(starts, len(sv)).astype(np.int64)
    out = np.empty((A.shape[1], cols.shape[0]), dtype)
    _scores_by_rows(K, rows.astype(np.int64), starts, np.ascontiguousarray(cls, np.int64),
                    A[sv, cls], np.ascontiguousarray(cols, dtype=np.int64), out,
                    work=len(cols) * len(sv))
    return out


class _Active:
    """The active examples ``idx``, their live scores ``F[:, t] = (K alpha)_{idx[t]}`` and
    the kernel among them: ``idx[t]`` at row and column ``loc[t]`` of ``Kb``, which is
    ``K = rows.matrix()`` or the compact block (module notes), the data of ``block``:
    ``rows`` restricted to the columns it had active then, row c in slot c."""

    def __init__(self, rows, K, A, dtype):
        self.rows, self.K = rows, K
        self.idx = self.loc = np.arange(K.shape[0])
        # the live scores in ``dtype``: float32 (with a float32 K) halves their traffic and
        # doubles the SIMD lanes of the sweeps; their drift is removed before stopping
        self.F = _scores(K, A, self.idx, dtype)
        self.Kb = K
        self.block = None  # the RestrictedRows of the compact block, once made

    @property
    def in_order(self) -> bool:
        """Whether ``loc`` is ``0 .. len(idx) - 1`` (rows of Kb read as they lie)."""
        return self.Kb.shape[0] == self.idx.shape[0]

    def keep(self, mask) -> None:
        """Only the examples of ``mask`` stay active; the kernel block is compacted once
        they are at most ``_COMPACT_BELOW`` of it."""
        self.idx, self.loc = self.idx[mask], self.loc[mask]
        self.F = np.ascontiguousarray(self.F[:, mask])
        if np.any(self.loc < 0):  # examples back from a refresh, not in Kb: K again
            self.Kb, self.loc = self.K, self.idx
        if self.idx.shape[0] <= _COMPACT_BELOW * self.Kb.shape[0]:
            self._compact()

    def refresh(self, A, every: bool = False) -> None:
        """Every example active, the shrunk ones (``every``: all) with scores recomputed
        from the nonzeros of alpha; Kb kept, its rows known for the examples that were
        active (``loc = -1`` for the others, until :meth:`keep`)."""
        n = self.K.shape[0]
        F = np.empty((A.shape[1], n), self.F.dtype)
        F[:, self.idx] = self.F
        loc = np.full(n, -1)
        loc[self.idx] = self.loc
        idle = np.arange(n) if every else np.flatnonzero(loc < 0)
        F[:, idle] = _scores(self.K, A, idle, F.dtype)
        self.idx, self.F, self.loc = np.arange(n), F, loc
        if self.Kb is self.K:
            self.loc = self.idx

    def _compact(self) -> None:
        """K among the active examples as the block of ``rows.restrict`` (m x m in column
        order: it fits the budget of K's rows), in the storage of the last block: narrowed
        where it lies when the active examples are among its columns, else copied from K
        (a new storage only when the old one is too small)."""
        m = self.idx.shape[0]
        if (self.block is None or self.block.capacity < m * m) and \
                not fits_in_memory(m * m * self.K.dtype.itemsize):
            return  # rows keep being gathered from K
        self.block = self.rows.restrict(self.idx, self.block, in_place=True)
        self.Kb, self.loc = self.block.data, np.arange(m)


# ------------------------------------------------------------------ public API
def multiclass_dual_objective(K, y, A) -> float:
    """``D(alpha) = sum_i alpha_{i y_i} - 1/2 sum_j alpha_{:j}^T K alpha_{:j}``."""
    A = np.asarray(A, dtype=np.float64)
    y = np.asarray(y)
    return float(A[np.arange(len(y)), y].sum() - 0.5 * np.sum(A * (K @ A)))


def _loss_kind(loss) -> int:
    if isinstance(loss, MulticlassLoss):
        return loss._kind
    if not isinstance(loss, str) or loss.lower() not in _LOSSES:
        raise ValueError(
            f"Unknown multiclass loss {loss!r}; use 'crammer_singer' or 'weston_watkins' "
            "(or a kernelkit.losses.CrammerSinger / WestonWatkins instance)."
        )
    return _LOSSES[loss.lower()]


class _Loops(NamedTuple):
    """The numba loops of one solve: compiled, or for a small problem in a process that has
    not compiled them yet, their own code run by CPython (``kernelkit._core.interpreted``)."""

    block_pass: object
    add_changes: object
    gap_terms: object
    shrinkable: object


def _loops(n: int) -> _Loops:
    # the update of all scores is a twin: interpreted, serial or parallel by its work
    return _Loops(pick(_pass, n), _add_changes, pick(_gap_terms, n), pick(_shrinkable, n))


def _objectives(lp, kind, y, Cv, A, Fa, active, g):
    """Primal, dual and relative duality gap on the active examples."""
    quad, lin, risk = lp.gap_terms(kind, y, Cv, A, Fa, active, g)
    primal, dual = 0.5 * quad + risk, lin - 0.5 * quad
    return primal, dual, max(primal - dual, 0.0) / max(primal, np.finfo(float).tiny)


def _check_problem(K, y, n_classes, C, alpha):
    """``(rows, K, y, C per example)`` validated: kernel rows (a matrix given is wrapped)
    and their whole matrix K, square and float, class indices, C >= 0."""
    rows = K if isinstance(K, KernelRows) else None
    K = rows.matrix() if rows is not None else np.asarray(K)
    if K.dtype not in (np.float32, np.float64):
        K = K.astype(np.float64)
    K = np.ascontiguousarray(K)
    n = K.shape[0]
    if K.ndim != 2 or K.shape[1] != n:
        raise ValueError(f"K must be a square (n, n) matrix; got shape {K.shape}.")
    if rows is None or K is not rows.data:  # the compact blocks are restricted from K
        rows = as_kernel_rows(K)
    y = np.ascontiguousarray(y, dtype=np.int64)
    if y.shape != (n,) or n_classes < 2 or (n and (y.min() < 0 or y.max() >= n_classes)):
        raise ValueError("y must hold n class indices in 0 .. n_classes - 1, n_classes >= 2.")
    if C is not None and alpha is not None:
        raise ValueError("Give either C or alpha, not both.")
    if alpha is not None:
        if not alpha > 0:
            raise ValueError(f"alpha must be > 0; got {alpha!r}.")
        C = 1.0 / (2.0 * alpha * n)
    Cv = np.broadcast_to(np.asarray(1.0 if C is None else C, dtype=np.float64), (n,)).copy()
    if not np.all(np.isfinite(Cv)) or np.any(Cv < 0):
        raise ValueError("C must be finite and >= 0 (and > 0 as a scalar).")
    return rows, K, y, Cv


def solve_multiclass_cd(
    K: KernelRows | np.ndarray,
    y: np.ndarray,
    n_classes: int,
    C: float | np.ndarray | None = None,
    *,
    alpha: float | None = None,
    loss="crammer_singer",
    tol: float = 1e-3,
    max_iter: int = 1000,
    shrinking: bool = True,
    coef_init: np.ndarray | None = None,
    random_state: int | None = 0,
    callback=None,
) -> Result:
    """Solve the kernel multiclass SVM dual by exact per-example block coordinate ascent.

    Parameters
    ----------
    K : KernelRows (room for the whole matrix: ``matrix()``, then ``restrict``), or the
        symmetric PSD ndarray (n, n), float64 or float32 (half the memory; alpha: float64).
    y : array of int of shape (n,)
        Class indices in ``0 .. n_classes - 1``.
    n_classes : int
    C : float or ndarray of shape (n,), optional
        Weight of each example's loss in ``1/2 sum_j ||f_j||^2 + sum_i C_i l(y_i, f(x_i))``
        (an array gives per-example weights, e.g. ``C * sample_weight``). Default 1.
    alpha : float, optional
        Alternative to ``C`` for the regularized-risk form
        ``(1/n) sum_i l(y_i, f(x_i)) + alpha sum_j ||f_j||^2``, i.e. ``C = 1 / (2 alpha n)``
        (same minimiser). Give at most one of ``C`` and ``alpha``.
    loss : {"crammer_singer", "weston_watkins"} or a multiclass Loss instance
    tol : float
        Stop when the duality gap ``P - D <= tol * P`` (relative gap).
    max_iter : int
        Maximum number of passes (each the sweeps of the module notes, then the gap);
        reaching it warns ``ConvergenceWarning`` with the gap.
    shrinking : bool
        Skip examples at ``alpha_i = 0`` with all margins above 1 (see module notes).
    coef_init : ndarray of shape (n, n_classes), optional
        Feasible warm start (e.g. the previous solution on a path of C).
    random_state : int or None
        Seed of the pass order (a random permutation per pass).
    callback : callable, optional
        Called as ``callback(n_iter, coef, relative_gap)`` after each pass (``coef`` is
        the live (n, n_classes) array: read it, do not modify it).

    Returns
    -------
    Result
        ``coef`` (n, n_classes) dual coefficients alpha (f_j = sum_i alpha_ij k(x_i, .)),
        ``history`` the relative duality gap after each pass, and ``info`` with
        ``dual_objective``, ``primal_objective``, ``gap``, ``scores`` (K alpha, shape
        (n, n_classes)) and ``n_active``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.solvers import solve_multiclass_cd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    >>> res = solve_multiclass_cd(np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), y, 3, C=1.0)
    >>> res.converged, res.coef.shape
    (True, (60, 3))
    """
    kind = _loss_kind(loss)
    rows, K, y, Cv = _check_problem(K, y, n_classes, C, alpha)
    res = _ascend(kind, rows, K, y, Cv, _start(coef_init, K.shape[0], n_classes), tol, max_iter,
                  shrinking, np.random.default_rng(random_state), callback)
    if not res.converged:
        warnings.warn(
            f"solve_multiclass_cd reached max_iter={max_iter} with relative duality gap "
            f"{res.info['relative_gap']:.3g} (absolute {res.info['gap']:.3g}) > tol={tol}; "
            "increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return res


def _start(coef_init, n, n_classes):
    """The starting alpha: a float64 copy of ``coef_init``, or zeros."""
    A = np.zeros((n, n_classes))
    if coef_init is not None:
        A[:] = coef_init
    return A


def _ascend(kind, rows, K, y, Cv, A, tol, max_iter, shrinking, rng, callback) -> Result:
    """Passes of block coordinate ascent on ``A`` (in place), shrinking as the module notes
    say, until the relative gap of all examples is at most ``tol`` or ``max_iter`` passes."""
    n = K.shape[0]
    lp = _loops(n)
    diag = np.ascontiguousarray(np.diag(K), dtype=np.float64)
    # the active examples, their scores and the kernel among them
    st = _Active(rows, K, A, K.dtype if tol >= _FLOAT32_SCORES_TOL else np.float64)
    g = np.zeros(n)
    history = []
    converged = False
    gap = rel = np.inf
    primal = dual = 0.0
    n_iter = refreshed = 0

    for n_iter in range(1, max_iter + 1):
        if n_iter <= 2 or (n_iter - 1) % _FULL_EVERY == 0:
            lp.block_pass(kind, st.Kb, st.loc, st.in_order, diag, y, Cv, A, st.F, st.idx,
                          rng.permutation(st.idx.shape[0]))
        primal, dual, rel = _objectives(lp, kind, y, Cv, A, st.F, st.idx, g)
        drift = st.F.dtype != np.float64  # float32 live scores drift by rounding
        if (rel <= tol and drift) or (st.idx.shape[0] < n and (
                rel <= tol or n_iter - refreshed >= _REFRESH_EVERY)):
            refreshed = n_iter
            # the shrunk examples' losses were assumed zero: check them with fresh scores
            # (alpha_i = 0 there, so only their loss terms change); violators come back.
            # Before stopping on float32 scores, all of them are formed again
            st.refresh(A, every=rel <= tol and drift)
            primal, dual, rel = _objectives(lp, kind, y, Cv, A, st.F, st.idx, g)
        gap = max(primal - dual, 0.0)
        history.append(rel)
        if callback is not None:
            callback(n_iter, A, rel)
        if rel <= tol:
            converged = True
            break
        if shrinking:
            _shrink(lp, A, st, y)
        _solve_working_set(lp, kind, st, diag, y, Cv, A, _working_set(g, st.idx), rng)
    if st.idx.shape[0] < n:
        st.refresh(A)
    info = {"dual_objective": dual, "primal_objective": primal, "gap": gap,
            "relative_gap": rel, "scores": np.ascontiguousarray(st.F.T, dtype=np.float64),
            "n_active": int(st.idx.shape[0])}
    return Result(coef=A, n_iter=n_iter, converged=converged, history=history, info=info)


def _solve_working_set(lp, kind, st, diag, y, Cv, A, ws, rng):
    """Sweeps over the working set ``st.idx[ws]`` only, then one update of every score.

    The examples with the largest gap terms hold most of the gap (on letters the fifth of
    them with the largest terms holds 75-85%). While they are swept, only their own scores
    are needed: the sweeps run on the kernel among them (``|ws|^2``) and the scores of
    every active example then take the change of alpha in one pass over ``|ws|`` rows.
    The sweeps stop once one raises the dual by at most ``_WORKING_SET_GAIN`` of the
    first's increase (their gains decay slowly where the subproblem is ill-conditioned).
    """
    if ws.shape[0] == 0:
        return
    m = ws.shape[0]
    sub = st.idx[ws]
    lw = st.loc[ws]
    Kw = np.empty((m, m), st.Kb.dtype)
    gather_rows(st.Kb, lw, lw, Kw, np.arange(m), work=m * m)
    before = A[sub]
    Fw = np.ascontiguousarray(st.F[:, ws])
    first = None
    for _ in range(_WORKING_SET_PASSES):
        gain = lp.block_pass(kind, Kw, np.arange(m), True, diag, y, Cv, A, Fw, sub,
                             rng.permutation(m))[0]
        first = gain if first is None else first
        if gain <= _WORKING_SET_GAIN * first:
            break
    lp.add_changes(st.Kb, st.loc, st.in_order, lw, (A[sub] - before).astype(st.F.dtype), st.F,
                   work=m * st.idx.shape[0])


def _shrink(lp, A, st, y) -> None:
    """Drop the active examples that :func:`_shrinkable` finds (after a refresh, keep the
    rest, so that the examples back from it get their kernel rows); an active set in its
    block's order waits until the drop compacts the block."""
    out = np.zeros(st.idx.shape[0], dtype=np.bool_)
    lp.shrinkable(A, st.F, st.idx, y, out)
    if np.any(st.loc < 0):
        st.keep(~out)
    elif out.any():
        # an active set in the order of its block (rows read as they lie) is kept whole
        # until the drop compacts it: a few examples fewer would have every kernel row
        # gathered instead (a sweep 1.5x as long on 10,000 letters)
        n_keep = st.idx.shape[0] - int(np.count_nonzero(out))
        if st.in_order and n_keep > _COMPACT_BELOW * st.Kb.shape[0]:
            return
        st.keep(~out)


def _working_set(g, active):
    """Positions in ``active`` of the ``_WORKING_SET_SHARE`` with the largest positive gap
    terms ``g`` (the per-example Fenchel-Young terms of the last objective)."""
    ga = g[active]
    ws = np.flatnonzero(ga > 0.0)
    m = int(np.ceil(_WORKING_SET_SHARE * active.shape[0]))
    if ws.shape[0] > m:
        ws = ws[np.argpartition(-ga[ws], m - 1)[:m]]
    return np.sort(ws)
