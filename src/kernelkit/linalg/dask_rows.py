"""Rows in dask chunks: kernel products over the rows of a dask array on a cluster.

The rows of X stay on the workers, chunk by chunk (a chunk spans all columns). A product
with ``K_nM = K(X, Y)`` for an in-memory Y (the Nystrom centers) is one task per chunk,
run on the worker that holds the chunk,

    K_nM^T (K_nM V) = sum_b K_b^T (K_b V),    K_nM^T U = sum_b K_b^T U_b,

and the per-chunk (M, k) results are summed on the client in chunk order, so the result
is the single-process one up to rounding (the order of a sum). Only V (M x k) travels to
the workers and (M x k) per chunk travels back. Each task uses the ordinary in-memory
:class:`~kernelkit.linalg.KernelOperator` on its chunk (row blocks within working memory).

With fixed blocks (``block_rows``, what NystromKernelRidge uses) each task returns the
partials of its fixed row blocks and the client adds them in float64 in block order,
exactly as the in-memory operator with ``block_rows`` does in one process, so with chunks
that are whole blocks (:func:`align_row_chunks`) the results are identical.

:class:`DaskRows` is this module's side of the data seam (:mod:`kernelkit.linalg.sources`).
Importing this module imports nothing from dask; its functions import dask when called,
and nothing else in kernelkit does until dask arrays are passed in.
"""

from __future__ import annotations

import numpy as np

from ..kernels import resolve_kernel
from .blocks import (
    block_slices,
    map_blocks,
    parallel_threads,
    reduce_row_blocks,
    sum_partial_tuples,
    sum_partials,
)
from .fused import block_gram, block_partial
from .homes import register_home
from .operator import KernelOperator

__all__ = [
    "is_dask_array",
    "DaskKernelOperator",
    "DaskRows",
    "align_row_chunks",
    "get_running_client",
    "as_row_chunked",
    "persist_rows",
    "check_finite_chunks",
    "predict_chunks",
]

def is_dask_array(X) -> bool:
    """Whether ``X`` is a dask array, without importing dask."""
    return type(X).__module__.startswith("dask.") and hasattr(X, "chunks") and hasattr(X, "dask")


NO_CLIENT = (
    "{what} got dask arrays, which run on a dask.distributed cluster, but no Client is "
    "running. Start one first: `from dask.distributed import Client; client = Client()` "
    "starts a local cluster, `client = Client('tcp://scheduler-host:8786')` connects to an "
    "existing one (or pass numpy arrays to work in this process)."
)


def get_running_client(what: str = "kernelkit"):
    """The current ``dask.distributed`` Client, or a ValueError that says how to start one."""
    try:
        from distributed import get_client
    except ImportError as exc:  # pragma: no cover - dask is an optional extra
        raise ImportError(
            "Dask arrays need dask.distributed: pip install 'kernelkit[dask]'."
        ) from exc
    try:
        return get_client()
    except ValueError:
        raise ValueError(NO_CLIENT.format(what=what)) from None


def _check_rows(A, name, n_rows_chunks) -> None:
    if n_rows_chunks is not None and (A.ndim == 0 or A.shape[0] != sum(n_rows_chunks)):
        raise ValueError(f"{name} has shape {A.shape} but X has {sum(n_rows_chunks)} rows; "
                         f"{name} must have one row per row of X.")


