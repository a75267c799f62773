"""Ensembles: majority vote and AdaBoost over weak learners.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "MajorityVote": "majority",
    "AdaBoost": "adaboost",
    "AdaBoostClassifier": "adaboost",
    "DecisionStump": "weak",
    "DecisionTree": "weak",
    "LinearThreshold": "weak",
    "FunctionDictionary": "weak",
    "WeakLearner": "weak",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)
