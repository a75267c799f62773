"""Block-coordinate Frank-Wolfe for the structured SVM dual (Lacoste-Julien et al., 2013).

One block per example. At block i the linear subproblem over C * simplex is solved by
loss-augmented inference, y* = argmax_y Delta(y_i, y) - <w, psi_i(y)>; its corner is
w_s = C psi_i(y*), ell_s = C Delta(y_i, y*) (or w_s = 0 when y* violates nothing). The block
duality gap and the exact line search are

    g_i = (ell_s - ell_i) - <w, w_s - w_i>,   gamma = clip(g_i / ||w_s - w_i||^2, 0, 1),

then w_i <- w_i + gamma (w_s - w_i), ell_i <- ell_i + gamma (ell_s - ell_i). After every
pass the exact duality gap P - D (one inference per example) is computed; the solver stops
when it is <= tol * P (a relative duality gap: the objective is within a fraction tol of
its optimum, whatever the scale of C and n). After 50 passes the steps become pairwise
(mass moves from the worst active output of the block to y*),
which removes the zig-zag of plain FW near the optimum (see :func:`solve_bcfw`).
"""

from __future__ import annotations

import numpy as np

from .._core.progress import progress_bar
from .._core.result import Result
from ._chain_bcfw import ChainBlocks, chain_fast_path
from ._dual import DualState

__all__ = ["solve_bcfw"]

# passes of plain BCFW (with iterate averaging) before switching to pairwise steps
_PAIRWISE_AFTER = 50

# the chain pass computes the exact gap at least every this many passes, and when the
# estimate, scaled by the last exact / estimate ratio, is within this margin of tol
_CHECK_EVERY = 10
_MARGIN = 1.2


def _block_step(st: DualState, i: int) -> float:
    """One Frank-Wolfe step on block i; returns the block gap g_i."""
    a, b = st.rows(i)
    sc = st.scores(i)
    z_true = st.Z[a:b]
    z = st.oracle.argmax(st.parts[a:b], sc, z_true)  # loss-augmented inference
    C = st.C
    new = None
    if (z != z_true).any():
        dU1, dt1 = st.psi(i, z)
        loss = float(st.oracle.task_loss(z_true, z))
        if loss - st.inner_w(sc.unary, dU1, dt1) > 0.0:  # H_i(y*) > 0: a violated output
            new = z
            dU_s, dt_s, ell_s = C * dU1, C * dt1, C * loss
    if new is None:  # the corner alpha_i = C e_{y_i}: w_s = 0, ell_s = 0
        dU_s, dt_s, ell_s = 0.0, 0.0, 0.0
    dU = dU_s - st.field.U[a:b]
    dt = dt_s - st.tau_blk[i]
    gap = (ell_s - st.ell[i]) - st.inner_w(sc.unary, dU, dt)
    if gap <= 0.0:
        return 0.0
    q = st.sq_norm(i, dU, dt)
    gamma = 1.0 if q <= 0.0 else min(1.0, gap / q)  # exact line search
    st.apply(i, gamma * dU, gamma * dt)
    st.ell[i] += gamma * (ell_s - st.ell[i])
    st.ws_alpha[i] *= 1.0 - gamma
    if new is not None:
        k = st.find(i, new)
        k = st.add(i, new) if k < 0 else k
        st.ws_alpha[i][k] += gamma * C
    return gap


