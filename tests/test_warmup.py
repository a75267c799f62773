"""kernelkit.warmup: every public estimator is fitted once, so numba compiles ahead of time."""

from __future__ import annotations

import io

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
