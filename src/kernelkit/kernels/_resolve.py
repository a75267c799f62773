"""One resolver from every way a user can name a kernel to a kernelkit Kernel."""

from __future__ import annotations

import difflib
import numbers
import sys

import numpy as np

from ._sklearn import SklearnKernel
from .base import Kernel
from .dot_product import Linear, Polynomial
from .special import Pairwise, Precomputed
from .stationary import RBF, Laplacian

__all__ = ["resolve_estimator_kernel", "resolve_kernel"]

_PAIRWISE_NAMES = {"sigmoid", "cosine", "chi2", "additive_chi2"}


def resolve_kernel(
    kernel,
    *,
    gamma: float | None = None,
    degree: float = 3,
    coef0: float = 1,
    kernel_params: dict | None = None,
    n_features: int | None = None,
) -> Kernel:
    """Turn ``kernel`` into a :class:`~kernelkit.kernels.Kernel`.

    Parameters
    ----------
    kernel : Kernel, str, callable or sklearn GP kernel
        A kernelkit kernel is returned as is (not copied). Strings follow
        ``sklearn.metrics.pairwise``: ``"linear"``, ``"poly"``/``"polynomial"``, ``"rbf"``,
        ``"laplacian"``, ``"precomputed"``, and ``"sigmoid"``, ``"cosine"``, ``"chi2"``,
        ``"additive_chi2"``. A callable ``f(x, y) -> float`` is evaluated pairwise.
    gamma, degree, coef0 : float
        scikit-learn's parameters for string kernels. ``gamma=None`` means
        ``1 / n_features``. RBF: ``exp(-gamma ||x-y||^2)`` i.e. ``l = (2 gamma)^-1/2``;
        Laplacian: ``exp(-gamma ||x-y||_1)`` i.e. ``l = 1 / gamma``.
    kernel_params : dict, optional
        Extra parameters for a string or callable kernel.
    n_features : int, optional
        Needed to resolve ``gamma=None``.

    Examples
    --------
    >>> from kernelkit.kernels import resolve_kernel
    >>> resolve_kernel("rbf", gamma=0.5)
    RBF(length_scale=1)
    """
    if isinstance(kernel, Kernel):
        return kernel
    if _is_sklearn_gp_kernel(kernel):
        return SklearnKernel(kernel)
    params = dict(kernel_params or {})
    if isinstance(kernel, str):
        name = kernel.lower()
        if gamma is None and name in {"rbf", "laplacian", "poly", "polynomial", "sigmoid", "chi2"}:
            if n_features is None:
                raise ValueError(f"gamma=None for kernel {kernel!r} needs n_features.")
            gamma = 1.0 / n_features
        if gamma is not None and (isinstance(gamma, bool) or not isinstance(gamma, numbers.Real)
                                  or not gamma > 0):
            raise ValueError(f"gamma must be positive (a number, or None); got {gamma!r}.")
        if name == "linear":
            return Linear()
        if name in ("poly", "polynomial"):
            return Polynomial(degree=degree, gamma=gamma, coef0=coef0)
        if name == "rbf":
            return RBF(length_scale=float(np.sqrt(0.5 / gamma)))
        if name == "laplacian":
            return Laplacian(length_scale=1.0 / gamma)
        if name == "precomputed":
            return Precomputed()
        if name in _PAIRWISE_NAMES:
            extra = {"gamma": gamma, "degree": degree, "coef0": coef0}
            return Pairwise(name, {**extra, **params})
        known = sorted({"linear", "poly", "rbf", "laplacian", "precomputed"}
                       | set(_PAIRWISE_NAMES))
        hint = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        guess = f"; did you mean {hint[0]!r}?" if hint else ";"
        raise ValueError(
            f"Unknown kernel {kernel!r}{guess} use one of {', '.join(map(repr, known))}, a "
            "kernelkit Kernel or a callable."
        )
    if callable(kernel):
        return Pairwise(kernel, params or None)
    raise ValueError(
        f"Cannot use {kernel!r} as a kernel: pass a kernelkit Kernel, a kernel name, "
        "a callable or a scikit-learn Gaussian-process kernel."
    )


def _is_sklearn_gp_kernel(obj) -> bool:
    # an instance of scikit-learn's GP kernels exists only once their module is loaded:
    # importing it to ask (it loads sklearn.metrics, ~0.2 s) would cost every fresh process
    module = sys.modules.get("sklearn.gaussian_process.kernels")
    return module is not None and isinstance(obj, module.Kernel)


def resolve_estimator_kernel(estimator, n_features: int) -> Kernel:
    """Resolve an estimator's ``kernel`` (+ ``gamma/degree/coef0/kernel_params``) parameters.

    Returns a *clone* for kernel objects, so that fitting never mutates a constructor
    parameter.
    """
    from sklearn.base import clone

    kernel = getattr(estimator, "kernel", "rbf")
    k = resolve_kernel(
        kernel,
        gamma=getattr(estimator, "gamma", None),
        degree=getattr(estimator, "degree", 3),
        coef0=getattr(estimator, "coef0", 1),
        kernel_params=getattr(estimator, "kernel_params", None),
        n_features=n_features,
    )
    # a wrapped scikit-learn kernel is the user's object too: clone the wrapper deeply
    return clone(k) if k is kernel or isinstance(k, SklearnKernel) else k
