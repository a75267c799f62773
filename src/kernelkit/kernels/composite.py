"""The kernel algebra: ``k1 + k2`` (:class:`Sum`), ``k1 * k2`` (:class:`Product`),
``c * k`` (:class:`Scale`), and :class:`Constant`, the number inside the algebra.

The composites hold their parts and take values, diagonals and gradients from them.
"""

from __future__ import annotations

import numpy as np

from .._scratch import scratch_empty
from ._fast_paths import times_constant
from ._params import _as_float_array, _n_rows
from .kernel import ALGEBRA, Kernel, _float_dtype

__all__ = ["Sum", "Product", "Scale", "Constant"]


def _constant_factor(k1: Kernel, k2: Kernel):
    """``(constant, other)`` when one factor of a product is constant, else None."""
    if k1.is_constant:
        return k1, k2
    if k2.is_constant:
        return k2, k1
    return None



class _Binary(Kernel):
    """Shared plumbing of Sum and Product: hyperparameters of both children, prefixed."""

    def __init__(self, k1: Kernel, k2: Kernel):
        self.k1 = k1
        self.k2 = k2

    @property
    def hyperparameters(self):
        return [h._replace(name="k1__" + h.name) for h in self.k1.hyperparameters] + [
            h._replace(name="k2__" + h.name) for h in self.k2.hyperparameters
        ]

    def _check_input(self, X):
        return X if not self.requires_vector_input else _as_float_array(X)

    @property
    def requires_vector_input(self):
        return self.k1.requires_vector_input or self.k2.requires_vector_input

    @property
    def accepts_sparse(self):
        return self.k1.accepts_sparse and self.k2.accepts_sparse

    def is_stationary(self):
        return self.k1.is_stationary() and self.k2.is_stationary()


class Sum(_Binary):
    """``k1 + k2``: the sum of two PSD kernels is PSD (RKHS of the sum of feature maps)."""

    def __repr__(self):
        return f"{self.k1!r} + {self.k2!r}"

    def _compute(self, X, Y):
        return self._add(X, Y, None)

    def _add(self, X, Y, parts):
        # white noise is zero between different sets and diag(X) on one set: no n x n
        # matrix of its own either way
        for white, other in ((self.k2, self.k1), (self.k1, self.k2)):
            if white.adds_to_diagonal:
                K = other._compute(X, Y) if parts is None else other.matrix_parts(X, parts)
                if Y is None:
                    K[np.diag_indices_from(K)] += white.diag(X)
                return K
        if parts is None:
            K = self.k1._compute(X, Y)
            K += self.k2._compute(X, Y)
        else:
            K = self.k1.matrix_parts(X, parts)
            K += self.k2.matrix_parts(X, parts)
        return K

    def spectral_sample(self, n_features, size, random_state=None):
        # a sum's spectral measure is the sum of the parts': a mixture with weights v_i / v
        from sklearn.utils import check_random_state

        rng = check_random_state(random_state)
        v1 = self.k1.spectral_sample(n_features, 0, rng)[1]
        v2 = self.k2.spectral_sample(n_features, 0, rng)[1]
        n1 = int(rng.binomial(size, v1 / (v1 + v2))) if v1 + v2 > 0 else size
        W1, v1, e1 = self.k1.spectral_sample(n_features, n1, rng)
        W2, v2, e2 = self.k2.spectral_sample(n_features, size - n1, rng)
        return np.hstack([W1, W2]), v1 + v2, e1 + e2
    def matrix_parts(self, X, parts):
        return self._add(self._check_input(X), None, parts)

    def diag(self, X):
        return self.k1.diag(X) + self.k2.diag(X)

    def gradient(self, X, K=None):
        # d(K1 + K2)/dtheta = [dK1/dtheta1, dK2/dtheta2]
        yield from self.k1.gradient(X)
        yield from self.k2.gradient(X)

    def gradient_dot(self, X, W, K=None, parts=None):
        # sum W * d(K1 + K2)/dtheta = [sum W * dK1/dtheta1, sum W * dK2/dtheta2]
        return np.concatenate([self.k1.gradient_dot(X, W, parts=parts),
                               self.k2.gradient_dot(X, W, parts=parts)])

    def cross_gradient_dot(self, X, Y, W, K=None):
        # sum W * d(K1 + K2)(X, Y)/dtheta = [k1's contraction, k2's contraction]
        return np.concatenate([self.k1.cross_gradient_dot(X, Y, W),
                               self.k2.cross_gradient_dot(X, Y, W)])

    def diag_gradient_dot(self, X, w):
        return np.concatenate([self.k1.diag_gradient_dot(X, w), self.k2.diag_gradient_dot(X, w)])

    def input_gradient_dot(self, X, Y, W, K=None):
        # d(K1 + K2)/dy = dK1/dy + dK2/dy
        return self.k1.input_gradient_dot(X, Y, W) + self.k2.input_gradient_dot(X, Y, W)


