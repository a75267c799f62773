"""Kernels: maths only (values, diagonal, hyperparameters, analytic gradients).

Compose with ``+``, ``*`` and scalar ``*``; turn any user spelling into a kernel with
:func:`resolve_kernel`; evaluate large kernel matrices blockwise with
:class:`kernelkit.linalg.KernelOperator`.
"""

from ._resolve import resolve_estimator_kernel, resolve_kernel
from ._sklearn import SklearnKernel
from .base import Hyperparameter, Kernel, Product, Scale, Sum
from .dot_product import DotProduct, Linear, Polynomial
from .exponentiation import Exponentiation
from .joint import JointKernel
from .special import Constant, FeatureMap, Pairwise, Precomputed, White
from .stationary import RBF, ExpSineSquared, Laplacian, Matern, RationalQuadratic

__all__ = [
    "Kernel",
    "Hyperparameter",
    "Sum",
    "Product",
    "Scale",
    "Linear",
    "Polynomial",
    "DotProduct",
    "Exponentiation",
    "RBF",
    "Laplacian",
    "Matern",
    "RationalQuadratic",
    "ExpSineSquared",
    "Constant",
    "White",
    "Precomputed",
    "FeatureMap",
    "Pairwise",
    "SklearnKernel",
    "JointKernel",
    "resolve_estimator_kernel",
    "resolve_kernel",
]
