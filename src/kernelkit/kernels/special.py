"""Special kernels: Constant, White, Precomputed, FeatureMap, and adapters.

``Pairwise`` wraps any ``sklearn.metrics.pairwise`` kernel name or a user callable;
``SklearnKernel`` wraps a scikit-learn Gaussian-process kernel object so that it can be
used wherever a kernelkit kernel is expected (theta, bounds and gradients delegated).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _distances as dist
from ._params import _as_float_array, _n_rows
from ._sparse import is_sparse
from .base import Constant, Kernel
from .kernel import _float_dtype

__all__ = ["Constant", "White", "Precomputed", "FeatureMap", "Pairwise"]


class White(Kernel):
    """White-noise kernel: ``noise_level * I`` on K(X, X), zero between different sets.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import White
    >>> White(0.5)(np.zeros((2, 1)))
    array([[0.5, 0. ],
           [0. , 0.5]])
    """

    _hyperparameters = ("noise_level",)

    def __init__(self, noise_level=1.0, noise_level_bounds=(1e-5, 1e5)):
        self.noise_level = noise_level
        self.noise_level_bounds = noise_level_bounds

    def is_stationary(self):
        return True

    @property
    def adds_to_diagonal(self) -> bool:
        return True

    @property
    def requires_vector_input(self):
        return False

    def _check_input(self, X):
        return X if not hasattr(X, "ndim") or X.ndim != 2 else _as_float_array(X)

    def _compute(self, X, Y):
        dtype = getattr(X, "dtype", np.float64)
        dtype = dtype if dtype in (np.float32, np.float64) else np.float64
        if Y is None:
            return self.noise_level * np.eye(_n_rows(X), dtype=dtype)
        return np.zeros((_n_rows(X), _n_rows(Y)), dtype=dtype)

    def diag(self, X):
        return np.full(_n_rows(X), self.noise_level, dtype=_float_dtype(X))

    def _gradient(self, X, K, name):
        yield self.noise_level * np.eye(len(X))

    def spectral_sample(self, n_features, size, random_state=None):
        """No continuous part; white noise of variance ``noise_level``."""
        return np.zeros((n_features, size)), 0.0, float(self.noise_level)

    def gradient_dot(self, X, W, K=None, parts=None):
        # dK/dlog s = s I, so sum W * dK = s tr W
        return np.array([self.noise_level * float(np.trace(W))] if self.n_dims else [])

    def cross_gradient_dot(self, X, Y, W, K=None):
        # K(X, Y) = 0 between different sets
        return np.zeros(self.n_dims)

    def diag_gradient_dot(self, X, w):
        # d k(x, x)/dlog s = s
        return np.array([self.noise_level * float(np.sum(w))] if self.n_dims else [])

    def input_gradient_dot(self, X, Y, W, K=None):
        return np.zeros(np.shape(Y), dtype=np.float64)


class Precomputed(Kernel):
    """The input *is* the kernel matrix: ``K(X) = X`` (square, at fit) and
    ``K(X_test, X_train) = X_test`` (shape ``(n_test, n_train)``, at predict).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Precomputed
    >>> Precomputed()(np.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self):
        pass

    def _check_pair(self, X, Y):
        pass  # X is itself the (n_test, n_train) block; Y carries no features to compare

    def _compute(self, X, Y):
        if Y is None and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"A precomputed kernel matrix must be square at fit time; got {X.shape}."
            )
        # a sparse kernel matrix is the n x m block itself: its dense twin is the output
        return X.toarray() if is_sparse(X) else np.array(X, copy=True)

    def diag(self, X):
        X = self._check_input(X)
        return X.diagonal().copy() if is_sparse(X) else np.diagonal(X).copy()


class FeatureMap(Kernel):
    """Kernel of an explicit finite feature map: ``k(x, y) = <phi(x), phi(y)>``.

    Parameters
    ----------
    func : callable
        Maps an ``(n, d)`` array to ``(n, p)`` features.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import FeatureMap
    >>> k = FeatureMap(lambda X: np.hstack([np.ones((len(X), 1)), X]))
    >>> k(np.array([[2.0]]), np.array([[3.0]]))
    array([[7.]])
    """

    def __init__(self, func: Callable[[np.ndarray], np.ndarray]):
        self.func = func

    def features(self, X) -> np.ndarray:
        """Evaluate the feature map as a 2-D float array (float32 stays float32)."""
        if not callable(self.func):
            raise ValueError(f"FeatureMap func must be callable; got {self.func!r}.")
        if not is_sparse(X):
            P = np.asarray(self.func(X))
        else:
            try:
                P = self.func(X)
            except Exception as exc:  # the user's function only knows dense arrays
                raise TypeError(
                    f"FeatureMap(func={getattr(self.func, '__name__', self.func)!r}) cannot "
                    f"map scipy.sparse rows ({type(exc).__name__}: {exc}); pass dense X "
                    "(X.toarray()) or a feature map that accepts sparse matrices."
                ) from exc
            if is_sparse(P):  # sparse features stay sparse: the Gram is a sparse product
                return _as_float_array(P)
            P = np.asarray(P)
            if P.dtype == object:
                raise TypeError(
                    f"FeatureMap(func={getattr(self.func, '__name__', self.func)!r}) "
                    "returned no numeric array for scipy.sparse rows; pass dense X "
                    "(X.toarray()) or a feature map that accepts sparse matrices.")
        if P.dtype != np.float32:
            P = P.astype(np.float64, copy=False)
        return P.reshape(len(P), -1)

    def _check_pair(self, X, Y):
        pass  # the feature map decides what it accepts; phi(X) and phi(Y) are compared

    def _compute(self, X, Y):
        P = self.features(X)
        return dist.gram(P, None if Y is None else self.features(Y))

    def diag(self, X):
        return dist.row_norms_sq(self.features(self._check_input(X)))


class Pairwise(Kernel):
    """Any ``sklearn.metrics.pairwise`` kernel by name (``"sigmoid"``, ``"cosine"``,
    ``"chi2"``, ...) or a user callable ``f(x, y) -> float``; no hyperparameters.

    A callable is evaluated by scikit-learn pairwise machinery, one pair at a time, so
    it is slow; prefer a built-in kernel or :class:`FeatureMap` where possible.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Pairwise
    >>> Pairwise("cosine")(np.array([[1.0, 0.0], [0.0, 2.0]])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self, metric="cosine", params=None):
        self.metric = metric
        self.params = params

    def _compute(self, X, Y):
        from sklearn.metrics.pairwise import pairwise_kernels

        try:
            K = pairwise_kernels(X, Y, metric=self.metric, filter_params=True,
                                 **(self.params or {}))
        except (TypeError, ValueError) as exc:
            if not (is_sparse(X) or is_sparse(Y)):
                raise
            raise TypeError(
                f"{self!r} cannot be evaluated on scipy.sparse rows ({exc}); pass dense X "
                "(X.toarray()) or use a kernel that accepts sparse rows."
            ) from exc
        # scikit-learn returns a sparse matrix for some metrics on sparse rows
        return np.asarray(K.toarray() if is_sparse(K) else K, dtype=X.dtype)

    def diag(self, X):
        X = self._check_input(X)
        out = np.empty(_n_rows(X), dtype=X.dtype)
        for start in range(0, _n_rows(X), 256):
            blk = X[start : start + 256]
            out[start : start + 256] = np.diagonal(self._compute(blk, blk))
        return out
