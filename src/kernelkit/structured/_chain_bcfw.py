"""BCFW block visits on chains, one numba call per pass over the training sequences.

For a :class:`~kernelkit.structured.ChainOracle` whose unary scores are held either as
primal weights (linear kernel or a FeatureMap: W = Phi^T U, so a block's scores are
Phi[rows] W, O(T d S)) or as the scores A = K U of every training part (a change dU of a
block's coefficients updates A^T[s] += K[rows] dU[:, s] on the states it touches: O(N) per
changed (position, state)), with K cached, or, when it does not fit, its rows formed a
group of examples at a time (:mod:`._chain_rows`: a visit reads only its block's rows).
Every visit of block i takes the pairwise step of
:func:`kernelkit.structured.bcfw._pairwise_step` toward the loss-augmented Viterbi output,
then up to ``_MAX_STEPS - 1`` pairwise steps within the block's working set (only
the block's own scores change meanwhile, by K_ii dU). With G the block's unary scores and
f(z) = sum_t G[t, z_t] + sum_t W_tau[z_t, z_t+1]:

    z*  = argmax_z Delta(y_i, z) + f(z)                     (loss-augmented Viterbi)
    H_i(z) = Delta(y_i, z) + f(z) - f(y_i)                  (violation of output z)
    psi_i(z) = (E(y_i) - E(z), tau(y_i) - tau(z))           (rows of U, bigram counts)
    d = C (psi_i(s) - psi_i(v)),  gap = C (H_i(s) - H_i(v)),  ||d||^2 = tr(dU^T K_ii dU) + |dtau|^2

The working set (outputs with their alpha) lives in flat arrays with one linked list per
example, so that the pass can add outputs without leaving numba.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._chain_rows import GroupRows, group_parts
from .viterbi import _viterbi_into, _viterbi_work

__all__ = ["ChainBlocks", "chain_fast_path"]

# pairwise steps per block visit at most (the first toward the Viterbi output), and
# cached-plane passes after each pass with inference, by whether the scores are cheap next
# to the inference: primal weights on features with at most 4 S nonzeros a row (O(T nnz S)
# scores, vectorized; O(T S^2) Viterbi; OCR pixels: 28 nonzeros, S = 26) take fewer steps
# and cached passes (on OCR words 41 passes + 123 cached ones to tol 1e-3, 0.7-0.8x the CPU
# of 113 passes of 10 steps); a cached kernel (every changed (position, state) costs O(N))
# or dense features (Nystroem: scores cost d / S times the inference, and a cached pass as
# much as a full one) keep 10 steps and no cached pass (RBF on OCR: 70 passes; cached
# passes cost +23% there)
_MAX_STEPS = {True: 3, False: 10}
_CACHED_PASSES = {True: 3, False: 0}

# sweeps over a group's examples while its kernel rows are at hand (chunked mode): the
# rows are the cost, so a group's blocks are optimized further before moving on (OCR fold 1
# cut in groups of 600 rows, RBF, tol 1e-3: 70 passes with 1 sweep, 41 with 2, 31 with 3,
# 26 with 4; fit 10.7 s, -, 6.7 s, 7.6 s)
_GROUP_SWEEPS = 3

# a visit stops once a step's gap is below this fraction of the first step's
_ENOUGH = 0.1


class _Scores(NamedTuple):
    """Where the unary scores of the training parts come from (one of two modes)."""

    explicit: bool
    Phi: np.ndarray  # (N, d) explicit features (explicit mode)
    W: np.ndarray  # (d, S) = Phi^T U (explicit mode)
    K: np.ndarray  # (R, N) rows of the input kernel at hand (kernel mode): K[local[p]] is
    # row p of K (cached mode: all N rows, local = identity; chunked mode: a group's rows)
    AT: np.ndarray  # (S, N) = (K U)^T (kernel mode)
    local: np.ndarray  # (N,) row of K holding part p's kernel row (-1: not at hand)
    row_at: np.ndarray  # (N + 1,) Phi's nonzeros by row, CSR (explicit mode, sparse Phi;
    # empty: Phi is used dense)
    cols: np.ndarray  # their columns
    vals: np.ndarray  # their values


class _Scratch(NamedTuple):
    """Work arrays of a pass (one block at a time)."""

    G: np.ndarray  # (max_T, S) the block's unary scores
    z: np.ndarray  # (max_T,) the Viterbi output
    dU_sum: np.ndarray  # (max_T, S) the visit's change of U[rows]
    acc: np.ndarray  # (S * S,) all zero between uses (see _pair_step)
    iw: np.ndarray  # (3, 2 max_T) a step's differing positions, bigram cells, their changes
    uv: np.ndarray  # (2 max_T,) the values of the bigram changes
    zz: np.ndarray  # (2, max_T) the states of a step's corners v and s
    moved: np.ndarray  # (S,) states a position's change touches
    back: np.ndarray  # (max_T, S) Viterbi's back pointers
    V: np.ndarray  # (S,) Viterbi's scores
    Vn: np.ndarray  # (S,)


class _Blocks(NamedTuple):
    """The dual state of the chain SVM and its working set (see DualState)."""

    offsets: np.ndarray  # (n + 1,) parts of example i: offsets[i]:offsets[i+1]
    Z: np.ndarray  # (N,) true states
    C: float
    normalize: bool  # Hamming loss divided by T
    U: np.ndarray  # (N, S) unary coefficients, w_i's rows
    w_tau: np.ndarray  # (S * S,) transition weights = sum_i w_i's transition part
    ell: np.ndarray  # (n,) ell_i = sum_y alpha_iy Delta(y_i, y)
    head: np.ndarray  # (n,) first pair of example i (-1: none)
    nxt: np.ndarray  # (cap,) next pair of the same example
    owner: np.ndarray  # (cap,) example of the pair
    start: np.ndarray  # (cap,) where the pair's states begin in `states`
    alpha: np.ndarray  # (cap,) dual coefficient of the pair
    states: np.ndarray  # concatenated output states of the pairs
    count: np.ndarray  # [pairs, states used]
    grams: np.ndarray  # K_ii of every block, flat: block i's (T, T) at gram_at[i]
    gram_at: np.ndarray  # (n + 1,) sum_{j < i} T_j^2
    have_gram: np.ndarray  # (n,) whether block i's K_ii is in grams (formed at its first
    # visit, from the kernel rows then at hand)


@njit(cache=True)
def _scores(sc, a, b, G):
    """G[:T] = unary scores of parts a..b-1 (2-D indexing only: a row view per nonzero
    would cost a reference count each)."""
    T = b - a
    if not sc.explicit:
        AT = sc.AT
        for t in range(T):
            for s in range(AT.shape[0]):
                G[t, s] = AT[s, a + t]
        return
    W, Phi, row_at, cols, vals = sc.W, sc.Phi, sc.row_at, sc.cols, sc.vals
    S = W.shape[1]
    for t in range(T):
        for s in range(S):
            G[t, s] = 0.0
        if len(row_at) == 0:  # dense Phi: G[t] = Phi[a+t] W
            for k in range(Phi.shape[1]):
                x = Phi[a + t, k]
                for s in range(S):
                    G[t, s] += x * W[k, s]
            continue
        for j in range(row_at[a + t], row_at[a + t + 1]):  # G[t] = Phi[a+t] W
            x, c = vals[j], cols[j]
            for s in range(S):
                G[t, s] += x * W[c, s]


@njit(cache=True)
def _gram(sc, a, b, Kii):
    """Kii[:T, :T] = K[rows, rows], the input kernel among the block's parts."""
    T = b - a
    for t in range(T):
        for u in range(t + 1):
            if sc.explicit:
                k = 0.0
                for j in range(sc.Phi.shape[1]):
                    k += sc.Phi[a + t, j] * sc.Phi[a + u, j]
            else:
                k = sc.K[sc.local[a + t], a + u]
            Kii[t, u] = k
            Kii[u, t] = k


