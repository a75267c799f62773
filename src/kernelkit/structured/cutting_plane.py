"""n-slack cutting planes for the structured SVM (Tsochantaridis et al. 2005; Joachims 2009).

Every example i keeps a working set W_i of outputs. Each outer iteration runs
loss-augmented inference for all examples at the current w, y_i* = argmax_y
Delta(y_i, y) - <w, psi_i(y)>, and adds y_i* to W_i only if it is violated by more than the
current slack, H_i(y_i*) > xi_i = max(0, max_{y in W_i} H_i(y)). The dual restricted to the
working set,

    max_{alpha_i in C*simplex}  sum_p alpha_p Delta_p - 1/2 alpha^T Q alpha,
    Q_pq = <psi_p, psi_q> over working-set pairs p = (i, y),

is then solved to a relative gap well below ``tol`` by block coordinate ascent in numba
(per example, SMO pair steps with exact step length, gradient g = Delta - Q alpha kept for
all pairs). The Gram Q of the working set must fit in ``cache_size``; for large problems use
BCFW, which needs no Q. The loop stops when the exact duality gap P - D <= tol * P. Chains
with explicit or cached scores take :func:`_solve_chain`, which needs no Q.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._core.progress import progress_bar
from .._core.result import Result
from ._chain_bcfw import ChainBlocks, chain_fast_path
from ._dual import DualState

__all__ = ["solve_cutting_plane"]

# passes over the working sets per restricted solve of the chain path, at most
_MAX_INNER = 1000

# the chain path's restricted solve stops at this fraction of the last exact gap (or at
# 0.1 tol P): solving far below the outer gap gains no iteration
_INNER_FRACTION = 0.3


@njit(cache=True)
def _block_smo(Q, g, alpha, idx, C, eps, max_steps):
    """Optimize alpha[idx] (sum <= C; the rest sits on y_i with psi = 0, g = 0) in place."""
    slack = C
    for k in idx:
        slack -= alpha[k]
    m = len(g)
    for _ in range(max_steps):
        a, ga = -1, 0.0  # -1 stands for y_i itself
        b, gb = -1, (0.0 if slack > 0 else np.inf)
        for k in idx:
            if g[k] > ga:
                a, ga = k, g[k]
            if alpha[k] > 0 and g[k] < gb:
                b, gb = k, g[k]
        if ga - gb <= eps or a == b:
            return
        curv = 0.0
        if a >= 0:
            curv += Q[a, a]
        if b >= 0:
            curv += Q[b, b]
        if a >= 0 and b >= 0:
            curv -= 2.0 * Q[a, b]
        avail = alpha[b] if b >= 0 else slack
        t = avail if curv <= 0 else min(avail, (ga - gb) / curv)  # exact step, clipped
        if a >= 0:
            alpha[a] += t
        else:
            slack += t
        if b >= 0:
            alpha[b] -= t
        else:
            slack -= t
        for j in range(m):  # g = Delta - Q alpha
            d = 0.0
            if a >= 0:
                d += Q[j, a]
            if b >= 0:
                d -= Q[j, b]
            g[j] -= t * d


@njit(cache=True)
def _solve_working_set(Q, g, alpha, ptr, members, C, eps_gap, max_sweeps):
    """Block coordinate ascent on the working-set dual until its gap <= eps_gap.

    ``g = Delta - Q alpha`` on entry; alpha and g are updated in place.
    """
    n = len(ptr) - 1
    eps = eps_gap / max(n, 1)
    gap = np.inf
    for sweep in range(max_sweeps):
        for i in range(n):
            if ptr[i + 1] > ptr[i]:
                _block_smo(Q, g, alpha, members[ptr[i]:ptr[i + 1]], C, eps, 50)
        # gap of the restricted dual: sum_i C max(0, max_p g_p) - sum_p alpha_p g_p
        gap = 0.0
        for i in range(n):
            top = 0.0
            for k in members[ptr[i]:ptr[i + 1]]:
                top = max(top, g[k])
                gap -= alpha[k] * g[k]
            gap += C * top
        if gap <= eps_gap:
            return sweep + 1, gap
    return max_sweeps, gap


class _WorkingSet:
    """Pairs (i, y) with their states, losses, tau differences, alpha and Gram Q."""

    def __init__(self, n: int, D: int):
        self.owner = np.zeros(0, dtype=np.int64)
        self.states = np.zeros(0, dtype=np.int64)  # concatenated output states of the pairs
        self.rows = np.zeros(0, dtype=np.int64)  # the training parts they label
        self.ptr = np.zeros(1, dtype=np.int64)
        self.loss = np.zeros(0)
        self.dtau = np.zeros((0, D))  # tau(y_i) - tau(y)
        self.alpha = np.zeros(0)
        self.Q = np.zeros((0, 0))
        self.keys: set = set()

    def __len__(self) -> int:
        return len(self.loss)

    def margins(self, st: DualState, G: np.ndarray) -> np.ndarray:
        """<w, psi_p> = sum_t (G[t, y_i,t] - G[t, y_t]) + w_tau . dtau_p for every pair."""
        if not len(self):
            return np.zeros(0)
        start = self.ptr[:-1]
        diff = G[self.rows, st.Z[self.rows]] - G[self.rows, self.states]
        return np.add.reduceat(diff, start) + self.dtau @ st.w_tau

    def add(self, st: DualState, i: int, z: np.ndarray, mem_limit: float) -> None:
        a, b = st.rows(i)
        dU, dtau = st.psi(i, z)
        m = len(self)
        if (m + 1) ** 2 * 8 > mem_limit:
            raise ValueError(
                f"the cutting-plane working set ({m + 1} pairs) no longer fits in cache_size; "
                "use solver='bcfw' (no working-set Gram) or a larger cache_size.")
        # scores of psi_p at every training part: HL = K[:, rows_i] dU L
        HL = st.field.kernel_times(a, b, dU)
        if not st.L_is_eye:
            HL = HL @ st.L
        rows = np.concatenate([self.rows, np.arange(a, b)])
        states = np.concatenate([self.states, z])
        ptr = np.append(self.ptr, self.ptr[-1] + (b - a))
        dtaus = np.vstack([self.dtau, dtau[None, :]])
        # Q[p, q] = <psi_p, psi_q> = sum_{t in q} HL[t, y_j,t] - HL[t, y_q,t] + dtau_p . dtau_q
        row = (np.add.reduceat(HL[rows, st.Z[rows]] - HL[rows, states], ptr[:-1])
               + dtaus @ dtau)
        if m + 1 > len(self.Q):
            Q = np.zeros((max(2 * len(self.Q), 16),) * 2)
            Q[:m, :m] = self.Q[:m, :m]
            self.Q = Q
        self.Q[m, : m + 1] = row
        self.Q[: m + 1, m] = row
        self.owner = np.append(self.owner, i)
        self.rows, self.states, self.ptr, self.dtau = rows, states, ptr, dtaus
        self.loss = np.append(self.loss, float(st.oracle.task_loss(st.Z[a:b], z)))
        self.alpha = np.append(self.alpha, 0.0)


def _set_w(st: DualState, ws: _WorkingSet) -> None:
    """w = sum_p alpha_p psi_p; rebuilds U (and K U), w_tau, tau_blk, ell."""
    n = len(st.offsets) - 1
    U = np.zeros_like(st.field.U)
    mass = np.bincount(ws.owner, weights=ws.alpha, minlength=n)  # sum_y alpha_iy
    lengths = np.diff(st.offsets)
    part_mass = np.repeat(mass, lengths)
    U[np.arange(len(st.Z)), st.Z] += part_mass  # sum_y alpha_iy E(y_i)
    a_rows = np.repeat(ws.alpha, np.diff(ws.ptr))
    np.add.at(U, (ws.rows, ws.states), -a_rows)  # - sum_y alpha_iy E(y)
    st.field.set_coef(U)
    st.tau_blk = np.zeros_like(st.tau_blk)
    np.add.at(st.tau_blk, ws.owner, ws.alpha[:, None] * ws.dtau)
    st.w_tau = st.tau_blk.sum(axis=0)
    st.ell = np.bincount(ws.owner, weights=ws.alpha * ws.loss, minlength=n)


def solve_cutting_plane(st: DualState, *, max_iter: int, tol: float, rng, verbose=0,
                        mem_limit: float = 2.0**30) -> Result:
    """Cutting-plane iterations on ``st`` until the duality gap is <= tol * primal.

    ``history`` holds the exact duality gap after each iteration (one working-set solve).
    A :class:`~kernelkit.structured.ChainOracle` with explicit or cached scores takes
    :func:`_solve_chain` (no working-set Gram).
    """
    if chain_fast_path(st):
        return _solve_chain(st, max_iter=max_iter, tol=tol, rng=rng, verbose=verbose)
    n = len(st.offsets) - 1
    ws = _WorkingSet(n, st.tau_true.shape[1])
    history, converged = [], False
    G, Zs, H = st.inference()
    primal, dual = st.objectives(H)
    with progress_bar(verbose, total=max_iter, desc="StructuredSVM (cutting_plane)") as bar:
        for _ in range(max_iter):
            # xi_i = max(0, max_{y in W_i} H_i(y)), H_i(y) = Delta - <w, psi_i(y)>
            xi = np.zeros(n)
            if len(ws):
                np.maximum.at(xi, ws.owner, ws.loss - ws.margins(st, G))
            eps = 1e-12 * max(1.0, primal)
            added = 0
            for i in rng.permutation(n):
                a, b = st.rows(int(i))
                key = (int(i), Zs[a:b].tobytes())
                if H[i] > xi[i] + eps and key not in ws.keys:
                    ws.keys.add(key)
                    ws.add(st, int(i), Zs[a:b].copy(), mem_limit)
                    added += 1
            m = len(ws)
            order = np.argsort(ws.owner, kind="stable").astype(np.int64)
            ptr = np.searchsorted(ws.owner[order], np.arange(n + 1)).astype(np.int64)
            g = ws.loss - ws.Q[:m, :m] @ ws.alpha
            eps_gap = max(0.1 * tol * primal, 1e-13 * max(1.0, primal))
            _solve_working_set(ws.Q, g, ws.alpha, ptr, order, st.C, eps_gap, 1000)
            _set_w(st, ws)
            G, Zs, H = st.inference()
            primal, dual = st.objectives(H)
            converged = _record(history, bar, primal, dual, m, tol)
            if converged:
                break
            if not added:  # nothing new to add: more iterations would not change w
                break
    st.ws_z = [[] for _ in range(n)]
    st.ws_alpha = [np.zeros(0) for _ in range(n)]
    for p in range(len(ws)):
        i = int(ws.owner[p])
        st.ws_z[i].append(ws.states[ws.ptr[p]:ws.ptr[p + 1]].copy())
        st.ws_alpha[i] = np.append(st.ws_alpha[i], ws.alpha[p])
    return Result(coef=ws.alpha, n_iter=len(history), converged=converged, history=history,
                  info=dict(primal=primal, dual=dual, gap=primal - dual))


def _record(history: list, bar, primal: float, dual: float, active: int, tol: float) -> bool:
    """Append the iteration's exact gap P - D, show it, and say whether P - D <= tol P."""
    history.append(primal - dual)
    bar.update()
    bar.set_postfix_str(f"gap {history[-1]:.3g}, active {active}")
    return history[-1] <= tol * max(primal, np.finfo(float).tiny)


