"""What the structured SVM and perceptron share: input checks and the fitted predictor.

A fitted joint-kernel model is f(x, y) = sum_t G[t, z_t] + w . tau(z) with unary scores
G = k_X(parts of x, support parts) unary_coef_ L (see :mod:`kernelkit.structured.base`);
prediction is the oracle's argmax over outputs.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils._param_validation import HasMethods, Interval

from .._core.validation import (
    KERNEL_PARAMETER_CONSTRAINTS,
    check_is_fitted,
    check_two_classes,
)
from ..kernels import resolve_estimator_kernel
from ._field import unary_scores
from .base import REQUIRED_ORACLE_METHODS, check_oracle

__all__ = ["JointKernelModel"]

# scikit-learn's parameter validation of what the structured estimators share; an oracle
# without a task loss, or a class instead of an instance, gets check_oracle's message
SHARED_CONSTRAINTS: dict = {
    **KERNEL_PARAMETER_CONSTRAINTS,
    "oracle": [HasMethods(list(REQUIRED_ORACLE_METHODS)), None],
    "cache_size": [Interval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


class JointKernelModel(BaseEstimator):
    """Base of the structured estimators (not public): fit checks, predict, score."""

    def _prepare(self, X, Y, *, need_loss: bool):
        """Clone and fit the oracle, cut X into parts, encode Y, resolve the kernel."""
        self._validate_params()
        check_oracle(self.oracle, need_loss=need_loss)
        if Y is None:
            raise ValueError("Y (one output per input) is required to fit.")
        oracle = clone(self.oracle)
        parts, offsets = oracle.split_inputs(X)
        n = len(offsets) - 1
        try:
            n_y = len(Y)
        except TypeError as exc:
            raise ValueError("Y must be a sequence of outputs, one per input.") from exc
        if n_y != n:
            raise ValueError(f"X has {n} examples but Y has {n_y} outputs; they must match.")
        oracle.fit(Y)
        Z = oracle.encode(Y, offsets)
        states = np.unique(Z)
        if len(states) < 2:  # every part in one state: nothing to separate
            check_two_classes(self, [oracle.decode_one(states[:1])])
        self.oracle_ = oracle
        self.n_features_in_ = parts.shape[1]
        self.kernel_ = resolve_estimator_kernel(self, parts.shape[1])
        self.label_kernel_ = np.asarray(oracle.label_kernel_matrix(), dtype=np.float64)
        return parts, offsets, Z

    def _parts(self, X):
        check_is_fitted(self, "unary_coef_")
        parts, offsets = self.oracle_.split_inputs(X)
        if parts.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {parts.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        return parts, offsets

    def _unary(self, parts) -> np.ndarray:
        return unary_scores(self.kernel_, self.support_parts_, self.unary_coef_,
                            self.label_kernel_, parts, self.support_)

    def predict(self, X):
        """argmax_y f(x, y) for every input (labels for classes, arrays for sequences)."""
        parts, offsets = self._parts(X)
        Z = self.oracle_.argmax_batch(parts, offsets, self._unary(parts), self.pairwise_coef_)
        return self.oracle_.decode(Z, offsets)

    def decision_function(self, X, y=None) -> np.ndarray:
        """f(x_i, y_i) for the given (input, output) pairs, shape (n,).

        Without ``y``, the score of the predicted output, max_y f(x_i, y).
        """
        parts, offsets = self._parts(X)
        G = self._unary(parts)
        if y is None:
            Z = self.oracle_.argmax_batch(parts, offsets, G, self.pairwise_coef_)
        else:
            Z = self.oracle_.encode(y, offsets)
        f = np.add.reduceat(G[np.arange(len(Z)), Z], offsets[:-1])
        return f + self.oracle_.pairwise_batch(Z, offsets) @ self.pairwise_coef_

    def score(self, X, y) -> float:
        """Fraction of parts labelled correctly (accuracy; per-letter accuracy for chains)."""
        parts, offsets = self._parts(X)
        Z = self.oracle_.encode(y, offsets)
        Zp = self.oracle_.argmax_batch(parts, offsets, self._unary(parts), self.pairwise_coef_)
        return float(np.mean(Zp == Z))

