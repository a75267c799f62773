"""Lazy public namespaces through the scientific-Python ecosystem's ``lazy_loader``.

Each package keeps a readable table, one line per public name (``{"Ridge": "ridge"}``), and
hands it to :func:`attach`, which turns it into ``lazy_loader``'s form: ``import kernelkit``
stays cheap (no numba compilation, no estimator modules loaded) and a name's module is
imported on first access.
"""

from __future__ import annotations

import contextlib
import gc

import lazy_loader


@contextlib.contextmanager
def gc_paused():
    """The cyclic garbage collector off inside (and back as it was after).

    Importing an estimator's modules allocates thousands of long-lived objects (functions,
    classes, numba dispatchers) into a process that already holds NumPy, SciPy, numba and
    scikit-learn; that crosses the collector's threshold and runs a full collection over
    all of them, which found nothing to free and cost 0.1 s of a 0.14 s import here
    (0.03 s with the collector paused). Module objects are not garbage, so pausing it while
    they are created loses nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def attach(package: str, names: dict[str, str], submodules=()):
    """``(__getattr__, __dir__, __all__)`` for ``package``.

    ``names`` maps a public name to its module: relative to ``package`` ("ridge") or
    absolute ("kernelkit.linear_model.ridge"). ``submodules`` are subpackages reachable as
    attributes (``kernelkit.kernels``); ``dir()`` lists both, ``__all__`` the names.

    Examples
    --------
    >>> from kernelkit._core.lazy import attach
    >>> getattr_, dir_, all_ = attach("kernelkit.kernels", {"RBF": "stationary"})
    >>> getattr_("RBF").__name__, all_
    ('RBF', ['RBF'])
    """
    prefix = package + "."
    by_module: dict[str, list[str]] = {}
    for name, module in names.items():
        module = module[len(prefix):] if module.startswith(prefix) else module
        by_module.setdefault(module, []).append(name)
    load, dir_, known = lazy_loader.attach(package, submodules=list(submodules),
                                           submod_attrs=by_module)
    known = set(known)

    def __getattr__(name: str):
        if name not in known:  # Python's own wording for a missing module attribute
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        with gc_paused():
            return load(name)

    return __getattr__, dir_, sorted(names)
