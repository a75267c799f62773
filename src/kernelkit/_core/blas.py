"""The one matrix product every layer shares: ``X @ Y.T`` through SciPy's BLAS.

The GEMM goes through SciPy's BLAS, the library that the Cholesky factorizations and
triangular solves use. NumPy bundles its own OpenBLAS, whose worker threads keep spinning
for a while after a call; a ``numpy`` matmul right before a LAPACK call made that call up
to 2x slower on 2 cores while the two thread pools fought over them.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import get_blas_funcs

__all__ = ["gram", "matmul", "matvec", "symv"]


def gram(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """Plain inner products ``X @ Y.T`` (one GEMM, C-contiguous output).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit._core.blas import gram
    >>> gram(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[11.]])
    """
    Y = X if Y is None else Y
    dtype = np.result_type(X, Y)
    if dtype not in (np.float32, np.float64) or X.size == 0 or Y.size == 0:
        return np.ascontiguousarray(X @ Y.T)
    X = np.ascontiguousarray(X, dtype=dtype)
    Y = np.ascontiguousarray(Y, dtype=dtype)
    (gemm,) = get_blas_funcs(("gemm",), (X,))
    # (X Y^T) in C order is (Y X^T) in Fortran order: Y = (Y^T)^T with Y^T Fortran-ordered
    return gemm(1.0, Y.T, X.T, trans_a=1).T


def matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` for a 2-D ``A`` (one GEMM, or GEMV for a vector ``B``, in SciPy's BLAS).

    C- or Fortran-ordered operands are passed without a copy (a C-ordered matrix is the
    transpose of a Fortran-ordered one); the result of a GEMM is Fortran-ordered. Used right
    after LAPACK calls (triangular solves, Cholesky factors), where a NumPy matmul's own
    BLAS threads fought SciPy's: 50x slower on 2 cores for a 100 x 10,000 x 100 product.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit._core.blas import matmul
    >>> matmul(np.array([[1.0, 2.0], [3.0, 4.0]]), np.eye(2)).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if B.ndim == 1:
        return matvec(A, B)
    if not (_blas_ready(A, B) and B.size > 0 and (B.flags.c_contiguous or B.flags.f_contiguous)):
        return A @ B
    (gemm,) = get_blas_funcs(("gemm",), (A,))
    a, ta = (A, 0) if A.flags.f_contiguous else (A.T, 1)
    b, tb = (B, 0) if B.flags.f_contiguous else (B.T, 1)
    return gemm(1.0, a, b, trans_a=ta, trans_b=tb)


def _blas_ready(A: np.ndarray, x: np.ndarray) -> bool:
    return A.dtype in (np.float32, np.float64) and x.dtype == A.dtype and A.size > 0 and (
        A.flags.c_contiguous or A.flags.f_contiguous)


def matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A @ x`` for a 2-D ``A`` and a vector ``x`` (one GEMV in SciPy's BLAS).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit._core.blas import matvec
    >>> matvec(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
    array([3., 7.])
    """
    if not _blas_ready(A, x):
        return A @ x
    (gemv,) = get_blas_funcs(("gemv",), (A,))
    # a C-ordered A is the transpose of the Fortran-ordered A.T: no copy either way
    return gemv(1.0, A.T, x, trans=1) if A.flags.c_contiguous else gemv(1.0, A, x)


def symv(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A @ x`` for a symmetric ``A`` (one SYMV in SciPy's BLAS: it reads one triangle).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit._core.blas import symv
    >>> symv(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([1.0, 0.0]))
    array([2., 1.])
    """
    if not _blas_ready(A, x):
        return A @ x
    (sym,) = get_blas_funcs(("symv",), (A,))
    # symmetric: A.T (Fortran-ordered when A is C-ordered) is A
    return sym(1.0, A.T if A.flags.c_contiguous else A, x, lower=1)