@njit(cache=True)
def _move_scores(sc, a, b, dU, moved):
    """The scores of a change dU of U[rows]: W += Phi[rows]^T dU, or A^T += dU^T K[rows]
    (only the states s with dU[t, s] != 0 are touched; ``moved`` is scratch of length S)."""
    S = dU.shape[1]
    W, Phi, row_at, cols, vals, K, AT = sc.W, sc.Phi, sc.row_at, sc.cols, sc.vals, sc.K, sc.AT
    local = sc.local
    for t in range(b - a):
        nm = 0
        for s in range(S):
            if dU[t, s] != 0.0:
                moved[nm] = s
                nm += 1
        if nm == 0:  # a position where no step changed the output
            continue
        if not sc.explicit:  # A^T[s] += dU[t, s] K[a+t]
            r = local[a + t]
            for y in range(nm):
                s, c = moved[y], dU[t, moved[y]]
                for j in range(AT.shape[1]):
                    AT[s, j] += c * K[r, j]
        elif len(row_at) == 0:  # dense Phi: W[:, s] += Phi[a+t] dU[t, s]
            for k in range(Phi.shape[1]):
                x = Phi[a + t, k]
                for y in range(nm):
                    W[k, moved[y]] += x * dU[t, moved[y]]
        else:
            for j in range(row_at[a + t], row_at[a + t + 1]):  # W += Phi[a+t]^T dU[t]
                x, c = vals[j], cols[j]
                for y in range(nm):
                    W[c, moved[y]] += x * dU[t, moved[y]]


