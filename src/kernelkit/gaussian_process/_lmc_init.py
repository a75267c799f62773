"""Starting values of the LMC's coregionalization matrices and noise variances.

Without user values the start comes from the outputs' second moments
``S[t, s] = mean over inputs where both are observed of y_t y_s`` (the prior mean is zero):
a tenth of each diagonal goes to the noise, the rest is split equally between the Q terms
(divided by the kernel's mean prior variance), and each ``B_q`` starts as the best rank-r
approximation ``W_q W_q^T`` (top eigenvectors) plus what that leaves of the diagonal.
"""

from __future__ import annotations

import numpy as np

from ._coregionalization import Coregionalization

__all__ = ["initial_coregionalization", "restart_theta", "second_moments"]


def second_moments(Y: np.ndarray) -> np.ndarray:
    """Pairwise-complete ``mean(y_t y_s)`` of an (n, T) matrix with NaN, shape (T, T)."""
    obs = ~np.isnan(Y)
    Y0 = np.where(obs, Y, 0.0)
    counts = obs.T.astype(float) @ obs
    return (Y0.T @ Y0) / np.maximum(counts, 1.0)


def _as_float_array(value, shape, name: str) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    try:
        a = np.broadcast_to(a, shape).copy()
    except ValueError:
        raise ValueError(f"{name} must broadcast to shape {shape}; got shape {a.shape}.") from None
    return a


def _positive(a: np.ndarray, name: str) -> np.ndarray:
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be finite and > 0 (variances); got {a!r}.")
    return a


def _user_W(W_init, Q: int, T: int, rank: int) -> list:
    arrays = list(W_init) if isinstance(W_init, (list, tuple)) else [W_init]
    if len(arrays) != Q:
        raise ValueError(f"W_init must be one (T, rank) array per kernel ({Q}); got "
                         f"{len(arrays)}.")
    out = []
    for W in arrays:
        W = np.asarray(W, dtype=float)
        if W.shape != (T, rank) or not np.all(np.isfinite(W)):
            raise ValueError(f"W_init arrays must be finite with shape (T, rank) = "
                             f"{(T, rank)}; got shape {W.shape}.")
        out.append(W.copy())
    return out


def initial_coregionalization(Y, X, kernels, rank, W_init, kappa_init, alpha, kappa_bounds,
                              noise_bounds, rng):
    """``(W, kappa, noise)``: user values where given, else from the data (module doc)."""
    T, Q = Y.shape[1], len(kernels)
    S = second_moments(Y)
    diag = np.diagonal(S)
    floor = 1e-3 * max(float(diag.mean()), np.finfo(float).tiny)
    if alpha is None:
        noise = np.maximum(0.1 * diag, floor)  # a tenth of each output's mean square
        noise = np.clip(noise, *noise_bounds) if noise_bounds is not None else noise
    else:
        noise = _positive(_as_float_array(alpha, (T,), "alpha"), "alpha (noise variance)")
    W, kappa = [], np.empty((Q, T))
    for q, k in enumerate(kernels):
        prior_var = float(np.mean(k.diag(X)))
        Sq = 0.9 * S / (Q * prior_var if prior_var > 0 else Q)
        lam, U = np.linalg.eigh(Sq)
        top = np.argsort(lam)[::-1][:rank]
        Wq = U[:, top] * np.sqrt(np.maximum(lam[top], 0.0))
        if Q > 1:  # break the symmetry between terms that start alike
            Wq += 0.1 * np.sqrt(floor) * rng.standard_normal(Wq.shape)
        W.append(Wq)
        resid = np.diagonal(Sq) - np.sum(Wq * Wq, axis=1)
        kappa[q] = np.maximum(np.maximum(resid, 0.1 * np.diagonal(Sq)), floor / Q)
    if kappa_bounds is not None and kappa_init is None:
        kappa = np.clip(kappa, *kappa_bounds)
    if W_init is not None:
        W = _user_W(W_init, Q, T, rank)
    if kappa_init is not None:
        kappa = _positive(_as_float_array(kappa_init, (Q, T), "kappa_init"), "kappa_init")
    return W, kappa, noise


def restart_theta(params: Coregionalization, rng) -> np.ndarray:
    """A random start: kernel theta log-uniform in its bounds, W Gaussian at the scale of the
    current W, log kappa and log noise within +-2 of the current values (inside bounds)."""
    parts = []
    for k in params.kernels:
        b = k.bounds
        if not np.isfinite(b).all():
            raise ValueError("n_restarts_optimizer > 0 needs finite bounds on every kernel "
                             "hyperparameter.")
        parts.append(rng.uniform(b[:, 0], b[:, 1]))
    T = params.n_outputs

    def near(values, bounds):
        lo, hi = np.log(bounds)
        return np.clip(np.log(values) + rng.uniform(-2.0, 2.0, size=T), lo, hi)

    for q, W in enumerate(params.W):
        scale = np.sqrt(np.mean(W * W)) if W.size and np.any(W) else 1.0
        parts.append(scale * rng.standard_normal(W.size))
        if params.kappa_bounds is not None:
            parts.append(near(params.kappa[q], params.kappa_bounds))
    if params.noise_bounds is not None:
        parts.append(near(params.noise, params.noise_bounds))
    return np.concatenate(parts)
