"""Demo section: kernel PCA of the digits and the kernel perceptron on letters.

Kernel PCA (RBF) of scikit-learn's 8x8 digits: the eigenvalue spectrum of the centred Gram
matrix and the 2-D projection, checked against ``sklearn.decomposition.KernelPCA``. The
kernel perceptron on letters A–M vs N–Z: mistakes per epoch (standard and averaged use the
same online pass) and test accuracy; scikit-learn has no kernel perceptron, so its SVC
(same kernel) and linear Perceptron appear as references, not peers.
"""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 50
TITLE = "Kernel PCA (digits) and the kernel perceptron (letters)"


def _digits():
    try:
        from ...datasets import load_digits
    except ImportError:  # pragma: no cover - the datasets module is optional here
        from sklearn.datasets import load_digits
    return load_digits(return_X_y=True)


def _letters():
    from ...datasets import load_letters

    return load_letters(return_X_y=True, standardize=True)


def _timed(f):
    # one BLAS thread for ours and the peer alike: the demo's problems are small, and
    # multithreaded LAPACK on a busy machine is erratic (seconds instead of milliseconds)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        t = time.perf_counter()
        out = f()
        return out, time.perf_counter() - t


def _kpca(ctx, rows, figures):
    import matplotlib.pyplot as plt
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    from ...decomposition.kernel_pca import KernelPCA

    X, y = _digits()
    if ctx.quick:
        idx = np.random.default_rng(ctx.random_state).choice(len(X), 600, replace=False)
        X, y = X[np.sort(idx)], y[np.sort(idx)]
    X = X / 16.0  # pixel intensities in [0, 1]
    n = len(X)
    gamma, k = 0.05, 30
    ctx.progress(f"kernel PCA: digits n={n}, rbf gamma={gamma}, {k} components")
    KernelPCA(n_components=2, kernel="rbf", gamma=gamma).fit(X[:20])  # numba loads its cache
    ours, t_ours = _timed(lambda: KernelPCA(n_components=k, kernel="rbf", gamma=gamma,
                                            random_state=ctx.random_state).fit(X))
    peer, t_peer = _timed(lambda: SkKernelPCA(n_components=k, kernel="rbf", gamma=gamma,
                                              random_state=ctx.random_state).fit(X))
    Z, Zp = ours.transform(X), peer.transform(X)
    signs = np.sign(np.sum(Z * Zp, axis=0))
    diff = float(np.max(np.abs(Z * signs - Zp)))
    data = f"digits n={n}"
    rows.append({"model": "KernelPCA rbf", "data": data, "metric": "eigenvalue mu_1",
                 "ours": float(ours.eigenvalues_[0]), "peer": float(peer.eigenvalues_[0]),
                 "peer_name": "sklearn KernelPCA", "seconds": t_ours, "peer_seconds": t_peer})
    rows.append({"model": "KernelPCA rbf", "data": data,
                 "metric": "max |projection diff| up to sign", "ours": diff, "peer": None})
    share = ours.explained_variance_ / _total_variance(X, gamma)
    rows.append({"model": "KernelPCA rbf", "data": data,
                 "metric": "variance share of 2 components",
                 "ours": float(share[:2].sum()), "peer": None})

    fig1, ax = plt.subplots(figsize=(6.0, 3.8))
    ax.semilogy(np.arange(1, k + 1), ours.explained_variance_, "o-", ms=3, label="kernelkit")
    ax.semilogy(np.arange(1, k + 1), peer.eigenvalues_ / n, "x", ms=5,
                label="scikit-learn", alpha=0.7)
    ax.set_xlabel("component i")
    ax.set_ylabel("lambda_i = eigenvalue / m")
    ax.set_title(f"Kernel PCA spectrum, digits (n={n}, rbf gamma={gamma})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig1.tight_layout()

    fig2, ax2 = plt.subplots(figsize=(5.6, 4.6))
    sc = ax2.scatter(Z[:, 0], Z[:, 1], c=y, cmap="tab10", s=6)
    ax2.set_xlabel("kernel PC 1")
    ax2.set_ylabel("kernel PC 2")
    ax2.set_title("Digits projected on the first two kernel principal axes")
    fig2.colorbar(sc, ax=ax2, ticks=range(10), fraction=0.046)
    fig2.tight_layout()
    figures.append(("Kernel PCA eigenvalue spectrum (the notes' lambda = mu / m) of the "
                    "centred RBF Gram matrix; crosses are scikit-learn's.", fig1))
    figures.append(("The digits in the plane of the first two kernel principal components, "
                    "coloured by digit.", fig2))
    return diff, n


def _total_variance(X, gamma):
    # total feature-space variance = trace(H K H) / m = (trace K - sum(K) / m) / m, with
    # trace K = m for the RBF kernel; sum(K) blockwise so that K is never formed
    from ...kernels import RBF

    k = RBF(length_scale=float(np.sqrt(0.5 / gamma)))
    m = len(X)
    total = sum(float(k(X[s:s + 512], X).sum()) for s in range(0, m, 512))
    return (m - total / m) / m


def _perceptron(ctx, rows, figures):
    import matplotlib.pyplot as plt
    from sklearn.linear_model import Perceptron
    from sklearn.svm import SVC

    from ...machines.perceptron import KernelPerceptron

    Xtr, ytr, Xte, yte = _letters()
    ytr = np.where(ytr < "N", 1, -1)
    yte = np.where(yte < "N", 1, -1)
    if ctx.quick:
        Xtr, ytr, Xte, yte = Xtr[:2000], ytr[:2000], Xte[:1000], yte[:1000]
    n, gamma, epochs = len(Xtr), 0.2, 3 if ctx.quick else 5
    data = f"letters A–M vs N–Z, n={n}"
    ctx.progress(f"kernel perceptron: {data}, rbf gamma={gamma}, {epochs} epochs")
    KernelPerceptron(gamma=gamma).fit(Xtr[:200], ytr[:200])  # numba loads its cache
    std, t_std = _timed(lambda: KernelPerceptron(gamma=gamma, max_epochs=epochs).fit(Xtr, ytr))
    avg, t_avg = _timed(lambda: KernelPerceptron(gamma=gamma, max_epochs=epochs,
                                                 variant="averaged").fit(Xtr, ytr))
    svc, t_svc = _timed(lambda: SVC(kernel="rbf", gamma=gamma, C=10.0).fit(Xtr, ytr))
    lin, t_lin = _timed(lambda: Perceptron(random_state=ctx.random_state).fit(Xtr, ytr))
    acc_svc = float(svc.score(Xte, yte))
    # scikit-learn has no kernel perceptron: no peer. References for scale: SVC with the same
    # kernel, and scikit-learn's (linear) Perceptron
    rows.append({"model": f"KernelPerceptron averaged ({epochs} epochs)", "data": data,
                 "metric": "test accuracy", "ours": float(avg.score(Xte, yte)), "peer": None,
                 "seconds": t_avg, "reference": acc_svc,
                 "reference_name": "sklearn SVC, same kernel", "reference_seconds": t_svc})
    rows.append({"model": f"KernelPerceptron standard ({epochs} epochs)", "data": data,
                 "metric": "test accuracy", "ours": float(std.score(Xte, yte)), "peer": None,
                 "seconds": t_std, "reference": float(lin.score(Xte, yte)),
                 "reference_name": "sklearn Perceptron (linear)", "reference_seconds": t_lin})
    rows.append({"model": "KernelPerceptron", "data": data, "metric": "seconds per epoch",
                 "ours": t_std / epochs, "peer": None})

    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    ep = np.arange(1, epochs + 1)
    ax.bar(ep, std.mistakes_, color="tab:blue", alpha=0.8)
    for e, m in zip(ep, std.mistakes_):
        ax.text(e, m, str(int(m)), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(ep)
    ax.set_xlabel("epoch")
    ax.set_ylabel("mistakes")
    ax.set_title(f"Kernel perceptron mistakes per epoch ({data})")
    fig.tight_layout()
    figures.append(("Mistakes per pass over the training stream: each mistake adds (or "
                    "re-weights) a support example; the count falls as the predictor "
                    "settles.", fig))
    return std, float(avg.score(Xte, yte)), acc_svc, n


def run(ctx: DemoContext) -> Section:
    rows, figures = [], []
    diff, n_digits = _kpca(ctx, rows, figures)
    std, acc_avg, acc_svc, n_letters = _perceptron(ctx, rows, figures)
    text = (
        f"Kernel PCA centres the RBF Gram matrix of {n_digits} digits in feature space (in "
        "place) and solves K~ alpha = m lambda alpha; its projections agree with "
        f"scikit-learn's up to sign to {diff:.1e}. The kernel perceptron makes online passes "
        f"over {n_letters} letters (A–M vs N–Z): {int(std.mistakes_[0])} mistakes in the "
        f"first pass, {int(std.mistakes_[-1])} in the last; averaging the predictors of all "
        f"steps gives test accuracy {acc_avg:.3f}; for scale (a different method, not a "
        f"peer: scikit-learn has no kernel perceptron) SVC with the same kernel reaches "
        f"{acc_svc:.3f}."
    )
    return Section(title=TITLE, rows=rows, figures=figures, text=text)
