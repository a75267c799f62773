"""MulticlassSVM vs SVC (one-vs-one libsvm) on letters; OneClassSVM(nu) vs scikit-learn's.

Targets (issue 4, 20, 35): MulticlassSVM (both losses) at its default tolerance: accuracy
>= SVC's - 0.3 points, fit <= 1x SVC's time, two pass orders (random_state) agreeing on
>= 99.9% of the test labels; OneClassSVM(nu=0.05) on n = 20,000, d = 10 Gaussian data:
>= 99.5% of the decisions equal to scikit-learn's, fit <= 1.5x its time.
"""

from __future__ import annotations

import os
import time

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
# issue 35: MulticlassSVM runs at its defaults (tol, max_iter, shrinking), only C and gamma
# set; the cases are (loss, training rows, gamma): letters at 16,000 rows (gamma 0.2, both
# losses, and 0.1, the low end of the range 0.1-0.2, for the default loss) and the
# issue's 10,000 rows at gamma 0.15, 0.1 and 0.2 (the default loss)
CASES = (("crammer_singer", 16_000, GAMMA), ("weston_watkins", 16_000, GAMMA),
         ("weston_watkins", 16_000, 0.1), ("weston_watkins", 10_000, 0.15),
         ("weston_watkins", 10_000, 0.1), ("weston_watkins", 10_000, 0.2))


def _timed(fit):
    t0 = time.perf_counter()
    model = fit()
    return time.perf_counter() - t0, model


def _multiclass_case(loss, n, gamma, quick) -> Row:
    Xtr, ytr, Xte, yte = letters()
    n = 3000 if quick else n
    Xtr, ytr = Xtr[:n], ytr[:n]
    MulticlassSVM(C=1.0, gamma=gamma, loss=loss).fit(Xtr[:200], ytr[:200])  # jit warm-up
    svc_times, our_times = [], []
    for _ in range(1 if quick else 3):  # interleaved: ours and SVC see the same load
        t, svc = _timed(lambda: SVC(C=C_SVC, gamma=gamma).fit(Xtr, ytr))
        svc_times.append(t)
        t, m = _timed(lambda: MulticlassSVM(C=C_OURS, gamma=gamma, loss=loss,
                                            random_state=0).fit(Xtr, ytr))
        our_times.append(t)
    t_svc, t = float(np.median(svc_times)), float(np.median(our_times))
    # repeatability: the same fit with another pass order (random_state=1)
    m1 = MulticlassSVM(C=C_OURS, gamma=gamma, loss=loss, random_state=1).fit(Xtr, ytr)
    F0, F1 = m.decision_function(Xte), m1.decision_function(Xte)
    same = float(np.mean(m.predict(Xte) == m1.predict(Xte)))
    dmax = float(np.abs(F0 - F1).max() / np.abs(F0).max())
    acc, acc_svc = float(np.mean(m.predict(Xte) == yte)), float(np.mean(svc.predict(Xte) == yte))
    return Row(
        f"MulticlassSVM({loss}) letters n={n} test=4000, RBF gamma={gamma}, defaults",
        t, t_svc, peer="SVC one-vs-one (libsvm)",
        agree=f"acc {100 * acc:.2f}% vs {100 * acc_svc:.2f}% ({100 * (acc - acc_svc):+.2f} pts); "
              f"random_state 0 vs 1: same label {100 * same:.2f}%, max |dF| / max |F| "
              f"{dmax:.1e}",
        notes=f"C={C_OURS} (SVC C={C_SVC}), default tol {m.tol:g} (relative duality gap) "
              f"reached {m.duality_gap_ / m.primal_objective_:.4f} in {m.n_iter_} passes, "
              f"{m.n_support_} SVs (SVC {int(svc.n_support_.sum())}); fit {t / t_svc:.2f}x "
              f"SVC, medians of {len(our_times)} interleaved fits (ours "
              f"{min(our_times):.2f}-{max(our_times):.2f} s, SVC {min(svc_times):.2f}-"
              f"{max(svc_times):.2f} s); load avg {os.getloadavg()[0]:.1f}",
        target="acc >= SVC - 0.3 pts, fit <= 1x SVC at defaults, >= 99.9% same labels "
               "(issue 35)",
    )


def _multiclass(quick: bool) -> list[Row]:
    return [_multiclass_case(loss, n, gamma, quick) for loss, n, gamma in CASES]


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
