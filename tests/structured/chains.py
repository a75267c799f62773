"""Random chains for the structured tests: labels, and inputs that depend on them."""

from __future__ import annotations

import numpy as np


def random_chains(n, S, d, seed, max_len):
    """n chains of 1..max_len positions over S states; the first input feature is the label
    plus noise, the other d - 1 are noise."""
    rng = np.random.default_rng(seed)
    Y = [rng.integers(0, S, size=rng.integers(1, max_len + 1)) for _ in range(n)]
    X = [np.c_[y + 0.9 * rng.normal(size=len(y)), rng.normal(size=(len(y), d - 1))] for y in Y]
    return X, Y