@njit(cache=True, inline="always")
def _chain_score(G, Wt, z, T, z0=0):
    """f(z) = sum_t G[t, z_t] + sum_t Wt[z_t, z_t+1], z's states at z[z0:z0 + T]."""
    f = G[0, z[z0]]
    for t in range(1, T):
        f += G[t, z[z0 + t]] + Wt[z[z0 + t - 1], z[z0 + t]]
    return f


@njit(cache=True, inline="always")
def _violation(G, Wt, zt, z, T, normalize, f_true, z0=0):
    """(H_i(z), Delta(y_i, z), number of wrong positions) for z = z[z0:z0 + T];
    ``f_true`` = f(y_i)."""
    wrong = 0
    for t in range(T):
        if z[z0 + t] != zt[t]:
            wrong += 1
    if wrong == 0:
        return 0.0, 0.0, 0
    loss = wrong / T if normalize else float(wrong)  # Hamming, (1/T) sum_t or sum_t
    return loss + _chain_score(G, Wt, z, T, z0) - f_true, loss, wrong


@njit(cache=True)
def _find_or_add(bl, i, z, T):
    """Index of the pair (i, z), appended to example i's list when new."""
    start, states, nxt = bl.start, bl.states, bl.nxt  # once: see _corners
    p = bl.head[i]
    last = -1
    while p >= 0:
        s0 = start[p]
        same = True
        for t in range(T):
            if states[s0 + t] != z[t]:
                same = False
                break
        if same:
            return p
        last = p
        p = nxt[p]
    m, ms = bl.count[0], bl.count[1]
    start[m] = ms
    for t in range(T):
        states[ms + t] = z[t]
    bl.alpha[m] = 0.0
    nxt[m] = -1
    bl.owner[m] = i
    if last < 0:
        bl.head[i] = m
    else:
        nxt[last] = m
    bl.count[0] = m + 1
    bl.count[1] = ms + T
    return m


@njit(cache=True, inline="always")
def _corners(p, states, start, alpha, nxt, norm, Gi, Wt, zt, T, first_is, ws_best):
    """The step's corners over example i's working set (its pairs from ``p`` on): s
    (``first_is`` >= 0: that pair; ``ws_best``: argmax H over the set) and v = argmin H
    over the outputs with mass.
    Returns (s, H(s), Delta(s), v, H(v), Delta(v), mass on the set, sum_y alpha_y H(y));
    -1 stands for y_i (H = 0), -2 for no corner."""
    sv, h_s, l_s = -1, 0.0, 0.0
    v, h_v, l_v = -2, np.inf, 0.0
    mass, ah = 0.0, 0.0
    # H and Delta of each output written out here, not by _violation / _chain_score: each
    # array handed to a function (inlined or not) costs a reference count, an atomic
    # operation (see _run_pass), and this loop runs for every output of every step
    f_true = Gi[0, zt[0]]
    for t in range(1, T):
        f_true += Gi[t, zt[t]] + Wt[zt[t - 1], zt[t]]
    while p >= 0:
        a_p = alpha[p]
        mass += a_p
        z0 = start[p]
        wrong = 0
        for t in range(T):
            if states[z0 + t] != zt[t]:
                wrong += 1
        h = loss = 0.0
        if wrong > 0:
            loss = wrong / T if norm else float(wrong)  # Hamming, (1/T) sum_t or sum_t
            f = Gi[0, states[z0]]
            for t in range(1, T):
                f += Gi[t, states[z0 + t]] + Wt[states[z0 + t - 1], states[z0 + t]]
            h = loss + f - f_true
        if p == first_is or (ws_best and h > h_s):
            sv, h_s, l_s = p, h, loss
        if a_p > 0.0 and h < h_v:
            v, h_v, l_v = p, h, loss
        ah += a_p * h
        p = nxt[p]
    return sv, h_s, l_s, v, h_v, l_v, mass, ah


