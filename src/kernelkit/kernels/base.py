"""Kernel base class and kernel algebra, under one import path.

:class:`Kernel` (the interface and its defaults) lives in ``kernel.py``; the composites
:class:`Sum`, :class:`Product`, :class:`Scale` and :class:`Constant` in ``composite.py``.
This module names them together, as every kernel module imports them.
"""

from __future__ import annotations

from ._params import Hyperparameter
from .composite import Constant, Product, Scale, Sum
from .kernel import Kernel

__all__ = ["Hyperparameter", "Kernel", "Sum", "Product", "Scale", "Constant"]
