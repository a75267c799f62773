"""Memory: every kernel block, blockwise operators, where rows live, jittered Cholesky,
PCG, eigen solvers.

- :mod:`~kernelkit.linalg.blocks`: THE block plan (rows per block from the sizes and the
  working memory), the blockwise map and the partial-sum reduction;
- :class:`KernelOperator`: products with ``K(X, Y)`` in row blocks (in memory, or over
  the chunks of a dask array, :mod:`~kernelkit.linalg.dask_rows`);
- :mod:`~kernelkit.linalg.sources`: the data seam, where the rows of X live, and
  :func:`as_rows`, the one factory of its row sources (arrays, scipy.sparse, dask chunks,
  a precomputed kernel matrix);
- :class:`KernelRows`: kernel rows (whole matrix or LRU cache) for the dual solvers, and
  its restriction to a subset of columns (:class:`RestrictedRows`); their numba loops read
  both through one view (:class:`RowsView`, :func:`take_row`,
  :mod:`~kernelkit.linalg.row_cache`).
"""

from .block_cholesky import BlockCholesky
from .blocks import block_rows, block_slices, fits_in_memory, map_blocks, sum_partials
from .cg import pcg
from .cholesky import cho_inverse, cho_logdet, cho_solve, jitter_cholesky, tril_inplace
from .dask_rows import DaskRows, is_dask_array
from .eig import top_eigh
from .operator import KernelOperator
from .row_cache import RowsView, resume_entry, take_row
from .rows import KernelRows, RestrictedRows, as_kernel_rows
from .sources import (
    ArrayRows,
    PrecomputedRows,
    RowSource,
    SparseRows,
    as_rows,
    check_rows,
    in_memory_rows,
    is_precomputed,
)

__all__ = [
    "KernelOperator",
    "KernelRows",
    "RestrictedRows",
    "RowsView",
    "take_row",
    "resume_entry",
    "as_kernel_rows",
    "RowSource",
    "as_rows",
    "check_rows",
    "is_precomputed",
    "ArrayRows",
    "SparseRows",
    "PrecomputedRows",
    "in_memory_rows",
    "DaskRows",
    "is_dask_array",
    "block_rows",
    "block_slices",
    "fits_in_memory",
    "map_blocks",
    "sum_partials",
    "jitter_cholesky",
    "BlockCholesky",
    "cho_solve",
    "cho_inverse",
    "cho_logdet",
    "tril_inplace",
    "pcg",
    "top_eigh",
]
