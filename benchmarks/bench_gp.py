"""Gaussian processes: fits with scikit-learn kernels, composite kernels, Mauna Loa CO2.

Every case fits kernelkit's and scikit-learn's GaussianProcessRegressor from the same start
in this process (L-BFGS-B, analytic gradients, no restarts) and compares the log marginal
likelihoods. Run: ``python -m benchmarks.run gp`` (under ``flock /tmp/kk-cpu.lock``).
"""

from __future__ import annotations

import statistics
import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process import kernels as sk

from kernelkit import GaussianProcessRegressor
from kernelkit.datasets import load_co2
from kernelkit.kernels import RBF, Constant, White

from ._harness import Row, timeit


def _gp_data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 4))
    f = np.sin(2 * X[:, 0]) + 0.5 * np.cos(X[:, 1] * X[:, 2]) + 0.3 * X[:, 3] ** 2
    return X, f + 0.1 * rng.standard_normal(n)


def _sk_ard():
    return sk.ConstantKernel(1.0) * sk.RBF(np.ones(4)) + sk.WhiteKernel(0.1)


def co2_monthly():
    """Monthly means of the bundled weekly Mauna Loa series, as scikit-learn's example
    builds them (calendar months with at least one measurement; x = year + month / 12)."""
    data = load_co2()
    months = data.dates.astype("datetime64[M]")
    keys, inverse = np.unique(months, return_inverse=True)
    y = np.bincount(inverse, weights=data.target) / np.bincount(inverse)
    year = keys.astype("datetime64[Y]").astype(int) + 1970
    month = keys.astype(int) % 12 + 1
    return (year + month / 12.0)[:, None], y


def _sk_co2_kernel():
    # scikit-learn's example "Forecasting of CO2 level on Mona Loa dataset using GPR"
    long_term = 50.0**2 * sk.RBF(length_scale=50.0)
    seasonal = 2.0**2 * sk.RBF(length_scale=100.0) * sk.ExpSineSquared(
        length_scale=1.0, periodicity=1.0, periodicity_bounds="fixed")
    irregular = 0.5**2 * sk.RationalQuadratic(length_scale=1.0, alpha=1.0)
    noise = 0.1**2 * sk.RBF(length_scale=0.1) + sk.WhiteKernel(
        noise_level=0.1**2, noise_level_bounds=(1e-5, 1e5))
    return long_term + seasonal + irregular + noise


def _compare(name, X, y, ours_kernel, sk_kernel, *, repeat, target, tol):
    GaussianProcessRegressor(ours_kernel).fit(X[:40], y[:40])  # numba compiled
    times = {"ours": [], "peer": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bound warnings: the same in both
        for _ in range(repeat):  # interleaved, so both see the same machine
            t, ours = timeit(lambda: GaussianProcessRegressor(ours_kernel).fit(X, y),
                             repeat=1, warmup=0)
            times["ours"].append(t)
            t, peer = timeit(lambda: SkGPR(sk_kernel).fit(X, y), repeat=1, warmup=0)
            times["peer"].append(t)
    lo, lp = ours.log_marginal_likelihood_value_, peer.log_marginal_likelihood_value_
    rel = abs(lo - lp) / abs(lp)
    t_ours, t_peer = (statistics.median(times[k]) for k in ("ours", "peer"))
    return Row(
        name, t_ours, t_peer,
        agree=f"log ML {lo:.8f} vs {lp:.8f} (rel. diff {rel:.1e}, target {tol:g})",
        target=target,
        notes=(f"medians of {repeat} interleaved fits; ours {min(times['ours']):.2f}–"
               f"{max(times['ours']):.2f} s, scikit-learn {min(times['peer']):.2f}–"
               f"{max(times['peer']):.2f} s; fitted kernel_ {type(ours.kernel_).__module__}"
               f".{type(ours.kernel_).__name__}"),
    )


def fit_sklearn_kernels(quick: bool) -> Row:
    n = 400 if quick else 2000
    X, y = _gp_data(n)
    return _compare(
        f"GP fit with scikit-learn kernels ConstantKernel·RBF(ARD, d=4) + WhiteKernel, n={n}",
        X, y, _sk_ard(), _sk_ard(), repeat=1 if quick else 3, target="≥3×, log ML equal 1e-8",
        tol=1e-8)


def fit_kernelkit_kernels(quick: bool, n: int) -> Row:
    n = 400 if quick else n
    X, y = _gp_data(n)
    ours = Constant(1.0) * RBF(np.ones(4)) + White(0.1)
    return _compare(
        f"GP fit with kernelkit kernels Constant·RBF(ARD, d=4) + White, n={n}",
        X, y, ours, _sk_ard(), repeat=1 if quick else 3, target="≥4×", tol=1e-8)


def fit_co2(quick: bool) -> Row:
    X, y = co2_monthly()
    y = y - y.mean()
    if quick:
        X, y = X[:150], y[:150]
    return _compare(
        f"Mauna Loa CO2 monthly means (n={len(X)}), scikit-learn's example kernel "
        "(11 hyperparameters) from its starting values, scikit-learn kernel objects",
        X, y, _sk_co2_kernel(), _sk_co2_kernel(), repeat=1 if quick else 3,
        target="≥3×, log ML equal 1e-6", tol=1e-6)


def run(quick: bool = False) -> list[Row]:
    rows = []
    for case in (fit_sklearn_kernels, lambda q: fit_kernelkit_kernels(q, 1500),
                 lambda q: fit_kernelkit_kernels(q, 2000), fit_co2):
        rows.append(case(quick))
        print(" | ".join(rows[-1].cells()), flush=True)  # progress: each row as it lands
    return rows
