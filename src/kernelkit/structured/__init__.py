"""Structured prediction with joint kernels: oracles, structured SVM and perceptron.

A joint kernel k((x, y), (x', y')) = k_X(x, x') k_Y(y, y') merges the class scores into one
function f(x, y) in the tensor-product RKHS H_X (x) H_Y (the product of two PSD kernels is
PSD, Schur's theorem); prediction is argmax_y f(x, y), found by an *oracle* that knows the
output space (:class:`MulticlassOracle`, :class:`HierarchyOracle`, :class:`ChainOracle`,
or your own :class:`Oracle`). Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "Oracle": "base",
    "Scores": "base",
    "MulticlassOracle": "oracles",
    "HierarchyOracle": "oracles",
    "ChainOracle": "oracles",
    "StructuredSVM": "svm",
    "StructuredPerceptron": "perceptron",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