def _pairwise_step(st: DualState, i: int) -> float:
    """One pairwise Frank-Wolfe step on block i (Lacoste-Julien & Jaggi 2015; Osokin et al.
    2016): move mass from the worst active corner v to the FW corner s.

    With H_i(y) = Delta(y_i, y) - <w, psi_i(y)> (H = 0 at the corner y_i), s = argmax H
    (loss-augmented inference) and v = argmin H over the outputs carrying mass; the
    direction is d = C (psi_i(s) - psi_i(v)), the gap g = C (H(s) - H(v)) and the exact
    step gamma = clip(g / ||d||^2, 0, alpha_v / C). Returns g.
    """
    a, b = st.rows(i)
    sc = st.scores(i)
    z_true = st.Z[a:b]
    C = st.C
    zero = (np.zeros((b - a, len(st.L))), np.zeros_like(st.w_tau))

    def corner(z):  # (H, dU, dtau, Delta) of the corner C e_z
        if z is None or np.array_equal(z, z_true):
            return 0.0, zero[0], zero[1], 0.0
        dU, dt = st.psi(i, z)
        loss = float(st.oracle.task_loss(z_true, z))
        return loss - st.inner_w(sc.unary, dU, dt), dU, dt, loss

    z = st.oracle.argmax(st.parts[a:b], sc, z_true)  # loss-augmented inference
    h_s, dU_s, dt_s, l_s = corner(z)
    if h_s <= 0.0:
        z, h_s, dU_s, dt_s, l_s = None, 0.0, zero[0], zero[1], 0.0
    alpha = st.ws_alpha[i]
    mass_true = C - float(alpha.sum())  # mass on y_i itself
    v, h_v, dU_v, dt_v, l_v = -2, np.inf, None, None, 0.0
    if mass_true > 1e-12 * C:
        v, h_v, dU_v, dt_v, l_v = -1, 0.0, zero[0], zero[1], 0.0
    for k in np.flatnonzero(alpha > 0.0):
        h, dU, dt, loss = corner(st.ws_z[i][k])
        if h < h_v:
            v, h_v, dU_v, dt_v, l_v = k, h, dU, dt, loss
    gap = C * (h_s - h_v)
    if v == -2 or gap <= 0.0:
        return 0.0
    dU, dt = C * (dU_s - dU_v), C * (dt_s - dt_v)
    q = st.sq_norm(i, dU, dt)
    room = (mass_true if v == -1 else alpha[v]) / C
    gamma = room if q <= 0.0 else min(room, gap / q)  # exact line search, clipped
    st.apply(i, gamma * dU, gamma * dt)
    st.ell[i] += gamma * C * (l_s - l_v)
    if v >= 0:
        alpha[v] = 0.0 if gamma >= room else alpha[v] - gamma * C
    if z is not None:
        k = st.find(i, z)
        k = st.add(i, z) if k < 0 else k
        st.ws_alpha[i][k] += gamma * C
    return gap


def _average(avg: list | None, cur: list, rho: float) -> list:
    """(1 - rho) avg + rho cur for every array of a DualState state (ragged alphas padded)."""
    if avg is None:
        return cur
    out = [(1.0 - rho) * a + rho * c for a, c in zip(avg[:5], cur[:5])]
    alphas = []
    for a, c in zip(avg[5], cur[5]):
        a = np.concatenate([a, np.zeros(len(c) - len(a))])
        alphas.append((1.0 - rho) * a + rho * c)
    return out + [alphas]


class _PythonBlocks:
    """Block steps one Python call per example (any oracle, any kernel mode)."""

    averaging = True  # plain FW steps with iterate averaging for _PAIRWISE_AFTER passes
    cached_passes = 0  # no passes without inference

    def __init__(self, st: DualState):
        self.st = st
        self.get_state, self.set_state = st.get_state, st.set_state
        self.objectives = st.objectives

    def run_pass(self, order: np.ndarray, pairwise: bool) -> None:
        """One step per example; no gap estimate (None: the exact gap after every pass)."""
        step = _pairwise_step if pairwise else _block_step
        for i in order:
            step(self.st, int(i))

    def finish(self) -> None:
        pass


