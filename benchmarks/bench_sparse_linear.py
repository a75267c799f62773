"""Sparse text-like input: Ridge and AdaBoost stumps on scipy.sparse vs scikit-learn (issue 15).

Data: ``benchmarks._data.sparse_text`` (Zipf term frequencies, tf-idf values, unit rows).
Peak memory is tracemalloc's peak during our fit, compared with the CSR input's bytes
(data + indices + indptr) plus the model: the target is ≤ 2× that, never the dense n × d.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import Ridge as SkRidge
from sklearn.tree import DecisionTreeClassifier

from kernelkit import AdaBoost, Ridge
from kernelkit.ensemble import DecisionStump

from ._data import sparse_text
from ._harness import Row, peak_memory, timeit


def _nbytes(X) -> int:
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def _memory(peak: int, X, model_bytes: int) -> str:
    base = _nbytes(X)
    return (f"peak {peak / 2**20:.0f} MiB = {peak / base:.2f}× the sparse input "
            f"({base / 2**20:.0f} MiB; model {model_bytes / 2**20:.1f} MiB; dense n×d would be "
            f"{X.shape[0] * X.shape[1] * 8 / 2**30:.1f} GiB)")


def _rel(a, b) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def ridge_row(quick: bool) -> Row:
    n, d, density = (20_000, 5_000, 0.001) if quick else (200_000, 50_000, 0.001)
    X, labels = sparse_text(n, d, density, seed=0)
    y = labels + 0.1 * np.random.default_rng(1).standard_normal(n)
    reps = 3
    t_ours, ours = timeit(lambda: Ridge(alpha=1.0).fit(X, y), repeat=reps)
    peers = {}
    for solver in ("sparse_cg", "lsqr"):  # scikit-learn's sparse solvers with an intercept
        peers[solver] = timeit(lambda s=solver: SkRidge(alpha=1.0, solver=s).fit(X, y),
                               repeat=reps)
    fastest = min(peers, key=lambda s: peers[s][0])
    t_sk, sk = peers[fastest]
    # a tight reference for the coefficients (scikit-learn's CG run to 1e-12)
    ref = SkRidge(alpha=1.0, solver="sparse_cg", tol=1e-12, max_iter=100_000).fit(X, y)
    peak, _ = peak_memory(lambda: Ridge(alpha=1.0).fit(X, y))
    times = ", ".join(f"{s} {t:.2f}s (coef rel err {_rel(m.coef_, ref.coef_):.1e})"
                      for s, (t, m) in peers.items())
    return Row(
        f"Ridge(fit_intercept=True) sparse tf-idf n={n:,}, d={d:,}, {density:.1%} (fit)",
        t_ours, t_sk, peer=f"sklearn Ridge(solver={fastest!r}), the fastest of {list(peers)}",
        target="≥1×, coef to 1e-6 relative; peak ≤ 2× CSR + model",
        agree=(f"coef rel err vs sparse_cg at tol=1e-12: ours {_rel(ours.coef_, ref.coef_):.1e}"
               f", sklearn {fastest} {_rel(sk.coef_, ref.coef_):.1e}; intercept Δ "
               f"{abs(ours.intercept_ - ref.intercept_):.1e}"),
        notes=(f"ours: Jacobi-preconditioned CG, {ours.n_iter_} iterations; sklearn: {times}; "
               f"{_memory(peak, X, d * 8)}; median of {reps}"),
    )


def _sk_stumps(T: int) -> AdaBoostClassifier:
    kw = {}
    if "algorithm" in inspect.signature(AdaBoostClassifier).parameters:
        kw["algorithm"] = "SAMME"
    return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=T,
                              random_state=0, **kw)


def adaboost_rows(quick: bool) -> list[Row]:
    n, d, density, T = (10_000, 1_000, 0.005, 20) if quick else (100_000, 10_000, 0.005, 100)
    X, y = sparse_text(n, d, density, seed=0, fmt="csc")
    reps = 3 if quick else 1
    t_sk, sk = timeit(lambda: _sk_stumps(T).fit(X, y), repeat=reps, warmup=0)
    rows = []
    for label, est in [("Gini stumps (sklearn's split)", DecisionStump(criterion="gini")),
                       ("exact weighted-error stumps (default)", DecisionStump())]:
        t_ours, ours = timeit(lambda est=est: AdaBoost(est, n_estimators=T).fit(X, y),
                              repeat=3)
        peak, _ = peak_memory(lambda est=est: AdaBoost(est, n_estimators=T).fit(X, y))
        m = min(len(ours.estimator_errors_), len(sk.estimator_errors_))
        e_ours, e_sk = ours.estimator_errors_[:m], sk.estimator_errors_[:m]
        de = np.abs(e_ours - e_sk)
        same = sum(int(a.feature_ == b.tree_.feature[0])
                   for a, b in zip(ours.estimators_, sk.estimators_))
        rows.append(Row(
            f"AdaBoost {label}, sparse tf-idf CSC n={n:,}, d={d:,}, {density:.1%}, T={T} (fit)",
            t_ours, t_sk, peer="sklearn AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))"
            ", SAMME, on the same CSC matrix",
            target="≥20×, same per-round weighted error; peak ≤ 2× CSR + model",
            agree=(f"per-round ε: max |ε_ours − ε_sk| {de.max():.1e} over {m} rounds, "
                   f"ε_ours ≤ ε_sk in {np.mean(e_ours <= e_sk + 1e-12):.0%}; "
                   f"same split feature in {same}/{m}; train acc {ours.score(X, y):.4f} vs "
                   f"{sk.score(X, y):.4f}"),
            notes=(f"{_memory(peak, X, T * 64)}; ours median of 3, sklearn of {reps}"),
        ))
    return rows


def run(quick: bool = False) -> list[Row]:
    return [ridge_row(quick), *adaboost_rows(quick)]
