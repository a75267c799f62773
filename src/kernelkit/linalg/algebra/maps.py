"""The linear maps of :mod:`kernelkit.linalg.algebra` (all but the Kronecker ones)."""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = ["LinearMap", "as_map", "Identity", "Diagonal", "Projection", "LowRankPlusIdentity",
           "Normal"]


def _column(v, V):
    """``v`` (a vector) broadcast over the trailing axes of ``V``."""
    return v.reshape((-1,) + (1,) * (np.ndim(V) - 1))


class LinearMap:
    """A linear map ``R^n -> R^m`` known by its product with vectors and matrices."""

    shape: tuple[int, int]
    dtype = np.dtype(np.float64)
    symmetric = False  # a symmetric map is its own transpose
    __array_ufunc__ = None  # ``array @ map`` and ``array + map`` come to the map's methods

    def matmul(self, V: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def t_matmul(self, V: np.ndarray) -> np.ndarray:
        """``A^T V``."""
        if self.symmetric:
            return self.matmul(V)
        raise NotImplementedError(f"{type(self).__name__} has no transpose product.")

    @property
    def T(self) -> LinearMap:
        return self if self.symmetric else _Transposed(self)

    def solve(self, B: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} has no solve.")

    def to_dense(self) -> np.ndarray:
        return self.matmul(np.eye(self.shape[1], dtype=self.dtype))

    def __matmul__(self, other):
        if isinstance(other, LinearMap):
            return _Product(self, other)
        return self.matmul(np.asarray(other))

    def __rmatmul__(self, other):
        return _Product(as_map(other), self)

    def __add__(self, other):
        if isinstance(other, numbers.Real):
            return _Sum(self, float(other) * Identity(self.shape[0]))
        return _Sum(self, as_map(other))

    __radd__ = __add__

    def __mul__(self, c):
        if not isinstance(c, numbers.Real):
            return NotImplemented
        return _Scaled(self, float(c))

    __rmul__ = __mul__


class _Transposed(LinearMap):
    def __init__(self, A: LinearMap):
        self.A, self.shape, self.dtype = A, A.shape[::-1], A.dtype

    def matmul(self, V):
        return self.A.t_matmul(V)

    def t_matmul(self, V):
        return self.A.matmul(V)

    @property
    def T(self):
        return self.A


class _Wrapped(LinearMap):
    def __init__(self, A):
        self.A, self.shape = A, tuple(A.shape)
        self.dtype = np.dtype(getattr(A, "dtype", np.float64))

    def matmul(self, V):
        return self.A @ V

    def t_matmul(self, V):
        t = getattr(self.A, "t_matmul", None)
        return t(V) if t is not None else self.A.T @ V

    def to_dense(self):
        dense = getattr(self.A, "to_dense", None)
        return dense() if dense is not None else np.asarray(self.A)


def as_map(A) -> LinearMap:
    """``A`` as a :class:`LinearMap`: itself if it is one, else a wrapper of its ``@``."""
    return A if isinstance(A, LinearMap) else _Wrapped(A)


class Identity(LinearMap):
    """``I_n``."""

    symmetric = True

    def __init__(self, n: int):
        self.shape = (int(n), int(n))

    def matmul(self, V):
        return np.array(V, copy=True)

    def solve(self, B):
        return np.array(B, copy=True)


class Diagonal(LinearMap):
    """``diag(s)``."""

    symmetric = True

    def __init__(self, s):
        self.s = np.asarray(s)
        self.shape, self.dtype = (len(self.s), len(self.s)), self.s.dtype

    def matmul(self, V):
        return V * _column(self.s, V)

    def solve(self, B):
        return B / _column(self.s, B)


class Projection(LinearMap):
    """``I - u u^T`` for a unit vector ``u``: the projection onto ``u``'s complement."""

    symmetric = True

    def __init__(self, u):
        self.u = np.asarray(u)
        self.shape, self.dtype = (len(self.u), len(self.u)), self.u.dtype

    def matmul(self, V):
        return V - np.multiply.outer(self.u, self.u @ V)


class _Product(LinearMap):
    def __init__(self, left: LinearMap, right: LinearMap):
        if left.shape[1] != right.shape[0]:
            raise ValueError(f"shapes {left.shape} and {right.shape} do not compose")
        self.left, self.right = left, right
        self.shape = (left.shape[0], right.shape[1])
        self.dtype = np.result_type(left.dtype, right.dtype)

    def matmul(self, V):
        return self.left.matmul(self.right.matmul(V))

    def t_matmul(self, V):  # (L R)^T V = R^T (L^T V)
        return self.right.t_matmul(self.left.t_matmul(V))

    def solve(self, B):  # (L R)^-1 = R^-1 L^-1
        return self.right.solve(self.left.solve(B))


class _Sum(LinearMap):
    def __init__(self, a: LinearMap, b: LinearMap):
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} do not add")
        self.a, self.b, self.shape = a, b, a.shape
        self.dtype = np.result_type(a.dtype, b.dtype)
        self.symmetric = a.symmetric and b.symmetric

    def matmul(self, V):
        return self.a.matmul(V) + self.b.matmul(V)

    def t_matmul(self, V):
        return self.a.t_matmul(V) + self.b.t_matmul(V)

    def solve(self, B):
        # A + c I with A's eigendecomposition (a Kronecker product): Q (Lam + c)^-1 Q^T B
        shift = _shift_of(self.b)
        eig = getattr(self.a, "eigh", None)
        if shift is None or eig is None:
            raise NotImplementedError("solve of a sum needs an eigendecomposed map + c I.")
        return (eig() + shift).solve(B)