def as_row_chunked(A, name: str = "X", dtype=None, n_rows_chunks=None):
    """Validate a dask array and chunk it by rows only (one chunk spans every column).

    Parameters
    ----------
    A : dask array of shape (n,) or (n, d)
    dtype : dtype, optional
        Float dtype to cast to (default: float32 stays, anything else becomes float64).
    n_rows_chunks : tuple of int, optional
        Row chunks to align with (those of X, for y).
    """
    import dask.array as da

    if not is_dask_array(A):
        A = np.asarray(A)
        _check_rows(A, name, n_rows_chunks)
        A = da.from_array(A, chunks=(n_rows_chunks or "auto",) + (-1,) * (A.ndim - 1))
    if A.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D; got a dask array of shape {A.shape}.")
    kind = np.dtype(A.dtype).kind
    if kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {A.dtype}.")
    if kind not in "fiub":
        raise ValueError(f"{name} must be numeric; got a dask array of dtype {A.dtype}.")
    if any(np.isnan(c) for c in A.chunks[0]):
        A = A.compute_chunk_sizes()  # unknown chunk sizes (e.g. after boolean indexing)
    if A.ndim == 2 and len(A.chunks[1]) > 1:
        # chunks along columns: each task needs whole rows, so merge the column chunks
        A = A.rechunk({1: -1})
    _check_rows(A, name, n_rows_chunks)
    if n_rows_chunks is not None and tuple(A.chunks[0]) != tuple(n_rows_chunks):
        A = A.rechunk({0: n_rows_chunks})
    if dtype is None:
        dtype = np.float32 if A.dtype == np.float32 else np.float64
    return A.astype(dtype) if A.dtype != dtype else A


def _identity(a):
    return a


def recomputable(client, arrays) -> list:
    """Futures of ``arrays`` under fresh keys, each made by a task that holds its array: if
    the worker keeping one dies, the scheduler runs the task again (``client.scatter`` data
    has no lineage and is lost with its worker)."""
    return [client.submit(_identity, a, pure=False) for a in arrays]


def map_chunks(client, func, *iterables, **kwargs) -> list:
    """``client.map(func, *iterables, pure=False, **kwargs)`` with every keyword argument
    larger than 100 kB sent once as a future under a fresh key (:func:`recomputable`).

    ``client.map`` puts such an argument in the graph under its *name* as key: two maps in
    a row with different values of ``args`` (the sparse GP's passes, M = 512) collided in
    the scheduler (an AssertionError, then a pickling error) instead of sending the new
    value.
    """
    from dask.sizeof import sizeof
    from distributed import Future

    big = [k for k, v in kwargs.items() if not isinstance(v, Future) and sizeof(v) > 100_000]
    for k, fut in zip(big, recomputable(client, [kwargs[k] for k in big])):
        kwargs[k] = fut
    return client.map(func, *iterables, pure=False, **kwargs)


def persist_rows(client, A):
    """Persist a row-chunked ``A`` on the workers: ``(A, chunk futures in row order, offsets)``.

    Row chunk i holds rows ``offsets[i]:offsets[i + 1]``. Persisting an array that is
    already persisted costs nothing.
    """
    from distributed import futures_of

    A = client.persist(A)
    by_key = {f.key: f for f in futures_of(A)}
    ordered = [by_key[k[0] if isinstance(k, list) else k] for k in A.__dask_keys__()]
    offsets = np.concatenate([[0], np.cumsum(A.chunks[0])]).astype(int)
    return A, ordered, offsets


def _chunk_finite(x) -> bool:
    return bool(np.isfinite(x).all())


def check_finite_chunks(client, futures, offsets, name: str = "X") -> None:
    """Raise a ValueError naming the first chunk with NaN or infinity."""
    flags = client.gather(client.map(_chunk_finite, futures, pure=False))
    bad = [i for i, ok in enumerate(flags) if not ok]
    if bad:
        i = bad[0]
        raise ValueError(
            f"{name} chunk {i} (rows {offsets[i]} to {offsets[i + 1] - 1}) contains NaN or "
            f"infinity ({len(bad)} of {len(flags)} chunks do); remove or impute those rows, "
            "e.g. X[da.isfinite(X).all(axis=1)]."
        )


# ---------------------------------------------------------------- tasks on the workers
def _check_chunk(x, where) -> None:
    # O(chunk) next to the O(chunk M d) kernel block: cheap enough to do on every pass
    if not np.isfinite(x).all():
        raise ValueError(f"X chunk {where} contains NaN or infinity; remove or impute those "
                         "rows, e.g. X[da.isfinite(X).all(axis=1)].")


