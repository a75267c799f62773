"""
Regularized risk minimization with any loss
===========================================

One estimator, :class:`kernelkit.KernelClassifier`, minimizes
:math:`\\frac1m \\sum_i \\ell(y_i, f(x_i)) + \\alpha \\|f\\|_{\\mathcal H}^2` for the loss
it is given; the representer theorem makes :math:`f` a kernel expansion on the training
points. Left: the classification losses as functions of the margin :math:`yf`. Right:
their test accuracy on the breast-cancer data (standardized, RBF kernel) and the fraction
of training points that carry a non-zero coefficient (the hinge losses are sparse, the
logistic loss is not). See :doc:`/guide/risk_minimization`.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from kernelkit import KernelClassifier
from kernelkit.datasets import load_breast_cancer
from kernelkit.losses import Hinge, Logistic, SquaredHinge

X, y = load_breast_cancer(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
scaler = StandardScaler().fit(Xtr)
Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)

losses = {"hinge": Hinge(), "squared_hinge": SquaredHinge(), "logistic": Logistic()}
margin = np.linspace(-2, 3, 200)
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
accuracy, sparsity = [], []
for name, loss in losses.items():
    axes[0].plot(margin, loss.value(np.ones_like(margin), margin), label=name)
    clf = KernelClassifier(loss=name, kernel="rbf", gamma=0.02, alpha=1e-3).fit(Xtr, ytr)
    accuracy.append(clf.score(Xte, yte))
    sparsity.append(len(clf.support_) / len(ytr))  # points with a non-zero coefficient
    print(f"{name:>13}: test accuracy {accuracy[-1]:.3f}, "
          f"{sparsity[-1]:.0%} non-zero coefficients")
axes[0].plot(margin, margin <= 0, "k:", label="0-1")
axes[0].set_xlabel("margin $y f(x)$")
axes[0].set_ylabel(r"$\ell(y, f(x))$")
axes[0].legend()
pos = np.arange(len(losses))
axes[1].bar(pos - 0.2, accuracy, 0.4, label="test accuracy")
axes[1].bar(pos + 0.2, sparsity, 0.4, label="non-zero coefficients")
axes[1].set_xticks(pos, list(losses))
axes[1].set_ylim(0, 1.05)
axes[1].legend(loc="lower right", fontsize=8)
fig.tight_layout()
