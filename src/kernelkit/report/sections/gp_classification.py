"""GP classification (Laplace approximation) on two breast-cancer features, vs scikit-learn."""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 22
TITLE = "Gaussian-process classification"


def _timed(fit):
    t0 = time.perf_counter()
    out = fit()
    return out, time.perf_counter() - t0


def _figure(gpc, X, y, names, quick):
    import matplotlib.pyplot as plt

    lo, hi = float(X.min()) - 0.5, float(X.max()) + 0.5
    g = np.linspace(lo, hi, 60 if quick else 150)
    G = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    proba = gpc.predict_proba(G)[:, 1].reshape(len(g), len(g))
    _, var = gpc.latent_mean_and_variance(G)
    std = np.sqrt(var).reshape(len(g), len(g))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), constrained_layout=True)
    for ax, Z, label, cmap in [
        (axes[0], proba, "p(benign | x) (probit-approximated average of σ(f))", "RdBu"),
        (axes[1], std, "latent standard deviation √var[f(x)] (Laplace)", "viridis"),
    ]:
        cs = ax.contourf(g, g, Z, levels=12, cmap=cmap, alpha=0.8)
        fig.colorbar(cs, ax=ax, shrink=0.85)
        if Z is proba:
            ax.contour(g, g, Z, levels=[0.5], colors="k", linewidths=1.5)
        for cls, marker, color in [(0, "x", "tab:red"), (1, "o", "tab:blue")]:
            ax.scatter(*X[y == cls].T, s=10, marker=marker, c=color, alpha=0.7,
                       label=["malignant", "benign"][cls])
        ax.set_title(label, fontsize=10)
        ax.set_xlabel(f"{names[0]} (standardized)")
        ax.set_ylabel(f"{names[1]} (standardized)")
        ax.legend(fontsize=8, loc="lower left")
    caption = ("GaussianProcessClassifier (Constant × RBF, hyperparameters learned on the "
               "Laplace marginal likelihood) on two standardized breast-cancer features. "
               "Left: class probability, black line p = 1/2. Right: the latent posterior "
               "standard deviation, small where training points are dense.")
    return caption, fig


def run(ctx: DemoContext) -> Section:
    import matplotlib

    matplotlib.use("Agg")
    from sklearn.datasets import load_breast_cancer
    from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
    from sklearn.gaussian_process import kernels as sk
    from sklearn.metrics import log_loss
    from sklearn.model_selection import train_test_split

    from kernelkit import GaussianProcessClassifier
    from kernelkit.kernels import RBF, Constant

    data = load_breast_cancer()
    cols = [20, 21]  # worst radius, worst texture
    X = data.data[:, cols]
    X = (X - X.mean(0)) / X.std(0)
    Xtr, Xte, ytr, yte = train_test_split(X, data.target, test_size=0.3,
                                          random_state=ctx.random_state, stratify=data.target)
    if ctx.quick:
        Xtr, ytr = Xtr[:150], ytr[:150]
    ctx.progress(f"GaussianProcessClassifier vs scikit-learn on breast cancer, n={len(Xtr)}")
    ours, t_ours = _timed(lambda: GaussianProcessClassifier(Constant(1.0) * RBF(1.0))
                          .fit(Xtr, ytr))
    peer, t_peer = _timed(lambda: SkGPC(sk.ConstantKernel(1.0) * sk.RBF(1.0)).fit(Xtr, ytr))
    p_o, p_p = ours.predict_proba(Xte), peer.predict_proba(Xte)
    data_name = f"breast cancer, 2 features (n={len(Xtr)}, test {len(yte)})"
    rows = [
        dict(model="GaussianProcessClassifier(C·RBF, learned)", data=data_name,
             metric="test accuracy", ours=float(np.mean(p_o.argmax(1) == yte)),
             peer=float(np.mean(p_p.argmax(1) == yte)), seconds=t_ours, peer_seconds=t_peer),
        dict(model="GaussianProcessClassifier(C·RBF, learned)", data=data_name,
             metric="test log loss", ours=float(log_loss(yte, p_o)),
             peer=float(log_loss(yte, p_p))),
        dict(model="GaussianProcessClassifier(C·RBF, learned)", data=data_name,
             metric="Laplace log marginal likelihood", ours=ours.log_marginal_likelihood_value_,
             peer=float(peer.log_marginal_likelihood_value_)),
    ]
    caption, fig = _figure(ours, Xtr, ytr, [data.feature_names[c] for c in cols], ctx.quick)
    text = ("A GP prior on a latent function f and p(y = 1 | f) = σ(f): the posterior is "
            "approximated by a Gaussian at its mode (Laplace, found by Newton's method), "
            "class probabilities average σ over it, and the kernel's hyperparameters "
            "maximize the approximate marginal likelihood with its analytic gradient. "
            "The table compares with scikit-learn's GaussianProcessClassifier on the same "
            "data from the same starting kernel.")
    return Section(title=TITLE, rows=rows, figures=[(caption, fig)], text=text)
