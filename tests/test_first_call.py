"""Small problems in a fresh process: no numba start, the same results (issue 35, point 2).

A fit on a few dozen rows runs its numba loops interpreted (``kernelkit._interpreted``): the
same source as CPython runs it. These tests check that such a fit compiles and loads nothing
(an empty numba cache stays empty), that the interpreted and compiled runs agree bit for
bit, and that a fit with kernelkit's own kernel does not import scikit-learn's GP module.
The seconds this saves are measured by ``benchmarks/bench_first_call.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kernelkit.linalg.rows as rows_module
import kernelkit.solvers.smo as smo_module
from kernelkit import KernelClassifier, KernelRegressor, OneClassSVM

FRESH = """
import json, os, sys
import numpy as np
import kernelkit as kk
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, 0)
for est, target in ((kk.KernelClassifier(), y), (kk.OneClassSVM(nu=0.5), None),
                    (kk.KernelRegressor("epsilon_insensitive"), X @ np.arange(1.0, 5.0))):
    est.fit(X) if target is None else est.fit(X, target)
    est.predict(X)
files = [f for _, _, fs in os.walk(os.environ["NUMBA_CACHE_DIR"]) for f in fs]
print(json.dumps({"cache": sorted(files),
                  "sk_gp": "sklearn.gaussian_process" in sys.modules}))
"""


def test_small_fits_in_a_fresh_process_compile_and_load_no_numba_code(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True,
                          env=env, timeout=300, check=True)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["cache"] == []  # nothing compiled (an empty cache gets every compiled loop)
    assert out["sk_gp"] is False


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, 0), X @ np.arange(1.0, 5.0)


@pytest.mark.parametrize("n", [40, 64])
@pytest.mark.parametrize("make", [
    lambda: KernelClassifier(alpha=0.01),
    lambda: OneClassSVM(nu=0.3),
    lambda: KernelRegressor("epsilon_insensitive", alpha=0.01),
], ids=["C-SVC", "one-class", "eps-SVR"])
def test_interpreted_and_compiled_loops_agree_bit_for_bit(monkeypatch, make, n):
    X, y, t = _data(n)
    fits = []
    for interpret in (True, False):
        monkeypatch.setattr(smo_module, "run_interpreted", lambda size, f, i=interpret: i)
        monkeypatch.setattr(rows_module, "run_interpreted", lambda size, f, i=interpret: i)
        est = make()
        target = None if isinstance(est, OneClassSVM) else t if isinstance(
            est, KernelRegressor) else y
        est.fit(X) if target is None else est.fit(X, target)
        fits.append((est.dual_coef_, est.decision_function(X) if hasattr(
            est, "decision_function") else est.predict(X)))
    assert smo_module._smo_loop.overloads  # the second run compiled (or loaded) the loop
    np.testing.assert_array_equal(fits[0][0], fits[1][0])
    np.testing.assert_array_equal(fits[0][1], fits[1][1])


def test_the_rule_is_size_and_nothing_compiled_yet():
    from numba import njit

    from kernelkit._interpreted import INTERPRETED_MAX, interpreted, run_interpreted

    @njit
    def add_one(x):
        for i in range(x.shape[0]):
            x[i] += 1.0

    assert run_interpreted(INTERPRETED_MAX, add_one)
    assert not run_interpreted(INTERPRETED_MAX + 1, add_one)
    x = np.zeros(3)
    interpreted(add_one)(x)
    assert add_one.signatures == [] and x.tolist() == [1.0, 1.0, 1.0]
    add_one(x)
    assert not run_interpreted(1, add_one)  # compiled now: the machine code is free
    assert interpreted(len) is len  # not a numba function: itself