class Product(_Binary):
    """``k1 * k2``: the (Schur) product of two PSD kernels is PSD."""

    def __repr__(self):
        return f"{self.k1!r} * {self.k2!r}"

    def tile_factors(self, X, Y=None):
        pair = _constant_factor(self.k1, self.k2)  # c * k: the tiles of k, scaled
        return None if pair is None else times_constant(pair[1].tile_factors(X, Y),
                                                        pair[0].value)

    def _compute(self, X, Y):
        pair = _constant_factor(self.k1, self.k2)
        if pair is not None:  # c * K2: scale instead of multiplying by a full matrix of c
            K = pair[1]._compute(X, Y)
            K *= pair[0].value
            return K
        K = self.k1._compute(X, Y)
        K *= self.k2._compute(X, Y)
        return K

    def spectral_sample(self, n_features, size, random_state=None):
        # the spectral density of a product is the convolution of the factors': w = w1 + w2;
        # (v1 c1 + e1 [x=y]) (v2 c2 + e2 [x=y]) = v1 v2 c1 c2 + (v1 e2 + e1 v2 + e1 e2) [x=y]
        from sklearn.utils import check_random_state

        rng = check_random_state(random_state)
        W1, v1, e1 = self.k1.spectral_sample(n_features, size, rng)
        W2, v2, e2 = self.k2.spectral_sample(n_features, size, rng)
        return W1 + W2, v1 * v2, v1 * e2 + e1 * v2 + e1 * e2

    def diag(self, X):
        return self.k1.diag(X) * self.k2.diag(X)

    def matrix_parts(self, X, parts):
        X = self._check_input(X)
        pair = _constant_factor(self.k1, self.k2)
        if pair is not None:  # c * K2: the gradient needs no factor matrix
            K = pair[1].matrix_parts(X, parts)
            K *= pair[0].value
            return K
        # each factor once per evaluation; gradient_dot reuses both
        K1 = self.k1.matrix_parts(X, parts)
        K2 = self.k2.matrix_parts(X, parts)
        parts[id(self)] = (K1, K2)
        return np.multiply(K1, K2, out=scratch_empty(K1.shape, np.result_type(K1, K2)))

    def gradient(self, X, K=None):
        # d(K1 K2) = dK1 * K2 + K1 * dK2 (elementwise)
        # each factor's matrix is built once and reused by the factor's own gradient
        need = self.k1.n_dims or self.k2.n_dims
        K1 = self.k1._compute(self.k1._check_input(X), None) if need else None
        K2 = self.k2._compute(self.k2._check_input(X), None) if need else None
        for dK in self.k1.gradient(X, K1):
            dK *= K2
            yield dK
        for dK in self.k2.gradient(X, K2):
            dK *= K1
            yield dK

    def gradient_dot(self, X, W, K=None, parts=None):
        if not self.n_dims:
            return np.empty(0)
        pair = _constant_factor(self.k1, self.k2)
        if pair is not None:
            const, other = pair
            # d(c Ko)/dlog c = c Ko ;  d(c Ko)/dtheta_o = c dKo/dtheta_o
            if const.n_dims:
                s, go = other._value_and_gradient_dot(X, W, parts=parts)
            else:
                s, go = 0.0, other.gradient_dot(X, W, parts=parts)
            gc = np.array([const.value * s] if const.n_dims else [])
            go = const.value * go
            return np.concatenate([gc, go] if const is self.k1 else [go, gc])
        # sum W * (dK1 * K2) = sum (W * K2) * dK1, and likewise for k2
        if parts is not None and id(self) in parts:
            K1, K2 = parts[id(self)]
        else:
            K1 = self.k1._compute(self.k1._check_input(X), None)
            K2 = self.k2._compute(self.k2._check_input(X), None)
        WK = scratch_empty(W.shape, np.result_type(W, K1, K2))  # W * K2, then W * K1
        g1, g2 = (k.gradient_dot(X, np.multiply(W, Ko, out=WK), Kk, parts=parts)
                  if k.n_dims else np.empty(0)
                  for k, Kk, Ko in ((self.k1, K1, K2), (self.k2, K2, K1)))
        return np.concatenate([g1, g2])

    def _factor_blocks(self, X, Y):
        X1, X2 = self.k1._check_input(X), self.k2._check_input(X)
        return (self.k1._compute(X1, self.k1._check_input(Y)),
                self.k2._compute(X2, self.k2._check_input(Y)))

    def cross_gradient_dot(self, X, Y, W, K=None):
        if not self.n_dims:
            return np.empty(0)
        pair = _constant_factor(self.k1, self.k2)
        if pair is not None:
            const, other = pair
            # d(c Ko)/dlog c = c Ko, d(c Ko)/dtheta_o = c dKo/dtheta_o; sums of W*Ko take W*K
            direct = K is not None and getattr(other, "_contracts_through_product", False)
            c, inner = (1.0, K) if direct else (const.value, None)
            if not direct and K is not None and c > 0:
                inner = np.divide(K, c, out=scratch_empty(K.shape))  # Ko = K / c reused
            s, go = other._value_and_cross_gradient_dot(X, Y, W, inner)
            gc = np.array([c * s] if const.n_dims else [])
            return np.concatenate([gc, c * go] if const is self.k1 else [c * go, gc])
        # sum W * (dK1 * K2) = sum (W * K2) * dK1, and likewise for k2
        K1, K2 = self._factor_blocks(X, Y)
        g1 = self.k1.cross_gradient_dot(X, Y, W * K2, K1) if self.k1.n_dims else np.empty(0)
        g2 = self.k2.cross_gradient_dot(X, Y, W * K1, K2) if self.k2.n_dims else np.empty(0)
        return np.concatenate([g1, g2])

    def diag_gradient_dot(self, X, w):
        # d(k1_ii k2_ii) = dk1_ii k2_ii + k1_ii dk2_ii
        w = np.asarray(w, dtype=float)
        return np.concatenate([self.k1.diag_gradient_dot(X, w * self.k2.diag(X)),
                               self.k2.diag_gradient_dot(X, w * self.k1.diag(X))])

    def input_gradient_dot(self, X, Y, W, K=None):
        # d(K1 * K2)/dy = dK1/dy * K2 + K1 * dK2/dy
        K1, K2 = self._factor_blocks(X, Y)
        return (self.k1.input_gradient_dot(X, Y, W * K2, K1)
                + self.k2.input_gradient_dot(X, Y, W * K1, K2))