def _solve_chain(st: DualState, *, max_iter: int, tol: float, rng, verbose=0) -> Result:
    """n-slack cutting planes for chains on the numba working sets of
    :class:`~kernelkit.structured._chain_bcfw.ChainBlocks`.

    Each iteration adds, at the current w, every example's most violated output that beats
    its slack (:meth:`ChainBlocks.add_violated`), then solves the dual restricted to the
    working sets by passes of pairwise steps within them (cached-plane passes: the scores
    come from w itself, O(T d S) a block, so no Gram of the working set is formed) until
    the sum of their block gaps is <= max(0.1 tol P, 0.3 (P - D)) (0.1 tol P when nothing was
    added); outputs left without mass are dropped.
    It stops when the exact duality gap P - D <= tol * P, or when nothing was added after a
    solve to 0.1 tol P (w would not change).
    """
    n = len(st.offsets) - 1
    blocks = ChainBlocks(st)
    history, converged, tight = [], False, False
    primal, dual = blocks.objectives()
    with progress_bar(verbose, total=max_iter, desc="StructuredSVM (cutting_plane)") as bar:
        for _ in range(max_iter):
            added = blocks.add_violated(1e-12 * max(1.0, primal))
            if not added and tight:  # w solves the restricted dual already: no change
                break
            eps_gap = max(0.1 * tol * primal, 1e-13 * max(1.0, primal))
            if added:  # nothing added: solve the same planes to 0.1 tol P
                eps_gap = max(eps_gap, _INNER_FRACTION * (primal - dual))
            for _ in range(_MAX_INNER):  # the restricted dual, to a gap <= eps_gap
                reached = blocks.run_pass(rng.permutation(n), oracle=False,
                                          keep=True) <= eps_gap
                if reached:
                    break
            tight = reached and not added
            blocks.drop_empty()
            primal, dual = blocks.objectives()
            converged = _record(history, bar, primal, dual, int(blocks.count[0]), tol)
            if converged:
                break
    blocks.finish()
    m = int(blocks.count[0])
    return Result(coef=blocks.alpha[:m].copy(), n_iter=len(history), converged=converged,
                  history=history, info=dict(primal=primal, dual=dual, gap=primal - dual))
