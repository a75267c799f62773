"""Kernel machines: loss + kernel + RKHS penalty, one-class and multiclass SVMs, perceptron.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "KernelClassifier": "kernel_machine",
    "KernelRegressor": "kernel_machine",
    "OneClassSVM": "one_class",
    "MulticlassSVM": "multiclass",
    "KernelPerceptron": "perceptron",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