def solve_bcfw(st: DualState, *, max_iter: int, tol: float, rng, verbose=0) -> Result:
    """Run BCFW passes on ``st`` until the duality gap is <= tol * primal.

    For a :class:`~kernelkit.structured.ChainOracle` every pass is one numba call
    (:class:`~kernelkit.structured._chain_bcfw.ChainBlocks`; one per group of examples when
    the kernel matrix is not cached, :mod:`~kernelkit.structured._chain_rows`) and every
    block visit takes pairwise steps from the first pass, with no averaging; with primal
    weights each pass is followed by ``blocks.cached_passes`` passes of pairwise steps within
    the working sets, without inference (Shah et al. 2015: the dual converges in fewer
    inference passes; each cached pass is a feasible ascent step, so the certificate is
    unchanged). Otherwise:

    For the first ``_PAIRWISE_AFTER`` passes the iterate after pass k enters a weighted
    average with weight rho_k = 2 / (k + 2) (Lacoste-Julien et al.'s averaging, per pass);
    the average of dual-feasible points is dual feasible and its w is the average of the
    w's, so its exact duality gap certifies it. Plain FW steps then slow to O(1/t) (they
    cannot take mass off a bad corner), so later passes continue from the average with
    pairwise steps (:func:`_pairwise_step`), which converge linearly on these block
    polytopes. The solution returned is the iterate with the smallest certified gap, and
    ``history`` holds that gap after each pass (so it never increases); ``info`` the final
    primal and dual objectives.

    The exact gap costs one inference per example, as much as a pass. The chain pass
    returns the sum of the blocks' Frank-Wolfe gaps g_i met during the pass (each at its
    block's visit; Lacoste-Julien et al. 2013, §4), which estimates the gap for free (on
    OCR words within 0.97 to 1.3 times the exact gap): the exact gap is computed after a
    pass only when the estimate, times the ratio exact / estimate seen at the last exact
    gap, is <= ``_MARGIN`` * tol * primal (the last exact primal), every ``_CHECK_EVERY``
    passes, and after the last pass. The stopping
    decision is still made on the exact gap only; after a pass without it ``history``
    repeats the last certified gap (the returned iterate is always a certified one).
    """
    n = len(st.offsets) - 1
    blocks = ChainBlocks(st) if chain_fast_path(st) else _PythonBlocks(st)
    history, converged = [], False
    avg = current = best = None
    since, estimate, ratio = 0, None, 1.0  # passes since the last exact gap, and its ratio
    best_pd = (np.nan, np.nan)
    with progress_bar(verbose, total=max_iter, desc="StructuredSVM (bcfw)") as bar:
        for k in range(max_iter):
            if blocks.averaging and k < _PAIRWISE_AFTER:
                if current is not None:
                    blocks.set_state(current)
                blocks.run_pass(rng.permutation(n), False)
                current = blocks.get_state()
                avg = _average(avg, current, 2.0 / (k + 2))
                blocks.set_state(avg)  # evaluate the average
                avg = candidate = blocks.get_state()
            else:  # st holds the latest iterate (at the switch: the average) and no copy
                estimate = blocks.run_pass(rng.permutation(n), True)
                for _ in range(blocks.cached_passes):  # Shah et al. 2015 (multi-plane)
                    blocks.run_pass(rng.permutation(n), True, oracle=False)
                since += 1
                if (estimate is not None and best is not None and since < _CHECK_EVERY
                        and k < max_iter - 1
                        and estimate * ratio > _MARGIN * tol * best_pd[0]):
                    history.append(history[-1])  # no certificate for this pass
                    bar.update()
                    continue
                current = candidate = blocks.get_state()
            since = 0
            primal, dual = blocks.objectives()
            if estimate is not None and estimate > 0.0:
                ratio = (primal - dual) / estimate  # exact gap / estimate, at the last check
            if best is None or primal - dual < history[-1]:
                best, best_pd = candidate, (primal, dual)  # the best certified iterate so far
            history.append(best_pd[0] - best_pd[1])
            bar.update()
            bar.set_postfix_str(f"gap {history[-1]:.3g}")
            if history[-1] <= tol * max(best_pd[0], np.finfo(float).tiny):
                converged = True
                break
    blocks.set_state(best)
    blocks.finish()
    primal, dual = best_pd
    return Result(coef=st.ell, n_iter=len(history), converged=converged, history=history,
                  info=dict(primal=primal, dual=dual, gap=history[-1]))
