"""The data seam: where the rows of X live, behind one small interface and one factory.

An estimator asks :func:`as_rows` (or :func:`check_rows`, which validates first) for the
:class:`RowSource` of its input and then asks the source for what it needs, never how the
rows are stored:

- ``n_rows``, ``n_features``, ``dtype``, ``in_memory``;
- ``take(indices)``: some rows in memory (the Nystrom centers);
- ``row_blocks(rows)``: the rows, a block at a time;
- ``kernel_operator(kernel, centers, block_rows, keep_blocks, index)``: ``K(X, centers)``
  as a :class:`~kernelkit.linalg.KernelOperator` with fixed row blocks (float64 partial
  sums); ``index`` names the centers' training rows (read by precomputed rows);
- ``predict(kernel, centers, coef, working_memory, index)``: ``K(X, centers) @ coef``;
- ``reduce(fn, targets, rows, *args)``: ``sum_b fn(X_b, T_b, *args)`` over row blocks with
  the aligned rows of ``targets`` (the sums over rows of the sparse GP's bound);
- ``map_rows(fn, width, *args)``: an (n, width) result computed from the rows where they
  live (the sparse GP's predictions).

In-memory sources also answer a training set's questions: ``subset(indices)`` (a fit on
some rows), ``support_vectors(indices)`` (what to store to predict) and
``gram_operator(kernel)`` (the square ``K(X, X)``).

:class:`ArrayRows` holds them in memory; :class:`SparseRows` holds them in memory as a
``scipy.sparse`` CSR matrix (row blocks and taken rows stay CSR: the kernels evaluate sparse
rows without densifying them); :class:`PrecomputedRows` holds a precomputed kernel matrix,
whose rows are kernel rows (a center is a training row named by its index);
:class:`~kernelkit.linalg.dask_rows.DaskRows` keeps them in the chunks of a dask array on a
cluster (a row home, :mod:`kernelkit.linalg.homes`: dask is imported only when one is
passed in).

Examples
--------
>>> import numpy as np
>>> from kernelkit.kernels import RBF
>>> from kernelkit.linalg.sources import ArrayRows
>>> rows = ArrayRows(np.random.default_rng(0).normal(size=(300, 2)))
>>> centers = rows.take(np.arange(10))
>>> op = rows.kernel_operator(RBF(), centers, block_rows=64)
>>> rows.n_rows, op.shape, op.dtype
(300, (300, 10), dtype('float64'))
>>> f = rows.predict(RBF(), centers, np.ones(10))
>>> bool(np.allclose(f, RBF()(rows.take(np.arange(300)), centers).sum(axis=1)))
True
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from .._core.threads import blas_threads
from .._core.validation import check_dense_target, validate_data
from ..kernels import Precomputed
from .blocks import block_slices, reduce_row_blocks
from .homes import home_of
from .operator import KernelOperator, _n_rows

__all__ = ["RowSource", "ArrayRows", "SparseRows", "PrecomputedRows", "as_rows",
           "check_rows", "is_precomputed", "in_memory_rows"]


@runtime_checkable
class RowSource(Protocol):
    """Where the rows of X live (in memory, dask chunks, later sparse rows)."""

    @property
    def n_rows(self) -> int: ...

    @property
    def n_features(self) -> int: ...

    @property
    def dtype(self) -> np.dtype: ...

    def take(self, indices) -> np.ndarray: ...

    def row_blocks(self, rows: int) -> Iterator[np.ndarray]: ...

    def kernel_operator(self, kernel, centers, block_rows: int,
                        keep_blocks: bool = False, index=None) -> KernelOperator: ...

    def predict(self, kernel, centers, coef, working_memory: float | None = None,
                index=None): ...

    def reduce(self, fn, targets, rows: int, *args) -> list[np.ndarray]: ...

    def map_rows(self, fn, width: int, *args): ...


class ArrayRows:
    """Rows held in memory as one array (already validated).

    Rows are read only by slicing and indexing (``X[sl]``, ``X[indices]``), which a CSR
    matrix supports as well: :class:`SparseRows` is this class on sparse rows.
    """

    in_memory = True

    def __init__(self, X: np.ndarray):
        self.X = X

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def dtype(self) -> np.dtype:
        return self.X.dtype

    def take(self, indices) -> np.ndarray:
        return self.X[indices]

    def subset(self, indices) -> ArrayRows:
        """The rows ``indices`` as a training set of their own (a fit on a subset)."""
        rows = object.__new__(type(self))  # rows of checked rows need no second check
        rows.X = self.X[indices]
        return rows

    def support_vectors(self, indices) -> np.ndarray:
        """What an estimator stores of the training rows ``indices`` to predict with
        (``support_vectors_``, ``centers_``): the rows themselves."""
        return self.X[indices]

    def row_blocks(self, rows: int) -> Iterator[np.ndarray]:
        for sl in block_slices(self.n_rows, rows):
            yield self.X[sl]

    def gram_operator(self, kernel, working_memory: float | None = None) -> KernelOperator:
        """``K(X, X)`` as a square operator (precomputed rows: the matrix itself)."""
        return KernelOperator(kernel, self.X, working_memory=working_memory)

    def kernel_operator(self, kernel, centers, block_rows: int,
                        keep_blocks: bool = False, index=None) -> KernelOperator:
        """``K(X, centers)`` in fixed row blocks (``index``, the centers' training rows, is
        read by precomputed rows only)."""
        return KernelOperator(kernel, self.X, centers, block_rows=block_rows,
                              keep_blocks=keep_blocks)

    def predict(self, kernel, centers, coef, working_memory: float | None = None,
                index=None):
        """``K(X, centers) @ coef`` blockwise (zeros without centers)."""
        coef = np.asarray(coef)
        if _n_rows(centers) == 0:  # f = sum over an empty support
            return np.zeros((self.n_rows,) + coef.shape[1:], np.result_type(self.dtype, coef))
        # f(X) = K(X, centers) coef, blockwise
        return KernelOperator(kernel, self.X, centers, working_memory=working_memory) @ coef

    def map_rows(self, fn, width: int, *args):
        """``fn(X, *args)``: an (n, width) array from the rows (blockwise inside ``fn``)."""
        return fn(self.X, *args)

    @staticmethod
    def gather(A) -> np.ndarray:
        """A result of the rows' targets in this process (in memory: itself)."""
        return np.asarray(A)

    @staticmethod
    def persist(T):
        """Targets kept beside the rows (in memory: themselves)."""
        return T

    def reduce(self, fn, targets, rows: int, *args) -> list[np.ndarray]:
        # sum_b fn(X_b, T_b, *args), float64 partials added in block order; the blocks on
        # as many threads as BLAS threads are allowed (one BLAS thread each)
        return reduce_row_blocks(fn, self.X, targets, rows, args, threads=blas_threads())


