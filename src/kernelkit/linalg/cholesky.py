"""Cholesky factorization with adaptive jitter, in place, plus solves from the factor.

Rule (DESIGN, Numerics): try jitter 0, then 1e-10 * mean(diag) growing x10 up to
1e-4 * mean(diag); warn once naming the jitter; past that raise an error that says what
to change. In place means the caller's one n x n matrix becomes the factor.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit, prange
from scipy.linalg import get_blas_funcs, get_lapack_funcs, solve_triangular

from ..exceptions import JitterWarning, NumericalError

__all__ = ["jitter_cholesky", "cho_solve", "cho_inverse", "cho_logdet"]

# below this n the triangle copies run in NumPy: a first numba call in a process costs
# numba's start-up (about half a second) even with its machine code cached, more than the
# copy of a small matrix; above it, the parallel loops (no n x n temporary) win
NUMBA_MIN_N = 1000


def _triangle(A: np.ndarray, what: str) -> None:
    """In place: "zero" the strict upper triangle, "lower" copies the upper triangle into
    the lower one, "upper" the lower one into the upper one."""
    n = A.shape[0]
    if n >= NUMBA_MIN_N:
        {"zero": _zero_upper, "lower": _mirror_lower_from_upper,
         "upper": _mirror_upper_from_lower}[what](A)
        return
    _triangle_blocks(A, what)


def _triangle_blocks(A: np.ndarray, what: str) -> None:
    # [[A11, A12], [A21, A22]]: the off-diagonal block in one copy, the diagonal blocks
    # recursively, their last 64 rows one at a time (no n x n index or copy temporaries)
    n = A.shape[0]
    if n > 64:
        h = n // 2
        if what == "zero":
            A[:h, h:] = 0.0
        elif what == "lower":
            A[h:, :h] = A[:h, h:].T
        else:
            A[:h, h:] = A[h:, :h].T
        _triangle_blocks(A[:h, :h], what)
        _triangle_blocks(A[h:, h:], what)
        return
    for i in range(n - 1):
        if what == "zero":
            A[i, i + 1:] = 0.0
        elif what == "lower":
            A[i + 1:, i] = A[i, i + 1:]
        else:
            A[i, i + 1:] = A[i + 1:, i]


@njit(parallel=True, cache=True)
def _mirror_lower_from_upper(A):  # pragma: no cover - numba
    # restore A[i, j] (i > j) from the untouched A[j, i]
    n = A.shape[0]
    for i in prange(n):
        for j in range(i):
            A[i, j] = A[j, i]


@njit(parallel=True, cache=True)
def _zero_upper(A):  # pragma: no cover - numba
    n = A.shape[0]
    for i in prange(n):
        for j in range(i + 1, n):
            A[i, j] = 0.0


def jitter_cholesky(
    A: np.ndarray,
    *,
    overwrite_a: bool = False,
    clean: bool = True,
    what: str = "kernel matrix",
    hint: str = "increase alpha (the noise / regularization) or check the kernel",
    max_relative_jitter: float = 1e-4,
    min_pivot: float = 0.0,
    scale: float | None = None,
) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of a symmetric matrix, adding diagonal jitter if needed.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric positive (semi-)definite matrix; only its lower triangle and
        diagonal are read.
    overwrite_a : bool, default=False
        Factorize in place (``A`` becomes ``L``): one n x n matrix in memory.
    clean : bool, default=True
        Zero the strict upper triangle of the returned factor.
    what, hint : str
        Used in the warning / error message.
    max_relative_jitter : float, default=1e-4
        Largest jitter tried, relative to the mean diagonal.
    min_pivot : float, default=0.0
        A factorization whose smallest squared pivot ``min L_ii^2`` is at most
        ``min_pivot * mean(diag)`` counts as failed (jitter is tried next): a matrix that
        is singular up to rounding (duplicated inputs, no noise) can pass LAPACK with a
        pivot made of rounding error, and its solves are then meaningless. E.g.
        ``n * eps``; 0.0 accepts any factor LAPACK accepts.
    scale : float, optional
        The "mean diagonal" that the jitter ladder and ``min_pivot`` are relative to;
        default: A's own. A Schur complement (a factor extended by new points) passes the
        mean diagonal of the block it came from: its own is rounding error when the new
        points duplicate old ones.

    Returns
    -------
    L : ndarray of shape (n, n)
        Lower-triangular factor with ``L @ L.T = A + jitter * I``.
    jitter : float
        The jitter that was added (0.0 if none).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import jitter_cholesky
    >>> L, jitter = jitter_cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]))
    >>> L.round(3).tolist(), jitter
    ([[2.0, 0.0], [1.0, 1.414]], 0.0)
    """
    F = _lapack_view(A, overwrite_a, what)
    L, jitter, scale = _factor_with_jitter(F, what, hint, max_relative_jitter, min_pivot,
                                           scale)
    if jitter > 0:
        warnings.warn(
            f"The {what} was not numerically positive definite; added jitter "
            f"{jitter:.3g} ({jitter / scale:.0e} x mean diagonal) to its diagonal. "
            f"To avoid this, {hint}.",
            JitterWarning,
            stacklevel=2,
        )
    if clean:
        _triangle(L, "zero")
    return L, jitter


