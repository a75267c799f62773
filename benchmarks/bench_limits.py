"""This machine's limits, measured in the same run, and the kernel products against them.

A blockwise product ``K(X, X) @ V`` with an RBF kernel needs, for each of its n^2 entries,
``2 d`` flops of the distance GEMM and one exp. Its floor on this machine is

    t_limit = 2 d n^2 / (GEMM rate) + n^2 / (exp rate)  [+ 2 k n^2 / (GEMM rate) for k
    columns of V],

with the GEMM rate of a large square product on all cores and the exp rate of NumPy's SIMD
exp on in-cache blocks (one block per core, all cores at once). The memory bandwidth is
printed for reference (a kernel product that spills its blocks to memory is bound by it).
The "peer" column holds t_limit, so the speed-up column is t_limit / ours (1.0 = at the
limit; the target "within 1.5x" is a speed-up >= 0.67).
"""

from __future__ import annotations

import time

import numpy as np

from kernelkit._core.threads import blas_threads, limit_blas, pool
from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator

from ._harness import Row, timeit

__all__ = ["run", "machine_limits"]


def _gemm_rate(dtype, n: int = 3000) -> float:
    """Flop/s of one large square GEMM on all BLAS threads (median of 3)."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n)).astype(dtype)
    B = rng.standard_normal((n, n)).astype(dtype)
    t, _ = timeit(lambda: A @ B, repeat=3)
    return 2.0 * n**3 / t


def _exp_rate(dtype, rows: int = 256, cols: int = 512, reps: int = 400) -> float:
    """Exps per second of NumPy's exp on one in-cache block per core, all cores at once."""
    threads = blas_threads()
    rng = np.random.default_rng(0)
    blocks = [-rng.random((rows, cols)).astype(dtype) for _ in range(threads)]
    outs = [np.empty_like(b) for b in blocks]

    def work(i):
        b, o = blocks[i], outs[i]
        for _ in range(reps):
            np.exp(b, out=o)

    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        if threads > 1:
            list(pool(threads).map(work, range(threads)))
        else:
            work(0)
        best = min(best, time.perf_counter() - t0)
    return threads * reps * rows * cols / best


def _bandwidth(n_bytes: int = 1 << 30) -> float:
    """Bytes per second moved by a large copy (read + write), all BLAS threads' cores."""
    a = np.ones(n_bytes // 8)
    b = np.empty_like(a)
    threads = blas_threads()
    parts = np.array_split(np.arange(a.size), threads)
    bounds = [(p[0], p[-1] + 1) for p in parts]

    def work(i):
        lo, hi = bounds[i]
        np.copyto(b[lo:hi], a[lo:hi])

    def copy():
        if threads > 1:
            list(pool(threads).map(work, range(threads)))
        else:
            work(0)

    t, _ = timeit(copy, repeat=3)
    return 2.0 * a.nbytes / t


def machine_limits() -> dict:
    """GEMM rates (flop/s), exp rates (exp/s) in float64 and float32, memory bandwidth."""
    with limit_blas(blas_threads()):
        return {
            "gemm64": _gemm_rate(np.float64), "gemm32": _gemm_rate(np.float32),
        } | {
            "exp64": _exp_rate(np.float64), "exp32": _exp_rate(np.float32),
            "bandwidth": _bandwidth(),
        }


def _limit(lim: dict, dtype, n: int, m: int, d: int, k: int = 1) -> float:
    bits = "64" if np.dtype(dtype) == np.float64 else "32"
    entries = float(n) * m
    # distance GEMM (2 d flops per entry) + one exp per entry + the product with V (2 k)
    flops = 2.0 * d * entries + (2.0 * k * entries if k > 1 else 0.0)
    return flops / lim["gemm" + bits] + entries / lim["exp" + bits]


def run(quick: bool = False) -> list[Row]:
    lim = machine_limits()
    rows = [
        Row("GEMM rate, 3000x3000, float64 / float32 (all cores)", None, None,
            peer="machine", notes=f"{lim['gemm64'] / 1e9:.1f} / {lim['gemm32'] / 1e9:.1f} "
            "GFlop/s"),
        Row("NumPy exp rate, in-cache 256x512 block per core, float64 / float32", None, None,
            peer="machine", notes=f"{lim['exp64'] / 1e9:.2f} / {lim['exp32'] / 1e9:.2f} "
            "Gexp/s"),
        Row("memory bandwidth (1 GiB copy, read + write)", None, None, peer="machine",
            notes=f"{lim['bandwidth'] / 1e9:.1f} GB/s"),
    ]
    n = 20_000 if quick else 200_000
    d = 16
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    v = rng.standard_normal(n)
    V16 = rng.standard_normal((n, 16))
    kernel = RBF(length_scale=np.sqrt(d / 2.0))  # gamma = 1/d
    repeat = 3 if quick else 1
    sub = slice(0, 300)
    times = {}
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        op = KernelOperator(kernel, Xd)
        vd = v.astype(dtype)
        t, out = timeit(lambda op=op, vd=vd: op @ vd, repeat=repeat, warmup=1 if quick else 0)
        times[dtype] = t
        ref = kernel(X[sub], X) @ v
        err = float(np.max(np.abs(out[sub] - ref)) / np.max(np.abs(ref)))
        t_lim = _limit(lim, dtype, n, n, d)
        name = np.dtype(dtype).name
        rows.append(Row(
            f"KernelOperator(RBF) @ v, n={n}, d={d}, {name}", t, t_lim,
            peer=f"limit: {2 * d} flops/entry at the GEMM rate + 1 exp/entry",
            target="within 1.5× of the limit (speed-up ≥ 0.67)",
            agree=f"rows 0-299 vs dense K @ v: rel. {err:.1e}",
            notes=f"{t / (float(n) * n) * 1e9:.2f} ns per entry; ours / limit "
                  f"{t / t_lim:.2f}",
        ))
    op = KernelOperator(kernel, X)
    t16, out16 = timeit(lambda: op @ V16, repeat=repeat, warmup=1 if quick else 0)
    ref16 = kernel(X[sub], X) @ V16
    err16 = float(np.max(np.abs(out16[sub] - ref16)) / np.max(np.abs(ref16)))
    rows.append(Row(
        f"KernelOperator(RBF) @ V, V with 16 columns, n={n}, d={d}, float64", t16,
        _limit(lim, np.float64, n, n, d, k=16),
        peer="limit: 32 + 32 flops/entry at the GEMM rate + 1 exp/entry",
        target="≤ 2× one matvec",
        agree=f"rows 0-299 vs dense K @ V: rel. {err16:.1e}",
        notes=f"{t16 / times[np.float64]:.2f}× one matvec ({times[np.float64]:.1f} s); "
              f"ours / limit {t16 / _limit(lim, np.float64, n, n, d, k=16):.2f}",
    ))
    return rows
