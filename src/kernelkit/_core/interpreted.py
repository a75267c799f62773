"""A numba function run by CPython: the same code, for problems too small to pay numba's start.

The first call of a numba function in a fresh process costs numba's start-up even when its
machine code is cached (the typing and lowering registries, the runtime, the cache index and
the code library: ~0.3 s idle, seconds on a loaded machine), and its compilation when the
cache is empty, while a fit on a few dozen rows needs a millisecond of the loop itself.
:func:`interpreted` gives the loop's own Python source as CPython runs it
(``dispatcher.py_func``), with every numba function it calls replaced by its interpreted twin
too, so that a small problem never enters numba. There is one copy of the mathematics: the
same operations in the same order, so the results are the same (bit for bit for the SMO
and boosting loops; a ``prange`` sum may add in another order: equal to rounding), which
tests/test_first_call.py checks on every estimator that uses this. :func:`run_interpreted`
is the rule: a problem of at most ``INTERPRETED_MAX`` variables, as long as the loop has no
machine code in this process yet (once it has, the compiled loop is free and faster) and
has not yet run ``INTERPRETED_SECONDS`` interpreted.

Examples
--------
>>> import numpy as np
>>> from numba import njit
>>> from kernelkit._core.interpreted import interpreted
>>> @njit
... def total(x):
...     s = 0.0
...     for v in x:
...         s += v
...     return s
>>> float(interpreted(total)(np.arange(4.0))), total.signatures  # nothing compiled
(6.0, [])
"""

from __future__ import annotations

import contextlib
import functools
import time
import types

import numpy as np

__all__ = ["INTERPRETED_MAX", "INTERPRETED_SECONDS", "INTERPRETED_WORK", "compiled",
           "interpreted", "pick", "run_interpreted"]

#: problems of at most this many variables (rows, candidates) may run interpreted: there the
#: loops take milliseconds in CPython (an SMO solve of 128 variables ~25 ms), against
#: numba's start of ~0.3 s in a fresh process
INTERPRETED_MAX = 128
#: the same for a single pass given by its inner-loop steps (``work`` of ``twin.twin``):
#: ~0.3-1 us a step in CPython, so at most ~10 ms a call
INTERPRETED_WORK = 16_384

#: a loop runs interpreted for at most this many seconds in a process, all calls together:
#: then it runs compiled (loaded from the cache), so that many small calls, e.g. the rounds
#: of boosting fits on a few thousand rows, do not each pay CPython's speed (AdaBoost on
#: 3,000 letters: 19 histogram updates of ~6 ms interpreted in every fit, 0.13 s against
#: 0.006 s compiled). Numba's start costs ~0.3 s once; a loop's interpreted time is bounded
#: by a third of it. (Interpreted and compiled runs compute the same numbers, so when the
#: switch happens changes the speed only.)
INTERPRETED_SECONDS = 0.1

_TWINS: dict = {}  # dispatcher -> its interpreted twin (a cache: one twin per numba function)
_SPENT: dict = {}  # dispatcher -> seconds it ran interpreted in this process
# how many ``compiled()`` blocks are open, in any thread: the warm-up's pool threads included
_COMPILED_ONLY = [0]


def _is_dispatcher(obj) -> bool:
    # numba's Dispatcher, recognized without importing numba
    return hasattr(obj, "py_func") and type(obj).__module__.startswith("numba.")


def _narrow_float(arg) -> bool:
    dtype = getattr(arg, "dtype", None)
    return dtype is not None and dtype.kind == "f" and dtype.itemsize < 8


def _global_names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:  # nested functions' code
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _twin(func):
    twin = _TWINS.get(func)
    if twin is not None:
        return twin
    py = func.py_func
    env = dict(py.__globals__)  # the module's names, with the numba callees swapped below
    twin = types.FunctionType(py.__code__, env, py.__name__, py.__defaults__, py.__closure__)
    _TWINS[func] = twin  # before the callees: a recursive function finds itself
    for name in _global_names(py.__code__):
        value = env.get(name)
        if _is_dispatcher(value):
            env[name] = _twin(value)
    return twin


def run_interpreted(size: int, func, limit: int = INTERPRETED_MAX) -> bool:
    """Whether a problem of ``size`` variables runs ``func`` interpreted: ``size <= limit``,
    ``func`` (a numba dispatcher) not yet compiled or loaded in this process and not yet run
    ``INTERPRETED_SECONDS`` interpreted (all its calls together), outside
    :func:`compiled`."""
    return (size <= limit and not _COMPILED_ONLY[0] and _is_dispatcher(func)
            and not func.overloads and _SPENT.get(func, 0.0) < INTERPRETED_SECONDS)


@contextlib.contextmanager
def compiled():
    """Every loop runs compiled inside (process-wide): ``kernelkit warmup`` fits tiny
    problems to compile the loops that larger ones will load from the cache.

    Examples
    --------
    >>> from kernelkit._core.interpreted import compiled, run_interpreted
    >>> from kernelkit.solvers.smo import _smo_loop
    >>> with compiled():
    ...     run_interpreted(1, _smo_loop)
    False
    """
    _COMPILED_ONLY[0] += 1
    try:
        yield
    finally:
        _COMPILED_ONLY[0] -= 1


def pick(func, size: int, limit: int = INTERPRETED_MAX):
    """``interpreted(func)`` where :func:`run_interpreted` says so, else ``func``."""
    return interpreted(func) if run_interpreted(size, func, limit) else func


def interpreted(func):
    """The Python function behind the numba dispatcher ``func``, calling the interpreted
    twins of the numba functions it calls, run with NumPy's floating-point warnings off (as
    compiled code runs); ``func`` itself if it is not a dispatcher. A call with a float32
    (or narrower) array or scalar runs ``func`` compiled."""
    if not _is_dispatcher(func):
        return func
    twin = _twin(func)

    @functools.wraps(twin)
    def run(*args):
        if any(_narrow_float(a) for a in args):
            # numba computes ``2.0 * x`` of a float32 x in float64, NumPy 2 in float32 (its
            # Python scalars are weak): the same code would round differently, so compiled
            return func(*args)
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                return twin(*args)
        finally:  # counted against INTERPRETED_SECONDS
            _SPENT[func] = _SPENT.get(func, 0.0) + time.perf_counter() - start

    return run
