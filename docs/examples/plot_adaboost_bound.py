"""
AdaBoost: the training error under the bound ∏ Z_t
===================================================

Discrete AdaBoost with decision stumps on the UCI letters, first half of the alphabet
against the second. The training error of :math:`F_T = \\sum_t \\alpha_t h_t` never
exceeds :math:`\\prod_{t \\le T} Z_t` (``training_error_bound_``), which falls
geometrically while every weak learner beats chance. See :doc:`/guide/boosting`.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from kernelkit import AdaBoost
from kernelkit.datasets import load_letters

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")
n, T = (2000, 60) if QUICK else (16000, 300)

Xtr, ytr, Xte, yte = load_letters(return_X_y=True)
ytr, yte = np.where(ytr <= "M", -1, 1)[:n], np.where(yte <= "M", -1, 1)
Xtr = Xtr[:n]

clf = AdaBoost("stump", n_estimators=T).fit(Xtr, ytr)
assert np.all(clf.training_errors_ <= clf.training_error_bound_ + 1e-12)
test_err = [np.mean(p != yte) for p in clf.staged_predict(Xte)]
print(f"after {T} rounds: training error {clf.training_errors_[-1]:.3f}, "
      f"bound {clf.training_error_bound_[-1]:.3f}, test error {test_err[-1]:.3f}")

t = np.arange(1, clf.n_estimators_ + 1)
fig, ax = plt.subplots(figsize=(6.4, 4))
ax.semilogy(t, clf.training_error_bound_, label=r"bound $\prod_{s \leq t} Z_s$")
ax.semilogy(t, clf.training_errors_, label="training error")
ax.semilogy(t, test_err, label="test error")
ax.set_xlabel("round t")
ax.set_ylabel("error (log scale)")
ax.legend()
fig.tight_layout()