class Constant(Kernel):
    """Constant kernel k(x, y) = value (a prior variance on a constant offset).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Constant
    >>> Constant(2.0)(np.zeros((2, 1)))
    array([[2., 2.],
           [2., 2.]])
    """

    _hyperparameters = ("value",)

    def __init__(self, value=1.0, value_bounds=(1e-5, 1e5)):
        self.value = value
        self.value_bounds = value_bounds

    def __repr__(self):
        return f"{np.sqrt(self.value):.3g}**2"  # a variance, printed as a squared scale

    def is_stationary(self):
        return True

    @property
    def is_constant(self) -> bool:
        return True

    @property
    def requires_vector_input(self):
        return False

    def _check_input(self, X):
        return X if not hasattr(X, "ndim") or X.ndim != 2 else _as_float_array(X)

    def _compute(self, X, Y):
        m = _n_rows(X) if Y is None else _n_rows(Y)
        dtype = getattr(X, "dtype", np.float64)
        dtype = dtype if dtype in (np.float32, np.float64) else np.float64
        return np.full((_n_rows(X), m), self.value, dtype=dtype)

    def diag(self, X):
        return np.full(_n_rows(X), self.value, dtype=_float_dtype(X))

    def _gradient(self, X, K, name):
        yield np.full((len(X), len(X)), self.value)

    def spectral_sample(self, n_features, size, random_state=None):
        """All frequencies zero: a constant function of variance ``value``."""
        return np.zeros((n_features, size)), float(self.value), 0.0

    def gradient_dot(self, X, W, K=None, parts=None):
        # dK/dlog c = c 11^T, so sum W * dK = c sum W
        return np.array([self.value * float(np.sum(W))] if self.n_dims else [])

    def cross_gradient_dot(self, X, Y, W, K=None):
        return self.gradient_dot(X, W)  # the same c sum W for any pair

    def diag_gradient_dot(self, X, w):
        # d k(x, x)/dlog c = c
        return np.array([self.value * float(np.sum(w))] if self.n_dims else [])

    def input_gradient_dot(self, X, Y, W, K=None):
        return np.zeros(np.shape(Y), dtype=np.float64)