def _chunk_normal(x, u, where, Y, kernel, V, working_memory):
    # K_b^T (K_b V [+ U_b]) for one chunk
    _check_chunk(x, where)
    return KernelOperator(kernel, x, Y, working_memory=working_memory).normal_matmul(V, u)


def _chunk_t(x, u, where, Y, kernel, working_memory):
    # K_b^T U_b for one chunk
    _check_chunk(x, where)
    return KernelOperator(kernel, x, Y, working_memory=working_memory).t_matmul(u)


def _chunk_matmul(x, Y, kernel, V, working_memory, block_info=None):
    # (K V)_b = K_b V, checked for non-finite rows first
    if not np.isfinite(x).all():
        loc = block_info[0]["chunk-location"][0] if block_info else "?"
        raise ValueError(f"X chunk {loc} contains NaN or infinity.")
    return KernelOperator(kernel, x, Y, working_memory=working_memory) @ V


def _chunk_partials(x, u, Y, kernel, V, rows):
    # the chunk's per-block partials K_b^T (K_b V) or K_b^T U_b, stacked in block order,
    # each on one BLAS thread (as the in-memory operator with fixed blocks)
    slices = block_slices(x.shape[0], rows)

    def part(sl):  # strip by strip in cache where it can (as in memory)
        return block_partial(kernel, x[sl], Y, V, None if u is None else u[sl])

    threads = parallel_threads(x.shape[0] * Y.shape[0])
    return np.stack(list(map_blocks(part, slices, threads, pin_blas=True)))


def _chunk_grams(x, u, Y, kernel, rows):
    # the chunk's per-block (K_b^T K_b, K_b^T U_b) in block order, each on one BLAS thread
    # (as the in-memory operator's normal_gram)
    slices = block_slices(x.shape[0], rows)

    def part(sl):
        return block_gram(kernel, x[sl], Y, None if u is None else u[sl])

    return list(map_blocks(part, slices, parallel_threads(x.shape[0] * Y.shape[0]),
                           pin_blas=True))


def _sum_in_order(parts):
    out = np.array(parts[0], copy=True)
    for p in parts[1:]:
        out += p
    return out


