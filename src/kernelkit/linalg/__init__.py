"""Kernel algebra: blockwise operators, jittered Cholesky, PCG, eigen solvers."""

from .cg import pcg
from .cholesky import cho_inverse, cho_logdet, cho_solve, jitter_cholesky
from .cholesky_append import cholesky_append
from .eig import top_eigh
from .operator import KernelOperator, block_rows

__all__ = [
    "KernelOperator",
    "block_rows",
    "jitter_cholesky",
    "cholesky_append",
    "cho_solve",
    "cho_inverse",
    "cho_logdet",
    "pcg",
    "top_eigh",
]
