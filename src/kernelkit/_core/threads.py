"""Threads, in one place: the BLAS thread count, a limit on it, and one worker pool.

Every subpackage that runs work on several Python threads or pins BLAS to one thread goes
through these (the blockwise products of :mod:`kernelkit.linalg.blocks`, KernelPCA's
tiled Gram matrix, the preconditioner's triangular solves, the ensembles' parallel fits,
the Gaussian processes' small fits on one thread: :func:`single_threaded`).

Examples
--------
>>> from kernelkit._core.threads import blas_threads, limit_blas, pool
>>> with limit_blas(1):
...     blas_threads()
1
>>> list(pool(2).map(abs, [-1, 2]))
[1, 2]
"""

from __future__ import annotations

import contextlib
import functools

__all__ = ["controller", "blas_threads", "limit_blas", "numba_threads", "pool",
           "single_threaded"]


@functools.lru_cache(maxsize=1)
def controller():
    """One ``threadpoolctl.ThreadpoolController`` for the process: creating one scans the
    loaded libraries (/proc/self/maps), about 3 ms, which per block pass added up."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads() -> int:
    """The number of BLAS threads currently allowed (1 if unknown)."""
    info = [lib["num_threads"] for lib in controller().info() if lib["user_api"] == "blas"]
    return max(1, min(info)) if info else 1


def limit_blas(limits: int = 1):
    """A context manager that allows at most ``limits`` BLAS threads inside it."""
    return controller().limit(limits=limits, user_api="blas")


@functools.lru_cache(maxsize=4)
def pool(n_threads: int):
    """A process-wide pool of ``n_threads`` workers (kept: starting threads for every pass
    cost ~2 ms each). Tasks must not themselves wait on this pool."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(n_threads, thread_name_prefix="kernelkit-blocks")


@contextlib.contextmanager
def numba_threads(n_threads: int):
    """At most ``n_threads`` numba threads inside, for the calling thread only (numba's
    count is thread-local, so that worker threads may each hold one; restored on exit).

    Examples
    --------
    >>> import numba
    >>> from kernelkit._core.threads import numba_threads
    >>> with numba_threads(1):
    ...     numba.get_num_threads()
    1
    """
    import numba

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(before, max(1, n_threads)))
        yield
    finally:
        numba.set_num_threads(before)


@contextlib.contextmanager
def single_threaded(small: bool = True):
    """One BLAS thread and one numba thread inside, when ``small`` (else no change).

    The rule for small problems whose work is a chain of short LAPACK / BLAS calls and
    numba loops (a GP's likelihood evaluations, SGPR's bound, the Laplace iterations):
    waking and synchronizing threads costs more than they save, badly so on a loaded
    machine. numba's thread count is thread-local; it is restored on exit.

    Examples
    --------
    >>> import numba
    >>> from kernelkit._core.threads import blas_threads, single_threaded
    >>> with single_threaded(True):
    ...     blas_threads(), numba.get_num_threads()
    (1, 1)
    """
    if not small:
        yield
        return
    with numba_threads(1), limit_blas(1):
        yield