class DaskKernelOperator(KernelOperator):
    """``K(X, Y)`` with the rows of X in a dask array on the workers of a cluster.

    Created by :class:`~kernelkit.linalg.KernelOperator` when X is a dask array (needs a
    running ``dask.distributed`` Client). ``normal_matmul`` and ``t_matmul`` return numpy
    arrays (reduced on the client); ``@`` returns a lazy dask array with X's row chunks.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dask.distributed import Client, LocalCluster
    >>> from kernelkit.linalg import KernelOperator
    >>> cluster = LocalCluster(n_workers=1, processes=False, dashboard_address=":0")
    >>> with cluster, Client(cluster):
    ...     X = np.random.default_rng(0).normal(size=(100, 2))
    ...     op = KernelOperator("rbf", da.from_array(X, chunks=(30, 2)), X[:5])
    ...     ref = KernelOperator("rbf", X, X[:5])
    ...     bool(np.allclose(op.normal_matmul(np.ones(5)), ref.normal_matmul(np.ones(5))))
    True
    """

    in_memory = False  # the rows stay on the workers

    def __init__(self, kernel, X, Y=None, working_memory: float | None = None, *,
                 block_rows: int | None = None, keep_blocks: bool = False):
        if Y is None:
            raise ValueError(
                "A KernelOperator over a dask X needs an in-memory Y (e.g. Nystrom "
                "centers); the n x n operator K(X, X) is not distributed."
            )
        if is_dask_array(Y):
            raise ValueError("Y must be an in-memory array (only the rows X may be dask).")
        self.client = get_running_client("KernelOperator")
        X = as_row_chunked(X, "X")
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D; got shape {X.shape}.")
        self.kernel = resolve_kernel(kernel, n_features=X.shape[1])
        self.Y = self.kernel.check_input(Y)
        if self.Y.shape[1] != X.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features but Y has {self.Y.shape[1]}.")
        self.symmetric = False
        self.working_memory = working_memory
        self.block_rows = None if block_rows is None else int(block_rows)
        self.keep_blocks = False  # the blocks live on the workers: formed on every pass
        self._kept = None
        self.X, self._futures, self.offsets = persist_rows(self.client, X)
        # a fresh key (by content, Y shared its key with the ndarray that a lazy ``op @ V``
        # graph embeds, and was lost when that computation released it), and a task that
        # holds the data: a worker killed mid-fit is recomputed from it (scattered data has no
        # lineage, and broadcasting it hung replicating to the dead worker)
        [self._Y_future] = recomputable(self.client, [self.Y])

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.X.shape[0]), len(self.Y))

    @property
    def block_dtype(self):
        return np.dtype(self.X.dtype)

    @property
    def n_chunks(self) -> int:
        return len(self._futures)

    def check_finite(self, name: str = "X") -> None:
        """Raise a ValueError naming the first chunk of X with NaN or infinity."""
        check_finite_chunks(self.client, self._futures, self.offsets, name)

    def row_parts(self, U, name: str = "U"):
        """``U`` (n rows, numpy or dask) split by X's row chunks, as futures or arrays
        (in the blocks' dtype with fixed blocks, as the in-memory operator)."""
        if U is None:
            return [None] * self.n_chunks
        dtype = self.block_dtype if self.fixed_blocks else self.dtype
        if is_dask_array(U):
            U = as_row_chunked(U, name, dtype=dtype, n_rows_chunks=self.X.chunks[0])
            return persist_rows(self.client, U)[1]
        U = np.asarray(U, dtype=dtype) if self.fixed_blocks else np.asarray(U)
        if U.shape[0] != self.shape[0]:
            raise ValueError(f"Operator has {self.shape[0]} rows but {name} has {U.shape[0]}.")
        # under fresh keys (arrays passed to map are keyed by their content, and the same
        # rows sent again while an earlier pass releases them got lost), recomputable
        return recomputable(self.client, [U[a:b] for a, b in zip(self.offsets[:-1],
                                                                 self.offsets[1:])])

    def _chunk_names(self) -> list[str]:
        """``"i (rows a to b)"`` for each row chunk (for error messages)."""
        o = self.offsets
        return [f"{i} (rows {o[i]} to {o[i + 1] - 1})" for i in range(self.n_chunks)]

    def blocks(self):
        raise NotImplementedError(
            "blocks() would bring K(X, Y) to the client; use the products (@, t_matmul, "
            "normal_matmul), which run on the workers."
        )

    def to_dense(self) -> np.ndarray:
        """The full matrix on the client (only when it fits in memory)."""
        return np.asarray(self.matmul(np.eye(self.shape[1], dtype=self.dtype)).compute())

    def diag(self):
        raise ValueError("diag() needs a square in-memory operator.")

    # --------------------------------------------------------------- products
    def _check_V(self, V):
        V = np.asarray(V, dtype=self.block_dtype) if self.fixed_blocks else np.asarray(V)
        if V.shape[0] != self.shape[1]:
            raise ValueError(f"Operator has {self.shape[1]} columns but V has {V.shape[0]} rows.")
        return V

    def _fixed_partials(self, V, parts) -> np.ndarray:
        futs = map_chunks(self.client, _chunk_partials, self._futures, parts, Y=self._Y_future,
                          kernel=self.kernel, V=V, rows=self.block_rows)
        out = None
        for chunk in self.client.gather(futs):  # chunk order, then block order
            out = sum_partials(chunk, out)
        return out

    def normal_gram(self, U=None) -> tuple:
        """``(K^T K, K^T U)`` as the in-memory operator's: per-block products on the workers,
        added on the client in chunk order, then block order (bit for bit the in-memory sum
        with chunks that are whole blocks, :func:`align_row_chunks`)."""
        if not self.fixed_blocks:
            raise ValueError("normal_gram needs fixed blocks (block_rows=...).")
        futs = map_chunks(self.client, _chunk_grams, self._futures, self.row_parts(U),
                          Y=self._Y_future, kernel=self.kernel, rows=self.block_rows)

        def parts():
            for i in range(len(futs)):  # one chunk's blocks at a time on the client
                fut, futs[i] = futs[i], None
                yield from fut.result()

        total = sum_partial_tuples(parts())
        return total[0], (total[1] if U is not None else None)

    def normal_matmul(self, V, U=None) -> np.ndarray:
        """``K^T (K V [+ U])``: one task per chunk on its worker, summed on the client."""
        V = self._check_V(V)
        if self.fixed_blocks:
            return self._fixed_partials(V, self.row_parts(U))
        futs = map_chunks(self.client, _chunk_normal, self._futures, self.row_parts(U),
                          self._chunk_names(), Y=self._Y_future, kernel=self.kernel, V=V,
                          working_memory=self.working_memory)
        return _sum_in_order(self.client.gather(futs))

    def t_matmul(self, U) -> np.ndarray:
        """``K^T U`` for U with n rows (numpy, or dask chunked like X), summed on the client."""
        if self.fixed_blocks:
            return self._fixed_partials(None, self.row_parts(U))
        futs = map_chunks(self.client, _chunk_t, self._futures, self.row_parts(U),
                          self._chunk_names(), Y=self._Y_future, kernel=self.kernel,
                          working_memory=self.working_memory)
        return _sum_in_order(self.client.gather(futs))

    def matmul(self, V):
        """``K V`` as a lazy dask array with X's row chunks."""
        V = np.asarray(V)
        if V.shape[0] != self.shape[1]:
            raise ValueError(f"Operator has {self.shape[1]} columns but V has {V.shape[0]} rows.")
        return predict_chunks(self.X, self.Y, self.kernel, V, self.working_memory)

    __matmul__ = matmul


