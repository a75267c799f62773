"""KernelClassifier / KernelRegressor (SMO) vs scikit-learn's SVC / SVR (libsvm)."""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC, SVR

from kernelkit import KernelClassifier, KernelRegressor

from ._data import letters, regression_data
from ._harness import Row, timeit

AM = list("ABCDEFGHIJKLM")


def _letters_binary(quick: bool):
    Xtr, ytr, Xte, yte = letters()
    n = 4000 if quick else len(Xtr)
    return Xtr[:n], np.isin(ytr[:n], AM).astype(int), Xte, np.isin(yte, AM).astype(int)


def run(quick: bool = False) -> list[Row]:
    rows = []
    # --- letters A-M vs N-Z, RBF gamma = 0.1, C = 10 (alpha = 1 / (2 C m))
    X, y, Xt, yt = _letters_binary(quick)
    m, C, gamma = len(y), 10.0, 0.1
    ours = KernelClassifier(alpha=1.0 / (2 * C * m), gamma=gamma)
    peer = SVC(C=C, gamma=gamma, cache_size=1000)
    KernelClassifier(alpha=1.0, gamma=gamma).fit(X[:300], y[:300])  # numba cache load
    t_ours, _ = timeit(lambda: ours.fit(X, y), repeat=1 if quick else 3, warmup=1)
    t_peer, _ = timeit(lambda: peer.fit(X, y), repeat=1 if quick else 3, warmup=1)
    acc_o, acc_p = ours.score(Xt, yt), peer.score(Xt, yt)
    agree = float(np.mean(ours.predict(Xt) == peer.predict(Xt)))
    rows.append(Row(
        f"KernelClassifier(hinge) letters A-M vs N-Z, n={m}, RBF gamma={gamma}, C={C}",
        t_ours, t_peer, peer="sklearn SVC (libsvm)",
        agree=f"test acc {100 * acc_o:.2f}% vs {100 * acc_p:.2f}%; same label {100 * agree:.2f}%",
        target="acc ≥ SVC − 0.3 pt, fit ≤ 1.5× SVC",
        notes=f"SVs {ours.n_support_} vs {peer.support_.size}; SMO iter {ours.n_iter_[0]} vs "
              f"{peer.n_iter_[0]}; time ratio ours/SVC {t_ours / t_peer:.2f}",
    ))
    # --- eps-SVR, n = 10,000 (d = 8 shared regression data)
    n = 2000 if quick else 10_000
    Xr, yr, Xrt, _ = regression_data(n=n)
    C, eps, gamma = 1.0, 0.1, 0.5
    ours_r = KernelRegressor("epsilon_insensitive", alpha=1.0 / (2 * C * n), gamma=gamma,
                             epsilon=eps)
    peer_r = SVR(C=C, gamma=gamma, epsilon=eps, cache_size=1000)
    t_ours, _ = timeit(lambda: ours_r.fit(Xr, yr), repeat=1 if quick else 3, warmup=1)
    t_peer, _ = timeit(lambda: peer_r.fit(Xr, yr), repeat=1 if quick else 3, warmup=1)
    diff = float(np.max(np.abs(ours_r.predict(Xrt) - peer_r.predict(Xrt))))
    rows.append(Row(
        f"KernelRegressor(epsilon_insensitive) vs SVR, n={n}, d=8, RBF gamma={gamma}, "
        f"C={C}, eps={eps}", t_ours, t_peer, peer="sklearn SVR (libsvm)",
        agree=f"max abs pred diff {diff:.1e} on {len(Xrt)} test points",
        target="same predictions to 1e-3, fit ≤ 1.5× SVR",
        notes=f"SVs {ours_r.n_support_} vs {peer_r.support_.size}; time ratio ours/SVR "
              f"{t_ours / t_peer:.2f}",
    ))
    return rows
