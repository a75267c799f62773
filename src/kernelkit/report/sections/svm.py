"""One-class SVM decision regions (notes' formulation and nu) and the multiclass SVM on letters."""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 45
TITLE = "One-class and multiclass SVMs"


def _timed(fit):
    t0 = time.perf_counter()
    out = fit()
    return out, time.perf_counter() - t0


def _one_class_figure(ctx: DemoContext):
    import matplotlib.pyplot as plt
    from sklearn.datasets import load_wine

    from kernelkit import OneClassSVM

    # two standardized features of the (bundled) wine data: alcohol and flavanoids
    wine = load_wine()
    X = wine.data[:, [0, 6]]
    X = (X - X.mean(0)) / X.std(0)
    ctx.progress("One-class SVM: notes' formulation and nu=0.1 on wine (alcohol, flavanoids)")
    notes = OneClassSVM(C=30.0, gamma=0.5, random_state=ctx.random_state).fit(X)
    nu = OneClassSVM(nu=0.1, gamma=0.5).fit(X)
    g = np.linspace(-3.5, 3.5, 120 if ctx.quick else 240)
    G = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), constrained_layout=True)
    for ax, model, label in [
        (axes[0], notes, "notes: (1/m) Σ(1 − f)₊ + ‖f‖²/(2C), C=30"),
        (axes[1], nu, "Schölkopf ν = 0.1 (offset ρ)"),
    ]:
        Z = model.decision_function(G).reshape(len(g), len(g))
        ax.contourf(g, g, Z, levels=np.linspace(Z.min(), 0, 8), cmap="Blues_r", alpha=0.6)
        ax.contour(g, g, Z, levels=[0.0], colors="k", linewidths=1.5)
        out = model.predict(X) == -1
        ax.scatter(X[~out, 0], X[~out, 1], s=12, c="tab:green", label="inlier")
        ax.scatter(X[out, 0], X[out, 1], s=18, c="tab:red", marker="x", label="outlier")
        ax.scatter(*model.support_vectors_.T, s=60, facecolors="none", edgecolors="k",
                   linewidths=0.6, label=f"support vectors ({model.n_support_[0]})")
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("alcohol (standardized)")
        ax.set_ylabel("flavanoids (standardized)")
        ax.legend(fontsize=8, loc="lower left")
    from sklearn.svm import OneClassSVM as SkOneClassSVM

    ours, t = _timed(lambda: OneClassSVM(nu=0.1, gamma=0.5).fit(X))
    peer, tp = _timed(lambda: SkOneClassSVM(nu=0.1, gamma=0.5).fit(X))
    row = dict(model="OneClassSVM(nu=0.1)", data=f"wine, 2 features (n={len(X)})",
               metric="training outlier fraction (ν = 0.1)",
               ours=float(np.mean(ours.predict(X) == -1)),
               peer=float(np.mean(peer.predict(X) == -1)), peer_name="sklearn OneClassSVM",
               seconds=t, peer_seconds=tp)
    caption = ("One-class SVM decision regions on two standardized wine features; black "
               "line: decision_function = 0 (f(x) = 1 for the notes' formulation, "
               "f(x) = ρ for ν), shaded: outside.")
    return caption, fig, row


def run(ctx: DemoContext) -> Section:
    import matplotlib

    matplotlib.use("Agg")
    from sklearn.svm import SVC

    from kernelkit import MulticlassSVM
    from kernelkit.datasets import load_letters

    caption, fig, row = _one_class_figure(ctx)
    rows = [row]

    Xtr, ytr, Xte, yte = load_letters(return_X_y=True, standardize=True)
    n = 1500 if ctx.quick else 8000
    Xtr, ytr = Xtr[:n], ytr[:n]
    if ctx.quick:
        Xte, yte = Xte[:1000], yte[:1000]
    ctx.progress(f"MulticlassSVM (both losses) vs SVC on letters, n={n}")
    MulticlassSVM(C=1.0, gamma=0.2).fit(Xtr[:100], ytr[:100])  # load the compiled kernels
    svc, t_svc = _timed(lambda: SVC(C=10.0, gamma=0.2).fit(Xtr, ytr))
    acc_svc = float(svc.score(Xte, yte))
    for loss in ("crammer_singer", "weston_watkins"):
        est = MulticlassSVM(C=10.0, gamma=0.2, loss=loss, tol=0.1,
                            random_state=ctx.random_state)
        est, t = _timed(lambda est=est: est.fit(Xtr, ytr))
        # scikit-learn has no all-together kernel multiclass SVM: no peer; its one-vs-one
        # SVC (a different decomposition) is shown as a reference
        rows.append(dict(model=f"MulticlassSVM({loss}, C=10)",
                         data=f"letters n={n}, test {len(yte)}", metric="test accuracy",
                         ours=float(est.score(Xte, yte)), peer=None, seconds=t,
                         reference=acc_svc, reference_name="sklearn SVC one-vs-one",
                         reference_seconds=t_svc))
    text = ("Left: the lecture notes' one-class SVM (no offset; f(x) = Σ αᵢ k(xᵢ, x) ≥ 1 "
            "marks inliers, and f ≤ Σα ≤ C, so C controls the region's size). Right: the "
            "ν-formulation, the same problem as scikit-learn's OneClassSVM (its peer in the "
            "table), where ν bounds the outlier fraction. The all-together multiclass SVMs "
            "(one function per class, argmax) have no scikit-learn peer; scikit-learn's "
            "one-vs-one SVC on the same UCI letters is shown as a reference.")
    return Section(title=TITLE, rows=rows, figures=[(caption, fig)], text=text)