def align_row_chunks(A, rows: int):
    """Rechunk the rows of ``A`` so that every chunk but the last is a multiple of ``rows``.

    The new chunk height is the typical (largest) chunk rounded to the nearest multiple of
    ``rows`` (at least ``rows``). Returns ``A`` unchanged when it is aligned already.
    """
    chunks = A.chunks[0]
    if all(c % rows == 0 for c in chunks[:-1]):
        return A
    height = max(rows, int(round(max(chunks) / rows)) * rows)
    return A.rechunk({0: height})


def predict_chunks(X, Y, kernel, V, working_memory=None):
    """Lazy ``K(X, Y) @ V`` for a row-chunked dask X (one task per chunk)."""
    dtype = np.result_type(X.dtype, V.dtype)
    if V.ndim == 1:
        return X.map_blocks(_chunk_matmul, Y, kernel, V, working_memory, dtype=dtype,
                            drop_axis=1)
    return X.map_blocks(_chunk_matmul, Y, kernel, V, working_memory, dtype=dtype,
                        chunks=(X.chunks[0], (V.shape[1],)))


@register_home
class DaskRows:
    """Rows in the chunks of a dask array persisted on the running Client's workers (the
    dask side of the data seam, :class:`~kernelkit.linalg.sources.RowSource`, and its row
    home: :func:`~kernelkit.linalg.as_rows` builds it for a dask X).

    Build it with :meth:`for_fit` (X and y validated, persisted and checked for NaN chunk
    by chunk) or :meth:`for_predict`. Targets beside the rows are dask arrays with X's row
    chunks: :meth:`gather` brings a small result of theirs to this process, :meth:`persist`
    keeps one on the workers.
    """

    in_memory = False
    holds = staticmethod(is_dask_array)
    operator_class = DaskKernelOperator

    def __init__(self, X):
        self.X = X

    @classmethod
    def for_fit(cls, X, y, work_dtype, what: str = "kernelkit"):
        """``(rows, y)`` from dask (or, for y, numpy) arrays: row-chunked in the working
        dtype ``work_dtype(X.dtype)``, persisted, non-finite chunks named."""
        client = get_running_client(what)
        if not is_dask_array(X):
            raise ValueError("When y is a dask array, X must be a dask array too.")
        if X.ndim != 2:
            raise ValueError(f"Expected a 2-D X (n_samples, n_features); got shape {X.shape}.")
        dtype = work_dtype(X.dtype)
        X = as_row_chunked(X, "X", dtype=dtype)
        n, d = X.shape
        if n == 0 or d == 0:
            raise ValueError(f"Found array with shape {X.shape}; at least one row and column "
                             "are required.")
        if np.ndim(y) not in (1, 2) or np.shape(y)[0] != n:
            raise ValueError(f"X has {n} rows but y has shape {np.shape(y)}; y must have "
                             "one row per row of X.")
        y = as_row_chunked(y, "y", dtype=dtype, n_rows_chunks=X.chunks[0])
        X, x_chunks, offsets = persist_rows(client, X)
        y, y_chunks, _ = persist_rows(client, y)
        check_finite_chunks(client, x_chunks, offsets, "X")
        check_finite_chunks(client, y_chunks, offsets, "y")
        return cls(X), y

    @classmethod
    def for_predict(cls, X, dtype=None, n_features: int | None = None,
                    what: str = "kernelkit"):
        """Rows of a dask X to predict on (on the current Client), in ``dtype`` (None:
        float32 stays, anything else becomes float64), with ``n_features`` columns when
        given."""
        get_running_client(what)  # dask X runs on the current Client
        X = as_row_chunked(X, "X", dtype=dtype)
        if X.ndim != 2 or (n_features is not None and X.shape[1] != n_features):
            raise ValueError(f"X has shape {X.shape} but {what} is expecting {n_features} "
                             "features.")
        return cls(X)

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.X.dtype)

    def take(self, indices) -> np.ndarray:
        return np.asarray(self.X[indices].compute())

    def row_blocks(self, rows: int):
        for chunk in self.X.to_delayed().ravel():  # chunk by chunk to this process
            x = np.asarray(chunk.compute())
            for sl in block_slices(x.shape[0], rows):
                yield x[sl]

    def kernel_operator(self, kernel, centers, block_rows: int,
                        keep_blocks: bool = False, index=None) -> DaskKernelOperator:
        # chunks made whole numbers of the in-memory row blocks, so that both compute the
        # same partial products and add them in the same order
        X = align_row_chunks(self.X, block_rows)
        return DaskKernelOperator(kernel, X, centers, block_rows=block_rows)

    def predict(self, kernel, centers, coef, working_memory: float | None = None,
                index=None):
        # lazy K(X, centers) coef with X's row chunks, computed on the workers
        return predict_chunks(self.X, centers, kernel, coef, working_memory)

    def map_rows(self, fn, width: int, *args):
        """Lazy ``fn(X_c, *args)`` chunk by chunk on the workers, (rows, width) each, stacked
        as a dask array with X's row chunks."""
        return self.X.map_blocks(fn, *args, dtype=np.float64,
                                 chunks=(self.X.chunks[0], (int(width),)))

    @staticmethod
    def gather(A) -> np.ndarray:
        """A small result of the rows' targets (a reduction over rows) in this process."""
        return np.asarray(A.compute())

    @staticmethod
    def persist(T):
        """Targets with X's row chunks, computed once and kept on the workers."""
        return get_running_client().persist(T)

    def reduce(self, fn, targets, rows: int, *args) -> list[np.ndarray]:
        """``sum_b fn(X_b, T_b, *args)``: each worker reduces the row blocks of its chunks
        of X and of ``targets`` (a dask array with X's row chunks); the client adds the
        chunks' partials in chunk order. X and the targets never leave the workers."""
        from distributed import get_client

        client = get_client()
        _, x_chunks, _ = persist_rows(client, self.X)  # (already persisted: no work)
        _, t_chunks, _ = persist_rows(client, targets)
        futures = map_chunks(client, _chunk_reduce, x_chunks, t_chunks, fn=fn, rows=rows,
                             args=args)
        return sum_partial_tuples(client.gather(futures))


def _chunk_reduce(x, t, fn, rows, args):
    return reduce_row_blocks(fn, np.asarray(x), np.asarray(t), rows, args)
