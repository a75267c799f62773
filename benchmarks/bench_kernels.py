"""Kernel matrices and blockwise products vs sklearn.metrics.pairwise."""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import laplacian_kernel, polynomial_kernel, rbf_kernel

from kernelkit.kernels import RBF, Laplacian, Polynomial
from kernelkit.linalg import KernelOperator

from ._harness import Row, peak_memory, timeit


def run(quick: bool = False) -> list[Row]:
    rng = np.random.default_rng(0)
    n = 2000 if quick else 10_000
    d = 16
    X = rng.standard_normal((n, d))
    gamma = 1.0 / d
    out_mb = n * n * 8 / 2**20
    rows = []
    cases = [
        ("RBF", RBF(length_scale=np.sqrt(0.5 / gamma)), lambda: rbf_kernel(X, gamma=gamma)),
        ("Laplacian", Laplacian(length_scale=1 / gamma), lambda: laplacian_kernel(X, gamma=gamma)),
        ("Polynomial(3)", Polynomial(3, gamma, 1.0),
         lambda: polynomial_kernel(X, degree=3, gamma=gamma, coef0=1.0)),
    ]
    for label, k, peer in cases:
        t_ours, K = timeit(lambda k=k: k(X), repeat=3)
        t_peer, K_ref = timeit(peer, repeat=3)
        err = float(np.max(np.abs(K - K_ref)))
        del K_ref
        peak, _ = peak_memory(lambda k=k: k(X))
        rows.append(Row(
            f"{label} kernel matrix {n}x{n}, d={d}, float64", t_ours, t_peer,
            agree=f"max |diff| {err:.1e}",
            notes=f"peak {peak / 2**20:.0f} MiB (output {out_mb:.0f} MiB)",
            target="≥1.3× (RBF)" if label == "RBF" else "",
        ))
    # blockwise product that never forms the n x n matrix
    n_big = 20_000 if quick else 200_000
    Xb = rng.standard_normal((n_big, d))
    v = rng.standard_normal(n_big)
    import sklearn

    with sklearn.config_context(working_memory=2048):
        op = KernelOperator(RBF(length_scale=np.sqrt(0.5 / gamma)), Xb)
        peak, (t_op, _) = peak_memory(lambda: timeit(lambda: op @ v, repeat=1, warmup=0))
    # agreement on a row subset against sklearn's dense rows
    sub = slice(0, 500)
    ref = rbf_kernel(Xb[sub], Xb, gamma=gamma) @ v
    with sklearn.config_context(working_memory=2048):
        ours_sub = KernelOperator(RBF(length_scale=np.sqrt(0.5 / gamma)), Xb[sub], Xb) @ v
    rows.append(Row(
        f"KernelOperator(RBF) @ v, n={n_big}, d={d}, working_memory=2 GiB", t_op, None,
        peer="none (sklearn would need the n×n matrix)",
        agree=f"rows 0-499 vs rbf_kernel: {np.max(np.abs(ours_sub - ref)):.1e}",
        notes=f"peak {peak / 2**20:.0f} MiB; n×n would be {n_big**2 * 8 / 2**30:.0f} GiB",
        target="within 2 GiB",
    ))
    return rows
