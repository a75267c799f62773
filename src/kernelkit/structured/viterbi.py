"""Viterbi decoding of first-order chains in numba (plain and Hamming-loss-augmented).

For unary scores G (T, S) and transition weights W (S, S) the chain score is
f(z) = sum_t G[t, z_t] + sum_{t<T} W[z_t, z_{t+1}]; Viterbi maximizes it exactly in
O(T S^2) by dynamic programming: V_t(s) = G[t, s] + max_r (V_{t-1}(r) + W[r, s]).
The Hamming loss Delta(z*, z) = c sum_t [z_t != z*_t] (c = 1, or c = 1/T normalized)
decomposes over positions, so loss-augmented inference is Viterbi on G[t, s] + c [s != z*_t].
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["viterbi", "viterbi_batch"]


@njit(cache=True)
def _viterbi_into(G, W, z_true, augment, normalize, out):
    T, S = G.shape
    _viterbi_work(G, W, z_true, augment, normalize, out, np.empty((T, S), dtype=np.int64),
                  np.empty(S), np.empty(S))


@njit(cache=True)
def _viterbi_work(G, W, z_true, augment, normalize, out, back, V, Vn):
    """:func:`_viterbi_into` with its work arrays given: back (>= T, S), V and Vn (S,)."""
    T, S = G.shape
    inv_T = 1.0 / T if normalize else 1.0  # loss per wrong position
    for s in range(S):
        V[s] = G[0, s]
        if augment and s != z_true[0]:
            V[s] += inv_T
    for t in range(1, T):
        for s in range(S):
            Vn[s] = -np.inf
            back[t, s] = 0
        for r in range(S):  # V_t(s) = G[t, s] + max_r V_{t-1}(r) + W[r, s], r outer: W's rows
            vr = V[r]
            for s in range(S):
                v = vr + W[r, s]
                if v > Vn[s]:  # the first r that attains the max, as before
                    Vn[s] = v
                    back[t, s] = r
        for s in range(S):
            g = G[t, s]
            if augment and s != z_true[t]:
                g += inv_T
            V[s] = Vn[s] + g
    arg = 0
    for s in range(1, S):
        if V[s] > V[arg]:
            arg = s
    out[T - 1] = arg
    for t in range(T - 1, 0, -1):
        out[t - 1] = back[t, out[t]]


@njit(cache=True)
def _viterbi_batch(G, W, offsets, z_true, augment, normalize, out):
    for i in range(len(offsets) - 1):
        a = offsets[i]
        b = offsets[i + 1]
        _viterbi_into(G[a:b], W, z_true[a:b], augment, normalize, out[a:b])


def viterbi(G: np.ndarray, W: np.ndarray, z_true: np.ndarray | None = None, *,
            normalize: bool = True) -> np.ndarray:
    """Best label sequence for unary scores ``G`` (T, S) and transitions ``W`` (S, S).

    With ``z_true``, maximizes Delta_Hamming(z_true, z) + f(z) instead (loss augmentation);
    the Hamming loss counts wrong positions, divided by T when ``normalize``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.structured.viterbi import viterbi
    >>> G = np.array([[1.0, 0.0], [0.0, 0.2], [1.0, 0.0]])
    >>> viterbi(G, np.array([[0.5, -1.0], [-1.0, 0.5]])).tolist()
    [0, 0, 0]
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    W = np.ascontiguousarray(W, dtype=np.float64)
    if G.ndim != 2 or len(G) == 0 or W.shape != (G.shape[1], G.shape[1]):
        raise ValueError(f"viterbi needs G of shape (T >= 1, S) and W of shape (S, S); got "
                         f"{G.shape} and {W.shape}.")
    out = np.empty(len(G), dtype=np.int64)
    augment = z_true is not None
    zt = np.asarray(z_true, dtype=np.int64) if augment else np.zeros(len(G), np.int64)
    if zt.shape != (len(G),):
        raise ValueError(f"z_true must have one label per position ({len(G)}); got {zt.shape}.")
    _viterbi_into(G, W, zt, augment, normalize, out)
    return out


def viterbi_batch(G, W, offsets, Z_true=None, *, normalize: bool = True) -> np.ndarray:
    """:func:`viterbi` for many chains stored back to back (``offsets`` of length n + 1)."""
    G = np.ascontiguousarray(G, dtype=np.float64)
    W = np.ascontiguousarray(W, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    out = np.empty(len(G), dtype=np.int64)
    augment = Z_true is not None
    zt = np.asarray(Z_true, dtype=np.int64) if augment else np.zeros(len(G), np.int64)
    _viterbi_batch(G, W, offsets, zt, augment, normalize, out)
    return out
