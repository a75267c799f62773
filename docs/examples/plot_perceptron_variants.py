"""
The kernel perceptron: standard, averaged and voted
===================================================

Rosenblatt's perceptron in dual form on the breast-cancer data (standardized features,
RBF kernel): on a mistake the example joins the expansion
:math:`f(x) = \\sum_i c_i k(x_i, x)` with :math:`c_i = y_i`. Test accuracy after each
pass over the data for the three variants. See :doc:`/guide/perceptron`.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from kernelkit import KernelPerceptron
from kernelkit.datasets import load_breast_cancer

X, y = load_breast_cancer(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
scaler = StandardScaler().fit(Xtr)
Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)

epochs = np.arange(1, 9)
fig, ax = plt.subplots(figsize=(6.4, 4))
for variant in ("standard", "averaged", "voted"):
    acc = [KernelPerceptron(kernel="rbf", gamma=0.02, variant=variant, max_epochs=e,
                            shuffle=True, random_state=0).fit(Xtr, ytr).score(Xte, yte)
           for e in epochs]
    print(f"{variant:>8}: test accuracy after {epochs[-1]} epochs {acc[-1]:.3f}")
    ax.plot(epochs, acc, "o-", label=variant)
ax.set_xlabel("epochs")
ax.set_ylabel("test accuracy")
ax.legend()
fig.tight_layout()
