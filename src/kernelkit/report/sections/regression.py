"""Gaussian-process regression of the Mauna Loa CO2 series, and KRR as the GP posterior mean."""

from __future__ import annotations

import time
import warnings

import numpy as np

from .. import DemoContext, Section

ORDER = 20
TITLE = "Regression: a Gaussian process on Mauna Loa CO2, and kernel ridge = GP mean"


def _monthly(X, y, step_months: int):
    """Average the weekly series over calendar blocks of ``step_months`` months."""
    year = X[:, 0]
    block = np.floor((year - np.floor(year.min())) * 12 / step_months).astype(int)
    uniq, inv = np.unique(block, return_inverse=True)
    counts = np.bincount(inv)
    return (np.bincount(inv, year) / counts)[:, None], np.bincount(inv, y) / counts


# starting values: scikit-learn's Mauna Loa example, and (quick mode) values near the optimum
START = dict(c1=50.0**2, l1=50.0, c2=2.0**2, l2=100.0, ls=1.0, c3=0.5**2, l3=1.0, a3=1.0,
             c4=0.1**2, l4=0.1, noise=0.1**2)
START_NEAR = dict(c1=2000.0, l1=50.0, c2=15.0, l2=110.0, ls=2.2, c3=0.27, l3=1.0, a3=5.0,
                  c4=0.02, l4=0.24, noise=0.022)


def _kernels(p):
    """Long-term trend + seasonal (periodic x decay) + irregularities, + white noise.

    The same composition, parameterization and starting values ``p`` for kernelkit and
    scikit-learn (the kernel of scikit-learn's Mauna Loa example).
    """
    from sklearn.gaussian_process import kernels as sk

    from kernelkit.kernels import RBF, Constant, ExpSineSquared, RationalQuadratic, White

    ours = (Constant(p["c1"]) * RBF(p["l1"])
            + Constant(p["c2"]) * RBF(p["l2"])
            * ExpSineSquared(p["ls"], 1.0, periodicity_bounds="fixed")
            + Constant(p["c3"]) * RationalQuadratic(p["l3"], p["a3"])
            + Constant(p["c4"]) * RBF(p["l4"])) + White(p["noise"],
                                                       noise_level_bounds=(1e-5, 1e1))
    peer = (sk.ConstantKernel(p["c1"]) * sk.RBF(p["l1"])
            + sk.ConstantKernel(p["c2"]) * sk.RBF(p["l2"])
            * sk.ExpSineSquared(p["ls"], 1.0, periodicity_bounds="fixed")
            + sk.ConstantKernel(p["c3"]) * sk.RationalQuadratic(p["l3"], p["a3"])
            + sk.ConstantKernel(p["c4"]) * sk.RBF(p["l4"])) + sk.WhiteKernel(
                p["noise"], noise_level_bounds=(1e-5, 1e1))
    return ours, peer


def _fit_both(ctx: DemoContext, X, yc):
    """Our GP and scikit-learn's, same kernel and start: (ours, peer, our s, peer s)."""
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR

    from kernelkit import GaussianProcessRegressor

    ours_k, peer_k = _kernels(START_NEAR if ctx.quick else START)
    t0 = time.perf_counter()
    gp = GaussianProcessRegressor(ours_k, random_state=ctx.random_state).fit(X, yc)
    t_ours = time.perf_counter() - t0
    with warnings.catch_warnings():
        # scikit-learn's L-BFGS notes (its ConvergenceWarnings) are the peer's, not ours
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        sk = SkGPR(peer_k, random_state=ctx.random_state).fit(X, yc)
        t_peer = time.perf_counter() - t0
    return gp, sk, t_ours, t_peer


def _band_figure(gp, X, X_week, y_week, y_mean):
    """Predictive mean and a 2-sigma band, extrapolated 5 years past the data."""
    import matplotlib.pyplot as plt

    grid = np.linspace(X.min(), X.max() + 5.0, 600)[:, None]
    mean, std = gp.predict(grid, return_std=True)
    mean += y_mean
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.plot(X_week[:, 0], y_week, ".", ms=1.5, color="0.6", label="weekly data")
    ax.plot(grid[:, 0], mean, color="C0", lw=1, label="GP posterior mean")
    ax.fill_between(grid[:, 0], mean - 2 * std, mean + 2 * std, color="C0", alpha=0.3,
                    label="± 2σ")
    ax.axvline(X.max(), color="k", lw=0.5, ls=":")
    ax.set_xlabel("year")
    ax.set_ylabel("CO₂ (ppmv)")
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("Mauna Loa CO₂: GP fit and 5-year extrapolation")
    fig.tight_layout()
    return grid, ("GP posterior mean and ±2σ band; right of the dotted line is "
                  "extrapolation, where the band widens.", fig)


