"""Regression: KernelRidge, KernelRidgeCV and GaussianProcessRegressor vs scikit-learn."""

from __future__ import annotations

import statistics
import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel as SkConstant
from sklearn.gaussian_process.kernels import WhiteKernel as SkWhite
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import GridSearchCV, KFold

from kernelkit import GaussianProcessRegressor, KernelRidge, KernelRidgeCV
from kernelkit.kernels import RBF, Constant, White

from ._data import regression_data
from ._harness import Row, peak_memory, timeit


def _rel(a, b) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def _once(fn):
    """(seconds, peak bytes, result) of one run."""
    peak, (t, out) = peak_memory(lambda: timeit(fn, repeat=1, warmup=0))
    return t, peak, out


def _peer_krr(n, alpha, gamma):
    X, y, Xt, _ = regression_data(n=n, d=8)
    t, mem, peer = _once(lambda: SkKernelRidge(alpha=alpha, kernel="rbf", gamma=gamma).fit(X, y))
    return t, mem, peer.predict(Xt)


def krr_fit(quick: bool, n: int | None = None) -> Row:
    n = (3000 if quick else 20_000) if n is None else n
    X, y, Xt, _ = regression_data(n=n, d=8)
    gamma, alpha = 1.0 / 8, 1e-2
    KernelRidge(alpha=alpha, kernel="rbf", gamma=gamma).fit(X[:200], y[:200])  # numba warm-up
    t_ours, mem_ours, ours = _once(
        lambda: KernelRidge(alpha=alpha, kernel="rbf", gamma=gamma).fit(X, y))
    pred = ours.predict(Xt)
    solver = ours.solver_
    del ours
    nn = n * n * 8 / 2**30
    name = f"KernelRidge RBF fit, n={n}, d=8, alpha={alpha} (solver='auto' -> {solver!r})"
    target = "≥1.2×, peak ≤ ~1 n×n, agree 1e-8"
    # the peer in its own process: at n = 20,000 scikit-learn's fit has crashed (segfault
    # in scipy.linalg.solve / OpenBLAS on the 3.2 GB matrix) on the development machine
    peer = _in_subprocess(_peer_krr, n, alpha, gamma)
    if peer is None:
        return Row(name, t_ours, None, target=target,
                   notes=f"ours: peak {mem_ours / 2**30:.2f} GiB (n×n float64 = {nn:.2f} GiB); "
                         "peer: scikit-learn's KernelRidge.fit crashed (segfault inside "
                         "scipy.linalg.solve(assume_a='pos'), SciPy 1.17, from n = 16,000 on, "
                         "on an idle machine too), no timing; see the n = 15,000 row")
    t_peer, mem_peer, pred_peer = peer
    return Row(
        name, t_ours, t_peer, agree=f"test predictions rel. diff {_rel(pred, pred_peer):.1e}",
        notes=f"peak {mem_ours / 2**30:.2f} GiB vs {mem_peer / 2**30:.2f} GiB "
              f"(n×n float64 = {nn:.2f} GiB)",
        target=target,
    )


def krr_fit_15k(quick: bool) -> Row:
    """The largest n at which the peer runs here (SciPy 1.17's ``linalg.solve`` segfaults
    from n = 16,000 on, inside scikit-learn's fit): a like-for-like timing."""
    return krr_fit(quick, n=2000 if quick else 15_000)


def krr_cv(quick: bool) -> Row:
    n = 1000 if quick else 5000
    X, y, Xt, yt = regression_data(n=n, d=8)
    alphas = np.logspace(-4, 1, 20)
    gamma = 1.0 / 8
    t_ours, ours = timeit(
        lambda: KernelRidgeCV(alphas=alphas, kernel="rbf", gamma=gamma).fit(X, y),
        repeat=1, warmup=0)
    grid = GridSearchCV(SkKernelRidge(kernel="rbf", gamma=gamma), {"alpha": alphas},
                        cv=KFold(5), scoring="neg_mean_squared_error")
    t_peer, grid = timeit(lambda: grid.fit(X, y), repeat=1, warmup=0)
    mse = lambda m: float(np.mean((m.predict(Xt) - yt) ** 2))
    return Row(
        f"KernelRidgeCV exact LOO, 20 alphas, RBF, n={n}, d=8",
        t_ours, t_peer, peer="scikit-learn GridSearchCV(KernelRidge, cv=5)",
        agree=f"alpha {ours.alpha_:.2g} vs {grid.best_params_['alpha']:.2g}; "
              f"test MSE {mse(ours):.4f} vs {mse(grid):.4f}",
        notes="ours: LOO (n folds) for every alpha from one eigendecomposition",
        target="≥10×",
    )


