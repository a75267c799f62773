"""Kronecker products in the operator algebra (:mod:`kernelkit.linalg.algebra`).

``A (x) B`` for square ``A`` (p x p) and ``B`` (q x q) acts on vectors of length ``p q``
ordered with ``A``'s index outer: ``(A (x) B) vec X = vec(A X B^T)`` for X of shape (p, q),
row-major. With ``A = Q_A diag(w_A) Q_A^T`` and ``B = Q_B diag(w_B) Q_B^T``,

    A (x) B + c I = Q diag(w_A (x) w_B + c) Q^T,    Q = Q_A (x) Q_B,

so ``A (x) B + c I`` is solved and its log-determinant taken from the two factors'
eigendecompositions (O(p^3 + q^3), then O(p q (p + q)) a solve): :class:`KroneckerEigen`
(the multi-output GP on a complete grid).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import eigh

from .maps import LinearMap, _column

__all__ = ["Kronecker", "KroneckerEigen"]


def _kron_apply(A, B, V):
    """``(A (x) B) V``: ``vec(A (X B^T))`` for each column ``X`` of ``V``, by two GEMMs."""
    p, q = A.shape[1], B.shape[1]
    X = V.reshape(p, q, -1)
    k = X.shape[2]
    if k == 1:
        Y = X[:, :, 0] @ B.T  # X B^T
    else:  # B along the inner index of every column
        Y = (X.transpose(0, 2, 1).reshape(p * k, q) @ B.T).reshape(p, k, -1)
        Y = Y.transpose(0, 2, 1).reshape(p, -1)
    out = A @ Y  # A along the outer index
    return out.reshape((A.shape[0] * B.shape[0],) + V.shape[1:])


class Kronecker(LinearMap):
    """``A (x) B`` for square ``A`` (p x p) and ``B`` (q x q), on vectors of length ``p q``
    ordered with ``A``'s index outer: ``(A (x) B) vec X = vec(A X B^T)``, X of shape (p, q).
    """

    def __init__(self, A, B):
        self.A, self.B = np.asarray(A), np.asarray(B)
        p, q = self.A.shape[0], self.B.shape[0]
        self.shape, self.dtype = (p * q, p * q), np.result_type(self.A, self.B)

    def matmul(self, V):
        return _kron_apply(self.A, self.B, np.asarray(V))

    def t_matmul(self, V):  # (A (x) B)^T = A^T (x) B^T
        return _kron_apply(self.A.T, self.B.T, np.asarray(V))

    def solve(self, B):
        # (A (x) B)^-1 vec X = vec(A^-1 X B^-T): one solve with each factor
        B = np.asarray(B)
        p, q = self.A.shape[0], self.B.shape[0]
        X = np.linalg.solve(self.A, B.reshape(p, -1)).reshape(p, q, -1)
        X = np.linalg.solve(self.B, X.transpose(1, 0, 2).reshape(q, -1))
        return X.reshape(q, p, -1).transpose(1, 0, 2).reshape(B.shape)

    def eigh(self) -> KroneckerEigen:
        """``A (x) B`` in eigen form, from the two (symmetric) factors' eigendecompositions."""
        wa, Qa = eigh(self.A, check_finite=False)
        wb, Qb = eigh(self.B, check_finite=False)
        return KroneckerEigen(wa, Qa, wb, Qb)


class KroneckerEigen(LinearMap):
    """``Q diag(w_A (x) w_B + c) Q^T`` with ``Q = Q_A (x) Q_B``: ``A (x) B + c I`` given the
    factors' eigendecompositions (e.g. one kept from an earlier evaluation).

    ``map + c`` adds ``c`` to the shift; ``values`` are the eigenvalues as a (p, q) matrix
    (``vec`` order); ``Q`` is the Kronecker map of the eigenvectors.
    """

    symmetric = True

    def __init__(self, wa, Qa, wb, Qb, shift: float = 0.0):
        self.wa, self.Qa, self.wb, self.Qb = wa, Qa, wb, Qb
        self.shift = float(shift)
        self.Q = Kronecker(Qa, Qb)
        self.shape, self.dtype = self.Q.shape, self.Q.dtype
        # values[i, j]: the eigenvalue of Q_A[:, i] (x) Q_B[:, j]
        self.values = np.multiply.outer(wa, wb) + self.shift

    def __add__(self, other):
        if isinstance(other, numbers.Real):
            return KroneckerEigen(self.wa, self.Qa, self.wb, self.Qb, self.shift + float(other))
        return super().__add__(other)

    __radd__ = __add__

    def matmul(self, V):  # Q diag(w) Q^T V
        return self.Q.matmul(self.Q.t_matmul(V) * _column(self.values.ravel(), V))

    def solve(self, B):  # Q diag(w)^-1 Q^T B
        return self.Q.matmul(self.Q.t_matmul(B) / _column(self.values.ravel(), B))

    def logdet(self) -> float:
        """``log det = sum_ij log(w_A,i w_B,j + c)`` (the eigenvalues must be positive)."""
        return float(np.sum(np.log(self.values)))
