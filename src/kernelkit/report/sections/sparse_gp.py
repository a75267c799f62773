"""Demo section: a sparse GP (SGPR) on more points than the exact GP can hold.

200,000 noisy observations of a 1-D function (K would take 320 GB): the sparse GP with M
inducing points learns its kernel and noise by maximizing Titsias' collapsed bound, and
predicts with a band; beside it the exact GaussianProcessRegressor fit to a random
subsample, the most an exact GP affords here.
"""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 22
TITLE = "Past memory: sparse GP regression (SGPR) with learned hyperparameters"

NOISE_SD = 0.3


def _truth(x):
    return np.sin(3 * x) + 0.5 * np.sin(7 * x) * np.exp(-x / 5) + 0.1 * x


def _nlpd(mean, var, y) -> float:
    return float(np.mean(0.5 * np.log(2 * np.pi * var) + 0.5 * (y - mean) ** 2 / var))


def _timed(model, X, y):
    t = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - t


def run(ctx: DemoContext) -> Section:
    import matplotlib.pyplot as plt

    from ...gaussian_process.gpr import GaussianProcessRegressor
    from ...gaussian_process.sgpr import SparseGaussianProcessRegressor
    from ...kernels import RBF, Constant, White

    n, n_sub, M = (4_000, 400, 30) if ctx.quick else (200_000, 2_000, 60)
    rng = np.random.default_rng(ctx.random_state)
    X = rng.uniform(0, 10, size=(n, 1))
    y = _truth(X[:, 0]) + NOISE_SD * rng.standard_normal(n)
    Xt = np.linspace(0, 10, 400)[:, None]
    yt = _truth(Xt[:, 0]) + NOISE_SD * rng.standard_normal(len(Xt))
    data = f"1-D synthetic, n={n:,} (exact K: {n * n * 8 / 1e9:,.0f} GB)"
    ctx.progress(f"{n:,} noisy points; SGPR with M={M} k-means inducing points")
    sgp, t_s = _timed(SparseGaussianProcessRegressor(Constant(1.0) * RBF(1.0), n_inducing=M,
                                                     noise_variance=1.0,
                                                     random_state=ctx.random_state), X, y)
    ctx.progress(f"exact GP on a {n_sub:,}-point subsample")
    idx = rng.choice(n, size=n_sub, replace=False)
    gp, t_g = _timed(GaussianProcessRegressor(Constant(1.0) * RBF(1.0) + White(1.0),
                                              random_state=ctx.random_state), X[idx], y[idx])
    m_s, sd_s = sgp.predict(Xt, return_std=True)
    m_g, sd_g = gp.predict(Xt, return_std=True)  # includes the White noise term
    noise_g = gp.kernel_.k2.noise_level
    var_s = sd_s**2 + sgp.noise_variance_
    var_g = np.maximum(sd_g**2, noise_g)
    rmse = lambda m: float(np.sqrt(np.mean((m - yt) ** 2)))  # noqa: E731
    # scikit-learn has no sparse GP: no peer; kernelkit's exact GP on a subsample is an
    # instructive reference (a different model), in its own table
    model = f"SparseGaussianProcessRegressor M={M}"
    ref = dict(reference_name=f"kernelkit exact GaussianProcessRegressor on {n_sub:,} rows",
               reference_seconds=t_g)
    rows = [
        dict(model=model, data=data, metric="test RMSE", ours=rmse(m_s), peer=None,
             seconds=t_s, reference=rmse(m_g), **ref),
        dict(model=model, data=data, metric="test NLPD", ours=_nlpd(m_s, var_s, yt), peer=None,
             seconds=t_s, reference=_nlpd(m_g, var_g, yt), **ref),
        dict(model=model, data=data, metric="learned noise sd (true 0.3)",
             ours=float(np.sqrt(sgp.noise_variance_)), peer=None,
             reference=float(np.sqrt(noise_g)), **ref),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
    show = rng.choice(n, size=min(n, 3_000), replace=False)
    for ax, mean, sd, label in ((axes[0], m_s, np.sqrt(var_s), f"SGPR, all {n:,} points"),
                                (axes[1], m_g, np.sqrt(var_g), f"exact GP, {n_sub:,} points")):
        ax.plot(X[show, 0], y[show], ".", ms=1, color="0.7", label="data (sample)")
        ax.plot(Xt[:, 0], _truth(Xt[:, 0]), "k:", lw=1, label="truth")
        ax.plot(Xt[:, 0], mean, lw=1.5, label="predictive mean")
        ax.fill_between(Xt[:, 0], mean - 2 * sd, mean + 2 * sd, alpha=0.25,
                        label="±2 sd (noise included)")
        ax.set(title=label, xlabel="x")
    axes[0].plot(sgp.inducing_points_[:, 0], np.full(M, y.min()), "|", color="C3", ms=8,
                 label="inducing points")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    text = (
        f"The exact GP needs the {n:,} x {n:,} kernel matrix; the sparse GP summarizes the "
        f"data by M={M} inducing points and maximizes Titsias' collapsed bound "
        "log N(y | 0, Q + s I) - tr(K - Q)/(2s) over its kernel hyperparameters and noise, "
        f"in O(n M^2) time and O(n M) memory at most (row blocks). The exact GP can only "
        f"use a subsample of {n_sub:,} points: its band is wider where the subsample is thin."
    )
    return Section(title=TITLE, rows=rows, text=text,
                   figures=[("Predictive mean and band: sparse GP on all points (left), "
                             "exact GP on a subsample (right)", fig)])