@njit(cache=True)
def _pair_step(U, w_tau, ell, alpha, i, a, T, S, C, sv, v, l_s, l_v, gap, mass_true, zz, Gi,
               Kii, dU_sum, iw, acc, uv):
    """Move mass from corner v to corner s of block i with the exact (clipped) line search;
    U, w_tau, ell, the alphas, the block's scores Gi and the visit's sum dU are updated.
    The corners' states are zz[0, :T] (v) and zz[1, :T] (s); ``acc`` is all zero (and is
    left so)."""
    zv, zs, diff, idx, uj = zz[0], zz[1], iw[0], iw[1], iw[2]
    # d = C (psi_i(s) - psi_i(v)) = C (E(v) - E(s), tau(v) - tau(s)): row t of dU is
    # C (e_{zv_t} - e_{zs_t}), nonzero only where the corners differ
    nd = 0
    for t in range(T):
        if zv[t] != zs[t]:
            diff[nd] = t
            nd += 1
    # dtau = C (tau(zv) - tau(zs)) as its nonzero entries (uj, uv), and |dtau|^2
    nb = 0
    for t in range(T - 1):
        j = zv[t] * S + zv[t + 1]
        acc[j] += C
        idx[nb] = j
        j = zs[t] * S + zs[t + 1]
        acc[j] -= C
        idx[nb + 1] = j
        nb += 2
    nu, dt2 = 0, 0.0
    for k in range(nb):
        j = idx[k]
        if acc[j] != 0.0:  # the first occurrence of j takes the summed value, later ones see 0
            uj[nu], uv[nu] = j, acc[j]
            dt2 += acc[j] * acc[j]
            nu += 1
            acc[j] = 0.0
    # ||dU||^2 / C^2 = sum_{t,u} K_ii[t, u] <e_{zv_t} - e_{zs_t}, e_{zv_u} - e_{zs_u}>
    sq = 0.0
    for x in range(nd):
        t = diff[x]
        for y in range(nd):
            u = diff[y]
            e = 0
            if zv[t] == zv[u]:
                e += 1
            if zv[t] == zs[u]:
                e -= 1
            if zs[t] == zv[u]:
                e -= 1
            if zs[t] == zs[u]:
                e += 1
            if e != 0:
                sq += e * Kii[t, u]
    q = C * C * sq + dt2  # ||d||^2
    room = (mass_true if v < 0 else alpha[v]) / C
    gamma = room if q <= 0.0 else min(room, gap / q)  # exact line search, clipped
    c = gamma * C
    for x in range(nd):  # U[rows] += gamma dU, and this block's scores G += K_ii gamma dU
        u = diff[x]
        jv, js = zv[u], zs[u]
        U[a + u, jv] += c
        U[a + u, js] -= c
        dU_sum[u, jv] += c
        dU_sum[u, js] -= c
        for t in range(T):
            k = c * Kii[t, u]
            Gi[t, jv] += k
            Gi[t, js] -= k
    for k in range(nu):
        w_tau[uj[k]] += gamma * uv[k]
    ell[i] += gamma * C * (l_s - l_v)
    if v >= 0:
        alpha[v] = 0.0 if gamma >= room else alpha[v] - gamma * C
    if sv >= 0:
        alpha[sv] += gamma * C


@njit(cache=True)
def _drop_empty(head, nxt, alpha, owner, i):
    """Unlink example i's pairs whose alpha is 0 (their slots wait for :func:`_compact`)."""
    p, last = head[i], -1
    while p >= 0:
        q = nxt[p]
        if alpha[p] == 0.0:
            owner[p] = -1  # a dead slot
            if last < 0:
                head[i] = q
            else:
                nxt[last] = q
        else:
            last = p
        p = q


@njit(cache=True)
def _relink(bl, m):
    """Rebuild every example's list from ``owner`` (pairs in slot order; owner -1: dead)."""
    head, nxt, owner = bl.head, bl.nxt, bl.owner
    head[:] = -1
    tail = np.full(len(head), -1, dtype=np.int64)
    for p in range(m):
        i = owner[p]
        if i < 0:
            continue
        nxt[p] = -1
        if tail[i] < 0:
            head[i] = p
        else:
            nxt[tail[i]] = p
        tail[i] = p


@njit(cache=True)
def _compact(bl, lengths):
    """Move the live pairs (and their states) to the front of the flat arrays, in order.

    Slots and state starts only decrease, so the moves are done in place in slot order.
    """
    owner, alpha, start, states = bl.owner, bl.alpha, bl.start, bl.states
    m, q, qs = bl.count[0], 0, 0
    for p in range(m):
        i = owner[p]
        if i < 0:
            continue
        T, s0 = lengths[i], start[p]
        for t in range(T):
            states[qs + t] = states[s0 + t]
        owner[q], alpha[q], start[q] = i, alpha[p], qs
        q += 1
        qs += T
    bl.count[0], bl.count[1] = q, qs
    _relink(bl, q)


@njit(cache=True)
def _scratch(max_T, S):
    return _Scratch(np.zeros((max_T, S)), np.empty(max_T, dtype=np.int64),
                    np.empty((max_T, S)), np.zeros(S * S), np.empty((3, 2 * max_T), np.int64),
                    np.empty(2 * max_T), np.empty((2, max_T), np.int64),
                    np.empty(S, dtype=np.int64), np.empty((max_T, S), dtype=np.int64),
                    np.empty(S), np.empty(S))


