"""Kernel specs: a readable text form of kernels (``"2.0 * RBF(length_scale=0.5)"``) and a
safe parser for it (``ast``-based, never ``eval``). Used by the model-file manifest and by the
``kernelkit`` command's ``--param kernel=...``.
"""

from __future__ import annotations

import difflib
import inspect
import numbers
from typing import Any

import numpy as np

__all__ = ["kernel_spec", "parse_spec"]


def _fmt_value(v: Any) -> str:
    from .kernels import Kernel

    if isinstance(v, Kernel):
        return kernel_spec(v)
    if isinstance(v, np.ndarray):
        return repr(v.tolist())
    if isinstance(v, np.generic):
        return repr(v.item())
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt_value(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt_value(x) for x in v) + "]"
    if callable(v):
        return f"<{getattr(v, '__qualname__', type(v).__name__)}>"
    return repr(v)


def kernel_spec(kernel: Any) -> str:
    """A readable spec of a kernel, such as ``"2.0 * RBF(length_scale=0.5) + White()"``.

    Kernelkit kernels print as ``ClassName(param=value, ...)`` with their non-default
    parameters, sums and products as ``+`` and ``*``; :func:`parse_spec` reads the same
    text back (for kernels built from literal parameters).

    Examples
    --------
    >>> from kernelkit.io import kernel_spec
    >>> from kernelkit.kernels import RBF, White
    >>> kernel_spec(2.0 * RBF(length_scale=0.5) + White(0.1))
    '2.0 * RBF(length_scale=0.5) + White(noise_level=0.1)'
    """
    from .kernels import Kernel, Product, Scale, Sum

    if not isinstance(kernel, Kernel):
        return _fmt_value(kernel)
    if isinstance(kernel, Sum):
        return f"{kernel_spec(kernel.k1)} + {kernel_spec(kernel.k2)}"

    def factor(k):
        s = kernel_spec(k)
        return f"({s})" if isinstance(k, Sum) else s

    if isinstance(kernel, Product):
        return f"{factor(kernel.k1)} * {factor(kernel.k2)}"
    default_bounds = inspect.signature(Scale).parameters["scale_bounds"].default
    if isinstance(kernel, Scale) and kernel.scale_bounds == default_bounds:
        return f"{_fmt_value(kernel.scale)} * {factor(kernel.kernel)}"
    sig = inspect.signature(type(kernel))
    parts = []
    for name, value in kernel.get_params(deep=False).items():
        p = sig.parameters.get(name)
        default = p.default if p is not None else inspect.Parameter.empty
        try:
            same = default is not inspect.Parameter.empty and bool(
                np.all(np.asarray(value == default)) and type(value) is type(default))
        except Exception:  # noqa: BLE001 - uncomparable values are simply printed
            same = False
        if not same:
            parts.append(f"{name}={_fmt_value(value)}")
    return f"{type(kernel).__name__}({', '.join(parts)})"


def _guess(name: str, names) -> str:
    """``; did you mean 'X'?`` for the closest known name (case-insensitive), or ''."""
    lower = {n.lower(): n for n in names}
    hint = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[hint[0]]!r}?" if hint else ""


def _spec_names() -> dict[str, Any]:
    from . import kernels

    out = {}
    for name in kernels.__all__:
        obj = getattr(kernels, name)
        if isinstance(obj, type) and issubclass(obj, kernels.Kernel) and obj is not kernels.Kernel:
            out[name] = obj
    return out


def parse_spec(text: str, names: dict[str, Any] | None = None) -> Any:
    """Build an object from a spec such as ``"RBF(length_scale=2.0) + White(0.1)"``.

    The text is parsed with :mod:`ast` and *never evaluated*: only calls of the classes in
    ``names`` (default: the kernelkit kernels) with literal or nested-spec arguments,
    ``+``, ``*`` and numeric literals are allowed.

    Parameters
    ----------
    text : str
    names : dict of str to class, optional
        The classes a spec may call.

    Examples
    --------
    >>> from kernelkit.io import parse_spec
    >>> k = parse_spec("2.0 * RBF(length_scale=0.5) + White(noise_level=0.1)")
    >>> type(k).__name__, k.k1.scale, k.k1.kernel.length_scale
    ('Sum', 2.0, 0.5)
    """
    import ast

    names = _spec_names() if names is None else names
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot parse {text!r}: not a valid spec such as 'RBF(length_scale=2.0)'"
                         ) from None

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool,
                                                                      type(None))):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            if isinstance(v, numbers.Real) and not isinstance(v, bool):
                return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [ev(e) for e in node.elts]
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Name):
            if node.id in names:
                return names[node.id]()
            if node.id in ("inf", "nan"):
                return float(node.id)
            raise ValueError(f"unknown name {node.id!r} in {text!r}{_guess(node.id, names)}"
                             f"; known: {', '.join(names)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id not in names:
                raise ValueError(f"unknown class {node.func.id!r} in {text!r}"
                                 f"{_guess(node.func.id, names)}; known: {', '.join(names)}")
            if any(k.arg is None for k in node.keywords) or any(
                    isinstance(a, ast.Starred) for a in node.args):
                raise ValueError(f"* and ** arguments are not allowed in {text!r}")
            args = [ev(a) for a in node.args]
            kwargs = {k.arg: ev(k.value) for k in node.keywords}
            try:
                return names[node.func.id](*args, **kwargs)
            except TypeError as exc:
                raise ValueError(f"bad arguments for {node.func.id} in {text!r}: {exc}") from None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            a, b = ev(node.left), ev(node.right)
            if isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple)):
                raise ValueError(f"+ and * combine kernels and numbers only, in {text!r}")
            return a + b if isinstance(node.op, ast.Add) else a * b
        raise ValueError(f"unsupported expression {ast.unparse(node)!r} in spec {text!r}")

    return ev(tree.body)