def _lapack_view(A, overwrite_a: bool, what: str) -> np.ndarray:
    """A validated, as the Fortran-ordered float matrix LAPACK factorizes (A itself, or its
    transpose, when ``overwrite_a`` allows it; else a copy)."""
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{what} must be square; got shape {A.shape}.")
    if np.iscomplexobj(A):
        raise ValueError(f"{what} must be real; got complex values.")
    if not np.all(np.isfinite(np.diagonal(A))):
        raise ValueError(f"{what} has non-finite entries on its diagonal.")
    if A.dtype not in (np.float32, np.float64):
        A = A.astype(np.float64)
        overwrite_a = True
    # work on a Fortran-ordered view (LAPACK's order); for C-ordered A this is A.T
    if A.flags.c_contiguous:
        return (A if overwrite_a else A.copy()).T
    return np.asfortranarray(A) if overwrite_a else np.array(A, order="F", copy=True)


def _factor_with_jitter(F, what, hint, max_relative_jitter, min_pivot, scale=None):
    """``(L, jitter, mean diagonal)``: potrf of F (in place) with the first jitter of the
    ladder 0, 1e-10, ..., ``max_relative_jitter`` (x mean diagonal) that factorizes."""
    n = F.shape[0]
    (potrf,) = get_lapack_funcs(("potrf",), (F,))
    d0 = np.diagonal(F).copy()
    if scale is None:
        scale = float(np.mean(d0)) if n else 1.0
    if scale <= 0 or not np.isfinite(scale):
        scale = 1.0
    jitters = [0.0] + [scale * 10.0**e for e in range(-10, 1)
                       if 10.0**e <= max_relative_jitter * (1 + 1e-12)]
    for k, jitter in enumerate(jitters):
        if k > 0:
            # restore the lower triangle from the untouched upper one, then add jitter
            _triangle(F, "lower")
            np.fill_diagonal(F, d0 + jitter)
        L, info = potrf(F, lower=1, overwrite_a=1, clean=0)
        if info == 0 and min_pivot > 0 and n and k < len(jitters) - 1 \
                and float(np.min(np.diagonal(L))) ** 2 <= min_pivot * scale:
            continue  # singular up to rounding: a pivot of rounding error, try jitter
        if info == 0 and n and not np.isfinite(np.diagonal(L)).all():
            # a NaN / inf below the diagonal reaches a later pivot (some LAPACKs accept it)
            raise NumericalError(
                f"The {what} has non-finite entries (NaN or inf): check the input data "
                "and the kernel hyperparameters."
            )
        if info == 0:
            return L, jitter, scale
        if info < 0:  # pragma: no cover - LAPACK argument error
            raise RuntimeError(f"LAPACK potrf argument error {info}.")
    raise NumericalError(
        f"The {what} is not positive definite even with jitter "
        f"{jitters[-1]:.3g} ({max_relative_jitter:.0e} x mean diagonal): {hint} "
        "(duplicate inputs with no noise, a non-PSD kernel, or a tiny alpha cause this)."
    )


def cho_solve(L: np.ndarray, B: np.ndarray, overwrite_b: bool = False) -> np.ndarray:
    """Solve ``(L L^T) X = B`` by two triangular solves."""
    Z = solve_triangular(L, B, lower=True, overwrite_b=overwrite_b, check_finite=False)
    return solve_triangular(L, Z, lower=True, trans="T", overwrite_b=True, check_finite=False)


