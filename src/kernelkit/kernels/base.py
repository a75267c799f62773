"""Kernel base class, declared hyperparameters, and kernel algebra (sum, product, scale).

A kernel is maths only: ``k(X, Y)`` values, ``k.diag(X)``, hyperparameters in log space
(``theta``/``bounds``) and the analytic gradient of K with respect to ``theta``. Memory
planning lives in :class:`kernelkit.linalg.KernelOperator`. Hyperparameters are declared
by each class in ``_hyperparameters`` (no ``dir()`` scanning); the bounds of ``h`` are the
constructor argument ``h_bounds`` (a ``(low, high)`` pair, or ``"fixed"``). A
hyperparameter whose value is not strictly positive (``coef0=0``) has no log: fixed.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator

import numpy as np
from sklearn.base import clone

from .._memory import require_memory
from .._scratch import scratch_empty
from ._fast_paths import FastPaths, times_constant
from ._pair_gradients import PairContractions
from ._params import Hyperparameter, Parametrized, _as_float_array, _n_rows, refuse_sparse

__all__ = ["Hyperparameter", "Kernel", "Sum", "Product", "Scale", "Constant"]


# filled by kernels/exponentiation.py: the class that k ** p builds
_POWER: dict = {}


class Kernel(FastPaths, PairContractions, Parametrized):
    """Base class of kernelkit kernels.

    Subclasses implement ``_compute(X, Y)``, ``diag(X)`` and ``_gradient(X, K, name)``
    and declare ``_hyperparameters``. Composition: ``k1 + k2``, ``k1 * k2``, ``c * k``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, White
    >>> k = 2.0 * RBF(length_scale=1.5) + White(0.1)
    >>> K = k(np.zeros((3, 2)))
    >>> K.shape
    (3, 3)
    """

    _hyperparameters: tuple[str, ...] = ()
    #: whether the kernel evaluates scipy.sparse rows (without densifying them); a kernel
    #: that cannot says so with a TypeError naming it (see :meth:`check_input`)
    accepts_sparse: bool = True

    # ---------------------------------------------------------------- values
    def __call__(self, X, Y=None, eval_gradient: bool = False):
        """Kernel matrix ``K(X, Y)``; with ``eval_gradient`` also ``dK/dtheta`` as scikit-learn's
        ``(n, n, n_theta)`` tensor (kernelkit's solvers use :meth:`gradient`, one at a time).
        Refused (InsufficientMemoryError) before allocating when it would not fit in memory.
        """
        X = self.check_input(X)
        Y = None if Y is None else self.check_input(Y)
        if Y is not None:
            self._check_pair(X, Y)
        n, m = _n_rows(X), _n_rows(X if Y is None else Y)
        require_memory(8.0 * n * m * (1 + eval_gradient * self.n_dims), f"The {n} x {m} kernel")
        K = self._compute(X, Y)
        if not eval_gradient:
            return K
        if Y is not None:
            raise ValueError("eval_gradient=True is only supported when Y is None.")
        n = K.shape[0]
        G = np.empty((n, n, self.n_dims), dtype=K.dtype)
        for j, dK in enumerate(self.gradient(X, K)):
            G[:, :, j] = dK
        return K, G

    # ------------------------------------------------- the seam other packages call
    def check_input(self, X):
        """Validate one input of this kernel (2-D float array for vector kernels).

        What :meth:`block` expects: blockwise code (``kernelkit.linalg``) checks its inputs
        once with this, then evaluates row blocks of them with :meth:`block`. Sparse rows
        come back as canonical CSR; a kernel that cannot evaluate them raises a TypeError
        that names it.
        """
        if not self.accepts_sparse:
            refuse_sparse(self, X)
        return self._check_input(X)

    def check_pair(self, X, Y) -> None:
        """Raise a ValueError if two checked inputs cannot be compared (feature counts)."""
        self._check_pair(X, Y)

    def block(self, X, Y=None) -> np.ndarray:
        """The values ``K(X, Y)`` for two row blocks already passed through
        :meth:`check_input` (no checks here: this is what runs once per block). ``Y=None``
        means ``K(X, X)``, whose diagonal is :meth:`diag` (White noise lands there, not
        between a point and its copy in another block)."""
        return self._compute(X, Y)

    @property
    def is_constant(self) -> bool:
        """Whether ``k(x, y) = value`` for every pair, ``value`` being the kernel's only
        hyperparameter (so ``c * k`` scales instead of multiplying by a matrix of c)."""
        return False

    @property
    def adds_to_diagonal(self) -> bool:
        """Whether ``k(x, y) = 0`` for distinct points and ``K(X, X) = diag(diag(X))``
        (white noise: a sum adds it to the diagonal instead of forming a matrix)."""
        return False

    def _check_input(self, X):
        return _as_float_array(X)

    def _check_pair(self, X, Y) -> None:
        """Raise if ``X`` and ``Y`` (already checked inputs) have different feature counts."""
        if (self.requires_vector_input and isinstance(X, np.ndarray)
                and isinstance(Y, np.ndarray) and X.ndim == 2 and Y.ndim == 2
                and X.shape[1] != Y.shape[1]):
            raise ValueError(
                f"X has {X.shape[1]} features but Y has {Y.shape[1]}; a kernel compares "
                "points with the same number of features."
            )

    def _compute(self, X, Y):  # pragma: no cover - abstract
        raise NotImplementedError

    def diag(self, X) -> np.ndarray:  # pragma: no cover - abstract
        """Diagonal of ``K(X, X)`` without forming the matrix."""
        raise NotImplementedError

    def is_stationary(self) -> bool:
        """Whether k(x, y) depends on x - y only."""
        return False

    def spectral_sample(self, n_features: int, size: int, random_state=None):
        """Frequencies ``W`` with ``k(x, y) = variance E_w cos(w . (x - y)) + white [x = y]``.

        Bochner's theorem for stationary kernels (random Fourier features, pathwise
        sampling). Returns ``(W of shape (n_features, size), variance, white)``; kernels
        without a spectral sampler raise a ValueError.
        """
        raise ValueError(
            f"{type(self).__name__} has no spectral density to sample: pathwise sampling "
            "and random Fourier features need a stationary kernel built from RBF, "
            "Laplacian, Matern, RationalQuadratic, Constant and White (sums, products, "
            "scales)."
        )

    @property
    def requires_vector_input(self) -> bool:
        return True

    # --------------------------------------------------------- hyperparameters
    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        """Declared hyperparameters, in ``theta`` order."""
        params = self.get_params(deep=False)
        out = []
        for name in self._hyperparameters:
            value = np.atleast_1d(np.asarray(params[name], dtype=float))
            bounds = params.get(name + "_bounds", "fixed")
            if isinstance(bounds, str) and bounds != "fixed":
                raise ValueError(
                    f"{name}_bounds must be 'fixed' or a (low, high) pair; got {bounds!r}."
                )
            fixed = isinstance(bounds, str) or bool(np.any(value <= 0))
            if isinstance(bounds, str):
                b = np.tile([value.min(), value.max()], (value.size, 1))
            else:
                b = np.atleast_2d(np.asarray(bounds, dtype=float))
                if (b.ndim != 2 or b.shape[1] != 2 or b.shape[0] not in (1, value.size)
                        or not np.all((b[:, 0] > 0) & (b[:, 0] <= b[:, 1]))):
                    raise ValueError(
                        f"{name}_bounds must be 'fixed' or a (low, high) pair with "
                        f"0 < low <= high (or one pair per element of an array {name}); "
                        f"got {bounds!r}."
                    )
                if b.shape[0] == 1 and value.size > 1:
                    b = np.tile(b, (value.size, 1))
            out.append(Hyperparameter(name, b, value.size, fixed))
        return out

    @property
    def n_dims(self) -> int:
        """Number of entries of ``theta``."""
        return sum(h.n_elements for h in self.hyperparameters if not h.fixed)

    @property
    def theta(self) -> np.ndarray:
        """Log of the non-fixed hyperparameter values, flattened."""
        params = self.get_params(deep=True)
        parts = [
            np.log(np.atleast_1d(np.asarray(params[h.name], dtype=float)))
            for h in self.hyperparameters
            if not h.fixed
        ]
        return np.concatenate(parts) if parts else np.empty(0)

    @theta.setter
    def theta(self, theta) -> None:
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.n_dims,):
            raise ValueError(f"theta must have shape ({self.n_dims},); got {theta.shape}.")
        params = self.get_params(deep=True)
        i = 0
        updates = {}
        for h in self.hyperparameters:
            if h.fixed:
                continue
            value = np.exp(theta[i : i + h.n_elements])
            old = params[h.name]
            updates[h.name] = float(value[0]) if np.ndim(old) == 0 else value
            i += h.n_elements
        self.set_params(**updates)

    @property
    def bounds(self) -> np.ndarray:
        """Log bounds of ``theta``, shape ``(n_dims, 2)``."""
        parts = [np.log(h.bounds) for h in self.hyperparameters if not h.fixed]
        return np.vstack(parts) if parts else np.empty((0, 2))

    def clone_with_theta(self, theta) -> Kernel:
        """A copy of this kernel with hyperparameters ``exp(theta)``."""
        k = clone(self)
        k.theta = theta
        return k

    # ----------------------------------------------------------------- gradient
    def gradient(self, X, K: np.ndarray | None = None) -> Iterator[np.ndarray]:
        """Yield ``dK/dtheta_j`` (each ``(n, n)``) for ``j = 0 .. n_dims-1``.

        One matrix at a time so that callers never hold an ``(n, n, p)`` tensor.
        ``K`` (the kernel matrix of ``X``) may be passed to avoid recomputing it.
        """
        X = self._check_input(X)
        if K is None and self.n_dims:
            K = self._compute(X, None)
        for h in self.hyperparameters:
            if not h.fixed:
                yield from self._gradient(X, K, h.name)

    def _gradient(self, X, K, name):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} has no gradient for {name!r}.")

    def matrix_parts(self, X, parts: dict) -> np.ndarray:
        """``K(X, X)``, recording in ``parts`` what :meth:`gradient_dot` will reuse.

        A product records the matrices of its two factors (keyed by its ``id``), so that
        the likelihood gradient at the same hyperparameters computes no factor twice;
        the isotropic RBF, RationalQuadratic and ExpSineSquared record their derivative
        matrices, all from one squared-distance matrix under the key "sqdist" (string keys
        do not depend on theta: a caller may keep them between evaluations); other
        kernels record nothing. The returned matrix is the caller's to overwrite.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF, ExpSineSquared
        >>> X = np.linspace(0, 3, 6)[:, None]; k = RBF(2.0) * ExpSineSquared(1.0, 1.0)
        >>> parts = {}
        >>> bool(np.allclose(k.matrix_parts(X, parts), k(X))), sorted(map(str, parts))[-1]
        (True, 'sqdist')
        """
        return self._compute(self._check_input(X), None)

    def gradient_dot(self, X, W: np.ndarray, K: np.ndarray | None = None,
                     parts: dict | None = None) -> np.ndarray:
        """``g_j = sum_ik W_ik (dK/dtheta_j)_ik`` for every hyperparameter ``j``.

        The contraction behind the GP likelihood gradient, ``1/2 tr(W dK/dtheta_j)`` with
        the symmetric ``W = a a^T - K^-1``. Sums, products, scales, Constant, White and
        RBF compute it without forming any ``dK/dtheta_j``; other kernels take them one at
        a time from :meth:`gradient`.

        Parameters
        ----------
        X : array of shape (n, d)
        W : ndarray of shape (n, n), symmetric
        K : ndarray of shape (n, n), optional
            This kernel's matrix of ``X``, if already computed.
        parts : dict, optional
            Filled by :meth:`matrix_parts` at the same hyperparameters: factor matrices
            to reuse instead of recomputing them.

        Returns
        -------
        ndarray of shape (n_dims,)

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> X = np.array([[0.0], [1.0]]); W = np.ones((2, 2))
        >>> k = RBF(1.0)
        >>> g = k.gradient_dot(X, W)
        >>> bool(np.isclose(g[0], sum(float(np.sum(W * dK)) for dK in k.gradient(X))))
        True
        """
        g = np.empty(self.n_dims)
        for j, dK in enumerate(self.gradient(X, K)):
            g[j] = _frobenius(W, dK)
        return g

    def _value_and_gradient_dot(self, X, W, K=None, parts=None) -> tuple[float, np.ndarray]:
        """``(sum_ik W_ik K_ik, gradient_dot(X, W, K))``: what a Constant or a scale
        multiplying this kernel needs for its own gradient."""
        if K is None:
            K = self._compute(self._check_input(X), None)
        return _frobenius(W, K), self.gradient_dot(X, W, K, parts=parts)

    # ------------------------------------------------------------------ algebra
    # a kernel composes with a kernel or a number; anything else (a string, a scikit-learn
    # kernel) is resolved first with kernelkit.kernels.resolve_kernel
    def __add__(self, other):
        if _is_number(other):
            return Sum(self, Constant(float(other)))
        return Sum(self, _as_kernel(other, "+"))

    def __radd__(self, other):
        if _is_number(other):
            return Sum(Constant(float(other)), self)
        return Sum(_as_kernel(other, "+"), self)

    def __mul__(self, other):
        if _is_number(other):
            return Scale(self, float(other))
        return Product(self, _as_kernel(other, "*"))

    def __rmul__(self, other):
        if _is_number(other):
            return Scale(self, float(other))
        return Product(_as_kernel(other, "*"), self)

    def __pow__(self, exponent):
        # Exponentiation (exponentiation.py, imported by the package) registers itself in
        # _POWER, so that base imports nothing that imports base (no import cycle)
        return _POWER["class"](self, exponent)

    def __eq__(self, other):
        if type(self) is not type(other):
            return False
        a, b = self.get_params(deep=False), other.get_params(deep=False)
        return a.keys() == b.keys() and all(
            np.array_equal(np.asarray(a[k], dtype=object), np.asarray(b[k], dtype=object))
            if not isinstance(a[k], Kernel)
            else a[k] == b[k]
            for k in a
        )

    __hash__ = object.__hash__

    def __repr__(self):
        # as scikit-learn's kernels print: Name(hyperparameter=value:.3g, ...)
        params = self.get_params(deep=False)
        names = sorted(self._hyperparameters) + sorted(
            k for k in params
            if k not in self._hyperparameters and not k.endswith("_bounds")
            and not isinstance(params[k], Kernel))
        return f"{type(self).__name__}({', '.join(_fmt_param(k, params[k]) for k in names)})"


def _fmt_param(name, value) -> str:
    """``name=value`` with numbers as ``.3g`` and arrays as ``[a, b]`` (scikit-learn's style)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"{name}={value:.3g}"
    arr = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if arr is not None and arr.dtype.kind in "fiu":
        flat = arr.ravel()
        if flat.size == 1 and np.ndim(value) == 0:
            return f"{name}={flat[0]:.3g}"
        return f"{name}=[{', '.join(f'{v:.3g}' for v in flat)}]"
    return f"{name}={value!r}"


def _float_dtype(X):
    """float32 for float32 input, float64 otherwise (inputs need not be arrays here)."""
    return np.float32 if getattr(X, "dtype", None) == np.float32 else np.float64


def _frobenius(A: np.ndarray, B: np.ndarray) -> float:
    """``sum_ik A_ik B_ik`` for symmetric ``A`` and ``B`` (so either memory order will do)."""
    return float(np.dot(A.ravel(order="K"), B.ravel(order="K")))


def _constant_factor(k1: Kernel, k2: Kernel):
    """``(constant, other)`` when one factor of a product is constant, else None."""
    if k1.is_constant:
        return k1, k2
    if k2.is_constant:
        return k2, k1
    return None


def _is_number(obj) -> bool:
    return isinstance(obj, numbers.Number)


def _as_kernel(obj, op: str) -> Kernel:
    if isinstance(obj, Kernel):
        return obj
    raise TypeError(
        f"A kernel composes with a kernel or a number under {op!r}; got {obj!r}. "
        "Turn it into a kernel first with kernelkit.kernels.resolve_kernel."
    )


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
