"""
Structured prediction: reading words letter by letter
=====================================================

:func:`kernelkit.datasets.make_letter_words` spells real English words with real letter
images. A chain model scores a whole label sequence with the joint kernel
:math:`\\sum_{t,u} k_X(x_t, x'_u)[y_t = y'_u]` plus transition (bigram) terms and
predicts by Viterbi; compared here with classifying each letter on its own (the same
model with a :class:`~kernelkit.structured.MulticlassOracle`). See
:doc:`/guide/structured`.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from kernelkit.datasets import make_letter_words
from kernelkit.structured import ChainOracle, MulticlassOracle, StructuredPerceptron

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")
n_words = 150 if QUICK else 600

Xtr, ytr, Xte, yte = make_letter_words(n_words, 200, return_X_y=True, random_state=0)
n_states = 26  # letters a..z

chain = StructuredPerceptron(ChainOracle(n_states), kernel="rbf", gamma=0.05,
                             max_epochs=3, random_state=0).fit(Xtr, ytr)
per_char = chain.score(Xte, yte)  # fraction of letters read correctly
# the same letters, one at a time (no transition features)
flat = StructuredPerceptron(MulticlassOracle(), kernel="rbf", gamma=0.05, max_epochs=3,
                            random_state=0)
flat.fit(np.concatenate(Xtr), np.concatenate(ytr))
alone = flat.score(np.concatenate(Xte), np.concatenate(yte))
print(f"per-letter accuracy: chain {per_char:.3f}, letters alone {alone:.3f}")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.bar(["letters alone", "chain (Viterbi)"], [alone, per_char], color=["grey", "tab:blue"])
ax.set_ylim(0, 1)
ax.set_ylabel("per-letter test accuracy")
fig.tight_layout()
