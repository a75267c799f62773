"""Leading eigenpairs of symmetric matrices: dense subset, randomized block Krylov, LOBPCG.

The randomized solver is a block Lanczos method with full reorthogonalization started
from a random block (randomized block Krylov, Musco & Musco 2015): ``q`` products with an
``n x b`` block give the Krylov space ``span[A Omega, A^2 Omega, ..., A^q Omega]`` whose
Rayleigh-Ritz pairs converge like ``exp(-q sqrt(gap))`` instead of the ``gap^q`` of plain
subspace (power) iteration. Each step reads ``A`` once (one GEMM with ``b`` columns), which
on a memory-bound dense matrix costs about as much as one matrix-vector product.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import lobpcg
from sklearn.utils import check_random_state

from .._core.threads import limit_blas
from ..exceptions import ConvergenceWarning

__all__ = ["top_eigh"]

_METHODS = ("auto", "dense", "randomized", "lobpcg", "arpack")
_SERIAL_DENSE_N = 1024  # dense problems up to this size run on one BLAS thread
_THIN_THREADS = 1  # BLAS threads of the thin n x m algebra of the block Krylov solver


def top_eigh(
    A,
    n_components: int,
    method: str = "auto",
    *,
    overwrite_a: bool = False,
    random_state=None,
    n_oversamples: int = 10,
    n_iter: int | None = 4,
    tol: float = 1e-10,
    max_iter: int | None = None,
    return_n_iter: bool = False,
):
    """The ``n_components`` largest eigenvalues (descending) and their eigenvectors.

    Parameters
    ----------
    A : ndarray of shape (n, n) or operator with ``@`` (randomized/lobpcg/arpack only)
        Symmetric matrix.
    n_components : int
    method : {"auto", "dense", "randomized", "lobpcg", "arpack"}
        "dense" computes only the requested subset (LAPACK ``syevr``), or every pair with
        the divide-and-conquer ``syevd`` when ``n_components == n``; "randomized" is the
        randomized block Krylov method (block Lanczos with full reorthogonalization and
        thick restarts, block size ``n_components + n_oversamples``); "lobpcg" is scipy's
        block solver started from a random block; "arpack" is scipy's ``eigsh``.
        "auto" uses "dense" unless ``n_components < n / 10`` and ``n > 2000``, then
        "randomized".
    overwrite_a : bool
        Let the dense solver destroy ``A``.
    random_state : int, RandomState or None
        Seed of the random start block.
    n_oversamples : int
        Extra columns of the randomized block.
    n_iter : int or None, default=4
        Randomized only: a fixed number of block Krylov steps (no convergence test). With
        ``None`` the iteration runs until every wanted Ritz pair has a residual
        ``||A v - theta v|| <= tol * |theta_1|`` (at most ``max_iter`` steps, then a
        :class:`~kernelkit.exceptions.ConvergenceWarning`).
    tol : float, default=1e-10
        Relative residual tolerance (randomized with ``n_iter=None``, lobpcg, arpack).
    max_iter : int, optional
        Iteration cap of the iterative solvers (default: randomized 200 block steps,
        lobpcg 200, arpack scipy's default).
    return_n_iter : bool, default=False
        Also return the number of iterations (block products for "randomized").

    Returns
    -------
    w : ndarray of shape (n_components,)
        Eigenvalues, largest first.
    V : ndarray of shape (n, n_components)
        Orthonormal eigenvectors, ``A @ V ~= V * w``.
    n_iter : int
        Only when ``return_n_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import top_eigh
    >>> w, V = top_eigh(np.diag([1.0, 3.0, 2.0]), 2)
    >>> w.tolist()
    [3.0, 2.0]
    """
    method = _choose_method(method, A.shape[0], n_components)
    if method == "dense":  # LAPACK returns ascending order: reversed views, no n x k copy
        w, V = _dense_subset(A, n_components, overwrite_a)
        w, V, iters = w[::-1], V[:, ::-1], 1
    else:
        if method == "randomized":
            w, V, iters = _block_krylov(A, n_components, n_oversamples, n_iter, tol,
                                        max_iter, random_state)
        elif method == "lobpcg":
            w, V, iters = _lobpcg(A, n_components, n_oversamples, tol, max_iter,
                                  random_state)
        else:
            w, V, iters = _arpack(A, n_components, tol, max_iter, random_state)
        order = np.argsort(w)[::-1]
        w, V = w[order], V[:, order]
    return (w, V, iters) if return_n_iter else (w, V)


def _choose_method(method: str, n: int, n_components: int) -> str:
    """Validate ``n_components`` and ``method``; resolve "auto"."""
    if not 1 <= n_components <= n:
        raise ValueError(f"n_components must be in [1, {n}]; got {n_components}.")
    if method not in _METHODS:
        raise ValueError(
            f"Unknown eigen_solver {method!r}; use 'auto', 'dense', 'randomized', 'lobpcg' "
            "or 'arpack'."
        )
    if method == "auto":
        return "randomized" if (n > 2000 and n_components < n / 10) else "dense"
    return method


def _dense_subset(A, n_components: int, overwrite_a: bool):
    """The top ``n_components`` pairs by LAPACK, in ascending order."""
    n = A.shape[0]
    if not isinstance(A, np.ndarray):
        # an operator (e.g. KernelOperator): the dense solver needs the matrix itself
        if not hasattr(A, "to_dense"):
            raise ValueError(
                "method='dense' needs an array or an operator with to_dense(); use "
                "'randomized', 'lobpcg' or 'arpack' for a product-only operator."
            )
        A, overwrite_a = np.asarray(A.to_dense()), True
    # small matrices on one BLAS thread: the reduction to tridiagonal form is mostly
    # BLAS-2, and below ~1000 rows thread synchronization costs more than it gains
    # (on a busy machine 10-50x more)
    threads = 1 if n <= _SERIAL_DENSE_N else None
    if overwrite_a and A.flags.c_contiguous and not A.flags.f_contiguous:
        A = A.T  # the same symmetric matrix in Fortran order: LAPACK overwrites, no copy
    with limit_blas(threads):
        if n_components == n:
            # every eigenpair: divide and conquer (syevd)
            return scipy.linalg.eigh(A, overwrite_a=overwrite_a, check_finite=False,
                                     driver="evd")
        # only the wanted subset: MRRR (syevr) with index range [n - k, n - 1]
        return scipy.linalg.eigh(
            A, subset_by_index=[n - n_components, n - 1], overwrite_a=overwrite_a,
            check_finite=False, driver="evr",
        )


def _orthonormalize(W, Q):
    """Columns of ``W`` made orthonormal and orthogonal to the orthonormal ``Q`` (CGS2)."""
    for _ in range(2):  # classical Gram-Schmidt twice is enough
        if Q is not None and Q.shape[1]:
            W -= Q @ (Q.T @ W)
        W = scipy.linalg.qr(W, mode="economic", check_finite=False)[0]
    return W


def _sym_matmul(A, Q):
    """``A @ Q`` for a symmetric ``A``.

    For a dense C- or F-ordered array this is computed as ``(Q^T A)^T`` (= ``A^T Q``): with a
    thin ``Q``, OpenBLAS runs the wide-output product about 1.7x faster than ``A @ Q``.
    """
    if isinstance(A, np.ndarray) and A.ndim == 2:
        if A.flags.c_contiguous:
            return (Q.T @ A).T
        if A.flags.f_contiguous:
            return (Q.T @ A.T).T
    return A @ Q


def _block_krylov(A, k, n_oversamples, n_iter, tol, max_iter, random_state):
    # Block Lanczos: Q = [Q_0, Q_1, ...] orthonormal with Q_{j+1} from A Q_j; the
    # Rayleigh quotient T = Q^T (A Q) gives Ritz pairs (theta, Q u). A Q is kept, so the
    # residuals A (Q u) - theta (Q u) = (A Q) u - theta Q u cost no extra product.
    # Only the products with A use every BLAS thread; the thin n x m algebra runs on one
    # (multithreaded tall-skinny QR is slower than serial, badly so on a busy machine).
    rng = check_random_state(random_state)
    n = A.shape[0]
    dtype = np.result_type(getattr(A, "dtype", np.float64), np.float32)
    b = min(n, k + n_oversamples)
    adaptive = n_iter is None
    steps = (200 if max_iter is None else max_iter) if adaptive else max(int(n_iter), 0) + 1
    max_basis = min(n, max(8 * b, 4 * k + 64))  # thick restart when the basis gets this wide
    # the basis Q and A Q live in two preallocated n x max_basis buffers (O(n k) memory)
    Qbuf = np.empty((n, max_basis), dtype=dtype, order="F")
    AQbuf = np.empty((n, max_basis), dtype=dtype, order="F")
    with limit_blas(1):
        Qbuf[:, :b] = _orthonormalize(rng.standard_normal((n, b)).astype(dtype), None)
    AQbuf[:, :b] = _sym_matmul(A, Qbuf[:, :b])
    Tbuf = np.empty((max_basis, max_basis), dtype=dtype)
    m, new, n_products, converged, t_m = b, b, 1, False, 0
    for step in range(steps):
        with limit_blas(_THIN_THREADS):
            Qa, AQa = Qbuf[:, :m], AQbuf[:, :m]
            last = step == steps - 1 or m >= n
            if adaptive or last:
                # T = Q^T A Q, only the columns of the blocks added since the last update
                Tbuf[:m, t_m:m] = Qa.T @ AQa[:, t_m:m]
                Tbuf[t_m:m, :t_m] = Tbuf[:t_m, t_m:m].T
                t_m = m
                T = Tbuf[:m, :m]
                T = (T + T.T) / 2
                theta, U = scipy.linalg.eigh(T, check_finite=False)
                theta, U = theta[::-1], U[:, ::-1]  # descending
                V = Qa @ U[:, :k]
                if m >= n:  # the basis spans everything: Rayleigh-Ritz is exact
                    converged = True
                    break
                if adaptive:
                    # ||A v_i - theta_i v_i|| <= tol |theta_1| for every wanted pair
                    R = AQa @ U[:, :k]
                    R -= V * theta[:k]
                    res = np.linalg.norm(R, axis=0)
                    if np.all(res <= tol * max(abs(theta[0]), np.finfo(dtype).tiny)):
                        converged = True
                        break
                if last:
                    break
                if m + b > max_basis:
                    # thick restart: keep Q U_b and A Q U_b = (A Q) U_b (no new product)
                    Qbuf[:, :b], AQbuf[:, :b] = Qa @ U[:, :b], AQa @ U[:, :b]
                    Tbuf[:b, :b] = U[:, :b].T @ T @ U[:, :b]  # = diag(theta_1..b)
                    m = new = t_m = b
                    Qa = Qbuf[:, :m]
            # next block: the newest A Q_j orthogonalized against the whole basis
            nb = min(b, n - m)
            W = np.array(AQbuf[:, m - new:m - new + nb], dtype=dtype, copy=True)
            Qbuf[:, m:m + nb] = _orthonormalize(W, Qa)
            del W
        AQbuf[:, m:m + nb] = _sym_matmul(A, Qbuf[:, m:m + nb])
        n_products += 1
        m, new = m + nb, nb
    if adaptive and not converged:
        warnings.warn(
            f"Randomized eigensolver did not reach tol={tol:g} in {steps} block steps; "
            "increase max_iter or tol, or use eigen_solver='dense'.",
            ConvergenceWarning, stacklevel=3,
        )
    return theta[:k], V, n_products


def _lobpcg(A, k, n_oversamples, tol, max_iter, random_state):
    # start from two randomized block Krylov steps; keep whichever of start and LOBPCG
    # result has the smaller residual (LOBPCG breaks down on low-rank matrices)
    w0, V0, iters = _block_krylov(A, k, n_oversamples, 2, tol, None, random_state)
    dtype = getattr(A, "dtype", np.float64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            w, V, hist = lobpcg(lambda v: A @ v, np.array(V0, dtype=dtype), largest=True,
                                tol=tol, maxiter=200 if max_iter is None else max_iter,
                                retResidualNormsHistory=True)
            iters += len(hist)
        except (np.linalg.LinAlgError, ValueError):  # pragma: no cover - scipy breakdown
            w, V = w0, V0
    w, V = np.asarray(w), np.asarray(V)

    def worst(w_, V_):
        return float(np.max(np.linalg.norm(A @ V_ - V_ * w_, axis=0)))

    if worst(w0, V0) < worst(w, V):
        w, V = w0, V0
    elif caught:
        msgs = [str(c.message) for c in caught if "tolerance" in str(c.message)]
        if msgs:
            warnings.warn(f"LOBPCG did not converge: {msgs[-1].strip()}", ConvergenceWarning,
                          stacklevel=3)
    return w, V, iters


def _arpack(A, k, tol, max_iter, random_state):
    from scipy.sparse.linalg import eigsh
    from sklearn.utils._arpack import _init_arpack_v0

    n = A.shape[0]
    v0 = _init_arpack_v0(n, random_state)
    if k >= n:  # ARPACK needs k < n
        w, V = scipy.linalg.eigh(np.asarray(A @ np.eye(n)), check_finite=False)
        return w[::-1][:k], V[:, ::-1][:, :k], 1
    w, V = eigsh(A, k, which="LA", tol=tol, maxiter=max_iter, v0=v0)
    return w, V, 0
