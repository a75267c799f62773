"""Where rows live: the one table that answers "what kind of rows is this?".

A *row home* is a :class:`~kernelkit.linalg.sources.RowSource` class for rows kept outside
this process (the chunks of a dask array on a cluster, next the arrays of an accelerator).
It says whether it ``holds(X)``, builds itself ``for_fit`` / ``for_predict``, and names the
``operator_class`` whose products run where the rows are. Homes register here when their
module is imported (``kernelkit.linalg`` imports them all, none of which imports its
library before it is used); rows no home holds are in memory.

:func:`~kernelkit.linalg.sources.as_rows` (the rows factory) and
:class:`~kernelkit.linalg.KernelOperator` (which subclass a product runs in) read this
one table: nothing else in kernelkit asks what kind of array it was given.
"""

from __future__ import annotations

__all__ = ["register_home", "home_of"]

# the row homes, in the order their modules registered them
_HOMES: list[type] = []


def register_home(cls: type) -> type:
    """Class decorator: ``cls`` holds rows outside this process (see the module docstring)."""
    if cls not in _HOMES:
        _HOMES.append(cls)
    return cls


def home_of(*arrays) -> type | None:
    """The row home that holds any of ``arrays``, or None when all are in memory."""
    for home in _HOMES:  # (plain loops: this runs at every KernelOperator's creation)
        for a in arrays:
            if a is not None and home.holds(a):
                return home
    return None
