"""The result every solver returns (DESIGN: ``solve(problem, options) -> Result``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Result:
    """Outcome of an iterative solver.

    Attributes
    ----------
    coef : ndarray
        The solution (dual coefficients, CG iterate, ...).
    n_iter : int
        Iterations (or passes) performed.
    converged : bool
        Whether the stopping rule was met before ``max_iter``.
    history : list of float
        Per-iteration residual / duality gap, as documented by the solver.
    info : dict
        Solver-specific extras (e.g. the final duality gap).
    """

    coef: np.ndarray
    n_iter: int
    converged: bool
    history: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
