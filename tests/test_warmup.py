"""kernelkit.warmup: every public estimator is fitted once, so numba compiles ahead of time."""

from __future__ import annotations

import io
import os

import numpy as np

from kernelkit.utils import all_estimators
from kernelkit.warmup import warm_up, warm_up_cases


def test_every_public_estimator_is_warmed_up():
    labels = [label for label, _, _ in warm_up_cases()]
    for name, _ in all_estimators():
        assert any(label.startswith(name) for label in labels), name
    assert any(label.startswith("StructuredSVM") for label in labels)


def test_warm_up_fits_and_reports(monkeypatch):
    from kernelkit import warmup

    cases = [c for c in warm_up_cases() if c[0].startswith(("KernelRidge(", "AdaBoost("))]
    monkeypatch.setattr(warmup, "warm_up_cases", lambda: iter(cases))
    out = io.StringIO()
    seconds = warm_up(out, dtypes=(np.float64,), parallel=False)
    assert seconds >= 0 and len(out.getvalue().splitlines()) == len(cases)


def test_warm_up_compiles_what_small_fits_would_run_interpreted(monkeypatch):
    # tiny problems run their numba loops interpreted (kernelkit._core.interpreted); the warm-up
    # exists to compile them, so it runs them compiled
    from kernelkit import warmup
    from kernelkit._core import interpreted as _interpreted

    seen = []
    real = _interpreted.run_interpreted

    def spy(size, func, limit=_interpreted.INTERPRETED_MAX):
        seen.append((_interpreted._COMPILED_ONLY[0] > 0, real(size, func, limit)))
        return seen[-1][1]

    monkeypatch.setattr(_interpreted, "run_interpreted", spy)
    cases = [c for c in warm_up_cases() if c[0].startswith(("KernelClassifier(", "AdaBoost("))]
    monkeypatch.setattr(warmup, "warm_up_cases", lambda: iter(cases))
    warm_up(dtypes=(np.float64,), parallel=False)
    assert seen and all(inside and not interpret for inside, interpret in seen)


def test_compile_bytecode_writes_what_an_editable_install_lacks(tmp_path):
    # pip writes bytecode for a regular install; with PYTHONDONTWRITEBYTECODE (or before the
    # first import) an editable one has none, and each process compiles the sources again
    import importlib.util

    from kernelkit.warmup import compile_bytecode

    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    pycs = [importlib.util.cache_from_source(str(pkg / "a.py")),
            importlib.util.cache_from_source(str(pkg / "sub" / "b.py"))]
    assert not any(os.path.exists(p) for p in pycs)
    assert compile_bytecode(pkg) is True
    assert all(os.path.exists(p) for p in pycs)
    (pkg / "bad.py").write_text("def broken(:\n")
    assert compile_bytecode(pkg) is False  # reported, not raised
