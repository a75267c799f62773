"""Small problems in a fresh process: no numba start, the same results (issue 35, point 2).

A fit on a few dozen rows runs its numba loops interpreted (``kernelkit._core.interpreted``): the
same source as CPython runs it. These tests check that such a fit compiles and loads nothing
(an empty numba cache stays empty), that the interpreted and compiled runs agree (to
rounding), and that a fit with kernelkit's own kernel does not import scikit-learn's GP module.
The seconds this saves are measured by ``benchmarks/bench_first_call.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import kernelkit._core.interpreted as interpreted_module
from kernelkit import (
    AdaBoost,
    GaussianProcessRegressor,
    KernelClassifier,
    KernelPCA,
    KernelPerceptron,
    KernelRegressor,
    MajorityVote,
    MulticlassSVM,
    OneClassSVM,
)
from kernelkit.ensemble import DecisionTree

FRESH = """
import json, os, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import kernelkit as kk
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, 0)
t = X @ np.arange(1.0, 5.0)
for est, target in ((kk.KernelClassifier(), y), (kk.OneClassSVM(nu=0.5), None),
                    (kk.KernelRegressor("epsilon_insensitive"), t), (kk.AdaBoost(), y),
                    (kk.MajorityVote([("a", "stump"), ("b", "tree")]), y),
                    (kk.ensemble.DecisionTree(max_depth=3), y),
                    (kk.KernelPCA(n_components=2, kernel="rbf"), None),
                    (kk.KernelPerceptron(), y), (kk.GaussianProcessRegressor(), t),
                    (kk.MulticlassSVM(), y + (X[:, 1] > 0))):
    est.fit(X) if target is None else est.fit(X, target)
    est.predict(X) if hasattr(est, "predict") else est.transform(X)
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


CASES = {
    "C-SVC": (lambda: KernelClassifier(alpha=0.01), "y"),
    "one-class": (lambda: OneClassSVM(nu=0.3), None),
    "eps-SVR": (lambda: KernelRegressor("epsilon_insensitive", alpha=0.01), "t"),
    "AdaBoost": (lambda: AdaBoost(n_estimators=20), "y"),
    "MajorityVote": (lambda: MajorityVote([("a", "stump"), ("b", "tree")]), "y"),
    "DecisionTree": (lambda: DecisionTree(max_depth=3), "y"),
    "KernelPCA": (lambda: KernelPCA(n_components=3, kernel="rbf"), None),
    "KernelPerceptron": (lambda: KernelPerceptron(random_state=0), "y"),
    "GaussianProcessRegressor": (lambda: GaussianProcessRegressor(), "t"),
    "MulticlassSVM": (lambda: MulticlassSVM(random_state=0), "y3"),
    "MulticlassSVM-CS": (lambda: MulticlassSVM(loss="crammer_singer", random_state=0), "y3"),
}


@pytest.mark.parametrize("n", [40, 64])
@pytest.mark.parametrize("case", list(CASES))
def test_interpreted_and_compiled_loops_agree(monkeypatch, case, n):
    make, kind = CASES[case]
    X, y, t = _data(n)
    target = {"y": y, "t": t, "y3": y + (X[:, 1] > 0), None: None}[kind]
    outputs = []
    for interpret in (True, False):
        # every pick() between a loop and its twin: interpreted, then compiled
        monkeypatch.setattr(interpreted_module, "run_interpreted",
                            lambda size, f, limit=0, i=interpret: i)
        est = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X) if target is None else est.fit(X, target)
        out = [est.predict(X) if hasattr(est, "predict") else est.transform(X)]
        if hasattr(est, "decision_function"):
            out.append(est.decision_function(X))
        outputs.append(out)
    for a, b in zip(*outputs):  # the same operations (KernelPCA's sums: in another order)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_the_rule_is_size_and_nothing_compiled_yet():
    from numba import njit

    from kernelkit._core.interpreted import INTERPRETED_MAX, interpreted, pick, run_interpreted

    @njit
    def add_one(x):
        for i in range(x.shape[0]):
            x[i] += 1.0

    assert run_interpreted(INTERPRETED_MAX, add_one)
    assert not run_interpreted(INTERPRETED_MAX + 1, add_one)
    assert pick(add_one, INTERPRETED_MAX + 1) is add_one
    x = np.zeros(3)
    pick(add_one, 3)(x)
    assert add_one.signatures == [] and x.tolist() == [1.0, 1.0, 1.0]
    add_one(x)
    assert not run_interpreted(1, add_one)  # compiled now: the machine code is free
    assert pick(add_one, 1) is add_one
    assert interpreted(len) is len  # not a numba function: itself


def test_float32_arguments_run_compiled():
    # numba types 2.0 * float32 as float64, NumPy 2 as float32: float32 calls are compiled
    from numba import njit

    from kernelkit._core.interpreted import interpreted

    @njit
    def twice_plus(x, out):
        for i in range(x.shape[0]):
            out[i] = 2.0 * x[i] + 1e-9

    x = np.full(2, 1.0, dtype=np.float32)
    out = np.zeros(2)
    interpreted(twice_plus)(x, out)
    assert twice_plus.signatures  # compiled for the float32 call
    assert out[0] == 2.0 * 1.0 + 1e-9  # in float64, as numba computes it


def test_many_small_calls_end_up_compiled(monkeypatch):
    # a loop picked interpreted again and again (a boosting fit's rounds) runs compiled once
    # its interpreted calls have taken INTERPRETED_SECONDS in the process
    from numba import njit

    import kernelkit._core.interpreted as im

    @njit
    def add_one(x):
        for i in range(x.shape[0]):
            x[i] += 1.0

    monkeypatch.setattr(im, "INTERPRETED_SECONDS", 1e-3)
    x = np.zeros(3)
    f = im.pick(add_one, 3)
    assert f is not add_one
    f(x)
    assert add_one.signatures == [] and 0.0 < im._SPENT[add_one] < 1e-3
    im._SPENT[add_one] += 1e-3  # as if its calls had taken the budget
    f = im.pick(add_one, 3)
    assert f is add_one  # then compiled, however small the call
    f(x)
    assert len(add_one.signatures) == 1 and x.tolist() == [2.0, 2.0, 2.0]