@njit(cache=True)
def _run_pass(sc, bl, order, max_T, max_steps, enough, gaps, oracle, keep):
    """One visit per block in the given order (``oracle``: with loss-augmented inference;
    gaps[i] = block i's FW gap at its visit); returns the sum of the gaps met.

    A visit of block i takes pairwise steps: the first toward the loss-augmented argmax
    (``oracle``; without it, toward the best output of the block's working set: a
    cached-plane step, Shah et al. 2015), then up to ``max_steps - 1`` within the working
    set; its gap is the block's Frank-Wolfe gap g_i at the start of the visit (with
    ``oracle``; their sum over a pass estimates the duality gap; without, the gap over the
    working set only).

    A step moves mass gamma C from the corner v = argmin H over the outputs carrying mass
    (y_i counts, with the mass left on it) to the corner s = argmax H (first the Viterbi
    output z*, then the best of the working set): d = C (psi_i(s) - psi_i(v)), gap
    g = C (H(s) - H(v)), gamma = clip(g / ||d||^2, 0, alpha_v / C) (exact line search).
    Between steps only this block's scores change, by K_ii dU (O(T^2): a row of dU has two
    entries where the corners differ, none elsewhere); the other parts' scores (W or A) are
    updated once, after the visit, on the states that changed.

    The tuples' arrays are taken out once here and handed to the helpers one by one: each
    array handed to a function (inlined or not) costs a reference count, an atomic
    operation, and tuples handed per visit and per step took a third of the fit on OCR words.
    """
    S = bl.U.shape[1]
    ws = _scratch(max_T, S)
    G, z, dU, zz, iw, acc, uv = ws.G, ws.z, ws.dU_sum, ws.zz, ws.iw, ws.acc, ws.uv
    offsets, Z, grams, gram_at, have_gram = bl.offsets, bl.Z, bl.grams, bl.gram_at, bl.have_gram
    head, nxt, alpha, owner = bl.head, bl.nxt, bl.alpha, bl.owner
    states, start = bl.states, bl.start
    U, w_tau, ell, C, norm = bl.U, bl.w_tau, bl.ell, bl.C, bl.normalize
    Wt = w_tau.reshape((S, S))
    total = 0.0
    for i in order:
        a, b = offsets[i], offsets[i + 1]
        T = b - a
        Gi, zi, zt = G[:T], z[:T], Z[a:b]
        Kii = grams[gram_at[i]:gram_at[i + 1]].reshape((T, T))
        if not have_gram[i]:
            _gram(sc, a, b, Kii)
            have_gram[i] = True
        star = -1
        _scores(sc, a, b, Gi)
        if oracle:
            _viterbi_work(Gi, Wt, zt, True, norm, zi, ws.back, ws.V, ws.Vn)  # loss-augmented
            h, _, wrong = _violation(Gi, Wt, zt, zi, T, norm, _chain_score(Gi, Wt, zt, T))
            star = _find_or_add(bl, i, zi, T) if wrong > 0 and h > 0.0 else -1
        dU[:T] = 0.0
        first = fw = 0.0
        for step in range(max_steps):
            sv, h_s, l_s, v, h_v, l_v, mass, ah = _corners(
                head[i], states, start, alpha, nxt, norm, Gi, Wt, zt, T,
                star if step == 0 and oracle else -1, step > 0 or not oracle)
            mass_true = C - mass  # alpha on y_i
            if mass_true > 1e-12 * C and not h_v < 0.0:  # y_i (H = 0) unless one is below
                v, h_v, l_v = -1, 0.0, 0.0
            if step == 0:  # block gap g_i = C H(z*) - sum_y alpha_y H(y) (Lacoste-Julien §4)
                fw = C * h_s - ah
            gap = C * (h_s - h_v)
            if v == -2 or sv == v or gap <= 0.0:
                break
            if step == 0:
                first = gap
            elif gap <= enough * first:  # the block is solved well enough for this visit
                break
            for t in range(T):  # the corners' states (y_i for -1)
                zz[0, t] = zt[t] if v < 0 else states[start[v] + t]
                zz[1, t] = zt[t] if sv < 0 else states[start[sv] + t]
            _pair_step(U, w_tau, ell, alpha, i, a, T, S, C, sv, v, l_s, l_v, gap, mass_true,
                       zz, Gi, Kii, dU, iw, acc, uv)
        _move_scores(sc, a, b, dU[:T], ws.moved)
        if not keep:  # ``keep``: outputs without mass stay (cutting planes, until dropped)
            _drop_empty(head, nxt, alpha, owner, i)
        if oracle:
            gaps[i] = fw
        total += fw
    return total


