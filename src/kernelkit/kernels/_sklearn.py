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

from ._params import _as_float_array
from .base import Hyperparameter, Kernel, Product, Sum
from .dot_product import DotProduct
from .exponentiation import Exponentiation
from .special import Constant, White
from .stationary import RBF, ExpSineSquared, Matern, RationalQuadratic

__all__ = ["SklearnKernel", "Translation", "translate"]


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


class SklearnKernel(Kernel):
    """Adapter: a scikit-learn ``sklearn.gaussian_process.kernels.Kernel`` used as ours.

    ``theta`` and ``bounds`` are the scikit-learn kernel's own (its order). Kernels built
    from scikit-learn's own classes (ConstantKernel, RBF, Matern, RationalQuadratic,
    ExpSineSquared, WhiteKernel, DotProduct, Sum, Product, Exponentiation) are computed by
    their exact kernelkit twin (``kernels._sklearn.translate``: same values and bounds),
    gradients included, so they take kernelkit's fast paths; any other kernel (a user
    subclass) is evaluated by scikit-learn, its gradient from scikit-learn's
    ``(n, n, p)`` tensor.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import RBF as SkRBF
    >>> from kernelkit.kernels import SklearnKernel
    >>> k = SklearnKernel(SkRBF(1.0))
    >>> k.theta.tolist()
    [0.0]
    """

    def __init__(self, kernel=None):
        self.kernel = kernel

    def __repr__(self):
        return repr(self.kernel)

    def __getattr__(self, name):
        # the wrapped kernel's own attributes (k1, k2, length_scale, noise_level, ...), so
        # that a fitted estimator's kernel_ reads as the scikit-learn kernel it came from
        if name.startswith("_") or name == "kernel" or "kernel" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["kernel"], name)

    def twin(self):
        """The exact kernelkit translation of the wrapped kernel, or None (user subclass).

        Built from the wrapped kernel's current values at each call (a few small objects),
        so that it always follows ``theta``.
        """
        return translate(self.kernel)

    def spectral_sample(self, n_features, size, random_state=None):
        # the twin's spectral measure (a scikit-learn RBF, Matern, ... samples as ours)
        twin = self.twin()
        if twin is None:
            return super().spectral_sample(n_features, size, random_state)
        return twin.kernel.spectral_sample(n_features, size, random_state)

    @property
    def hyperparameters(self):
        out = []
        for h in self.kernel.hyperparameters:
            b = np.atleast_2d(np.asarray(h.bounds if not h.fixed else [[1.0, 1.0]], float))
            out.append(Hyperparameter("kernel__" + h.name, b, h.n_elements, bool(h.fixed)))
        return out

    @property
    def theta(self):
        return self.kernel.theta

    @theta.setter
    def theta(self, theta):
        self.kernel.theta = np.asarray(theta, dtype=float)

    @property
    def bounds(self):
        return self.kernel.bounds

    @property
    def n_dims(self):
        return self.kernel.n_dims

    @property
    def requires_vector_input(self):
        return self.kernel.requires_vector_input

    @property
    def accepts_sparse(self):
        # a translated kernel evaluates as its kernelkit twin; a user subclass is
        # scikit-learn code, which needs dense rows
        t = self.twin()
        return t is not None and t.kernel.accepts_sparse

    def _check_input(self, X):
        # sequences and strings reach a kernel with requires_vector_input=False as they are
        return _as_float_array(X) if self.requires_vector_input else X

    def _check_pair(self, X, Y):
        if self.requires_vector_input:
            super()._check_pair(X, Y)

    def is_stationary(self):
        return self.kernel.is_stationary()

    def _compute(self, X, Y):
        t = self.twin()
        if t is not None:
            return t.kernel._compute(X, Y)
        return np.asarray(self.kernel(X, Y))

    def diag(self, X):
        X = self._check_input(X)
        t = self.twin()
        return t.kernel.diag(X) if t is not None else np.asarray(self.kernel.diag(X))

    def gradient(self, X, K=None):
        X = self._check_input(X)
        t = self.twin()
        if t is None:
            _, G = self.kernel(X, eval_gradient=True)
            for j in range(G.shape[2]):
                yield np.ascontiguousarray(G[:, :, j])
            return
        # scikit-learn's order: entry j of theta is the twin's entry where to_ours == j
        mats = list(t.kernel.gradient(X, K))
        for j in np.argsort(t.to_ours):
            yield mats[j]

    def matrix_parts(self, X, parts):
        t = self.twin()
        if t is None:
            return self._compute(self._check_input(X), None)
        parts[id(self)] = t  # the twin whose factor matrices are recorded
        return t.kernel.matrix_parts(X, parts)

    def gradient_dot(self, X, W, K=None, parts=None):
        X = self._check_input(X)
        t = parts.get(id(self)) if parts is not None else None
        t = self.twin() if t is None else t
        if t is None:
            return super().gradient_dot(X, W, K)
        g = np.empty(self.n_dims)
        g[t.to_ours] = t.kernel.gradient_dot(X, W, K, parts=parts)
        return g