class _Wrapper(Kernel):
    """A kernel made from one inner kernel ``self.kernel`` (a scale or a power of it): the
    inner kernel decides what inputs are accepted and whether the result is stationary."""

    def _check_input(self, X):
        return self.kernel._check_input(X)

    @property
    def requires_vector_input(self):
        return self.kernel.requires_vector_input

    @property
    def accepts_sparse(self):
        return self.kernel.accepts_sparse

    def is_stationary(self):
        return self.kernel.is_stationary()


class Scale(_Wrapper):
    """``scale * kernel`` with ``scale`` a (log-space) hyperparameter.

    Parameters
    ----------
    kernel : Kernel
    scale : float, default=1.0
    scale_bounds : pair of float or "fixed", default=(1e-5, 1e5)

    Examples
    --------
    >>> from kernelkit.kernels import RBF
    >>> k = 3.0 * RBF()
    >>> float(k.diag([[0.0]])[0])
    3.0
    """

    _hyperparameters = ("scale",)

    def __init__(self, kernel: Kernel, scale: float = 1.0, scale_bounds=(1e-5, 1e5)):
        self.kernel = kernel
        self.scale = scale
        self.scale_bounds = scale_bounds

    @property
    def hyperparameters(self):
        own = Kernel.hyperparameters.fget(self)
        return own + [h._replace(name="kernel__" + h.name) for h in self.kernel.hyperparameters]

    def __repr__(self):
        return f"{np.sqrt(self.scale):.3g}**2 * {self.kernel!r}"

    def tile_factors(self, X, Y=None):
        return times_constant(self.kernel.tile_factors(X, Y), self.scale)

    def _compute(self, X, Y):
        K = self.kernel._compute(X, Y)
        K *= self.scale
        return K

    def spectral_sample(self, n_features, size, random_state=None):
        W, v, e = self.kernel.spectral_sample(n_features, size, random_state)
        return W, self.scale * v, self.scale * e

    def diag(self, X):
        return self.scale * self.kernel.diag(self._check_input(X))

    def gradient(self, X, K=None):
        X = self._check_input(X)
        # d(c K)/dlog c = c K ;  d(c K)/dtheta_k = c dK/dtheta_k
        if K is None and self.n_dims:
            K = self._compute(X, None)
        if not self.hyperparameters[0].fixed:
            yield K.copy()
        # the inner kernel's matrix is K / c: reuse it instead of recomputing
        inner = K / self.scale if K is not None and self.scale > 0 else None
        for dK in self.kernel.gradient(X, inner):
            dK *= self.scale
            yield dK

    def gradient_dot(self, X, W, K=None, parts=None):
        if not self.n_dims:
            return np.empty(0)
        X = self._check_input(X)
        inner = K / self.scale if K is not None and self.scale > 0 else None
        # d(c Ki)/dlog c = c Ki ;  d(c Ki)/dtheta_k = c dKi/dtheta_k
        s, rest = self.kernel._value_and_gradient_dot(X, W, inner)
        own = [self.scale * s] if not self.hyperparameters[0].fixed else []
        return np.concatenate([np.array(own), self.scale * rest])

    def cross_gradient_dot(self, X, Y, W, K=None):
        if not self.n_dims:
            return np.empty(0)
        inner = K / self.scale if K is not None and self.scale > 0 else None
        # d(c Ki)/dlog c = c Ki ;  d(c Ki)/dtheta_k = c dKi/dtheta_k
        s, rest = self.kernel._value_and_cross_gradient_dot(X, Y, W, inner)
        own = [self.scale * s] if not self.hyperparameters[0].fixed else []
        return np.concatenate([np.array(own), self.scale * rest])

    def diag_gradient_dot(self, X, w):
        if not self.n_dims:
            return np.empty(0)
        w = np.asarray(w, dtype=float)
        own = ([self.scale * float(w @ self.kernel.diag(self._check_input(X)))]
               if not self.hyperparameters[0].fixed else [])
        return np.concatenate([np.array(own), self.scale * self.kernel.diag_gradient_dot(X, w)])

    def input_gradient_dot(self, X, Y, W, K=None):
        inner = K / self.scale if K is not None and self.scale > 0 else None
        return self.scale * self.kernel.input_gradient_dot(X, Y, W, inner)


ALGEBRA.update(sum=Sum, product=Product, scale=Scale, constant=Constant)
