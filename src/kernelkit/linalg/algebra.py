"""A small algebra of linear maps: the systems the solvers build, written as they are in the
notes instead of as closures.

Every map has ``shape``, ``dtype``, ``matmul(V)`` (also ``A @ V`` for an array ``V``) and
``to_dense()``; ``solve(B)`` where a closed form exists. Maps compose with ``@`` (a
product, applied right to left), add with ``+`` (a number ``a`` added is ``a I``) and scale
with a number ``*``:

- :func:`as_map` wraps an array, a :class:`~kernelkit.linalg.KernelOperator` or anything
  with ``@`` and ``shape``;
- :class:`Diagonal` ``diag(s)`` (solve: ``B / s``);
- :class:`Projection` ``I - u u^T`` for a unit vector ``u`` (the centering of kernel ridge's
  unpenalized offset: ``P K P``);
- :class:`LowRankPlusIdentity` ``U U^T + a I``, solved by the Woodbury identity
  ``(a I + U U^T)^-1 = (I - U (a I + U^T U)^-1 U^T) / a`` (Nystrom preconditioners);
- :class:`Kronecker` ``A (x) B`` on ``vec`` of a matrix with ``A``'s index outer
  (``(A (x) B) vec X = vec(A X B^T)`` for X of shape (A's n, B's n), row-major), with
  ``eigh()`` from the factors' eigendecompositions and ``solve`` of ``A (x) B + a I`` by
  them (the multi-output GP on a complete grid).

Examples
--------
>>> import numpy as np
>>> from kernelkit.linalg.algebra import Diagonal, Projection, as_map
>>> rng = np.random.default_rng(0)
>>> K = rng.normal(size=(5, 5)); K = K @ K.T
>>> s, u = rng.uniform(1, 2, 5), np.ones(5) / np.sqrt(5)
>>> P, S = Projection(u), Diagonal(s)
>>> A = P @ S @ as_map(K) @ S @ P + 0.5  # the system P S K S P + a I of KernelRidge
>>> dense = (np.eye(5) - np.outer(u, u)) @ np.diag(s)
>>> bool(np.allclose(A.to_dense(), dense @ K @ dense.T + 0.5 * np.eye(5)))
True
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import cho_factor, cho_solve, eigh

__all__ = ["LinearMap", "as_map", "Identity", "Diagonal", "Projection", "LowRankPlusIdentity",
           "Kronecker"]


def _column(v, V):
    """``v`` (a vector) broadcast over the trailing axes of ``V``."""
    return v.reshape((-1,) + (1,) * (np.ndim(V) - 1))


class LinearMap:
    """A linear map ``R^n -> R^m`` known by its product with vectors and matrices."""

    shape: tuple[int, int]
    dtype = np.dtype(np.float64)
    __array_ufunc__ = None  # ``array @ map`` and ``array + map`` come to the map's methods

    def matmul(self, V: np.ndarray) -> np.ndarray:
        raise NotImplementedError

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


class _Wrapped(LinearMap):
    def __init__(self, A):
        self.A, self.shape = A, tuple(A.shape)
        self.dtype = np.dtype(getattr(A, "dtype", np.float64))

    def matmul(self, V):
        return self.A @ V

    def to_dense(self):
        dense = getattr(self.A, "to_dense", None)
        return dense() if dense is not None else np.asarray(self.A)


def as_map(A) -> LinearMap:
    """``A`` as a :class:`LinearMap`: itself if it is one, else a wrapper of its ``@``."""
    return A if isinstance(A, LinearMap) else _Wrapped(A)


class Identity(LinearMap):
    """``I_n``."""

    def __init__(self, n: int):
        self.shape = (int(n), int(n))

    def matmul(self, V):
        return np.array(V, copy=True)

    def solve(self, B):
        return np.array(B, copy=True)


class Diagonal(LinearMap):
    """``diag(s)``."""

    def __init__(self, s):
        self.s = np.asarray(s)
        self.shape, self.dtype = (len(self.s), len(self.s)), self.s.dtype

    def matmul(self, V):
        return V * _column(self.s, V)

    def solve(self, B):
        return B / _column(self.s, B)


class Projection(LinearMap):
    """``I - u u^T`` for a unit vector ``u``: the projection onto ``u``'s complement."""

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

    def solve(self, B):  # (L R)^-1 = R^-1 L^-1
        return self.right.solve(self.left.solve(B))


class _Sum(LinearMap):
    def __init__(self, a: LinearMap, b: LinearMap):
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} do not add")
        self.a, self.b, self.shape = a, b, a.shape
        self.dtype = np.result_type(a.dtype, b.dtype)

    def matmul(self, V):
        return self.a.matmul(V) + self.b.matmul(V)

    def solve(self, B):
        # A + c I with A's eigendecomposition (a Kronecker product): Q (Lam + c)^-1 Q^T B
        shift = _shift_of(self.b)
        eig = getattr(self.a, "eigh", None)
        if shift is None or eig is None:
            raise NotImplementedError("solve of a sum needs an eigendecomposed map + c I.")
        w, Q = eig()
        return Q.matmul(Q.t_matmul(B) / _column(w + shift, B))


class _Scaled(LinearMap):
    def __init__(self, A: LinearMap, c: float):
        self.A, self.c, self.shape, self.dtype = A, c, A.shape, A.dtype

    def matmul(self, V):
        return self.c * self.A.matmul(V)

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


class Kronecker(LinearMap):
    """``A (x) B`` for square ``A`` (p x p) and ``B`` (q x q), on vectors of length ``p q``
    ordered with ``A``'s index outer: ``(A (x) B) vec X = vec(A X B^T)``, X of shape (p, q).
    """

    def __init__(self, A, B):
        self.A, self.B = np.asarray(A), np.asarray(B)
        p, q = self.A.shape[0], self.B.shape[0]
        self.shape, self.dtype = (p * q, p * q), np.result_type(self.A, self.B)

    def _apply(self, A, B, V):
        p, q = A.shape[1], B.shape[1]
        k = V.shape[1:] if V.ndim > 1 else ()
        X = V.reshape((p, q, -1))
        out = np.einsum("ia,abk,jb->ijk", A, X, B, optimize=True)
        return out.reshape((A.shape[0] * B.shape[0],) + k)

    def matmul(self, V):
        return self._apply(self.A, self.B, np.asarray(V))

    def t_matmul(self, V):
        return self._apply(self.A.T, self.B.T, np.asarray(V))

    def solve(self, B):
        # (A (x) B)^-1 vec X = vec(A^-1 X B^-T): one solve with each factor
        B = np.asarray(B)
        p, q = self.A.shape[0], self.B.shape[0]
        X = np.linalg.solve(self.A, B.reshape(p, -1)).reshape(p, q, -1)
        X = np.linalg.solve(self.B, X.transpose(1, 0, 2).reshape(q, -1))
        return X.reshape(q, p, -1).transpose(1, 0, 2).reshape(B.shape)

    def eigh(self):
        """``(w, Q)``: ``A (x) B = Q diag(w) Q^T`` with ``Q = Q_A (x) Q_B`` (a Kronecker map)
        and ``w = w_A (x) w_B``, from the two factors' eigendecompositions."""
        wa, Qa = eigh(self.A, check_finite=False)
        wb, Qb = eigh(self.B, check_finite=False)
        return np.multiply.outer(wa, wb).ravel(), Kronecker(Qa, Qb)
