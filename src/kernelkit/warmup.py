"""Compile kernelkit's numba code once, ahead of the first real call.

kernelkit's hot loops are numba functions compiled with ``cache=True``: the first call of
each in a fresh environment compiles it to machine code (seconds for the larger solvers)
and writes the result next to its source (``__pycache__``, or ``$NUMBA_CACHE_DIR``); every
later process loads it from there in milliseconds. :func:`warm_up` fits every public
estimator once on a tiny problem, in float64 and float32, and also compiles the parallel
twin of every serial kernel it met, so that a user's first fit, and the timings of the demo,
measure the method and not the compiler. ``make demo`` and ``make test`` run it after
installing (``kernelkit warmup``); the demo runs it before its first section (a no-op when
the cache is present).

It also writes the Python bytecode of kernelkit's modules (:func:`compile_bytecode`), as
``pip install`` does for a regular install: an editable install (``pip install -e``, the
Makefile's) has none, and where ``PYTHONDONTWRITEBYTECODE`` is set Python never writes it, so
every fresh process would compile ~60 modules from source (0.1-0.2 s of each import).

The cache is valid for the Python, numba and CPU that wrote it, and per source file (numba
compares the file's modification time and size): editing one module recompiles that
module's functions only.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import numpy as np

__all__ = ["compile_bytecode", "warm_up", "warm_up_cases"]


def compile_bytecode(root=None) -> bool:
    """Write the bytecode (``__pycache__/*.pyc``) of kernelkit's modules (or of the modules
    under the folder ``root``) where it is missing or stale; ``False`` where a file could not
    be compiled or written (nothing is raised).

    Examples
    --------
    >>> from kernelkit.warmup import compile_bytecode
    >>> compile_bytecode() in (True, False)
    True
    """
    import compileall
    from pathlib import Path

    # quiet=2: nothing printed, a read-only install (e.g. a system site-packages) included
    folder = Path(__file__).parent if root is None else Path(root)
    return bool(compileall.compile_dir(folder, quiet=2))


def _data(kind: str, dtype, n: int = 30, d: int = 3):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)).astype(dtype)
    if kind == "binary":
        return X, np.where(X[:, 0] > 0, 1, -1)
    if kind == "multiclass":
        return X, np.digitize(X[:, 0], [-0.4, 0.4])
    if kind == "regression":
        return X, (X @ np.arange(1.0, d + 1)).astype(dtype)
    return X, None


def warm_up_cases() -> Iterator[tuple[str, Callable[[], Any], str]]:
    """``(label, make estimator, data kind)`` for every code path the warm-up compiles."""
    import kernelkit as kk
    from kernelkit import ensemble as ens
    from kernelkit.structured import ChainOracle, MulticlassOracle, StructuredSVM
    from kernelkit.utils import all_estimators

    def kind(cls) -> str:
        from sklearn.base import is_classifier, is_regressor

        est = cls(**getattr(cls, "_test_params", [{}])[0])
        return ("binary" if is_classifier(est) else "regression" if is_regressor(est)
                else "none")

    for name, cls in all_estimators():
        for params in getattr(cls, "_test_params", [{}]):
            yield f"{name}({', '.join(params)})", (lambda c=cls, p=params: c(**p)), kind(cls)
    extra = [
        ("KernelClassifier(multiclass)", lambda: kk.KernelClassifier(), "multiclass"),
        ("KernelClassifier(squared_hinge)", lambda: kk.KernelClassifier("squared_hinge"),
         "binary"),
        ("KernelPerceptron(averaged)", lambda: kk.KernelPerceptron(variant="averaged"),
         "binary"),
        ("AdaBoost(multiclass)", lambda: kk.AdaBoost(n_estimators=3), "multiclass"),
        ("AdaBoost(tree)", lambda: kk.AdaBoost("tree", n_estimators=3), "binary"),
        ("AdaBoost(linear)", lambda: kk.AdaBoost("linear", n_estimators=3), "binary"),
        ("DecisionTree", lambda: ens.DecisionTree(max_depth=2), "multiclass"),
        ("LinearThreshold", lambda: ens.LinearThreshold(), "binary"),
        ("StructuredSVM(multiclass)",
         lambda: StructuredSVM(MulticlassOracle(), max_iter=3), "multiclass"),
    ]
    yield from extra
    yield "StructuredSVM(chain)", lambda: StructuredSVM(ChainOracle(3), max_iter=3), "chain"


def _fit(make: Callable[[], Any], kind: str, dtype) -> None:
    if kind == "chain":
        X, y = _data("multiclass", dtype, n=24)
        Xs = [X[i:i + 4] for i in range(0, 24, 4)]
        Ys = [y[i:i + 4] for i in range(0, 24, 4)]
        est = make().fit(Xs, Ys)
        est.predict(Xs)
        return
    X, y = _data(kind, dtype)
    est = make()
    est.fit(X) if y is None else est.fit(X, y)
    for method in ("predict", "transform", "decision_function"):
        if hasattr(est, method):
            getattr(est, method)(X)


def _parallel_twins() -> int:
    """Compile the parallel twin of every serial numba kernel compiled so far (same
    signatures): they run only on large problems, which a tiny warm-up never reaches."""
    count = 0
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("kernelkit."):
            continue
        for obj in list(vars(module).values()):
            seq, par = getattr(obj, "seq", None), getattr(obj, "par", None)
            if seq is None or par is None or getattr(obj, "__module__", None) is None:
                continue
            if not hasattr(seq, "signatures") or not hasattr(par, "compile"):
                continue
            for sig in seq.signatures:
                if sig not in par.signatures:
                    par.compile(sig)
                    count += 1
    return count


def warm_up(stream: TextIO | None = None, *, dtypes=(np.float64, np.float32),
            parallel: bool = True) -> float:
    """Fit every public estimator once on a tiny problem so numba compiles (or loads) its code.

    Parameters
    ----------
    stream : text stream, optional
        Where to print one line per estimator (nothing when ``None``).
    dtypes : tuple of dtypes, default=(float64, float32)
    parallel : bool, default=True
        Also compile the parallel twins of the serial kernels met (they run only on large
        problems; compiling them is the slowest part).

    Returns
    -------
    float
        Seconds taken (compilation in a fresh environment, cache loads afterwards).

    Examples
    --------
    >>> from kernelkit.warmup import warm_up
    >>> warm_up() >= 0.0  # doctest: +SKIP
    True
    """
    from ._core.interpreted import compiled

    start = time.perf_counter()
    compile_bytecode()
    # compiled(): tiny problems would otherwise run their loops interpreted (_core/interpreted.py)
    with warnings.catch_warnings(), compiled():
        warnings.simplefilter("ignore")  # tiny problems: convergence and jitter notes
        for label, make, kind in warm_up_cases():
            t0 = time.perf_counter()
            for dtype in dtypes:
                try:
                    _fit(make, kind, dtype)
                except (ValueError, TypeError):  # a path this dtype or size does not take
                    continue
            if stream is not None:
                print(f"  {label:<40s} {time.perf_counter() - t0:6.2f} s", file=stream,
                      flush=True)
        n = _parallel_twins() if parallel else 0
    if stream is not None and n:
        print(f"  {'parallel twins (' + str(n) + ' kernels)':<40s}", file=stream, flush=True)
    return time.perf_counter() - start
