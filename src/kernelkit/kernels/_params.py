"""Declared hyperparameters and constructor parameters of a kernel (get_params, set_params).

Kernels are parameter containers as scikit-learn's GP kernels are, not estimators: they
do not derive from ``sklearn.base.BaseEstimator``, so that an estimator's repr prints a
kernel parameter with the kernel's own repr (``0.841**2 * RBF(length_scale=0.5)``), as
scikit-learn's GP estimators print theirs. ``sklearn.base.clone`` works on any object with
``get_params``.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

__all__ = ["Hyperparameter", "Parametrized", "refuse_sparse"]


class Parametrized:
    """``get_params(deep)`` and ``set_params(**params)`` read from the ``__init__`` signature.

    Nested parameters are named ``outer__inner`` (``k1__length_scale`` inside a sum).

    Examples
    --------
    >>> from kernelkit.kernels import RBF, White
    >>> k = RBF(1.0) + White(0.1)
    >>> k.set_params(k1__length_scale=2.0).get_params()["k1__length_scale"]
    2.0
    """

    @classmethod
    def _param_names(cls) -> list[str]:
        return list(_init_param_names(cls.__init__))

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters; with ``deep``, those of nested kernels as ``name__sub``."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params(deep=True).items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set constructor parameters (nested ones as ``name__sub``); returns ``self``."""
        valid = self._param_names()
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for kernel {type(self).__name__}; valid "
                    f"parameters are {valid}."
                )
            if sep:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub in nested.items():
            getattr(self, name).set_params(**sub)
        return self


@cache
def _init_param_names(init) -> tuple[str, ...]:
    """Sorted parameter names of an ``__init__`` (cached: the optimizer asks per evaluation)."""
    if init is object.__init__:
        return ()
    sig = inspect.signature(init)
    return tuple(sorted(p.name for p in sig.parameters.values()
                        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)))


class Hyperparameter(NamedTuple):
    """A declared kernel hyperparameter.

    Attributes
    ----------
    name : str
        Parameter name as seen by ``get_params`` (``k1__length_scale`` inside a sum).
    bounds : ndarray of shape (n_elements, 2)
        Bounds on the (positive) value, not on its logarithm.
    n_elements : int
        Number of scalars (``> 1`` for ARD length scales).
    fixed : bool
        Whether the parameter is excluded from ``theta``.
    """

    name: str
    bounds: np.ndarray
    n_elements: int
    fixed: bool


def _as_float_array(X):
    """Validate a kernel input: 2-D, numeric, float32 kept, everything else float64.

    A scipy sparse input stays sparse, as canonical CSR (see ``kernels._sparse``).
    """
    if sp.issparse(X):
        from ._sparse import as_sparse_rows

        return as_sparse_rows(X)
    X = np.asarray(X)
    if np.iscomplexobj(X):
        raise ValueError(
            "Kernel input must be real; got complex values. Pass the real part (X.real) "
            "or split real and imaginary parts into separate features."
        )
    if X.ndim != 2:
        raise ValueError(
            f"Kernel input must be 2-D (n_samples, n_features); got shape {X.shape}. "
            "Reshape a single feature with X.reshape(-1, 1)."
        )
    if X.dtype != np.float32:
        X = X.astype(np.float64, copy=False)
    return X


def _n_rows(X) -> int:
    """Number of rows of a kernel input (sparse matrices have no ``len``)."""
    shape = getattr(X, "shape", None)
    return shape[0] if shape is not None and len(shape) else len(X)


def refuse_sparse(kernel, X) -> None:
    """The TypeError of a kernel that cannot evaluate scipy.sparse rows (``X`` or the
    inputs of a pair ``(X, y)``); nothing for dense input."""
    rows = X[0] if isinstance(X, tuple) and len(X) == 2 else X
    if sp.issparse(rows):
        raise TypeError(
            f"{kernel!r} cannot be evaluated on scipy.sparse rows; pass dense X "
            "(X.toarray()) or use a kernel of inner products and distances (Linear, "
            "Polynomial, RBF, Laplacian, Matern, RationalQuadratic, ...)."
        )