class SparseRows(ArrayRows):
    """Rows held in memory as a ``scipy.sparse`` matrix, kept as canonical CSR.

    COO, CSC, LIL and DOK input is converted to CSR once. ``take`` and ``row_blocks`` return
    CSR rows (the Nystrom centers stay sparse), and the kernel operators evaluate
    ``K(rows, centers)`` from sparse products, block by block: X is never densified.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.sources import SparseRows
    >>> X = sp.random(300, 50, density=0.05, format="coo", random_state=0)
    >>> rows = SparseRows(X)
    >>> centers = rows.take(np.arange(10))
    >>> centers.format, rows.kernel_operator(RBF(), centers, block_rows=64).shape
    ('csr', (300, 10))
    >>> f = rows.predict(RBF(), centers, np.ones(10))
    >>> bool(np.allclose(f, RBF()(X.toarray(), centers.toarray()).sum(axis=1)))
    True
    """

    def __init__(self, X):
        from ..kernels import Linear

        # the kernels' own sparse check: canonical CSR in float32/float64
        self.X = Linear().check_input(X)


class PrecomputedRows(ArrayRows):
    """Rows of a precomputed kernel matrix: row i is ``K(x_i, X_fit)``, one column per
    training row (n_features is the number of training rows).

    At fit the matrix is square, ``K(X_fit, X_fit)``. A *center* (support vector,
    Nystrom component) is a training row, named by its index: the kernel between the rows
    and the centers ``index`` is the block ``K[:, index]``, and the centers carry no
    features of their own (:meth:`support_vectors` is ``(len(index), 0)``, as
    scikit-learn's ``support_vectors_``). :meth:`take` gives the kernel rows themselves,
    :meth:`subset` the training rows ``index`` as a training set of their own,
    ``K[index][:, index]``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Precomputed
    >>> from kernelkit.linalg import as_rows
    >>> K = np.arange(16.0).reshape(4, 4)
    >>> rows = as_rows(K, kernel=Precomputed(), fit=True)
    >>> rows.subset([1, 3]).X.tolist()
    [[5.0, 7.0], [13.0, 15.0]]
    >>> rows.predict(Precomputed(), rows.support_vectors([1, 3]), np.ones(2), index=[1, 3])
    array([ 4., 12., 20., 28.])
    """

    def subset(self, indices) -> PrecomputedRows:
        # the training set shrinks: its rows and its columns
        idx = np.asarray(indices)
        return PrecomputedRows(self.X[idx][:, idx])

    def support_vectors(self, indices) -> np.ndarray:
        return np.empty((len(np.asarray(indices)), 0))

    def _columns(self, index):
        if index is None:
            raise ValueError("The rows of a precomputed kernel give K(X, centers) for centers "
                             "that are training rows: pass their indices (index=...).")
        return self.X[:, np.asarray(index)]

    def kernel_operator(self, kernel, centers, block_rows: int,
                        keep_blocks: bool = False, index=None) -> KernelOperator:
        # K(X, centers) is the block K[:, index]; the operator reads it (K(A, .) = A)
        return KernelOperator(kernel, self._columns(index), self.support_vectors(index),
                              block_rows=block_rows, keep_blocks=keep_blocks)

    def predict(self, kernel, centers, coef, working_memory: float | None = None,
                index=None):
        # f(X) = K(X, X_fit)[:, index] coef
        return self._columns(index) @ np.asarray(coef)