@njit(cache=True)
def _add_violated(sc, bl, max_T, eps):
    """Cutting planes at the current w (no step): add y_i* = the loss-augmented argmax to
    example i's working set when H_i(y_i*) > xi_i + eps, xi_i = max(0, max_{y in W_i}
    H_i(y)) (Tsochantaridis et al. 2005); returns how many were added."""
    S = bl.U.shape[1]
    ws = _scratch(max_T, S)
    Wt = bl.w_tau.reshape((S, S))
    added = 0
    for i in range(len(bl.offsets) - 1):
        a, b = bl.offsets[i], bl.offsets[i + 1]
        T, zt, Gi, zi = b - a, bl.Z[a:b], ws.G[:b - a], ws.z[:b - a]
        _scores(sc, a, b, Gi)
        _viterbi_work(Gi, Wt, zt, True, bl.normalize, zi, ws.back, ws.V, ws.Vn)
        h, _, wrong = _violation(Gi, Wt, zt, zi, T, bl.normalize, _chain_score(Gi, Wt, zt, T))
        xi = _corners(bl.head[i], bl.states, bl.start, bl.alpha, bl.nxt, bl.normalize, Gi,
                      Wt, zt, T, -1, True)[1]
        if wrong > 0 and h > xi + eps:
            n_before = bl.count[0]
            _find_or_add(bl, i, zi, T)
            added += bl.count[0] - n_before
    return added


@njit(cache=True)
def _drop_all_empty(bl):
    for i in range(len(bl.offsets) - 1):
        _drop_empty(bl.head, bl.nxt, bl.alpha, bl.owner, i)


@njit(cache=True)
def _all_scores(sc, N):
    """G = Phi W for every training part (explicit mode), one row at a time."""
    G = np.empty((N, sc.W.shape[1]))
    for r in range(N):
        _scores(sc, r, r + 1, G[r:r + 1])
    return G


@njit(cache=True)
def _hinge_sum(G, Wt, offsets, Z, normalize):
    """sum_i H_i, H_i = max_z Delta(y_i, z) + f(x_i, z) - f(x_i, y_i) (one Viterbi each)."""
    z = np.empty(len(Z), dtype=np.int64)
    total = 0.0
    for i in range(len(offsets) - 1):
        a, b = offsets[i], offsets[i + 1]
        _viterbi_into(G[a:b], Wt, Z[a:b], True, normalize, z[a:b])
        h, _, _ = _violation(G[a:b], Wt, Z[a:b], z[a:b], b - a, normalize,
                             _chain_score(G[a:b], Wt, Z[a:b], b - a))
        total += max(h, 0.0)
    return total


def chain_fast_path(st) -> bool:
    """Whether the numba pass applies: a ChainOracle and L = I (explicit scores, a cached
    kernel, or kernel rows formed a group of examples at a time: :mod:`._chain_rows`)."""
    from .oracles import ChainOracle

    return type(st.oracle) is ChainOracle and st.L_is_eye