def _krr_equals_gp(gp, X, yc, grid, y_mean):
    """KRR with alpha = noise variance is the GP posterior mean (signal kernel, no noise)."""
    import matplotlib.pyplot as plt

    from kernelkit import GaussianProcessRegressor, KernelRidge

    signal, noise = gp.kernel_.k1, float(gp.kernel_.k2.noise_level)
    gp_signal = GaussianProcessRegressor(signal, alpha=noise, optimizer=None).fit(X, yc)
    krr = KernelRidge(alpha=noise, kernel=signal).fit(X, yc)
    f_gp, f_krr = gp_signal.predict(grid), krr.predict(grid)
    diff = float(np.max(np.abs(f_gp - f_krr)))
    row = dict(model="KernelRidge(alpha=σ², kernel=k) vs GP mean", data="Mauna Loa CO2",
               metric="max |KRR − GP mean| (ppmv)", ours=diff, peer=None)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6, 3.6), sharex=True,
                                 gridspec_kw=dict(height_ratios=[3, 1]))
    a1.plot(grid[:, 0], f_gp + y_mean, lw=2, color="C1", label="GP posterior mean")
    a1.plot(grid[:, 0], f_krr + y_mean, lw=1, ls="--", color="k", label="kernel ridge")
    a1.set_ylabel("CO₂ (ppmv)")
    a1.legend(fontsize=8)
    a2.plot(grid[:, 0], f_krr - f_gp, lw=0.8)
    a2.set_ylabel("difference")
    a2.set_xlabel("year")
    fig.tight_layout()
    return row, (f"Kernel ridge with alpha = the learned noise variance σ² = {noise:.3g} "
                 f"reproduces the GP posterior mean (max difference {diff:.1e} ppmv).", fig)


def run(ctx: DemoContext) -> Section:
    import matplotlib

    matplotlib.use("Agg")
    from kernelkit.datasets import load_co2

    X_week, y_week = load_co2(return_X_y=True)
    step = 3 if ctx.quick else 1  # quarterly means in quick mode, monthly otherwise
    X, y = _monthly(X_week, y_week, step)
    y_mean = float(y.mean())
    yc = y - y_mean
    ctx.progress(f"GP on Mauna Loa CO2: n={len(y)} ({'quarterly' if step == 3 else 'monthly'} "
                 "means), 5 kernel components, L-BFGS-B")
    gp, sk, t_ours, t_peer = _fit_both(ctx, X, yc)
    rows = [dict(model="GaussianProcessRegressor (trend + seasonal + irregular + noise)",
                 data=f"Mauna Loa CO2, n={len(y)}", metric="log marginal likelihood",
                 ours=gp.log_marginal_likelihood_value_,
                 peer=float(sk.log_marginal_likelihood_value_),
                 peer_name="sklearn GaussianProcessRegressor", seconds=t_ours,
                 peer_seconds=t_peer)]
    grid, band = _band_figure(gp, X, X_week, y_week, y_mean)
    row, same = _krr_equals_gp(gp, X, yc, grid, y_mean)
    rows.append(row)
    noise = float(gp.kernel_.k2.noise_level)
    text = (
        "The GP's kernel is a sum of a smooth long-term trend (RBF), a yearly cycle that can "
        "drift (ExpSineSquared × RBF), medium-term irregularities (RationalQuadratic), "
        "short-term correlated noise and white noise; its 11 hyperparameters are learned by "
        "maximizing the log marginal likelihood with analytic gradients, from the same start "
        "as scikit-learn's GaussianProcessRegressor on the same data (table; quick mode "
        "starts near the optimum). Learned: "
        f"trend length scale {gp.kernel_.k1.k1.k1.k1.k2.length_scale:.1f} years, seasonal "
        f"decay {gp.kernel_.k1.k1.k1.k2.k1.k2.length_scale:.1f} years, noise variance "
        f"{noise:.3g} ppmv². Kernel ridge regression with the penalty equal to the noise "
        "variance gives the same predictor as the GP posterior mean: the regularization and "
        "Bayesian views agree."
    )
    return Section(title=TITLE, rows=rows, figures=[band, same], text=text)
