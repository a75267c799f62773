"""
Past memory: Nyström kernel ridge regression (Falkon)
=====================================================

:class:`kernelkit.NystromKernelRidge` restricts :math:`f` to the span of :math:`M`
centers and solves :math:`(K_{nM}^\\top K_{nM} + \\lambda n K_{MM})\\alpha =
K_{nM}^\\top y` by preconditioned conjugate gradients, never forming the
:math:`n \\times n` kernel matrix. Here: letters A–M against N–Z as a ±1 regression;
test accuracy against the number of centers, next to exact kernel ridge regression on the
same sample. See :doc:`/guide/large_scale`.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from kernelkit import KernelRidge, NystromKernelRidge
from kernelkit.datasets import load_letters

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")
n = 2000 if QUICK else 8000

Xtr, ytr, Xte, yte = load_letters(return_X_y=True, standardize=True)
ytr, yte = np.where(ytr <= "M", -1.0, 1.0)[:n], np.where(yte <= "M", -1.0, 1.0)
Xtr = Xtr[:n]
gamma, lam = 0.1, 1e-6

centers = [25, 50, 100, 200, 400] if QUICK else [50, 100, 200, 400, 800, 1600]
acc = []
for M in centers:
    model = NystromKernelRidge(n_centers=M, alpha=lam, gamma=gamma, random_state=0)
    acc.append(np.mean(np.sign(model.fit(Xtr, ytr).predict(Xte)) == yte))
    print(f"M = {M:>4}: test accuracy {acc[-1]:.3f} ({model.n_iter_} CG iterations)")
# exact KRR with the same per-sample penalty: alpha = lambda * n
exact = KernelRidge(alpha=lam * n, kernel="rbf", gamma=gamma).fit(Xtr, ytr)
exact_acc = np.mean(np.sign(exact.predict(Xte)) == yte)

fig, ax = plt.subplots(figsize=(6.4, 4))
ax.semilogx(centers, acc, "o-", label="Nyström KRR (Falkon)")
ax.axhline(exact_acc, color="k", ls="--", label=f"exact KRR, n = {n}")
ax.set_xlabel("number of centers M")
ax.set_ylabel("test accuracy")
ax.legend()
fig.tight_layout()
