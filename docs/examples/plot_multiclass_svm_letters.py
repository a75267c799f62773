"""
Multiclass SVMs on the UCI letters
==================================

The all-together multiclass SVM, one function per class and prediction
:math:`\\arg\\max_j f_j(x)`, with the Weston-Watkins and the Crammer-Singer losses, on
letters A–J. The figure shows the Crammer-Singer confusion matrix on the test letters.
See :doc:`/guide/svm`.
"""

import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import confusion_matrix

from kernelkit import MulticlassSVM
from kernelkit.datasets import load_letters

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")
n = 1500 if QUICK else 6000

Xtr, ytr, Xte, yte = load_letters(return_X_y=True, standardize=True)
train, test = np.isin(ytr, list("ABCDEFGHIJ")), np.isin(yte, list("ABCDEFGHIJ"))
Xtr, ytr, Xte, yte = Xtr[train][:n], ytr[train][:n], Xte[test], yte[test]

for loss in ("weston_watkins", "crammer_singer"):
    clf = MulticlassSVM(loss=loss, C=10.0, gamma=0.1).fit(Xtr, ytr)
    print(f"{loss}: test accuracy {clf.score(Xte, yte):.3f}")

cm = confusion_matrix(yte, clf.predict(Xte), labels=clf.classes_)
fig, ax = plt.subplots(figsize=(5.5, 4.8))
im = ax.imshow(cm / cm.sum(1, keepdims=True), cmap="Blues", vmin=0, vmax=1)
ax.set_xticks(range(len(clf.classes_)), clf.classes_)
ax.set_yticks(range(len(clf.classes_)), clf.classes_)
ax.set_xlabel("predicted letter")
ax.set_ylabel("true letter")
fig.colorbar(im, ax=ax, label="fraction of the true letter")
fig.tight_layout()
