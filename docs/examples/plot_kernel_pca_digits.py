"""
Kernel PCA of handwritten digits
================================

The 8x8 digits projected on their two leading kernel principal components (RBF kernel):
the eigenvectors of the centred Gram matrix :math:`\\tilde K = HKH`, scaled so that the
feature-space directions have unit norm. See :doc:`/guide/kernel_pca`.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from kernelkit import KernelPCA
from kernelkit.datasets import load_digits

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")

X, y = load_digits(return_X_y=True)
if QUICK:
    X, y = X[:600], y[:600]
X = X / 16.0

kpca = KernelPCA(n_components=2, kernel="rbf", gamma=0.03).fit(X)
Z = kpca.transform(X)
print("explained variance (notes' lambda):", np.round(kpca.explained_variance_, 4))

fig, ax = plt.subplots(figsize=(6, 5))
sc = ax.scatter(Z[:, 0], Z[:, 1], c=y, cmap="tab10", s=8)
ax.legend(*sc.legend_elements(), title="digit", fontsize=7, loc="best", ncol=2)
ax.set_xlabel("first kernel principal component")
ax.set_ylabel("second kernel principal component")
fig.tight_layout()
