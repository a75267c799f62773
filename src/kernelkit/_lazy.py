"""Lazy public namespaces: a package maps each public name to the module defining it.

``import kernelkit`` stays cheap (no numba compilation, no scikit-learn estimators loaded)
and a name appears in ``__all__`` as soon as its defining module exists.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys


def attach(package: str, names: dict[str, str]):
    """``(__getattr__, __dir__, __all__)`` for ``package``.

    ``names`` maps a public name to its module: relative to ``package`` ("ridge") or
    absolute ("kernelkit.linear_model.ridge").

    Examples
    --------
    >>> from kernelkit._lazy import attach
    >>> getattr_, dir_, all_ = attach("kernelkit.kernels", {"RBF": "stationary"})
    >>> getattr_("RBF").__name__, all_
    ('RBF', ['RBF'])
    """
    modules = {n: m if m.startswith("kernelkit.") else f"{package}.{m}" for n, m in names.items()}

    def available(name: str) -> bool:
        try:
            return importlib.util.find_spec(modules[name]) is not None
        except ModuleNotFoundError:
            return False

    public = sorted(n for n in modules if available(n))

    def __getattr__(name: str):
        if name in modules:
            return getattr(importlib.import_module(modules[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__, public
