"""n-slack cutting planes for the structured SVM (Tsochantaridis et al. 2005; Joachims 2009).

Every example i keeps a working set W_i of outputs. Visiting i, loss-augmented inference
finds y* = argmax_y Delta(y_i, y) - <w, psi_i(y)>; y* joins W_i only if it is violated by
more than the current slack, H_i(y*) > xi_i = max(0, max_{y in W_i} H_i(y)). The dual is
then re-optimized exactly over block i's working set, the others fixed:

    max_{beta in C*simplex}  sum_y beta_y (Delta_y - <w_{-i}, psi_i(y)>) - 1/2 beta^T Q beta,
    Q_yy' = <psi_i(y), psi_i(y')>,

by SMO-style pair steps (move mass between the outputs of largest and smallest gradient
g_y = Delta_y - <w, psi_i(y)>, exact step) in numba. The passes stop when the exact duality
gap is <= tol * primal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._progress import progress_bar
from .._result import Result
from ._dual import DualState

__all__ = ["solve_cutting_plane"]


@njit(cache=True)
def _smo_block(Q, g, alpha, C, eps, max_iter):
    """Maximize the block dual over C*simplex (last variable: y_i with psi = 0, g = 0)."""
    m = len(alpha)
    slack = C - alpha.sum()  # alpha on y_i itself
    for _ in range(max_iter):
        # a = argmax gradient (anywhere); b = argmin gradient among variables with mass
        a, ga = -1, 0.0
        b, gb = -1, 0.0 if slack > 0 else np.inf
        for j in range(m):
            if g[j] > ga:
                a, ga = j, g[j]
            if alpha[j] > 0 and g[j] < gb:
                b, gb = j, g[j]
        if ga - gb <= eps or a == b:
            break
        qa = Q[a, a] if a >= 0 else 0.0
        qb = Q[b, b] if b >= 0 else 0.0
        qab = Q[a, b] if a >= 0 and b >= 0 else 0.0
        curv = qa + qb - 2.0 * qab
        avail = alpha[b] if b >= 0 else slack
        t = avail if curv <= 0 else min(avail, (ga - gb) / curv)  # exact step, clipped
        if a >= 0:
            alpha[a] += t
        else:
            slack += t
        if b >= 0:
            alpha[b] -= t
            if alpha[b] < 1e-15 * C:
                alpha[b] = 0.0
        else:
            slack -= t
        for j in range(m):  # g_j -= t (Q_ja - Q_jb)
            d = 0.0
            if a >= 0:
                d += Q[j, a]
            if b >= 0:
                d -= Q[j, b]
            g[j] -= t * d
    return alpha


class _Block:
    """Working-set Gram Q_i, losses, stacked outputs and tau's of one example."""

    __slots__ = ("Q", "loss", "Zw", "tau")

    def __init__(self, T: int, D: int):
        self.Q = np.zeros((0, 0))
        self.loss = np.zeros(0)
        self.Zw = np.zeros((0, T), dtype=np.int64)
        self.tau = np.zeros((0, D))


def _margins(st: DualState, i: int, blk: _Block, G: np.ndarray) -> np.ndarray:
    """<w, psi_i(y)> for every y in W_i, from the unary scores G of example i."""
    a, b = st.rows(i)
    t = np.arange(b - a)
    f_true = G[t, st.Z[a:b]].sum()
    return (f_true - G[t[None, :], blk.Zw].sum(axis=1)
            + (st.tau_true[i] - blk.tau) @ st.w_tau)


def _add(st: DualState, i: int, blk: _Block, z: np.ndarray) -> None:
    """Append y = z to W_i with its Gram row Q[new, :] = <psi_i(z), psi_i(y')>."""
    a, b = st.rows(i)
    dU, dtau = st.psi(i, z)
    M = st.field.gram(a, b) @ dU
    if not st.L_is_eye:
        M = M @ st.L
    t = np.arange(b - a)
    Zw = np.vstack([blk.Zw, z[None, :]])
    tau = np.vstack([blk.tau, st.oracle.pairwise_features(z)[None, :]])
    # <psi_z, psi_y'> = sum(M * (E(y_i) - E(y'))) + dtau . (tau(y_i) - tau(y'))
    row = M[t, st.Z[a:b]].sum() - M[t[None, :], Zw].sum(axis=1) + (st.tau_true[i] - tau) @ dtau
    m = len(blk.loss)
    Q = np.zeros((m + 1, m + 1))
    Q[:m, :m] = blk.Q
    Q[m, :] = row
    Q[:, m] = row
    blk.Q, blk.Zw, blk.tau = Q, Zw, tau
    blk.loss = np.append(blk.loss, float(st.oracle.loss(st.Z[a:b], z)))
    st.add(i, z)


def _visit(st: DualState, i: int, blk: _Block, eps: float) -> bool:
    """Inference at block i, maybe grow W_i, re-solve block i; True if W_i grew."""
    a, b = st.rows(i)
    sc = st.scores(i)
    z_true = st.Z[a:b]
    z = st.oracle.argmax(st.parts[a:b], sc, z_true)
    grew = False
    if not np.array_equal(z, z_true) and st.find(i, z) < 0:
        dU, dt = st.psi(i, z)
        H = float(st.oracle.loss(z_true, z)) - st.inner_w(sc.unary, dU, dt)
        g = blk.loss - _margins(st, i, blk, sc.unary)
        xi = max(0.0, float(g.max(initial=0.0)))
        if H > xi + eps:
            _add(st, i, blk, z)
            grew = True
    if len(blk.loss) == 0:
        return grew
    g = blk.loss - _margins(st, i, blk, sc.unary)
    old = st.ws_alpha[i].copy()
    new = _smo_block(blk.Q, g, old.copy(), st.C, eps, 100 * (len(old) + 1))
    d = new - old
    if not np.any(d):
        return grew
    T, t = b - a, np.arange(b - a)
    # w_i changes by sum_y d_y psi_i(y): unary sum(d) E(y_i) - sum_y d_y E(y), tau likewise
    dU = np.zeros((T, len(st.L)))
    dU[t, z_true] += d.sum()
    np.add.at(dU, (np.broadcast_to(t, blk.Zw.shape), blk.Zw), -d[:, None])
    dtau = d.sum() * st.tau_true[i] - d @ blk.tau
    st.apply(i, dU, dtau)
    st.ws_alpha[i] = new
    st.ell[i] = float(new @ blk.loss)
    return grew


def solve_cutting_plane(st: DualState, *, max_iter: int, tol: float, rng, verbose=0) -> Result:
    """n-slack cutting-plane passes on ``st`` until the duality gap is <= tol * primal."""
    n = len(st.offsets) - 1
    D = st.tau_true.shape[1]
    blocks = [_Block(int(st.offsets[i + 1] - st.offsets[i]), D) for i in range(n)]
    eps = 1e-12 * max(1.0, st.C)
    history, converged = [], False
    primal = dual = np.nan
    with progress_bar(verbose, total=max_iter, desc="StructuredSVM (cutting_plane)") as bar:
        for it in range(1, max_iter + 1):
            for i in rng.permutation(n):
                _visit(st, int(i), blocks[int(i)], eps)
            primal, dual = st.objectives()
            history.append(primal - dual)
            bar.update()
            bar.set_postfix_str(f"gap {history[-1]:.3g}, active {st.n_active()}")
            if history[-1] <= tol * max(primal, np.finfo(float).tiny):
                converged = True
                break
    return Result(coef=st.ell, n_iter=it, converged=converged, history=history,
                  info=dict(primal=primal, dual=dual, gap=history[-1]))
