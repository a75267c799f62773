"""AdaBoost on letters A–M vs N–Z: errors against the ∏Z_t bound, and the margins."""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 60
TITLE = "AdaBoost: training error, the ∏Z_t bound and margins"


def _fit_timed(est, X, y):
    t0 = time.perf_counter()
    est.fit(X, y)
    return est, time.perf_counter() - t0


def _margins_figure(clf, Xtr, ytr):
    """Margins y F_t(x) / Σ_{s≤t} α_s on the training set at a few rounds."""
    import matplotlib.pyplot as plt

    y_pm = np.where(ytr == clf.classes_[1], 1.0, -1.0)
    cum_alpha = np.cumsum(clf.estimator_weights_)
    marks = sorted({5, clf.n_estimators_ // 4, clf.n_estimators_})
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for i, F in enumerate(clf.staged_unnormalized_decision_function(Xtr), start=1):
        if i in marks:
            m = np.sort(y_pm * F / cum_alpha[i - 1])
            ax.plot(m, np.arange(1, len(m) + 1) / len(m), label=f"T = {i}")
    ax.axvline(0.0, color="grey", lw=0.8)
    ax.set_xlabel(r"normalized margin $yF(x)/\sum_t \alpha_t$")
    ax.set_ylabel("cumulative fraction of training points")
    ax.set_title("Margin distribution")
    ax.legend()
    fig.tight_layout()
    return ("Cumulative distribution of the normalized training margins after T "
            "rounds: later rounds move the small margins up.", fig)


def run(ctx: DemoContext) -> Section:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    from kernelkit import AdaBoost
    from kernelkit.datasets import load_letters

    Xtr, ytr, Xte, yte = load_letters(return_X_y=True)
    # binary task: first half of the alphabet (−1) against the second half (+1)
    ytr, yte = np.where(ytr <= "M", -1, 1), np.where(yte <= "M", -1, 1)
    T = 60 if ctx.quick else 300
    if ctx.quick:
        Xtr, ytr, Xte, yte = Xtr[:2000], ytr[:2000], Xte[:1000], yte[:1000]
    rows, figures = [], []
    ctx.progress(f"AdaBoost: stumps and depth-3 trees, T={T}, n={len(ytr)}")
    models = {}
    for label, ours, peer in [
        ("stumps", AdaBoost("stump", n_estimators=T),
         AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=T,
                            random_state=ctx.random_state)),
        ("depth-3 trees", AdaBoost("tree", n_estimators=T),
         AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=T,
                            random_state=ctx.random_state)),
    ]:
        # a tiny warm-up fit loads the compiled numba kernels, so the time is the fit's
        AdaBoost(ours.estimator, n_estimators=2).fit(Xtr[:100], ytr[:100])
        ours, t_ours = _fit_timed(ours, Xtr, ytr)
        peer, t_peer = _fit_timed(peer, Xtr, ytr)
        models[label] = ours
        rows.append(dict(model=f"AdaBoost ({label}, T={T})", data="letters A–M vs N–Z",
                         metric="test accuracy", ours=float(ours.score(Xte, yte)),
                         peer=float(peer.score(Xte, yte)),
                         peer_name="sklearn AdaBoostClassifier (SAMME)", seconds=t_ours,
                         peer_seconds=t_peer))

    clf = models["depth-3 trees"]
    t = np.arange(1, clf.n_estimators_ + 1)
    test_err = [np.mean(p != yte) for p in clf.staged_predict(Xte)]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.semilogy(t, clf.training_error_bound_, label=r"bound $\prod_{s\leq t} Z_s$")
    ax.semilogy(t, np.maximum(clf.training_errors_, 0.5 / len(ytr)), label="training error")
    ax.semilogy(t, test_err, label="test error")
    ax.set_xlabel("round t")
    ax.set_ylabel("error (log scale)")
    # the errors span about one decade: label 1-2-5 steps so the axis has enough ticks
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title("AdaBoost with depth-3 trees, letters A–M vs N–Z")
    ax.legend()
    fig.tight_layout()
    figures.append(("Training error, test error and the bound ∏Z_t against the rounds "
                    "(the training error never exceeds the bound).", fig))

    figures.append(_margins_figure(clf, Xtr, ytr))
    text = (f"Discrete AdaBoost (the notes' algorithm, weights in log space) on {len(ytr)} "
            f"letters, first half of the alphabet against the second. After "
            f"{clf.n_estimators_} rounds of depth-3 trees the training error is "
            f"{clf.training_errors_[-1]:.3f} under the bound ∏Z_t = "
            f"{clf.training_error_bound_[-1]:.3g}; scikit-learn's AdaBoostClassifier (SAMME, "
            "the same α up to the factor 2 for two classes) is the peer.")
    return Section(title=TITLE, rows=rows, figures=figures, text=text)
