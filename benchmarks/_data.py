"""Shared benchmark data, so that issues that say "the same data" really use it."""

from __future__ import annotations

import numpy as np


def regression_data(n: int = 20_000, d: int = 8, n_test: int = 2_000, seed: int = 0):
    """Smooth nonlinear regression: the "n = 20,000, d = 8" data of the regression issues.

    y = sin(2 x1) + 0.5 cos(x2 x3) + 0.3 x4^2 - 0.2 x5 + 0.1 x6 x7 + N(0, 0.1^2).
    Returns X_train, y_train, X_test, y_test.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n + n_test, d))
    f = (np.sin(2 * X[:, 0]) + 0.5 * np.cos(X[:, 1] * X[:, 2]) + 0.3 * X[:, 3] ** 2
         - 0.2 * X[:, 4] + 0.1 * X[:, 5] * X[:, 6 % d])
    y = f + 0.1 * rng.standard_normal(n + n_test)
    return X[:n], y[:n], X[n:], y[n:]


def letters(standardize: bool = True):
    """UCI letters: first 16,000 rows train, last 4,000 test; labels are 'A'..'Z'.

    Returns X_train, y_train, X_test, y_test (features standardized on the train split).
    The bundled copy through :func:`kernelkit.datasets.load_letters` (parsed once per process).
    """
    from kernelkit.datasets import load_letters

    return load_letters(return_X_y=True, standardize=standardize)