class _Scaled(LinearMap):
    def __init__(self, A: LinearMap, c: float):
        self.A, self.c, self.shape, self.dtype = A, c, A.shape, A.dtype
        self.symmetric = A.symmetric

    def matmul(self, V):
        return self.c * self.A.matmul(V)

    def t_matmul(self, V):
        return self.c * self.A.t_matmul(V)

    def solve(self, B):
        return self.A.solve(B) / self.c


def _shift_of(M: LinearMap) -> float | None:
    """``c`` when ``M`` is ``c I``, else None."""
    if isinstance(M, Identity):
        return 1.0
    if isinstance(M, _Scaled) and isinstance(M.A, Identity):
        return M.c
    return None


class LowRankPlusIdentity(LinearMap):
    """``U U^T + a I`` (U: n x m, a > 0), solved in O(n m) a column after an O(n m^2) set-up
    (or given ``factor``, a lower Cholesky factor of ``a I_m + U^T U``).

    Woodbury: ``(a I + U U^T)^-1 R = (R - U (a I_m + U^T U)^-1 U^T R) / a``.
    """

    symmetric = True

    def __init__(self, U, a: float, factor=None):
        self.U, self.a = np.asarray(U), float(a)
        if not self.a > 0:
            raise ValueError(f"a must be positive for the Woodbury solve; got {a!r}.")
        self.shape, self.dtype = (self.U.shape[0],) * 2, self.U.dtype
        if factor is None:  # the lower Cholesky factor of a I_m + U^T U
            G = self.U.T @ self.U
            G[np.diag_indices_from(G)] += self.a
            factor = cho_factor(G, lower=True, check_finite=False)[0]
        self._factor = (factor, True)

    def matmul(self, V):
        return self.U @ (self.U.T @ V) + self.a * V

    def solve(self, B):
        return (B - self.U @ cho_solve(self._factor, self.U.T @ B, check_finite=False)) / self.a


class Normal(LinearMap):
    """``A^T A`` for ``A`` of shape (m, n): ``A.normal_matmul(V)`` where ``A`` has it (a
    :class:`~kernelkit.linalg.KernelOperator`: one pass over its row blocks, never holding
    ``A``), else ``A^T (A V)``."""

    symmetric = True

    def __init__(self, A):
        self.A = A
        self.shape = (A.shape[1], A.shape[1])
        self.dtype = np.dtype(getattr(A, "dtype", np.float64))

    def matmul(self, V):
        normal = getattr(self.A, "normal_matmul", None)
        if normal is not None:
            return normal(V)
        A = as_map(self.A)
        return A.t_matmul(A.matmul(V))  # A^T (A V)
