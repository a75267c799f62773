"""The kernel interface: :class:`Kernel`, what every kernel is and does by default.

A kernel is maths only: ``k(X, Y)`` values, ``k.diag(X)``, hyperparameters in log space
(``theta``/``bounds``) and the analytic gradient of K with respect to ``theta``. Memory
planning lives in :class:`kernelkit.linalg.KernelOperator`. Hyperparameters are declared
by each class in ``_hyperparameters`` (no ``dir()`` scanning); the bounds of ``h`` are the
constructor argument ``h_bounds`` (a ``(low, high)`` pair, or ``"fixed"``). A
hyperparameter whose value is not strictly positive (``coef0=0``) has no log: fixed.

The algebra (``k1 + k2``, ``k1 * k2``, ``c * k``, ``k ** p``) builds the classes of
``composite.py`` and ``exponentiation.py``; they subclass :class:`Kernel` and name
themselves in ``ALGEBRA``, so that this module imports none of them (no import cycle).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from .._core.memory import require_memory
from ._distances import tile_exp, tile_exp_clipped
from ._params import Hyperparameter, Parametrized, _as_float_array, _n_rows, refuse_sparse

__all__ = ["Kernel", "Hyperparameter", "TileFactors", "ALGEBRA"]

#: the classes the algebra builds, by role: "sum", "product", "scale" and "constant" (a
#: number in a sum), filled by composite.py; "power", filled by exponentiation.py
ALGEBRA: dict[str, type] = {}


class TileFactors(NamedTuple):
    """How tiles of a kernel matrix are formed (:meth:`Kernel.tile_factors`): the tile of
    rows I and columns J is ``pair(A[I], B[J], T)`` (``pair`` None: ``A[I] B[J]^T``) into
    T, then ``apply(T)`` in place."""

    A: np.ndarray
    B: np.ndarray
    pair: Callable | None
    apply: Callable


class Kernel(Parametrized):
    """Base class of kernelkit kernels.

    Subclasses implement ``_compute(X, Y)``, ``diag(X)`` and ``_gradient(X, K, name)``
    and declare ``_hyperparameters``; closed forms of the gradient contractions
    (``gradient_dot``, ``cross_gradient_dot``, ``diag_gradient_dot``,
    ``input_gradient_dot``) and the fast paths (``tile_factors``, ``sparse_row_products``)
    are optional overrides of the defaults here. Composition: ``k1 + k2``, ``k1 * k2``,
    ``c * k``, ``k ** p`` (``composite.py``: each contraction of a composite is its parts'
    by one rule).

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

    # -------------------------------- fast paths blockwise code may ask for (None: absent)
    def tile_factors(self, X, Y=None) -> TileFactors | None:
        """How a tile of ``K(X, Y)`` is formed from factor rows, or None.

        Returns :class:`TileFactors` ``(A, B, pair, apply)`` for dense float rows (``Y=None``:
        X with itself): a tile of rows I and columns J is ``pair(A[I], B[J], T)`` written
        into T (``pair`` None: the product ``A[I] B[J]^T``), then ``apply(T)`` in place, a
        serial map that worker threads may run side by side. :mod:`kernelkit.linalg.fused`
        forms products tile by tile from these without knowing the kernel's type; kernels
        without such a form return None.
        """
        return None

    def exp_factors(self, X, Y=None) -> tuple[np.ndarray, np.ndarray] | None:
        """``(A, B)`` with ``K(X, Y) = exp(min(A B^T, 0))``: the :meth:`tile_factors` of a
        kernel whose tiles are the exponential of one matrix product (the RBF), else None.

        Lets blockwise code form any tile of K with one GEMM and an in-place exp (row
        caches, tiled Gram matrices) without knowing the kernel's type.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> X = np.array([[0.0], [1.0], [3.0]])
        >>> A, B = RBF(1.5).exp_factors(X)
        >>> bool(np.allclose(np.exp(np.minimum(A @ B.T, 0)), RBF(1.5)(X)))
        True
        """
        f = self.tile_factors(X, Y)
        exp_map = f is not None and f.pair is None and f.apply in (tile_exp, tile_exp_clipped)
        return (f.A, f.B) if exp_map else None

    def sparse_row_products(self, X):
        """For sparse X, an object whose ``into(out, rows, slots)`` writes rows of K(X, X)
        (Linear, RBF: ``SparseRowProducts``), else None: rows come from :meth:`block`."""
        return None

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

    # ------------------------------------------- gradient contractions (their defaults)
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

    def cross_gradient_dot(self, X, Y, W: np.ndarray, K: np.ndarray | None = None
                           ) -> np.ndarray:
        """``g_j = sum_ik W_ik (dK(X, Y)/dtheta_j)_ik`` for a rectangular pair ``(X, Y)``.

        The contraction behind the sparse-GP gradient (``dK_nM/dtheta``) without an
        ``(n, m, p)`` tensor. Sums, products, scales, Constant, White and RBF have closed
        forms; the fallback takes the off-diagonal block of the square gradient of the
        stacked rows ``[X; Y]``, contracted with ``[[0, W/2], [W^T/2, 0]]``
        (``O((n + m)^2)`` per call: pass row blocks).

        Parameters
        ----------
        X : array of shape (n, d)
        Y : array of shape (m, d)
        W : ndarray of shape (n, m)
        K : ndarray of shape (n, m), optional
            This kernel's ``K(X, Y)``, if already computed.

        Returns
        -------
        ndarray of shape (n_dims,)

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import Matern
        >>> X, Y = np.array([[0.0], [1.0]]), np.array([[0.5]])
        >>> k = Matern(1.0, nu=2.5)
        >>> g = k.cross_gradient_dot(X, Y, np.ones((2, 1)))
        >>> h = 1e-6; kp = Matern(np.exp(h), nu=2.5); km = Matern(np.exp(-h), nu=2.5)
        >>> bool(np.isclose(g[0], (kp(X, Y) - km(X, Y)).sum() / (2 * h)))
        True
        """
        if not self.n_dims:
            return np.empty(0)
        X, Y = self._check_input(X), self._check_input(Y)
        n = len(X)
        S = np.zeros((n + len(Y),) * 2)
        S[:n, n:] = 0.5 * W  # S symmetric: sum S * dK = sum W * dK(X, Y)
        S[n:, :n] = 0.5 * np.asarray(W).T
        return self.gradient_dot(np.concatenate([X, Y]), S)

    # True where _value_and_cross_gradient_dot(X, Y, W, K) depends on W and K only through
    # W * K (so that c * k may pass its own K = c Ko instead of dividing): the RBF
    _contracts_through_product = False

    def _value_and_cross_gradient_dot(self, X, Y, W, K=None) -> tuple[float, np.ndarray]:
        """``(sum W * K(X, Y), cross_gradient_dot(X, Y, W, K))`` (for scales and products)."""
        if K is None:
            K = self._compute(self._check_input(X), self._check_input(Y))
        return float(np.sum(W * K)), self.cross_gradient_dot(X, Y, W, K)

    def diag_gradient_dot(self, X, w: np.ndarray) -> np.ndarray:
        """``g_j = sum_i w_i d k(x_i, x_i) / dtheta_j``: the contraction of ``d diag(K)``.

        Kernels whose diagonal does not depend on ``theta`` (the stationary ones) return
        zeros at once; the fallback contracts the square gradient of small row blocks with
        ``diag(w)``.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> (3.0 * RBF()).diag_gradient_dot(np.zeros((4, 2)), np.ones(4)).tolist()
        [12.0, 0.0]
        """
        g = np.zeros(self.n_dims)
        if not self.n_dims:
            return g
        X = self._check_input(X)
        w = np.asarray(w, dtype=float)
        for a in range(0, len(X), 256):
            g += self.gradient_dot(X[a : a + 256], np.diag(w[a : a + 256]))
        return g

    def input_gradient_dot(self, X, Y, W: np.ndarray, K: np.ndarray | None = None
                           ) -> np.ndarray:
        """``G_j = sum_i W_ij d k(x_i, y_j) / d y_j``: the gradient of ``sum W * K(X, Y)``
        with respect to the rows of ``Y`` (inducing-point locations), shape ``(m, d)``.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> X, Y = np.array([[0.0], [1.0]]), np.array([[0.5]])
        >>> g = RBF(1.0).input_gradient_dot(X, Y, np.ones((2, 1)))
        >>> float(g[0, 0])  # the two terms cancel by symmetry
        0.0
        """
        raise NotImplementedError(
            f"{type(self).__name__} has no gradient with respect to its inputs; learned "
            "inducing points need one (RBF, Linear, Constant, White and their sums, "
            "products and scales have it)."
        )

    # ------------------------------------------------------------------ algebra
    # a kernel composes with a kernel or a number; anything else (a string, a scikit-learn
    # kernel) is resolved first with kernelkit.kernels.resolve_kernel
    def __add__(self, other):
        if _is_number(other):
            return ALGEBRA["sum"](self, ALGEBRA["constant"](float(other)))
        return ALGEBRA["sum"](self, _as_kernel(other, "+"))

    def __radd__(self, other):
        if _is_number(other):
            return ALGEBRA["sum"](ALGEBRA["constant"](float(other)), self)
        return ALGEBRA["sum"](_as_kernel(other, "+"), self)

    def __mul__(self, other):
        if _is_number(other):
            return ALGEBRA["scale"](self, float(other))
        return ALGEBRA["product"](self, _as_kernel(other, "*"))

    def __rmul__(self, other):
        if _is_number(other):
            return ALGEBRA["scale"](self, float(other))
        return ALGEBRA["product"](_as_kernel(other, "*"), self)

    def __pow__(self, exponent):
        return ALGEBRA["power"](self, exponent)

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




def _is_number(obj) -> bool:
    return isinstance(obj, numbers.Number)


def _as_kernel(obj, op: str) -> Kernel:
    if isinstance(obj, Kernel):
        return obj
    raise TypeError(
        f"A kernel composes with a kernel or a number under {op!r}; got {obj!r}. "
        "Turn it into a kernel first with kernelkit.kernels.resolve_kernel."
    )
