"""The gradient contractions of a kernel, as one primitive the composites share.

Each contraction applies a linear map ``L_W`` to the derivatives of K, one result per free
hyperparameter (stacked over ``theta``), or to the derivatives in the rows of ``Y`` (summed):

========================  ===========================================  ==================
kind (Kernel method)      ``L_W(M)``                                   a factor's value
========================  ===========================================  ==================
``gradient``              ``W * M`` elementwise (``W`` = 1): matrices  ``K(X, X)``
``gradient_dot``          ``sum W * M`` (square, ``W`` symmetric)      ``K(X, X)``
``cross_gradient_dot``    ``sum W * M`` over the pair ``(X, Y)``       ``K(X, Y)``
``diag_gradient_dot``     ``sum w * diag(M)``                          ``diag K(X)``
``input_gradient_dot``    ``sum_i W_ij dM_ij / dy_j`` (summed parts)   ``K(X, Y)``
========================  ===========================================  ==================

``L_W`` is linear and acts elementwise on a factor's value, so the composites' rules are
the same for every kind, and ``composite.py`` writes each of them once (``_contract``):

- sum rule: ``L_W(d(k1 + k2)) = [L_W(dk1), L_W(dk2)]``;
- product rule: ``L_W(d(k1 k2)) = [L_{W k2}(dk1), L_{W k1}(dk2)]``: W weighed by the other
  factor's value;
- scale rule (``c = exp(theta_c)``, so ``dc/dtheta_c = c``):
  ``L_W(d(c k)) = [c L_W(k), c L_W(dk)]``;
- chain rule: ``L_W(d k^p) = L_{W p k^(p-1)}(dk)``.

A kind says only how a part contracts (its own public method), how a factor is evaluated,
how W is weighed by it, and how the parts' results are joined.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._core.scratch import scratch_empty

__all__ = ["Contraction", "GRADIENT", "SQUARE", "CROSS", "DIAG", "INPUT"]


class Contraction:
    """A kind of gradient contraction: a vector over ``theta`` (the parts' stacked)."""

    #: results are vectors over theta, stacked part after part (the input gradient is a
    #: matrix over the rows of Y, the parts' added)
    over_theta = True

    def of(self, k, X, Y, W, K, parts):  # pragma: no cover - abstract
        """The kernel ``k``'s own contraction of ``W`` (``K``: its value, if known)."""
        raise NotImplementedError

    def value_and(self, k, X, Y, W, K, parts):
        """``(L_W(K_k), L_W(dK_k))``: a scale's own entry needs the first."""
        if K is None:
            K = self.factor(k, X, Y)
        return float(np.sum(W * K)), self.of(k, X, Y, W, K, parts)

    def skips(self, k) -> bool:
        """Whether ``k``'s contraction is empty: a vector over theta with no free entry
        (asked before work that only a free entry needs; each kernel's own method returns
        its empty contraction at once)."""
        return self.over_theta and not k.n_dims

    def factor(self, k, X, Y):
        """The value of ``k`` this kind weighs by: ``K(X, Y)`` (``Y`` None: ``K(X, X)``)."""
        return k._compute(k._check_input(X), None if Y is None else k._check_input(Y))

    def factors(self, product, X, Y, parts):
        """The values of a product's two factors."""
        return self.factor(product.k1, X, Y), self.factor(product.k2, X, Y)

    def weigh(self, W, F, out=None):
        """``(W * F, buffer)``: W weighed by a factor's value (``out``: a buffer to reuse)."""
        return W * F, out

    def inner(self, k, K, c):
        """``(K_k, c)`` for ``K = c K_k``: the scaled kernel's value, if ``K`` is known."""
        return (K / c if K is not None and c > 0 else None), c

    def own(self, c, s):
        """A scale's own entry, ``c L_W(K_k)``."""
        return np.array([c * s])

    def scaled(self, c, g):
        """``c g``: a contraction of ``c dk``."""
        return c * g

    def join(self, a, b):
        """The contraction of a composite from its parts' (theta: ``[a, b]``)."""
        return np.concatenate([a, b])

    def empty(self):
        """The contraction of nothing."""
        return np.empty(0)


class _Gradient(Contraction):
    """``gradient``: the matrices ``dK/dtheta_j`` themselves, one at a time."""

    def of(self, k, X, Y, W, K, parts):
        return k.gradient(X, K) if W is None else _times(k.gradient(X, K), W)

    def value_and(self, k, X, Y, W, K, parts):
        if K is None:
            K = self.factor(k, X, Y)
        return (K if W is None else W * K), self.of(k, X, Y, W, K, parts)

    def weigh(self, W, F, out=None):
        return (F if W is None else W * F), out

    def own(self, c, s):
        return iter([c * s])

    def scaled(self, c, g):
        return _times(g, c)

    def join(self, a, b):
        return itertools.chain(a, b)

    def empty(self):
        return iter(())


def _times(matrices, F):
    """Yield each matrix multiplied in place by ``F`` (a matrix or a number)."""
    for dK in matrices:
        dK *= F
        yield dK


class _Square(Contraction):
    """``gradient_dot``: ``sum W * dK(X, X)/dtheta_j`` for a symmetric ``W``."""

    def of(self, k, X, Y, W, K, parts):
        return k.gradient_dot(X, W, K, parts=parts)

    def value_and(self, k, X, Y, W, K, parts):
        return k._value_and_gradient_dot(X, W, K, parts=parts)

    def factors(self, product, X, Y, parts):
        # recorded by the product's matrix_parts at the same hyperparameters, else computed
        if parts is not None and id(product) in parts:
            return parts[id(product)]
        return super().factors(product, X, Y, parts)

    def weigh(self, W, F, out=None):
        # into one scratch matrix: a part is contracted before the next weighs W again
        dtype = np.result_type(W, F)
        if out is None or out.dtype != dtype:
            out = scratch_empty(W.shape, dtype)
        return np.multiply(W, F, out=out), out


class _Cross(Contraction):
    """``cross_gradient_dot``: ``sum W * dK(X, Y)/dtheta_j`` for a rectangular pair."""

    def of(self, k, X, Y, W, K, parts):
        return k.cross_gradient_dot(X, Y, W, K)

    def value_and(self, k, X, Y, W, K, parts):
        return k._value_and_cross_gradient_dot(X, Y, W, K)

    def inner(self, k, K, c):
        if K is not None and k._contracts_through_product:
            return K, 1.0  # only W * K is read, and W * (c K_k) = c (W * K_k): no division
        if K is not None and c > 0:
            return np.divide(K, c, out=scratch_empty(K.shape)), c
        return None, c


class _Diag(Contraction):
    """``diag_gradient_dot``: ``sum_i w_i d k(x_i, x_i)/dtheta_j``."""

    def of(self, k, X, Y, W, K, parts):
        return k.diag_gradient_dot(X, W)

    def factor(self, k, X, Y):
        return k.diag(X)

    def inner(self, k, K, c):
        return None, c


class _Input(Contraction):
    """``input_gradient_dot``: ``sum_i W_ij d k(x_i, y_j)/dy_j``, shape ``(m, d)``."""

    over_theta = False  # a gradient in Y, which every part shares: parts are added

    def of(self, k, X, Y, W, K, parts):
        return k.input_gradient_dot(X, Y, W, K)

    def value_and(self, k, X, Y, W, K, parts):  # pragma: no cover - no own entry in Y
        raise AssertionError("a scale has no entry in the input gradient")

    def join(self, a, b):
        return b if a is None else a if b is None else a + b

    def empty(self):
        return None


GRADIENT, SQUARE, CROSS, DIAG, INPUT = _Gradient(), _Square(), _Cross(), _Diag(), _Input()
