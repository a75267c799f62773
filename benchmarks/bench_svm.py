"""MulticlassSVM vs SVC (one-vs-one libsvm) on letters; OneClassSVM(nu) vs scikit-learn's.

Targets (issue 4): MulticlassSVM (both losses) accuracy >= SVC's - 0.3 points with fit
<= 5x SVC's time; OneClassSVM(nu=0.05) on n = 20,000, d = 10 Gaussian data: >= 99.5% of the
decisions equal to scikit-learn's, fit <= 1.5x its time.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC
from sklearn.svm import OneClassSVM as SkOneClassSVM

from kernelkit import MulticlassSVM, OneClassSVM

from ._data import letters
from ._harness import Row, timeit

# RBF gamma on standardized letters: the issue suggests 0.1 "or the best found for both";
# on the first 8,000 training rows 0.2 was best for SVC (95.5% vs 95.5% at 0.1, 94.9% at
# 0.05) and for the Crammer-Singer machine (95.3% vs 94.9% at 0.1)
GAMMA = 0.2
C_SVC = 10.0
C_OURS = 10.0
TOL = 0.1  # relative duality gap; test accuracy is flat from far looser gaps (see notes)


def _multiclass(quick: bool) -> list[Row]:
    Xtr, ytr, Xte, yte = letters()
    if quick:
        Xtr, ytr = Xtr[:3000], ytr[:3000]
    repeat = 1 if quick else 3  # medians: single fits vary by ~20% on this VM
    t_svc, svc = timeit(lambda: SVC(C=C_SVC, gamma=GAMMA).fit(Xtr, ytr), repeat=repeat,
                        warmup=0)
    acc_svc = float(np.mean(svc.predict(Xte) == yte))
    rows = []
    for loss in ("crammer_singer", "weston_watkins"):
        est = MulticlassSVM(C=C_OURS, gamma=GAMMA, loss=loss, tol=TOL, random_state=0)
        MulticlassSVM(C=1.0, gamma=GAMMA, loss=loss).fit(Xtr[:200], ytr[:200])  # jit warm-up
        t, m = timeit(lambda est=est: est.fit(Xtr, ytr), repeat=repeat, warmup=0)
        acc = float(np.mean(m.predict(Xte) == yte))
        rows.append(Row(
            f"MulticlassSVM({loss}) letters n={len(ytr)} test=4000, RBF gamma={GAMMA}",
            t, t_svc, peer="SVC one-vs-one (libsvm)",
            agree=f"acc {100 * acc:.2f}% vs {100 * acc_svc:.2f}% "
                  f"({100 * (acc - acc_svc):+.2f} pts)",
            notes=f"C={C_OURS} (SVC C={C_SVC}), tol={TOL} rel. gap reached "
                  f"{m.duality_gap_ / m.primal_objective_:.3f} in {m.n_iter_} passes, "
                  f"{m.n_support_} SVs (SVC {int(svc.n_support_.sum())}); "
                  f"fit {t / t_svc:.1f}x SVC",
            target="acc >= SVC - 0.3 pts, fit <= 1x SVC (issue 20)",
        ))
    return rows


def _one_class(quick: bool) -> list[Row]:
    n = 4000 if quick else 20_000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 10))
    Z = 1.3 * rng.normal(size=(n, 10))
    OneClassSVM(nu=0.05).fit(X[:300])  # jit warm-up
    repeat = 1 if quick else 3
    t_sk, sk = timeit(lambda: SkOneClassSVM(nu=0.05).fit(X), repeat=repeat, warmup=0)
    t, ours = timeit(lambda: OneClassSVM(nu=0.05).fit(X), repeat=repeat, warmup=0)
    same_tr = float(np.mean(ours.predict(X) == sk.predict(X)))
    same_te = float(np.mean(ours.predict(Z) == sk.predict(Z)))
    diff = float(np.max(np.abs(ours.decision_function(Z) - sk.decision_function(Z))))
    return [Row(
        f"OneClassSVM(nu=0.05) Gaussian n={n}, d=10, gamma='scale'", t, t_sk,
        peer="sklearn OneClassSVM (libsvm)",
        agree=f"same decision: train {100 * same_tr:.2f}%, fresh points {100 * same_te:.2f}%",
        notes=f"max |decision diff| {diff:.1e}; {ours.n_support_[0]} SVs "
              f"(sklearn {sk.n_support_[0]}); fit {t / t_sk:.2f}x sklearn",
        target=">= 99.5% same, fit <= 1.5x sklearn",
    )]


def _one_class_notes() -> Row:
    """The notes' formulation (no offset, 0 <= a_i <= C/m) against the naive box-QP reference
    of tests/reference at n = 500, default tolerance."""
    from sklearn.metrics.pairwise import rbf_kernel

    from tests.reference.one_class import one_class_dual

    n, C, gamma = 500, 20.0, 1.0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    X[: n // 20] *= 4  # a few far points
    OneClassSVM(C=C, gamma=gamma).fit(X[:50])  # jit warm-up
    t, ours = timeit(lambda: OneClassSVM(C=C, gamma=gamma).fit(X), repeat=3, warmup=0)
    t_ref, (_, d_ref) = timeit(lambda: one_class_dual(rbf_kernel(X, gamma=gamma), C),
                               repeat=3, warmup=0)
    d = ours.dual_objective_
    return Row(
        f"OneClassSVM notes' formulation (C={C:g}, no offset), n={n}, d=2, RBF gamma={gamma:g}",
        t, t_ref, peer="naive reference: L-BFGS-B on the box QP (tests/reference)",
        agree=f"dual objective {d:.10f} vs {d_ref:.10f} (|diff| {abs(d - d_ref):.1e})",
        notes=f"default tol (1e-8 relative gap); {len(ours.support_)} SVs",
        target="dual objective within 1e-6 of the reference",
    )


def run(quick: bool = False) -> list[Row]:
    return _multiclass(quick) + _one_class(quick) + [_one_class_notes()]