class ChainBlocks:
    """BCFW's block steps for a chain, a whole pass per numba call.

    Shares its arrays with the :class:`~kernelkit.structured._dual.DualState` (U and its
    scores, w_tau, ell), so the state's objectives and export read them; the working set
    is kept here in flat arrays and copied into the state by :meth:`finish`, which also
    rebuilds the blocks' transition parts (pairwise steps never read them).
    """

    def __init__(self, st):
        self.st = st
        n, N = len(st.offsets) - 1, len(st.Z)
        self.n, self.N = n, N
        self.head = np.full(n, -1, dtype=np.int64)
        cap = 2 * n + 16
        self.nxt = np.full(cap, -1, dtype=np.int64)
        self.owner = np.zeros(cap, dtype=np.int64)
        self.start = np.zeros(cap, dtype=np.int64)
        self.alpha = np.zeros(cap)
        self.states = np.zeros(2 * N + 16, dtype=np.int64)
        self.count = np.zeros(2, dtype=np.int64)
        self.lengths = np.diff(st.offsets).astype(np.int64)
        self.max_T = int(self.lengths.max())
        self.normalize = bool(st.oracle._normalized())
        self.offsets = np.ascontiguousarray(st.offsets, dtype=np.int64)
        self.Z = np.ascontiguousarray(st.Z, dtype=np.int64)
        self.gram_at = np.concatenate([[0], np.cumsum(self.lengths**2)]).astype(np.int64)
        self.gaps = np.full(n, np.inf)  # block FW gaps at their latest visits
        f = st.field  # cheap scores: primal weights, at most 4 S nonzero features a row
        self.cheap = bool(f.mode == "explicit"
                          and np.count_nonzero(f.Phi) <= 4 * f.U.shape[1] * len(f.Phi))
        #: cached-plane passes the solver runs after each pass with inference
        self.cached_passes = _CACHED_PASSES[self.cheap]
        self.csr = None  # Phi as (row_at, cols, vals), at the first _tuples (explicit mode)
        self.grams = np.zeros(self.gram_at[-1])  # the blocks' K_ii, formed at first visits
        self.have_gram = np.zeros(n, dtype=np.bool_)
        # kernel rows: all of the cached K (local = identity), or a group's (stream mode)
        self.identity = np.arange(N if f.mode == "cached" else 0, dtype=np.int64)
        self.group_sweeps = _GROUP_SWEEPS
        self.rows = None if f.mode != "stream" else GroupRows(
            f.kernel, f.parts, f.diag, max(self.max_T, f.cache_rows()))

    def _reserve(self, pairs: int, states: int) -> None:
        """Room for ``pairs`` more pairs and ``states`` more states (a visit adds at most
        one pair, with its T states)."""
        m, ms = int(self.count[0]), int(self.count[1])
        if m + pairs > len(self.alpha):
            cap = 2 * (m + pairs)
            for name in ("nxt", "owner", "start", "alpha"):
                old = getattr(self, name)
                new = np.full(cap, -1, old.dtype) if name == "nxt" else np.zeros(cap, old.dtype)
                new[:m] = old[:m]
                setattr(self, name, new)
        if ms + states > len(self.states):
            new = np.zeros(2 * (ms + states), dtype=np.int64)
            new[:ms] = self.states[:ms]
            self.states = new

    def _tuples(self, K=None) -> tuple[_Scores, _Blocks]:
        """The numba views; ``K``: the rows of a group (stream mode; none: scores only)."""
        st, f = self.st, self.st.field
        none, idx = np.zeros((1, 1)), np.zeros(1, dtype=np.int64)
        if f.mode == "explicit":
            if self.csr is None:  # Phi's nonzeros when at most half (binary pixels: a fifth)
                self.csr = (idx[:0], idx[:0], idx[:0] * 0.0)
                if 2 * np.count_nonzero(f.Phi) <= f.Phi.size:
                    r, c = np.nonzero(f.Phi)
                    self.csr = (np.searchsorted(r, np.arange(len(f.Phi) + 1)).astype(np.int64),
                                c.astype(np.int64), np.ascontiguousarray(f.Phi[r, c], np.float64))
            sc = _Scores(True, f.Phi, f.W, none, none, idx[:0], *self.csr)
        else:
            f.flush()
            if self.rows is None:
                K, local = f.K, self.identity
            else:
                K, local = (none.astype(f.dtype) if K is None else K), self.rows.local
            sc = _Scores(False, none.astype(f.dtype), none, K, f.AT, local, idx, idx, idx * 0.0)
        bl = _Blocks(self.offsets, self.Z, st.C, self.normalize, f.U, st.w_tau, st.ell,
                     self.head, self.nxt, self.owner, self.start, self.alpha, self.states,
                     self.count, self.grams, self.gram_at, self.have_gram)
        return sc, bl

    def run_pass(self, order: np.ndarray, oracle: bool = True, keep: bool = False) -> float:
        """One visit (pairwise steps, :func:`_run_pass`) per example in ``order``; returns
        the sum of the blocks' Frank-Wolfe gaps at their latest visits (an estimate of the
        duality gap, each block's taken at its visit). ``oracle=False``: cached-plane visits
        (no inference, the working sets only); returns the sum of their working-set gaps.
        ``keep``: outputs whose alpha drops to 0 stay in the working sets."""
        order = np.asarray(order, dtype=np.int64)
        sweeps = 1 if self.rows is None else self.group_sweeps  # a visit adds <= 1 pair
        self._reserve(sweeps * len(order), sweeps * int(self.lengths[order].sum()))
        steps = _MAX_STEPS[self.cheap]
        if self.rows is None:
            sc, bl = self._tuples()
            total = _run_pass(sc, bl, order, self.max_T, steps, _ENOUGH, self.gaps, oracle,
                              keep)
        else:  # the same visits, a group of examples' kernel rows at a time
            total = 0.0
            for g in self.rows.groups(order, self.lengths):
                parts = group_parts(self.offsets, order[g])
                sc, bl = self._tuples(self.rows.form(parts))
                for _ in range(self.group_sweeps):
                    total += _run_pass(sc, bl, order[g], self.max_T, steps, _ENOUGH,
                                       self.gaps, oracle, keep)
                self.rows.release(parts)
        _compact(bl, self.lengths)
        return float(np.sum(self.gaps)) if oracle else float(total)

    def add_violated(self, eps: float) -> int:
        """Add every example's most violated output beating its slack by eps (the cutting
        planes of :func:`_add_violated`, alpha 0); returns how many were added."""
        self._reserve(self.n, int(self.lengths.sum()))
        sc, bl = self._tuples()
        return int(_add_violated(sc, bl, self.max_T, eps))

    def drop_empty(self) -> None:
        """Remove the outputs without mass from the working sets."""
        bl = self._tuples()[1]
        _drop_all_empty(bl)
        _compact(bl, self.lengths)

    def objectives(self) -> tuple[float, float]:
        """(primal, dual) at the current w, as DualState.objectives (one numba call)."""
        st, f = self.st, self.st.field
        if f.mode == "explicit":  # G = Phi W in numba: no BLAS threads woken (and spinning)
            G, wsq = _all_scores(self._tuples()[0], len(st.Z)), float(np.sum(f.W * f.W))
        else:
            f.flush()
            G = np.ascontiguousarray(f.AT.T, dtype=np.float64)
            wsq = float(np.sum(f.U * G))  # tr(U^T K U)
        wsq += float(st.w_tau @ st.w_tau)
        S = f.U.shape[1]
        H = _hinge_sum(G, np.ascontiguousarray(st.w_tau.reshape(S, S)), self.offsets, self.Z,
                       self.normalize)
        return 0.5 * wsq + st.C * H, float(st.ell.sum()) - 0.5 * wsq

    def get_state(self) -> list:
        """Copies of everything that defines (alpha, w): the field's arrays, w_tau, ell and
        the pair table (owner, start, alpha of every slot, the states; the blocks' tau_blk
        is rebuilt by :meth:`finish`, so it is not copied: ``None`` in its slot)."""
        st = self.st
        m, ms = int(self.count[0]), int(self.count[1])
        table = (self.owner[:m].copy(), self.start[:m].copy(), self.alpha[:m].copy(),
                 self.states[:ms].copy())
        return st.field.get_state() + [st.w_tau.copy(), None, st.ell.copy(), table]

    def set_state(self, state: list) -> None:
        """Adopt the arrays of :meth:`get_state` (the pair table is copied back and the
        examples' lists rebuilt from it)."""
        st = self.st
        st.field.set_state(state[:2])
        st.w_tau, st.ell = state[2], state[4]
        owner, start, alpha, states = state[5]
        self.count[:] = 0
        self._reserve(len(owner), len(states))
        m, ms = len(owner), len(states)
        self.owner[:m], self.start[:m], self.alpha[:m] = owner, start, alpha
        self.states[:ms] = states
        self.alpha[m:] = 0.0
        self.count[:] = m, ms
        _relink(self._tuples()[1], m)

    def finish(self) -> None:
        """Copy the working set into the state's per-example lists (for its export) and
        rebuild tau_blk[i] = sum_y alpha_iy (tau(y_i) - tau(y))."""
        st, m = self.st, int(self.count[0])
        owner = self.owner[:m]
        lengths = np.diff(self.offsets)[owner]
        keep = self.alpha[:m] > 0
        if np.any(keep):
            starts, lens = self.start[:m][keep], lengths[keep]
            ends = np.cumsum(lens)
            states = self.states[np.repeat(starts - ends + lens, lens) + np.arange(ends[-1])]
            tau = st.oracle.pairwise_batch(states, np.concatenate([[0], np.cumsum(lens)]))
            a = self.alpha[:m][keep]
            mass = np.bincount(owner[keep], weights=a, minlength=self.n)
            st.tau_blk = st.tau_true * mass[:, None]
            SS = st.tau_blk.shape[1]  # tau_blk[i] -= sum over i's pairs of alpha tau(y)
            cells = (owner[keep][:, None] * SS + np.arange(SS)).ravel()
            st.tau_blk -= np.bincount(cells, weights=(a[:, None] * tau).ravel(),
                                      minlength=st.tau_blk.size).reshape(st.tau_blk.shape)
        else:
            st.tau_blk = np.zeros_like(st.tau_true)
        st.ws_z = [[] for _ in range(self.n)]
        st.ws_alpha = [np.zeros(0) for _ in range(self.n)]
        order = np.argsort(owner, kind="stable")
        bounds = np.searchsorted(owner[order], np.arange(self.n + 1))
        for i in np.flatnonzero(np.diff(bounds)):
            pairs = order[bounds[i]:bounds[i + 1]]
            st.ws_alpha[i] = self.alpha[pairs].copy()
            st.ws_z[i] = [self.states[s:s + t].copy()
                          for s, t in zip(self.start[pairs], lengths[pairs])]
