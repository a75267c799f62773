"""KernelPerceptron on letters A–M vs N–Z vs sklearn SVC

UCI letters (benchmarks/_data.py letters(): 16,000 train / 4,000 test, features standardized
on the train split), label +1 for A–M and -1 for N–Z. Both models use the RBF kernel with the
same gamma = 0.2 (SVC: C = 10). SVC solves the batch max-margin problem; the perceptron makes
online passes, so the comparison is test accuracy at a given cost, not the same optimum.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import Perceptron
from sklearn.svm import SVC

from kernelkit import KernelPerceptron

from ._data import letters
from ._harness import Row, timeit

GAMMA = 0.2


def run(quick: bool = False) -> list[Row]:
    Xtr, ytr, Xte, yte = letters()
    ytr = np.where(ytr < "N", 1, -1)
    yte = np.where(yte < "N", 1, -1)
    if quick:
        Xtr, ytr, Xte, yte = Xtr[:3000], ytr[:3000], Xte[:1000], yte[:1000]
    n = len(Xtr)
    KernelPerceptron(gamma=GAMMA).fit(Xtr[:300], ytr[:300])  # numba compile
    repeat = 3 if quick else 2

    t_svc, svc = timeit(lambda: SVC(kernel="rbf", gamma=GAMMA, C=10.0).fit(Xtr, ytr),
                        repeat=1, warmup=0)
    acc_svc = float(svc.score(Xte, yte))
    lin = Perceptron(random_state=0).fit(Xtr, ytr)
    acc_lin = float(lin.score(Xte, yte))

    rows = []
    t1, one = timeit(lambda: KernelPerceptron(gamma=GAMMA, max_epochs=1).fit(Xtr, ytr),
                     repeat=repeat,
                     warmup=0)
    acc1 = float(one.score(Xte, yte))
    rows.append(Row(
        f"KernelPerceptron rbf γ={GAMMA}, 1 epoch, letters A–M vs N–Z (n={n})", t1, t_svc,
        peer="scikit-learn SVC fit (C=10)",
        agree=f"test acc {acc1:.4f} vs SVC {acc_svc:.4f}",
        notes=f"{one.mistakes_[0]} mistakes = support size; {t1:.2f} s per epoch; "
              f"linear sklearn Perceptron acc {acc_lin:.4f}",
        target="report time/epoch and accuracy",
    ))
    t5, avg = timeit(lambda: KernelPerceptron(gamma=GAMMA, max_epochs=5,
                                              variant="averaged").fit(Xtr, ytr),
                     repeat=1, warmup=0)
    acc5 = float(avg.score(Xte, yte))
    gap = 100 * (acc_svc - acc5)
    rows.append(Row(
        f"KernelPerceptron averaged, 5 epochs (n={n})", t5, t_svc,
        peer="scikit-learn SVC fit (C=10)",
        agree=f"test acc {acc5:.4f} vs SVC {acc_svc:.4f} ({gap:+.2f} points behind)",
        notes=f"mistakes per epoch {avg.mistakes_.tolist()}, support size {len(avg.support_)}; "
              f"{'met' if gap <= 2 else 'NOT met'}",
        target="within 2 points of SVC",
    ))
    return rows
