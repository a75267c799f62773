"""Plain references for the ensemble tests: the notes' AdaBoost formulas and brute-force stumps.

Nothing here is fast or clever on purpose: loops over every feature and every threshold,
weights kept in linear space, formulas written as in the notes.
"""

from __future__ import annotations

import numpy as np


def candidate_thresholds(x: np.ndarray) -> np.ndarray:
    """−inf, every midpoint between consecutive distinct values, and +inf."""
    v = np.unique(x)
    return np.concatenate(([-np.inf], (v[:-1] + v[1:]) / 2.0, [np.inf]))


def brute_force_stump(X, y, w):
    """Minimum weighted error of 1[x_j ≥ θ] stumps over all features, thresholds, labelings.

    ``y`` holds class indices 0..K−1; each side of the split predicts any class (for two
    classes this is "either polarity"). Returns (error, feature, threshold).
    """
    K = int(y.max()) + 1
    best = (np.inf, -1, np.nan)
    for j in range(X.shape[1]):
        for theta in candidate_thresholds(X[:, j]):
            right = X[:, j] >= theta
            err = 0.0
            for side in (~right, right):
                cw = np.array([w[side & (y == k)].sum() for k in range(K)])
                err += cw.sum() - cw.max()  # the side predicts its weighted majority
            if err < best[0] - 1e-13:
                best = (err, j, theta)
    return best


def best_1d_threshold_error(s, y_pm, w):
    """Minimum weighted error of ±sign(s − θ) over every θ (brute force)."""
    best = np.inf
    for theta in candidate_thresholds(s):
        pred = np.where(s >= theta, 1.0, -1.0)
        for pol in (1.0, -1.0):
            best = min(best, w[pol * pred != y_pm].sum())
    return best


def adaboost_reference(H, y, sample_weight=None):
    """The notes' binary AdaBoost on given weak-learner outputs.

    H : (T, n) array of the weak learners' ±1 predictions h_t(x_i) (round by round),
    y : (n,) labels ±1. Returns dict with D (T+1, n), eps, alpha, Z, bound, train_error.

    D₁ = 1/n;  ε_t = Σ D_t 1[h_t ≠ y];  α_t = ½ log((1 − ε_t)/ε_t);
    D_{t+1} = D_t e^{−α_t y h_t} / Z_t;  Z_t = 2 √(ε_t (1 − ε_t)).
    """
    T, n = H.shape
    D = np.full(n, 1.0 / n) if sample_weight is None else sample_weight / sample_weight.sum()
    D1 = D.copy()
    Ds, eps, alpha, Z, err = [D], [], [], [], []
    F = np.zeros(n)
    for t in range(T):
        h = H[t]
        e = np.sum(D * (h != y))
        a = 0.5 * np.log((1 - e) / e)
        z = 2 * np.sqrt(e * (1 - e))
        D = D * np.exp(-a * y * h) / z
        F = F + a * h
        eps.append(e)
        alpha.append(a)
        Z.append(z)
        Ds.append(D)
        err.append(np.sum(D1 * (np.where(F > 0, 1, -1) != y)))
    return dict(D=np.array(Ds), eps=np.array(eps), alpha=np.array(alpha), Z=np.array(Z),
                bound=np.cumprod(Z), train_error=np.array(err))


def samme_reference(P, y, K):
    """SAMME on given class-index predictions P (T, n): ε_t, α_t = log((1−ε)/ε) + log(K−1),
    D_{t+1} ∝ D_t e^{α_t 1[h_t ≠ y]}."""
    T, n = P.shape
    D = np.full(n, 1.0 / n)
    eps, alpha, Ds = [], [], [D]
    for t in range(T):
        wrong = P[t] != y
        e = np.sum(D * wrong)
        a = np.log((1 - e) / e) + np.log(K - 1)
        D = D * np.exp(a * wrong)
        D = D / D.sum()
        eps.append(e)
        alpha.append(a)
        Ds.append(D)
    return dict(D=np.array(Ds), eps=np.array(eps), alpha=np.array(alpha))
