"""Kernel machines as loss + kernel + penalty: hinge / squared hinge / logistic on letters."""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 40
TITLE = "Kernel machines: one regularised risk, many losses"


def _timed(est, X, y):
    t0 = time.perf_counter()
    est.fit(X, y)
    return est, time.perf_counter() - t0


def run(ctx: DemoContext) -> Section:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import make_moons
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC, SVR

    from kernelkit import KernelClassifier, KernelRegressor
    from kernelkit.datasets import load_letters

    Xtr, ytr, Xte, yte = load_letters(return_X_y=True, standardize=True)
    ytr, yte = (ytr <= "M").astype(int), (yte <= "M").astype(int)  # A-M vs N-Z
    n = 1000 if ctx.quick else 4000
    Xtr, ytr = Xtr[:n], ytr[:n]
    if ctx.quick:
        Xte, yte = Xte[:1000], yte[:1000]
    gamma, C = 0.1, 10.0
    rows = []
    # alpha = 1 / (2 C m) is libsvm's C for m training points
    ctx.progress(f"KernelClassifier: hinge / squared hinge / logistic on letters (n={n})")
    peers = {
        "hinge": ("SVC", SVC(C=C, gamma=gamma)),
        "logistic": ("linear LogisticRegression", LogisticRegression(max_iter=2000)),
        "squared_hinge": (None, None),
    }
    for loss, (peer_name, peer) in peers.items():
        # Newton (smooth losses) factorises an m x m matrix per step: keep m moderate
        m = n if loss == "hinge" else min(n, 600 if ctx.quick else 1500)
        data = f"letters A-M vs N-Z (n={m}, test {len(yte)})"
        ours, t = _timed(KernelClassifier(loss, alpha=1.0 / (2 * C * m), gamma=gamma),
                         Xtr[:m], ytr[:m])
        row = dict(model=f"KernelClassifier({loss})", data=data, metric="test accuracy",
                   ours=round(float(ours.score(Xte, yte)), 4), peer=None, seconds=round(t, 2))
        if peer is not None:
            peer, tp = _timed(peer, Xtr[:m], ytr[:m])
            row.update(peer=round(float(peer.score(Xte, yte)), 4), peer_seconds=round(tp, 2),
                       metric=f"test accuracy (peer: {peer_name})")
        rows.append(row)
    ctx.progress("KernelRegressor(epsilon_insensitive) vs SVR")
    rng = np.random.default_rng(ctx.random_state)
    Xr = rng.uniform(-2, 2, size=(1000 if ctx.quick else 3000, 2))
    yr = np.sin(2 * Xr[:, 0]) + 0.3 * Xr[:, 1] ** 2 + 0.1 * rng.normal(size=len(Xr))
    m = len(yr)
    reg, t = _timed(KernelRegressor("epsilon_insensitive", alpha=1 / (2 * m), gamma=1.0,
                                    epsilon=0.1), Xr, yr)
    svr, tp = _timed(SVR(C=1.0, gamma=1.0, epsilon=0.1), Xr, yr)
    rows.append(dict(model="KernelRegressor(epsilon_insensitive)", data=f"2-D sine, n={m}",
                     metric="max abs(prediction - SVR prediction)",
                     ours=float(np.max(np.abs(reg.predict(Xr) - svr.predict(Xr)))), peer=0.0,
                     seconds=round(t, 2), peer_seconds=round(tp, 2)))
    # figure: the three losses on two moons (same kernel, same alpha)
    Xm, ym = make_moons(300, noise=0.25, random_state=ctx.random_state)
    grid = np.linspace(-2, 3, 120), np.linspace(-1.5, 2, 100)
    G = np.column_stack([a.ravel() for a in np.meshgrid(*grid)])
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
    for ax, loss in zip(axes, ["hinge", "squared_hinge", "logistic"]):
        clf = KernelClassifier(loss, alpha=1e-3, gamma=2.0).fit(Xm, ym)
        F = clf.decision_function(G).reshape(len(grid[1]), len(grid[0]))
        ax.contourf(grid[0], grid[1], F, levels=20, cmap="RdBu_r", alpha=0.6)
        ax.contour(grid[0], grid[1], F, levels=[-1, 0, 1], colors="k",
                   linestyles=["--", "-", "--"], linewidths=1)
        ax.scatter(Xm[:, 0], Xm[:, 1], c=ym, cmap="RdBu_r", s=8, edgecolors="k",
                   linewidths=0.3)
        sv = clf.support_vectors_
        ax.scatter(sv[:, 0], sv[:, 1], s=30, facecolors="none", edgecolors="k",
                   linewidths=0.5)
        ax.set_title(f"{loss}: {clf.n_support_} SVs, train acc {clf.score(Xm, ym):.3f}")
    fig.tight_layout()
    text = ("One estimator, f = argmin (1/m) sum l(y_i, f(x_i)) + alpha ||f||^2 with the "
            "representer theorem; the loss picks the solver (SMO with an exact intercept "
            "for piecewise-linear losses, Newton for smooth ones). With the hinge loss and "
            "C = 1/(2 alpha m) it is libsvm's C-SVC; with the epsilon-insensitive loss it "
            "is SVR. The hinge loss gives sparse solutions (circled support vectors); the "
            "logistic loss uses every point.")
    return Section(title=TITLE, rows=rows,
                   figures=[("Decision functions of three losses (levels -1, 0, 1)", fig)],
                   text=text)
