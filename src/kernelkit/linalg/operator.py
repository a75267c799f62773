"""KernelOperator: products with a kernel matrix computed in row blocks.

No block is larger than ``sklearn.get_config()["working_memory"]`` MiB, so ``K @ V`` for
n = 200,000 needs O(block) memory instead of an n x n matrix (Falkon's ``mmv``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np
import sklearn
from scipy.sparse.linalg import LinearOperator

from ..kernels import resolve_kernel

__all__ = ["KernelOperator", "block_rows"]

# products with fewer kernel entries than this run on the calling thread
PARALLEL_MIN_ENTRIES = 200_000


def _is_dask_array(X) -> bool:
    """Whether ``X`` is a dask array, without importing dask."""
    return type(X).__module__.startswith("dask.") and hasattr(X, "chunks") and hasattr(X, "dask")


@functools.lru_cache(maxsize=1)
def _controller():
    """One ThreadpoolController for the process: creating one scans the loaded libraries
    (/proc/self/maps), about 3 ms, which per block pass added up."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@functools.lru_cache(maxsize=4)
def _executor(n_threads: int):
    """A process-wide pool of ``n_threads`` block workers (kept: starting threads for
    every pass cost ~2 ms each). Tasks must not themselves wait on this pool."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(n_threads, thread_name_prefix="kernelkit-blocks")


def _blas_threads() -> int:
    """The number of BLAS threads currently allowed (1 if unknown)."""
    info = [lib["num_threads"] for lib in _controller().info() if lib["user_api"] == "blas"]
    return max(1, min(info)) if info else 1


def block_rows(n_cols: int, itemsize: int = 8, working_memory: float | None = None) -> int:
    """Rows per block so that a ``rows x n_cols`` block fits in working memory (MiB)."""
    wm = sklearn.get_config()["working_memory"] if working_memory is None else working_memory
    return max(1, int(wm * 2**20 // (itemsize * max(n_cols, 1))))


class KernelOperator:
    """The kernel matrix ``K(X, Y)`` as an operator; blocks are formed on demand.

    Parameters
    ----------
    kernel : Kernel or anything :func:`~kernelkit.kernels.resolve_kernel` accepts
    X : array of shape (n, d)
    Y : array of shape (m, d), optional
        Defaults to ``X`` (a symmetric operator whose diagonal is ``kernel.diag(X)``).
    working_memory : float, optional
        MiB per block; defaults to ``sklearn.get_config()["working_memory"]``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg import KernelOperator
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> op = KernelOperator(RBF(), X)
    >>> v = np.ones(500)
    >>> bool(np.allclose(op @ v, op.to_dense() @ v))
    True

    A dask array ``X`` (rows in chunks, with a running ``dask.distributed`` Client) gives
    an operator whose products run chunk by chunk on the workers and are reduced on the
    client (see :mod:`kernelkit.large_scale._dask`); ``Y`` then stays in memory.
    """

    __array_ufunc__ = None  # ``ndarray @ op`` defers to __rmatmul__

    def __new__(cls, kernel=None, X=None, Y=None, working_memory=None):
        if cls is KernelOperator and _is_dask_array(X):
            from ..large_scale._dask import DaskKernelOperator  # dask only when used

            return super().__new__(DaskKernelOperator)
        return super().__new__(cls)

    def __init__(self, kernel, X, Y=None, working_memory: float | None = None):
        self.kernel = resolve_kernel(kernel, n_features=np.shape(X)[1] if np.ndim(X) == 2 else None)
        self.X = self.kernel._check_input(X)
        self.symmetric = Y is None
        self.Y = self.X if Y is None else self.kernel._check_input(Y)
        if Y is not None:
            self.kernel._check_pair(self.X, self.Y)
        self.working_memory = working_memory

    # ---------------------------------------------------------------- basics
    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.X), len(self.Y))

    @property
    def dtype(self):
        return getattr(self.X, "dtype", np.dtype(np.float64))

    def _rows(self) -> int:
        return block_rows(self.shape[1], np.dtype(self.dtype).itemsize, self.working_memory)

    def _slices(self, min_blocks: int = 1) -> list[slice]:
        # with min_blocks blocks in flight at once (one per thread), each gets 1/min_blocks
        # of the working memory, so the blocks alive together still fit in it
        n, step = self.shape[0], self._rows()
        step = max(1, min(step // min_blocks, -(-n // min_blocks)))
        return [slice(start, min(start + step, n)) for start in range(0, n, step)]

    def _block(self, sl: slice, diag: np.ndarray | None) -> np.ndarray:
        """``K[sl, :]``; ``diag`` is ``kernel.diag(X)`` for a blocked symmetric operator."""
        if self.symmetric and sl.stop - sl.start == self.shape[0]:
            return self.kernel._compute(self.X, None)
        Kb = self.kernel._compute(self.X[sl], self.Y)
        if diag is not None:
            # diagonal of K(X, X) is kernel.diag (e.g. White noise), not K(x_i, x_i) cross
            idx = np.arange(sl.start, sl.stop)
            Kb[idx - sl.start, idx] = diag[sl]
        return Kb

    def _diag_for_blocks(self, slices) -> np.ndarray | None:
        return self.kernel.diag(self.X) if self.symmetric and len(slices) > 1 else None

    def blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(rows, K[rows, :])`` blocks, each within working memory."""
        slices = self._slices()
        diag = self._diag_for_blocks(slices)
        for sl in slices:
            Kb = self._block(sl, diag)
            yield sl, Kb
            del Kb  # free this block before the next one is formed

    def _map_blocks(self, fn) -> Iterator:
        """``fn(rows, K[rows, :])`` for every row block, yielded in block order.

        With several BLAS threads allowed (threadpoolctl / OMP_NUM_THREADS), blocks are
        formed and multiplied on that many Python threads with one BLAS thread each: one
        synchronization per block instead of one per BLAS panel (much faster on a busy
        machine), and numpy's single-threaded exp runs in parallel. Results are combined
        in block order, so sums do not depend on thread timing.
        """
        n, m = self.shape
        # small products: one block, no threads; otherwise at least one block per thread
        n_threads = _blas_threads() if n * m >= PARALLEL_MIN_ENTRIES and n > 1 else 1
        slices = self._slices(min_blocks=n_threads)
        diag = self._diag_for_blocks(slices)

        def task(sl):
            return fn(sl, self._block(sl, diag))

        n_threads = min(n_threads, len(slices))
        if n_threads <= 1:
            for sl in slices:
                yield task(sl)
            return
        with _controller().limit(limits=1, user_api="blas"):
            yield from _executor(n_threads).map(task, slices)

    def to_dense(self) -> np.ndarray:
        """The full matrix (only when it fits in memory)."""
        return self.kernel._compute(self.X, None if self.symmetric else self.Y)

    def diag(self) -> np.ndarray:
        """Diagonal of a square operator."""
        if not self.symmetric and self.shape[0] != self.shape[1]:
            raise ValueError("diag() needs a square operator.")
        if self.symmetric:
            return self.kernel.diag(self.X)
        # k(x_i, y_i) from the diagonals of 256 x 256 blocks K(X[b], Y[b]): O(256 n) work
        out = np.empty(self.shape[0], dtype=self.dtype)
        for start in range(0, self.shape[0], 256):
            sl = slice(start, start + 256)
            out[sl] = np.diagonal(self.kernel._compute(self.X[sl], self.Y[sl]))
        return out

    # --------------------------------------------------------------- products
    def matmul(self, V) -> np.ndarray:
        """``K @ V`` for V of shape (m,) or (m, k), blockwise over rows."""
        V = np.asarray(V)
        if V.shape[0] != self.shape[1]:
            raise ValueError(f"Operator has {self.shape[1]} columns but V has {V.shape[0]} rows.")
        out = np.empty((self.shape[0],) + V.shape[1:], dtype=np.result_type(self.dtype, V))
        for sl, part in self._map_blocks(lambda sl, Kb: (sl, Kb @ V)):
            out[sl] = part  # (K V)[rows] = K[rows, :] V
        return out

    __matmul__ = matmul

    def __rmatmul__(self, U) -> np.ndarray:
        """``U @ K`` for U of shape (n,) or (k, n): ``(K^T U^T)^T``, blockwise."""
        U = np.asarray(U)
        return self.t_matmul(U) if U.ndim == 1 else self.t_matmul(U.T).T

    def t_matmul(self, U) -> np.ndarray:
        """``K.T @ U`` for U of shape (n,) or (n, k), accumulated over row blocks."""
        U = np.asarray(U)
        if U.shape[0] != self.shape[0]:
            raise ValueError(f"Operator has {self.shape[0]} rows but U has {U.shape[0]} rows.")
        out = np.zeros((self.shape[1],) + U.shape[1:], dtype=np.result_type(self.dtype, U))
        for part in self._map_blocks(lambda sl, Kb: Kb.T @ U[sl]):
            out += part  # K^T U = sum_b K_b^T U_b
        return out

    def normal_matmul(self, V, U=None) -> np.ndarray:
        """``K.T @ (K @ V) [+ K.T @ U]`` in one pass over the row blocks."""
        V = np.asarray(V)
        out = np.zeros((self.shape[1],) + V.shape[1:], dtype=np.result_type(self.dtype, V))

        def part(sl, Kb):
            W = Kb @ V
            if U is not None:
                W += U[sl]
            return Kb.T @ W  # K_b^T (K_b V + U_b)

        for p in self._map_blocks(part):
            out += p
        return out

    @property
    def T(self) -> LinearOperator:
        """The transpose as a scipy LinearOperator (products via :meth:`t_matmul`)."""
        n, m = self.shape
        return LinearOperator((m, n), matvec=self.t_matmul, matmat=self.t_matmul,
                              rmatvec=self.matmul, dtype=self.dtype)

    # scipy's aslinearoperator (hence scipy.sparse.linalg.cg/minres/eigsh) reads these
    def matvec(self, v) -> np.ndarray:
        """``K @ v`` (scipy's LinearOperator protocol)."""
        return self.matmul(v)

    def rmatvec(self, u) -> np.ndarray:
        """``K.T @ u`` (scipy's LinearOperator protocol)."""
        return self.t_matmul(u)

    def as_linear_operator(self) -> LinearOperator:
        """A scipy ``LinearOperator`` view (for scipy's iterative solvers)."""
        return LinearOperator(self.shape, matvec=self.matmul, matmat=self.matmul,
                              rmatvec=self.t_matmul, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"KernelOperator({self.kernel!r}, shape={self.shape})"