def is_precomputed(kernel) -> bool:
    """Whether ``kernel`` (a Kernel or scikit-learn's name) says the input *is* the kernel
    matrix: the rows are then :class:`PrecomputedRows`."""
    return isinstance(kernel, Precomputed) or (isinstance(kernel, str)
                                               and kernel == "precomputed")


def as_rows(X, *, kernel=None, dtype=None, fit: bool = False, what: str = "kernelkit"):
    """THE rows factory: the :class:`RowSource` of ``X``, whatever holds it.

    Parameters
    ----------
    X : array of shape (n, d), scipy.sparse matrix, or a dask array
        In-memory X is taken as validated (the estimator's scikit-learn checks ran); a dask
        X is checked and chunked by rows here (a running Client is required).
    kernel : Kernel or str, optional
        A precomputed kernel (:func:`is_precomputed`) makes X the kernel matrix:
        :class:`PrecomputedRows`.
    dtype : dtype or callable, optional
        The rows' working dtype, or a function of X's dtype that gives it (None: X's
        own; for dask, float32 stays and anything else becomes float64).
    fit : bool, default=False
        The rows are the training rows: a precomputed kernel matrix must be square.
    what : str
        The caller's name, for the messages.

    Returns
    -------
    :class:`ArrayRows`, :class:`SparseRows` (scipy.sparse, kept CSR), :class:`PrecomputedRows`,
    or a row home's rows (:class:`~kernelkit.linalg.DaskRows` for a dask array).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from kernelkit.linalg import as_rows
    >>> type(as_rows(np.ones((3, 2)))).__name__, type(as_rows(sp.eye(3))).__name__
    ('ArrayRows', 'SparseRows')
    >>> as_rows(np.ones((3, 2)), dtype=np.float32).dtype
    dtype('float32')
    """
    if (home := home_of(X)) is not None:
        return home.for_predict(X, _working_dtype(dtype, X.dtype), what=what)
    X = _as_dtype(X, dtype)
    if kernel is not None and is_precomputed(kernel):
        if fit and X.shape[0] != X.shape[1]:
            raise ValueError(f"kernel='precomputed' needs the square kernel matrix K(X, X) "
                             f"(n_samples, n_samples) at fit; got shape {X.shape}.")
        return PrecomputedRows(X)
    return SparseRows(X) if sp.issparse(X) else ArrayRows(X)


def _working_dtype(dtype, input_dtype):
    """``dtype``, or the dtype that a rule (a function of the input's dtype) gives."""
    if callable(dtype) and not isinstance(dtype, type):
        return dtype(np.dtype(input_dtype))
    return dtype


def _as_dtype(X, dtype):
    dtype = _working_dtype(dtype, X.dtype)
    return X if dtype is None else X.astype(dtype, copy=False)


def in_memory_rows(X) -> ArrayRows:
    """:class:`SparseRows` for a scipy sparse ``X``, else :class:`ArrayRows` (``as_rows``
    for in-memory X)."""
    return as_rows(X)


def check_rows(estimator, X, y="no_validation", *, reset: bool = True, kernel=None,
               work_dtype=None, **check_params):
    """scikit-learn's ``validate_data`` for every kind of rows: ``(rows, y)`` with y, else
    ``rows`` (:func:`as_rows` in ``work_dtype``, a dtype or a function of X's dtype). As
    scikit-learn's, ``y`` defaults to ``"no_validation"`` (X alone); ``y=None`` at fit is
    refused with scikit-learn's message.

    In memory: ``validate_data(estimator, X, y, reset=reset, **check_params)``, y dense
    and cast to the rows' dtype. Rows a row home holds (a dask X, or y at fit) are checked
    where they live (:meth:`DaskRows.for_fit <kernelkit.linalg.DaskRows.for_fit>`: the
    non-finite chunks named); at fit ``n_features_in_`` is set and ``feature_names_in_``
    dropped, as ``validate_data`` does for an array; at predict the number of features is
    checked.
    """
    name = type(estimator).__name__
    no_y = isinstance(y, str) and y == "no_validation"
    home = home_of(X, None if no_y else y)
    if home is not None and not no_y and y is not None:
        rows, y = home.for_fit(X, y, lambda d: _working_dtype(work_dtype, d), name)
        estimator.n_features_in_ = rows.n_features
        if hasattr(estimator, "feature_names_in_"):  # from an earlier fit on a DataFrame
            del estimator.feature_names_in_
        return rows, y
    if home is not None and no_y:
        return home.for_predict(X, _working_dtype(work_dtype, X.dtype),
                                None if reset else estimator.n_features_in_, name)
    if no_y:
        X = validate_data(estimator, X, reset=reset, **check_params)
        return as_rows(X, kernel=kernel, dtype=work_dtype, fit=reset, what=name)
    X, y = validate_data(estimator, X, y, reset=reset, **check_params)
    rows = as_rows(X, kernel=kernel, dtype=work_dtype, fit=reset, what=name)
    return rows, np.asarray(check_dense_target(y), dtype=rows.dtype)
