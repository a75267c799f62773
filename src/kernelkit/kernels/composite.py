"""The kernel algebra: ``k1 + k2`` (:class:`Sum`), ``k1 * k2`` (:class:`Product`),
``c * k`` (:class:`Scale`), and :class:`Constant`, the number inside the algebra.

A composite takes its values, diagonal and fast paths from its parts, and its gradient
contractions (``gradient``, ``gradient_dot``, ``cross_gradient_dot``, ``diag_gradient_dot``,
``input_gradient_dot``) from one rule, :meth:`_Composite._contract`, written once for the
five kinds of :mod:`._contractions`: the sum rule (:class:`Sum`), the product rule
(:class:`Product`) and the scale rule (:class:`Scale`, and a product with a constant factor).
"""

from __future__ import annotations

import numpy as np

from .._core.scratch import scratch_empty
from ._contractions import CROSS, DIAG, GRADIENT, INPUT, SQUARE, Contraction
from ._params import _as_float_array, _n_rows
from .kernel import ALGEBRA, Kernel, TileFactors, _float_dtype

__all__ = ["Sum", "Product", "Scale", "Constant"]


class _Composite(Kernel):
    """A kernel made of kernels: each gradient contraction is its rule, :meth:`_contract`,
    applied to the contraction's kind (see :mod:`kernelkit.kernels._contractions`)."""

    def _contract(self, kind: Contraction, X, Y, W, K=None, parts=None):  # pragma: no cover
        """``L_W(dK)`` from the parts' contractions (``K``: this kernel's value, if known;
        ``parts``: what :meth:`matrix_parts` recorded)."""
        raise NotImplementedError

    def _contract_free(self, kind: Contraction, X, Y, W, K=None, parts=None):
        return kind.empty() if kind.skips(self) else self._contract(kind, X, Y, W, K, parts)

    def gradient(self, X, K=None):
        return self._contract_free(GRADIENT, X, None, None, K)

    def gradient_dot(self, X, W, K=None, parts=None):
        return self._contract_free(SQUARE, X, None, W, K, parts)

    def cross_gradient_dot(self, X, Y, W, K=None):
        return self._contract_free(CROSS, X, Y, W, K)

    def diag_gradient_dot(self, X, w):
        return self._contract_free(DIAG, X, None, np.asarray(w, dtype=float))

    def input_gradient_dot(self, X, Y, W, K=None):
        return self._contract_free(INPUT, X, Y, W, K)


def _sum_rule(kind: Contraction, k1, k2, X, Y, W, parts):
    # L_W(d(k1 + k2)) = [L_W(dk1), L_W(dk2)]: each part contracts W itself
    return kind.join(kind.of(k1, X, Y, W, None, parts), kind.of(k2, X, Y, W, None, parts))


def _product_rule(kind: Contraction, k1, k2, K1, K2, X, Y, W, parts):
    # d(k1 k2) = dk1 k2 + k1 dk2 (elementwise), so L_W(d(k1 k2)) = [L_{W k2}(dk1),
    # L_{W k1}(dk2)]: each factor contracts W weighed by the other's value
    out, g = None, []
    for k, Kk, Ko in ((k1, K1, K2), (k2, K2, K1)):
        if kind.skips(k):  # no weighing for a factor without free hyperparameters
            g.append(kind.empty())
            continue
        Wk, out = kind.weigh(W, Ko, out)
        g.append(kind.of(k, X, Y, Wk, Kk, parts))
    return kind.join(*g)


def _scale_rule(kind: Contraction, c: float, free: bool, first: bool, k, X, Y, W, K, parts):
    # d(c k) = dc k + c dk with dc/dlog c = c: [c L_W(k)] (when c is free), then
    # c L_W(dk); ``first``: c's entry comes before k's
    Kk, c = kind.inner(k, K, c)
    if free and kind.over_theta:
        s, g = kind.value_and(k, X, Y, W, Kk, parts)
        own = kind.own(c, s)
    else:
        g, own = kind.of(k, X, Y, W, Kk, parts), kind.empty()
    g = kind.scaled(c, g)
    return kind.join(own, g) if first else kind.join(g, own)


def times_constant(factors, c):
    """The tile factors of ``c * k`` from those of ``k`` (None stays None)."""
    if factors is None:
        return None
    A, B, pair, apply = factors
    c = float(c)

    def scaled(T):
        apply(T)
        T *= c

    return TileFactors(A, B, pair, scaled)


def _constant_factor(k1: Kernel, k2: Kernel):
    """``(constant, other)`` when one factor of a product is constant, else None."""
    if k1.is_constant:
        return k1, k2
    if k2.is_constant:
        return k2, k1
    return None


class _Binary(_Composite):
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

    def matrix_parts(self, X, parts):
        return self._add(self._check_input(X), None, parts)

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

    def diag(self, X):
        return self.k1.diag(X) + self.k2.diag(X)

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

    def _contract(self, kind, X, Y, W, K=None, parts=None):
        return _sum_rule(kind, self.k1, self.k2, X, Y, W, parts)


class Product(_Binary):
    """``k1 * k2``: the (Schur) product of two PSD kernels is PSD.

    A constant factor ``c`` scales the other (``c * k``: no matrix of c is formed).
    """

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

    def diag(self, X):
        return self.k1.diag(X) * self.k2.diag(X)

    def spectral_sample(self, n_features, size, random_state=None):
        # the spectral density of a product is the convolution of the factors': w = w1 + w2;
        # (v1 c1 + e1 [x=y]) (v2 c2 + e2 [x=y]) = v1 v2 c1 c2 + (v1 e2 + e1 v2 + e1 e2) [x=y]
        from sklearn.utils import check_random_state

        rng = check_random_state(random_state)
        W1, v1, e1 = self.k1.spectral_sample(n_features, size, rng)
        W2, v2, e2 = self.k2.spectral_sample(n_features, size, rng)
        return W1 + W2, v1 * v2, v1 * e2 + e1 * v2 + e1 * e2

    def _contract(self, kind, X, Y, W, K=None, parts=None):
        pair = _constant_factor(self.k1, self.k2)
        if pair is not None:  # c * k: the scale rule, c = exp(theta of the constant)
            const, other = pair
            return _scale_rule(kind, float(const.value), bool(const.n_dims),
                               const is self.k1, other, X, Y, W, K, parts)
        K1, K2 = kind.factors(self, X, Y, parts)
        return _product_rule(kind, self.k1, self.k2, K1, K2, X, Y, W, parts)


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


class _Wrapper(_Composite):
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

    def _contract(self, kind, X, Y, W, K=None, parts=None):
        free = not Kernel.hyperparameters.fget(self)[0].fixed
        return _scale_rule(kind, float(self.scale), free, True, self.kernel,
                           X, Y, W, K, parts)


ALGEBRA.update(sum=Sum, product=Product, scale=Scale, constant=Constant)
