"""GP family: GaussianProcessClassifier, partial_fit and sample_y vs scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel as SkConstant
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from kernelkit import GaussianProcessClassifier, GaussianProcessRegressor
from kernelkit.kernels import RBF, Constant

from ._harness import Row, timeit


def _gpc_row(name, X, y, repeat, quick) -> Row:
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    scaler = StandardScaler().fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    if quick:
        Xtr, ytr = Xtr[:300], ytr[:300]

    def ours():
        m = GaussianProcessClassifier().fit(Xtr, ytr)
        return m.predict_proba(Xte)

    def peer():
        m = SkGPC().fit(Xtr, ytr)
        return m.predict_proba(Xte)

    GaussianProcessClassifier().fit(Xtr[:50], ytr[:50]).predict_proba(Xte[:5])  # numba warm-up
    t_ours, p_ours = timeit(ours, repeat=repeat, warmup=0)
    t_peer, p_peer = timeit(peer, repeat=repeat, warmup=0)
    classes = np.unique(ytr)
    acc_o = float(np.mean(classes[p_ours.argmax(1)] == yte))
    acc_p = float(np.mean(classes[p_peer.argmax(1)] == yte))
    ll_o, ll_p = log_loss(yte, p_ours, labels=classes), log_loss(yte, p_peer, labels=classes)
    return Row(
        f"GaussianProcessClassifier default kernel, {name} (n_train={len(Xtr)}, "
        f"{len(classes)} classes, fit + predict_proba)", t_ours, t_peer,
        peer="sklearn GaussianProcessClassifier", target="≥3×, accuracy and log loss ±0.5%",
        agree=f"test acc {acc_o:.4f} vs {acc_p:.4f}; log loss {ll_o:.5f} vs {ll_p:.5f} "
              f"(rel {abs(ll_o - ll_p) / ll_p:.1e}); max |Δp| {np.abs(p_ours - p_peer).max():.1e}",
        notes=f"features standardized; 1.0*RBF(1.0), fixed (the default); median of {repeat}")


def gpc_breast_cancer(quick: bool) -> Row:
    X, y = load_breast_cancer(return_X_y=True)
    return _gpc_row("breast cancer", X, y, 25, quick)  # ~10-40 ms a run: many repeats


def gpc_digits(quick: bool) -> Row:
    X, y = load_digits(return_X_y=True)
    return _gpc_row("digits one-vs-rest", X, y, 1 if not quick else 1, quick)


def gpc_optimized(quick: bool) -> Row:
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[: 150 if quick else 400]
    y = y[: len(X)]
    t_ours, ours = timeit(lambda: GaussianProcessClassifier(
        Constant(1.0) * RBF(1.0)).fit(X, y), repeat=1, warmup=0)
    t_peer, peer = timeit(lambda: SkGPC(SkConstant(1.0) * SkRBF(1.0)).fit(X, y),
                          repeat=1, warmup=0)
    return Row(
        f"GaussianProcessClassifier 1.0*RBF(1.0) learned (L-BFGS-B), breast cancer n={len(X)}",
        t_ours, t_peer, peer="sklearn GaussianProcessClassifier", target="report",
        agree=f"lml {ours.log_marginal_likelihood_value_:.6f} vs "
              f"{peer.log_marginal_likelihood_value_:.6f}; theta "
              f"{np.round(ours.kernel_.theta, 4).tolist()} vs "
              f"{np.round(peer.kernel_.theta, 4).tolist()}",
        notes="1 run each")


def partial_fit_row(quick: bool) -> Row:
    n, k, d = (2000, 100, 4) if quick else (10_000, 100, 4)
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(n + k, d))
    y = np.sin(X).sum(axis=1) + 0.1 * rng.normal(size=n + k)
    kernel = Constant(1.0) * RBF([1.0, 1.5, 2.0, 1.0])
    kw = dict(alpha=1e-2, optimizer=None)
    base = GaussianProcessRegressor(kernel, **kw).fit(X[:n], y[:n])
    t_ours, upd = timeit(lambda: base.condition_on(X[n:], y[n:]), repeat=3, warmup=0)
    t_ref, ref = timeit(lambda: GaussianProcessRegressor(kernel, **kw).fit(X, y), repeat=1,
                        warmup=0)
    Xt = rng.uniform(-3, 3, size=(200, d))
    diff = float(np.abs(upd.predict(Xt) - ref.predict(Xt)).max())
    dcoef = float(np.abs(upd.alpha_ - ref.alpha_).max() / np.abs(ref.alpha_).max())
    return Row(
        f"GaussianProcessRegressor partial_fit of {k} points onto n={n} (d={d}, fixed "
        "hyperparameters)", t_ours, t_ref,
        peer="kernelkit refit on all n+k, optimizer=None", target="≥20×, equal to 1e-10",
        agree=f"max |Δ mean| {diff:.1e}; max rel |Δ alpha_| {dcoef:.1e}; lml diff "
              f"{abs(upd.log_marginal_likelihood_value_ - ref.log_marginal_likelihood_value_):.1e}",
        notes="condition_on (a new model; partial_fit in place costs the same); ours median "
              "of 3, refit 1 run")


def sample_rows(quick: bool) -> list[Row]:
    m, n, S = (1500 if quick else 5000), 300, 10
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(n, 2))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.05 * rng.normal(size=n)
    Xs = rng.uniform(-3, 3, size=(m, 2))
    ours = GaussianProcessRegressor(Constant(1.0) * RBF(1.0), alpha=1e-2,
                                    optimizer=None).fit(X, y)
    peer = SkGPR(SkConstant(1.0) * SkRBF(1.0), alpha=1e-2, optimizer=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # jitter warnings: reported in the agreement column
        t_ours, s_ours = timeit(lambda: ours.sample_y(Xs, S, random_state=0), repeat=3)
        t_path, s_path = timeit(lambda: ours.sample_y(Xs, S, random_state=0,
                                                      method="pathwise"), repeat=3)
        t_peer, s_peer = timeit(lambda: peer.sample_y(Xs, S, random_state=0), repeat=1,
                                warmup=0)
    mean, std = ours.predict(Xs, return_std=True)

    def z(s):  # standardized deviations from the posterior mean: ~N(0, 1) if right
        ok = std > 1e-6
        zz = ((s - mean[:, None]) / np.where(ok, std, 1.0)[:, None])[ok]
        return f"z mean {zz.mean():+.3f}, z var {zz.var():.3f}"

    name = f"sample_y {S} samples at m={m} points (n={n}, d=2, RBF)"
    return [
        Row(name + ", method='cholesky'", t_ours, t_peer, peer="sklearn sample_y (SVD)",
            target="≥10×", agree=f"ours {z(s_ours)}; sklearn {z(s_peer)}",
            notes="ours median of 3, sklearn 1 run"),
        Row(name + ", method='pathwise' (1000 random features)", t_path, t_peer,
            peer="sklearn sample_y (SVD)", target="report", agree=f"ours {z(s_path)}",
            notes="O(m) memory per sample; no m×m matrix"),
    ]


def run(quick: bool = False) -> list[Row]:
    return [gpc_breast_cancer(quick), gpc_digits(quick), gpc_optimized(quick),
            partial_fit_row(quick), *sample_rows(quick)]
