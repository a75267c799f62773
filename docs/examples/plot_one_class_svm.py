"""
One-class SVM: the notes' formulation and Schölkopf's
=====================================================

Two standardized features of the benign breast-cancer cases. The notes' one-class SVM
(hinge loss with every label +1, no offset) calls a point an inlier when
:math:`f(x) \\ge 1`; a larger :math:`C` (a smaller penalty) takes more points in. The
:math:`\\nu`-formulation (scikit-learn's) leaves about a fraction :math:`\\nu` of the
training points outside (exactly at most :math:`\\nu` at the optimum; the solver's
tolerance can move a point or two). See :doc:`/guide/svm`.
"""

import matplotlib.pyplot as plt
import numpy as np

from kernelkit import OneClassSVM
from kernelkit.datasets import load_breast_cancer

data = load_breast_cancer()
X = data.data[data.target == 1][:, [0, 1]]  # benign: mean radius, mean texture
X = (X - X.mean(0)) / X.std(0)

models = {
    "notes' formulation, C = 100": OneClassSVM(C=100.0, gamma=0.5).fit(X),
    "nu-formulation, nu = 0.1": OneClassSVM(nu=0.1, gamma=0.5).fit(X),
}
xx, yy = np.meshgrid(np.linspace(-3.5, 4.5, 200), np.linspace(-3, 4.5, 200))
grid = np.c_[xx.ravel(), yy.ravel()]

fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
for ax, (title, model) in zip(axes, models.items()):
    outside = model.predict(X) == -1
    print(f"{title}: {outside.mean():.1%} of the training points outside")
    Z = model.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, Z, levels=[Z.min(), 0, Z.max()], colors=["#f4cccc", "#d9ead3"])
    ax.contour(xx, yy, Z, levels=[0], colors="k", linewidths=1)
    ax.scatter(*X[~outside].T, s=6, c="tab:green")
    ax.scatter(*X[outside].T, s=10, c="tab:red", marker="x")
    ax.set_title(title.replace("nu", r"$\nu$"))
    ax.set_xlabel("mean radius (standardized)")
axes[0].set_ylabel("mean texture (standardized)")
fig.tight_layout()
