"""Exact translation of scikit-learn Gaussian-process kernels into kernelkit kernels.

A scikit-learn kernel tree (ConstantKernel, RBF, Matern, RationalQuadratic, ExpSineSquared,
WhiteKernel, DotProduct, Sum, Product, Exponentiation) becomes the kernelkit tree of the
same structure, hyperparameter by hyperparameter: the same values, the same bounds, the same
"fixed" markers. Both libraries keep ``theta = log(values)``, so the two ``theta`` vectors
hold the same numbers and differ only in their order (scikit-learn sorts a kernel's own
hyperparameters by name): :class:`Translation` carries that permutation.

Only the exact classes are translated; a user subclass (which may override anything)
returns ``None`` and keeps going through the generic wrapper.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .base import Kernel, Product, Sum
from .dot_product import DotProduct
from .exponentiation import Exponentiation
from .special import Constant, White
from .stationary import RBF, ExpSineSquared, Matern, RationalQuadratic

__all__ = ["Translation", "translate"]


class Translation(NamedTuple):
    """A scikit-learn kernel and its kernelkit twin.

    Attributes
    ----------
    kernel : Kernel
        The kernelkit kernel (same values, bounds and fixed markers).
    to_ours : ndarray of int
        ``theta_ours = theta_sklearn[to_ours]``; gradients go back by
        ``g_sklearn[to_ours] = g_ours``.
    """

    kernel: Kernel
    to_ours: np.ndarray


def _leaf_table():
    """scikit-learn leaf class -> (kernelkit class, {sklearn param: kernelkit param})."""
    from sklearn.gaussian_process import kernels as sk

    return {
        sk.ConstantKernel: (Constant, {"constant_value": "value",
                                       "constant_value_bounds": "value_bounds"}),
        sk.RBF: (RBF, {"length_scale": "length_scale",
                       "length_scale_bounds": "length_scale_bounds"}),
        sk.RationalQuadratic: (RationalQuadratic, {
            "length_scale": "length_scale", "alpha": "alpha",
            "length_scale_bounds": "length_scale_bounds", "alpha_bounds": "alpha_bounds"}),
        sk.ExpSineSquared: (ExpSineSquared, {
            "length_scale": "length_scale", "periodicity": "periodicity",
            "length_scale_bounds": "length_scale_bounds",
            "periodicity_bounds": "periodicity_bounds"}),
        sk.WhiteKernel: (White, {"noise_level": "noise_level",
                                 "noise_level_bounds": "noise_level_bounds"}),
        sk.DotProduct: (DotProduct, {"sigma_0": "sigma_0", "sigma_0_bounds": "sigma_0_bounds"}),
    }


def _tree(sk_kernel, prefix: str, names: dict):
    """The kernelkit tree of ``sk_kernel`` (or None); fills ``names`` with
    ``{sklearn hyperparameter path: kernelkit hyperparameter path}``."""
    from sklearn.gaussian_process import kernels as sk

    cls = type(sk_kernel)
    if cls in (sk.Sum, sk.Product):
        k1 = _tree(sk_kernel.k1, prefix + "k1__", names)
        k2 = _tree(sk_kernel.k2, prefix + "k2__", names)
        if k1 is None or k2 is None:
            return None
        return (Sum if cls is sk.Sum else Product)(k1, k2)
    if cls is sk.Exponentiation:
        inner = _tree(sk_kernel.kernel, prefix + "kernel__", names)
        return None if inner is None else Exponentiation(inner, sk_kernel.exponent)
    params = sk_kernel.get_params(deep=False)
    if cls is sk.Matern:
        if params["nu"] not in (0.5, 1.5, 2.5, np.inf):
            return None  # the general-nu Bessel form stays with scikit-learn
        ours_cls = RBF if params["nu"] == np.inf else Matern
        mapping = {"length_scale": "length_scale", "length_scale_bounds": "length_scale_bounds"}
        extra = {} if ours_cls is RBF else {"nu": params["nu"]}
    elif cls in _leaf_table():
        ours_cls, mapping = _leaf_table()[cls]
        extra = {}
    else:
        return None
    for sk_name, our_name in mapping.items():
        if not sk_name.endswith("_bounds"):
            names[prefix + sk_name] = prefix + our_name
    return ours_cls(**{our: params[skn] for skn, our in mapping.items()}, **extra)


def translate(sk_kernel) -> Translation | None:
    """The kernelkit twin of a scikit-learn GP kernel, or ``None`` if it has none.

    Examples
    --------
    >>> from sklearn.gaussian_process.kernels import ConstantKernel, RationalQuadratic
    >>> from kernelkit.kernels._sklearn import translate
    >>> t = translate(ConstantKernel(2.0) * RationalQuadratic(length_scale=3.0, alpha=0.5))
    >>> t.kernel.k2.length_scale, t.to_ours.tolist()  # sklearn's theta: c, alpha, l
    (3.0, [0, 2, 1])
    """
    names: dict[str, str] = {}
    ours = _tree(sk_kernel, "", names)
    if ours is None:
        return None
    sk_start, i = {}, 0
    for h in sk_kernel.hyperparameters:
        if not h.fixed:
            sk_start[h.name] = (i, h.n_elements)
            i += h.n_elements
    to_ours = []
    back = {our: skn for skn, our in names.items()}
    try:
        ours_hyper = ours.hyperparameters
    except ValueError:
        return None  # bounds scikit-learn accepts and we do not: keep scikit-learn's code
    for h in ours_hyper:
        if h.fixed:
            continue
        start_n = sk_start.get(back.get(h.name))
        if start_n is None or start_n[1] != h.n_elements:
            return None  # fixed in one library and free in the other: no exact twin
        to_ours.extend(range(start_n[0], start_n[0] + start_n[1]))
    if len(to_ours) != i:
        return None
    return Translation(ours, np.asarray(to_ours, dtype=np.intp))
