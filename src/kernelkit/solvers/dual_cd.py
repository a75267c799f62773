"""Dual coordinate descent for kernel machines without equality constraint (numba).

Minimises the negative Fenchel dual of ``P(f) = 1/2 ||f||^2 + sum_i C_i l(y_i, f(x_i))``::

    -D(a) = 1/2 a^T K a + sum_i C_i l*(y_i, -a_i / C_i),   a in the loss's box,

one coordinate at a time with the loss's exact dual step (:meth:`Loss.dual_step`, see
:mod:`kernelkit.losses.base`), keeping ``f = K a`` up to date. Variables stuck at a bound
are shrunk (liblinear's projected-gradient rule) and the stopping rule is the relative
duality gap ``(P - D) <= tol * max(|P|, |D|)`` evaluated on all variables (the outputs of
shrunk variables are recomputed before the final check).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numba import njit

from .._core.result import Result
from ..exceptions import ConvergenceWarning
from ..linalg.row_cache import resume_entry, take_row
from ..linalg.rows import as_kernel_rows
from ..losses.base import quadratic_box_step
from ..losses.classification import logistic_dual_step

__all__ = ["solve_dual_cd", "dual_gap"]

_QUADRATIC, _LOGISTIC = 0, 1
_CONVERGED, _MAX_ITER, _NEED_ROW, _CHECK = 0, 1, 2, 3


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)  # noqa: NPY002 - numba supports only the legacy RNG


@njit(cache=True)
def _loss_terms(kind, y, f, a, C, c2, eps, lo, hi):
    """``(C l(y, f), C l*(y, -a/C))`` for one sample."""
    if kind == _LOGISTIC:
        u = -y * f
        lv = C * (max(u, 0.0) + np.log1p(np.exp(-abs(u))))
        t = y * a / C
        cv = 0.0
        if t > 0.0:
            cv += t * np.log(t)
        if t < 1.0:
            cv += (1.0 - t) * np.log(1.0 - t)
        return lv, C * cv
    # C l(y, f) = max_{lo<=b<=hi} b (y - f) - c2 b^2 / (2C) - eps |b|
    r = y - f
    if c2 > 0.0:
        bs = min(max(C * _soft(r, eps) / c2, lo), hi)
        lv = bs * r - c2 * bs * bs / (2.0 * C) - eps * abs(bs)
    else:
        lv = -np.inf
        for bs in (lo, hi, min(max(0.0, lo), hi)):
            if np.isfinite(bs):
                lv = max(lv, bs * r - eps * abs(bs))
    cv = -y * a + c2 * a * a / (2.0 * C) + eps * abs(a)
    return lv, cv


@njit(cache=True)
def _soft(z, eps):
    if z > eps:
        return z - eps
    if z < -eps:
        return z + eps
    return 0.0


@njit(cache=True)
def _gap(kind, y, f, a, Cs, c2, eps, lo, hi):
    """Primal ``P``, dual ``D`` (both in the C scaling)."""
    quad = 0.0
    lsum = 0.0
    csum = 0.0
    for i in range(y.shape[0]):
        lv, cv = _loss_terms(kind, y[i], f[i], a[i], Cs[i], c2, eps, lo[i], hi[i])
        quad += a[i] * f[i]
        lsum += lv
        csum += cv
    return 0.5 * quad + lsum, -0.5 * quad - csum


class _Vars(NamedTuple):
    """The loop's variables ``a``, outputs ``f = K a`` and the problem's constants."""

    a: np.ndarray
    f: np.ndarray
    y: np.ndarray
    Cs: np.ndarray  # weight C_i of each loss term
    lo: np.ndarray  # the loss's dual box
    hi: np.ndarray


# The loop's state, kept between its calls: one record of named fields (a one-element
# structured array, one argument numba's dispatcher types fast; the loop writes
# ``s = st[0]; s.position = ...``).
_STATE = np.dtype([
    ("n_epochs", np.int64),
    ("n_active", np.int64),  # size of the active set (its first entries)
    ("position", np.int64),  # position in the current epoch
    ("need_row", np.int64),  # the row asked for (status _NEED_ROW)
    ("pg_max_old", np.float64),  # liblinear's shrinking thresholds of the last epoch
    ("pg_min_old", np.float64),
    ("pg_max_new", np.float64),  # and of this one
    ("pg_min_new", np.float64),
    ("primal", np.float64),  # P and D at the last check
    ("dual", np.float64),
])


def _start_state(n: int) -> np.recarray:
    """The state of a fresh solve (a recarray view: ``st.n_epochs[0]`` reads in Python)."""
    st = np.zeros(1, _STATE).view(np.recarray)
    st.n_active, st.need_row = n, -1
    st.pg_max_old, st.pg_min_old, st.pg_max_new, st.pg_min_new = np.inf, -np.inf, -np.inf, \
        np.inf
    st.primal = st.dual = np.nan
    return st


class _Settings(NamedTuple):
    kind: int  # _QUADRATIC or _LOGISTIC
    c2: float  # the quadratic-box conjugate's constants (losses.base)
    eps: float
    tol: float  # relative duality gap to stop at
    max_epochs: int
    shrinking: bool


@njit(cache=True)
def _cd_loop(v, rows, active, st, cfg):
    """Epochs of randomised coordinate descent; returns a status (see module constants).

    ``v`` the variables (:class:`_Vars`), ``rows`` the kernel rows
    (:class:`~kernelkit.linalg.row_cache.RowsView`), ``active`` the active list (its first
    ``n_active`` entries), ``st`` the state (a one-element array of ``_STATE`` records),
    ``cfg`` the settings (:class:`_Settings`).
    """
    a, f, y, Cs, lo, hi = v
    s = st[0]
    kind, c2, eps, shrinking = cfg.kind, cfg.c2, cfg.eps, cfg.shrinking
    kd = rows.diag
    n = a.shape[0]
    while True:
        if s.n_epochs >= cfg.max_epochs:
            return _MAX_ITER
        n_active = s.n_active
        k = s.position
        if k == 0:
            np.random.shuffle(active[:n_active])  # noqa: NPY002
            s.pg_max_new = -np.inf
            s.pg_min_new = np.inf
        # the epoch's thresholds in locals (registers), written back when the loop leaves
        pg_max_old, pg_min_old = s.pg_max_old, s.pg_min_old
        pg_max_new, pg_min_new = s.pg_max_new, s.pg_min_new
        while k < n_active:
            i = active[k]
            C = Cs[i]
            ai = a[i]
            # gradient of -D along a_i (min-norm subgradient for the eps |a| term)
            g = f[i] - y[i]
            if kind == _QUADRATIC:
                g += c2 * ai / C
                if ai > 0.0:
                    g += eps
                elif ai < 0.0:
                    g -= eps
                else:
                    g = _soft(g, eps)
            else:
                t = y[i] * ai / C
                t = min(max(t, 1e-300), 1.0 - 1e-16)
                g = f[i] + y[i] * np.log(t / (1.0 - t))
            pg = g
            if ai <= lo[i]:
                if shrinking and g > pg_max_old:
                    n_active -= 1
                    active[k] = active[n_active]
                    active[n_active] = i
                    continue
                pg = min(g, 0.0)
            elif ai >= hi[i]:
                if shrinking and g < pg_min_old:
                    n_active -= 1
                    active[k] = active[n_active]
                    active[n_active] = i
                    continue
                pg = max(g, 0.0)
            pg_max_new = max(pg_max_new, pg)
            pg_min_new = min(pg_min_new, pg)
            q = kd[i]
            if kind == _LOGISTIC:
                new = logistic_dual_step(y[i], ai, f[i], q, C)
            else:
                new = quadratic_box_step(y[i], ai, f[i], q, C, c2, eps, lo[i], hi[i])
            delta = new - ai
            if delta != 0.0:
                slot = take_row(rows, i)
                if slot < 0:
                    s.pg_max_new, s.pg_min_new = pg_max_new, pg_min_new
                    s.n_active = n_active
                    s.position = k
                    s.need_row = i
                    return _NEED_ROW
                Ki = rows.data[slot]
                # f = K a: f_u += delta K_ui over the active variables
                for kk in range(n_active):
                    u = active[kk]
                    f[u] += delta * Ki[u]
                a[i] = new
            k += 1
        s.pg_max_new, s.pg_min_new = pg_max_new, pg_min_new
        s.n_epochs += 1
        s.n_active = n_active
        s.position = 0
        # liblinear: thresholds for the next epoch's shrinking
        s.pg_max_old = s.pg_max_new if s.pg_max_new > 0.0 else np.inf
        s.pg_min_old = s.pg_min_new if s.pg_min_new < 0.0 else -np.inf
        P, D = _gap(kind, y, f, a, Cs, c2, eps, lo, hi)
        s.primal = P
        s.dual = D
        if P - D <= cfg.tol * max(abs(P), abs(D), 1e-300):
            if n_active < n:
                return _CHECK  # exact check with recomputed outputs of shrunk variables
            return _CONVERGED


def dual_gap(loss, K, y, a, C) -> tuple[float, float]:
    """Primal and dual objective ``(P(Ka), D(a))`` in the C scaling (reference / reporting).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.losses import Squared
    >>> from kernelkit.solvers.dual_cd import dual_gap
    >>> K = np.eye(2); y = np.array([1.0, -1.0])
    >>> a = np.linalg.solve(K + np.eye(2) / (2 * 1.0), y)  # optimum for C = 1
    >>> P, D = dual_gap(Squared(), K, y, a, 1.0)
    >>> bool(abs(P - D) < 1e-12)
    True
    """
    a = np.asarray(a, dtype=float)
    f = np.asarray(K) @ a
    Cs = np.broadcast_to(np.asarray(C, dtype=float), a.shape)
    P = 0.5 * a @ f + np.sum(Cs * loss.value(y, f))
    D = -0.5 * a @ f - np.sum(Cs * loss.conjugate(y, -a / Cs))
    return float(P), float(D)


def _start(kind, alpha0, y, Cs, lo, hi, rows):
    """The starting point ``a`` (in the box) and its outputs ``f = K a``."""
    n = y.shape[0]
    a = np.zeros(n) if alpha0 is None else np.clip(np.array(alpha0, dtype=np.float64), lo, hi)
    if kind == _LOGISTIC:  # the entropy needs y a / C strictly inside (0, 1)
        t = np.full(n, 1e-3) if alpha0 is None else np.clip(y * a / Cs, 1e-8, 1 - 1e-8)
        a = y * Cs * t
    f = np.zeros(n)
    nz = np.flatnonzero(a)
    if len(nz):
        f = rows.rows_dot(np.arange(n), nz, a[nz])
    return a, f


def _dual_step_kind(loss):
    """``(kind, c2, eps)``: a quadratic-box conjugate (its two constants) or the logistic."""
    if loss.dual_quadratic is not None:
        c2, eps = (float(v) for v in loss.dual_quadratic)
        return _QUADRATIC, c2, eps
    if getattr(loss, "name", "") == "logistic":
        return _LOGISTIC, 0.0, 0.0
    raise ValueError(f"Loss {loss!r} has no dual coordinate step; use solver='newton'.")


def solve_dual_cd(
    K,
    y,
    loss,
    C,
    *,
    X=None,
    alpha0=None,
    tol: float = 1e-5,
    max_iter: int = 1000,
    shrinking: bool = True,
    random_state=None,
    working_memory: float | None = None,
    warn: bool = True,
    callback=None,
) -> Result:
    """Dual coordinate descent for ``min_a 1/2 a^T K a + sum_i C_i l*(y_i, -a_i/C_i)``.

    The solution gives ``f = K a`` minimising ``1/2 ||f||^2 + sum_i C_i l(y_i, f_i)``: with
    the estimators' objective ``(1/m) sum l + alpha ||f||^2`` use ``C = 1 / (2 alpha m)``.
    No intercept (no equality constraint); use :func:`solve_smo` for one.

    Parameters
    ----------
    K : ndarray (n, n), KernelRows or Kernel
        Kernel matrix (or a kernel with ``X``: dense when it fits in working memory, else an
        LRU row cache).
    y : ndarray (n,)
        Targets (regression) or labels in {-1, +1} (binary classification).
    loss : Loss or str
        Any loss with a dual step: a quadratic-box conjugate (``loss.dual_quadratic``) or the
        logistic loss.
    C : float or ndarray (n,)
        Weight of each loss term (sample weights multiply it).
    alpha0 : ndarray (n,), optional
        Starting point (clipped to the box); default zeros.
    tol : float, default=1e-5
        Relative duality gap ``(P - D) / max(|P|, |D|)`` at which to stop.
    max_iter : int, default=1000
        Maximum number of epochs (passes over the active variables).
    shrinking : bool, default=True
    random_state : int, RandomState or None
        Order of the coordinates in each epoch.
    working_memory : float, optional
    warn : bool, default=True
        Warn ConvergenceWarning with the duality gap reached at ``max_iter``.
    callback : callable, optional
        ``callback(n_epochs, alpha, relative_gap)`` at every duality-gap check.

    Returns
    -------
    Result
        ``coef`` = a; ``history``: relative gap after each check; ``info``: ``gap``
        (``P - D``), ``primal``, ``dual``, ``f`` (= K a).

    Examples
    --------
    The hinge-loss one-class problem of the notes (y = 1, box [0, C/m], no offset):

    >>> import numpy as np
    >>> from kernelkit.solvers import solve_dual_cd
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    >>> res = solve_dual_cd(K, np.ones(30), "hinge", 1.0 / 30, tol=1e-10, random_state=0)
    >>> res.converged, bool(res.coef.min() >= 0), bool(res.coef.max() <= 1 / 30 + 1e-15)
    (True, True, True)
    """
    rows, y, Cs, step, lo, hi = _problem(K, X, y, loss, C, working_memory)
    a, f = _start(step[0], alpha0, y, Cs, lo, hi, rows)
    res = _run_cd(rows, a, f, y, Cs, lo, hi, step, float(tol), int(max_iter),
                  bool(shrinking), random_state, callback)
    if not res.converged and warn:
        warnings.warn(
            f"Dual coordinate descent reached max_iter={max_iter} epochs with duality gap "
            f"{res.info['gap']:.3g} (relative {res.history[-1]:.3g} > tol={tol}); increase "
            "max_iter or tol.", ConvergenceWarning, stacklevel=2)
    return res


def _problem(K, X, y, loss, C, working_memory):
    """The validated problem: ``(rows, y, C per sample, (kind, c2, eps), lo, hi)``."""
    from ..losses import resolve_loss

    loss = resolve_loss(loss)
    rows = as_kernel_rows(K, X, working_memory=working_memory)
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.shape[0]
    if rows.n != n:
        raise ValueError(f"K has {rows.n} rows but y has {n} entries.")
    Cs = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)))
    if np.any(~np.isfinite(Cs)) or np.any(Cs <= 0):
        raise ValueError("C must be finite and > 0 (for every sample).")
    step = _dual_step_kind(loss)
    lo, hi = loss.dual_box(y, Cs)
    lo = np.ascontiguousarray(np.broadcast_to(lo, (n,)), dtype=np.float64)
    hi = np.ascontiguousarray(np.broadcast_to(hi, (n,)), dtype=np.float64)
    return rows, y, Cs, step, lo, hi


def _run_cd(rows, a, f, y, Cs, lo, hi, step, tol, max_iter, shrinking, random_state,
            callback) -> Result:
    """Drive the numba loop from ``(a, f = K a)`` (updated in place) to its stop.

    The coordinates are visited in an order drawn from ``random_state``. The loop returns
    to Python to fetch a kernel row it lacks, and, with variables shrunk, for the gap
    check on all of them (the shrunk outputs recomputed first).
    """
    from sklearn.utils import check_random_state

    rs = check_random_state(random_state)
    _seed(int(rs.randint(np.iinfo(np.int32).max)))
    kind, c2, eps = step
    n = y.shape[0]
    active = np.arange(n, dtype=np.int64)
    v = _Vars(a, f, y, Cs, lo, hi)
    st = _start_state(n)
    cfg = _Settings(kind, c2, eps, tol, max_iter, shrinking)
    history = []
    args = (v, rows.view(), active, st.view(np.ndarray), cfg)
    loop = None
    while True:
        status = (loop or _cd_loop)(*args)
        loop = loop or resume_entry(_cd_loop, args)  # typed once, not at every row
        if status == _NEED_ROW:
            rows.fetch(int(st.need_row[0]))
            continue
        if st.n_active[0] < n and status in (_CHECK, _MAX_ITER):
            # recompute the outputs of shrunk variables, then check on all of them
            inactive = active[st.n_active[0]:]
            nz = np.flatnonzero(a)
            f[inactive] = rows.rows_dot(inactive, nz, a[nz])
            P, D = _gap(kind, y, f, a, Cs, c2, eps, lo, hi)
            st.primal[0], st.dual[0] = P, D
            history.append((P - D) / max(abs(P), abs(D), 1e-300))
            if callback is not None:
                callback(int(st.n_epochs[0]), a, history[-1])
            if status == _CHECK and P - D > tol * max(abs(P), abs(D), 1e-300):
                st.n_active[0] = n  # unshrink and continue
                st.pg_max_old[0], st.pg_min_old[0] = np.inf, -np.inf
                continue
        else:
            P, D = st.primal[0], st.dual[0]
            history.append((P - D) / max(abs(P), abs(D), 1e-300))
            if callback is not None:
                callback(int(st.n_epochs[0]), a, history[-1])
        break
    info = dict(gap=float(P - D), primal=float(P), dual=float(D), f=f,
                n_kernel_rows=rows.n_computed)
    return Result(coef=a, n_iter=int(st.n_epochs[0]),
                  converged=status in (_CONVERGED, _CHECK),
                  history=history, info=info)