def _gp_data(n, n_test, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n + n_test, 4))
    f = np.sin(2 * X[:, 0]) + 0.5 * np.cos(X[:, 1] * X[:, 2]) + 0.3 * X[:, 3] ** 2
    y = f + 0.1 * rng.standard_normal(n + n_test)
    return X[:n], y[:n], X[n:]


def _kernels():
    ls = np.ones(4)
    return (Constant(1.0) * RBF(ls) + White(0.1),
            SkConstant(1.0) * SkRBF(ls) + SkWhite(0.1))


def gp_fit(quick: bool) -> Row:
    n = 500 if quick else 2000
    X, y, _ = _gp_data(n, 0)
    ours_k, sk_k = _kernels()
    GaussianProcessRegressor(ours_k).fit(X[:50], y[:50])  # numba warm-up
    t_ours, ours = timeit(lambda: GaussianProcessRegressor(ours_k).fit(X, y), repeat=1, warmup=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_peer, peer = timeit(lambda: SkGPR(sk_k).fit(X, y), repeat=1, warmup=0)
    lo, lp = ours.log_marginal_likelihood_value_, peer.log_marginal_likelihood_value_
    ok = lo >= lp - 1e-6 * abs(lp)
    return Row(
        f"GaussianProcessRegressor fit, Constant·RBF(ARD, d=4) + White, n={n}, L-BFGS-B "
        "from the same start",
        t_ours, t_peer,
        agree=f"log ML {lo:.6f} vs {lp:.6f} ({'≥' if ok else '<'} within 1e-6 rel.)",
        target="≥4×, log ML ≥ peer (1e-6 rel.)",
    )


def gp_predict(quick: bool) -> Row:
    n, m = (500, 5000) if quick else (2000, 20_000)
    X, y, Xt = _gp_data(n, m)
    ours_k, sk_k = _kernels()
    ours = GaussianProcessRegressor(ours_k, optimizer=None).fit(X, y)
    peer = SkGPR(sk_k, optimizer=None).fit(X, y)
    # interleaved repeats (ours, peer, ours, ...) so both see the same machine; sklearn's
    # time varies widely from run to run here (1.4-4.1 s), almost all of it in its kernel
    # call (0.26-2.7 s alone: cdist, exp, Constant's full matrix, White's zero matrix and
    # their product and sum are each a fresh 20000 x 2000 array), so the spread is reported
    times = {"ours": [], "peer": []}
    ours.predict(Xt[:100], return_std=True), peer.predict(Xt[:100], return_std=True)  # warm-up
    for _ in range(1 if quick else 7):
        for key, model in (("ours", ours), ("peer", peer)):
            t, out = timeit(lambda model=model: model.predict(Xt, return_std=True), repeat=1,
                            warmup=0)
            times[key].append(t)
            if key == "ours":
                mo, so = out
            else:
                mp, sp = out
    t_ours, t_peer = (statistics.median(times[k]) for k in ("ours", "peer"))
    spread = lambda k: f"{min(times[k]):.2f}–{max(times[k]):.2f} s"
    return Row(
        f"GaussianProcessRegressor predict with return_std, {n} train × {m} test",
        t_ours, t_peer,
        agree=f"mean rel. diff {_rel(mo, mp):.1e}, std rel. diff {_rel(so, sp):.1e}",
        target="≥2×",
        notes=(f"medians of {len(times['ours'])} interleaved runs; ours {spread('ours')}, "
               f"scikit-learn {spread('peer')}; scikit-learn's fastest run ÷ our median: "
               f"{min(times['peer']) / t_ours:.2f}×"),
    )


def _in_subprocess(fn, *args):
    """``fn(*args)`` in a fresh (spawned) process; ``None`` if that process dies, so that a
    crash in a memory-heavy case cannot take the other rows with it."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
            return pool.submit(fn, *args).result()
    except BrokenProcessPool:
        return None


def run(quick: bool = False) -> list[Row]:
    rows = []
    for case in (gp_predict, gp_fit, krr_cv, krr_fit, krr_fit_15k):
        rows.append(case(quick))
        print(" | ".join(rows[-1].cells()), flush=True)  # progress: each row as it lands
    return rows
