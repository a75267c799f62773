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


def _regressor_row(ctx: DemoContext, SVR) -> dict:
    """KernelRegressor with the epsilon-insensitive loss against SVR: test R^2 of both."""
    from kernelkit import KernelRegressor

    rng = np.random.default_rng(ctx.random_state)
    m = 1000 if ctx.quick else 3000
    X = rng.uniform(-2, 2, size=(2 * m, 2))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] ** 2 + 0.1 * rng.normal(size=len(X))
    tr, te = slice(0, m), slice(m, None)
    # alpha = 1 / (2 C m) with C = 1: libsvm's epsilon-SVR
    reg, t = _timed(KernelRegressor("epsilon_insensitive", alpha=1 / (2 * m), gamma=1.0,
                                    epsilon=0.1), X[tr], y[tr])
    svr, tp = _timed(SVR(C=1.0, gamma=1.0, epsilon=0.1), X[tr], y[tr])
    return dict(model="KernelRegressor(epsilon_insensitive)", data=f"2-D sine, n={m}, test {m}",
                metric="test R^2", ours=round(float(reg.score(X[te], y[te])), 4),
                peer=round(float(svr.score(X[te], y[te])), 4), peer_name="sklearn SVR",
                seconds=t, peer_seconds=tp)


def run(ctx: DemoContext) -> Section:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import make_moons
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC, SVR

    from kernelkit import KernelClassifier
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
    # same method in scikit-learn: SVC for the hinge loss; no kernel logistic or kernel
    # squared-hinge machine there (linear LogisticRegression is a reference, not a peer)
    peers = {"hinge": ("sklearn SVC", lambda: SVC(C=C, gamma=gamma), None),
             "logistic": (None, None, ("linear LogisticRegression",
                                       lambda: LogisticRegression(max_iter=2000))),
             "squared_hinge": (None, None, None)}
    for loss, (peer_name, make_peer, reference) in peers.items():
        # Newton (smooth losses) factorises an m x m matrix per step: keep m moderate
        m = n if loss == "hinge" else min(n, 600 if ctx.quick else 1500)
        data = f"letters A-M vs N-Z (n={m}, test {len(yte)})"
        ours, t = _timed(KernelClassifier(loss, alpha=1.0 / (2 * C * m), gamma=gamma),
                         Xtr[:m], ytr[:m])
        row = dict(model=f"KernelClassifier({loss})", data=data, metric="test accuracy",
                   ours=round(float(ours.score(Xte, yte)), 4), peer=None, seconds=t)
        if make_peer is not None:
            peer, tp = _timed(make_peer(), Xtr[:m], ytr[:m])
            row.update(peer=round(float(peer.score(Xte, yte)), 4), peer_seconds=tp,
                       peer_name=peer_name)
        if reference is not None:
            ref, tr = _timed(reference[1](), Xtr[:m], ytr[:m])
            row.update(reference=round(float(ref.score(Xte, yte)), 4), reference_seconds=tr,
                       reference_name=reference[0])
        rows.append(row)
    ctx.progress("KernelRegressor(epsilon_insensitive) vs SVR")
    rows.append(_regressor_row(ctx, SVR))
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