def tril_inplace(A: np.ndarray) -> np.ndarray:
    """Zero the strict upper triangle of the square ``A`` in place (a factor computed with
    ``clean=False``, made a proper lower-triangular matrix once at the end); returns ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import tril_inplace
    >>> tril_inplace(np.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    _triangle(A, "zero")
    return A


def cho_logdet(L: np.ndarray) -> float:
    """``log det(L L^T) = 2 sum log L_ii``."""
    return 2.0 * float(np.sum(np.log(np.diagonal(L))))


def cho_inverse(L: np.ndarray, overwrite_l: bool = False, full: bool = True) -> np.ndarray:
    """``(L L^T)^-1`` from the factor, symmetric, without solving against I. Only the
    lower triangle of ``L`` is read. ``full=False`` skips mirroring: only the lower
    triangle of the (Fortran-ordered) result is then the inverse's, the rest is undefined.

    ``L^-1``, then ``L^-T L^-1`` (LAPACK lauum). On one BLAS thread up to n = 1024, L^-1 is
    formed by blocks (:func:`_invert_lower`: at n = 521 about 1.5 ms against trtri's
    3.2 ms); otherwise LAPACK potri does both, and its threads serve larger matrices better.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import cho_inverse
    >>> L = np.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]))
    >>> (cho_inverse(L) @ [[4.0, 2.0], [2.0, 3.0]]).round(12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    from .._core.threads import blas_threads

    F = np.array(L, order="F", copy=not overwrite_l)
    if F.dtype not in (np.float32, np.float64):
        F = F.astype(np.float64, order="F")
    if F.shape[0] == 0:
        return F
    if F.shape[0] <= BLOCKED_INVERSE_MAX_N and blas_threads() == 1:
        _invert_lower(F)
        (lauum,) = get_lapack_funcs(("lauum",), (F,))
        inv, info = lauum(F, lower=1, overwrite_c=1)  # L^-T L^-1, lower triangle
    else:
        (potri,) = get_lapack_funcs(("potri",), (F,))
        inv, info = potri(F, lower=1, overwrite_c=1)
    if info > 0:
        raise NumericalError(f"Inverse from the Cholesky factor failed (info={info}): the "
                             "factor is singular.")
    if info < 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"LAPACK argument error {info}.")
    if full:
        _triangle(inv, "upper")
    return inv


#: cho_inverse forms L^-1 by blocks up to this n when BLAS runs on one thread (one core:
#: 15 ms against potri's 22 ms at n = 1,044, 62 against 78-102 ms at n = 1,500)
BLOCKED_INVERSE_MAX_N = 2048
# below this size a diagonal block is inverted by LAPACK's trtri; above it by two halves
# and two triangular products (BLAS trmm): on one core at n = 521 trtri ran at 15 GFlop/s
# (GEMM: 76) and took 3.2 ms, the blocked inverse about 1.5 ms
_TRTRI_LEAF = 96


def _invert_lower(A: np.ndarray) -> None:
    """``A <- A^-1`` in place for a lower-triangular ``A`` (only the lower triangle is read
    or written): [[P, 0], [B, R]]^-1 = [[P^-1, 0], [-R^-1 B P^-1, R^-1]]."""
    n = A.shape[0]
    if n == 0:
        return
    if n <= _TRTRI_LEAF:
        (trtri,) = get_lapack_funcs(("trtri",), (A,))
        inv, info = trtri(A, lower=1)
        if info > 0:
            raise NumericalError(
                f"Inverse from the Cholesky factor failed: zero pivot {info} (the factor "
                "is singular).")
        if info < 0:  # pragma: no cover - LAPACK argument error
            raise RuntimeError(f"LAPACK trtri argument error {info}.")
        A[...] = inv
        return
    h = n // 2
    _invert_lower(A[:h, :h])
    _invert_lower(A[h:, h:])
    (trmm,) = get_blas_funcs(("trmm",), (A,))
    T = trmm(-1.0, A[:h, :h], A[h:, :h], side=1, lower=1)  # -B P^-1
    A[h:, :h] = trmm(1.0, A[h:, h:], T, side=0, lower=1, overwrite_b=1)  # -R^-1 B P^-1


@njit(parallel=True, cache=True)
def _mirror_upper_from_lower(A):  # pragma: no cover - numba
    n = A.shape[0]
    for i in prange(n):
        for j in range(i + 1, n):
            A[i, j] = A[j, i]
