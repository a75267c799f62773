"""First call: import, first fit and first predict of each estimator in a fresh process.

Each estimator is fitted once on a small problem (60 rows, 4 features) and predicts (or
transforms / scores) those rows, in a fresh Python process, three ways: ``cold`` with an empty
numba cache (``NUMBA_CACHE_DIR`` set to a new folder: every numba function it meets is
compiled), ``warm`` in a fresh process with the cache the cold run wrote (what a user gets
after ``make demo`` / ``make test`` / ``kernelkit warmup``), and its scikit-learn peer (the
same method, or the nearest one where scikit-learn has none, named in the table) in a fresh
process too. The import (kernelkit or scikit-learn, and the estimator's module), the ``fit``
call and the first ``predict`` are timed separately; warm and peer are run interleaved
``--repeat`` times (default 3) and their medians reported, cold once per fresh cache.

Targets (issue 35): warm import + fit + predict <= the peer's + 0.5 s; cold fit + predict <=
warm fit + predict + 3 s.

Run: ``flock /tmp/kk-cpu.lock .venv/bin/python -m benchmarks.bench_first_call [NAME ...]
[--repeat=N]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

from ._harness import Row

# (name, kernelkit constructor, peer constructor, peer label, data kind)
CASES = [
    ("AdaBoost", "kk.AdaBoost()", "ensemble.AdaBoostClassifier()", "AdaBoostClassifier",
     "binary"),
    ("BayesianLinearRegression", "kk.BayesianLinearRegression()", "linear_model.BayesianRidge()",
     "BayesianRidge (nearest)", "regression"),
    ("GaussianProcessRegressor", "kk.GaussianProcessRegressor()",
     "gaussian_process.GaussianProcessRegressor()", "GaussianProcessRegressor", "regression"),
    ("KernelClassifier", "kk.KernelClassifier()", "svm.SVC()", "SVC", "binary"),
    ("KernelClassifier(logistic)", "kk.KernelClassifier('logistic')", "svm.SVC()",
     "SVC (nearest)", "binary"),
    ("KernelPCA", "kk.KernelPCA(n_components=2, kernel='rbf')",
     "decomposition.KernelPCA(n_components=2, kernel='rbf')", "KernelPCA", "none"),
    ("KernelPerceptron", "kk.KernelPerceptron()", "linear_model.Perceptron()",
     "Perceptron (nearest)", "binary"),
    ("KernelRegressor", "kk.KernelRegressor('epsilon_insensitive')", "svm.SVR()", "SVR",
     "regression"),
    ("KernelRidge", "kk.KernelRidge(kernel='rbf')", "kernel_ridge.KernelRidge(kernel='rbf')",
     "KernelRidge", "regression"),
    ("KernelRidgeCV", "kk.KernelRidgeCV(kernel='rbf')",
     "linear_model.RidgeCV()", "RidgeCV (nearest)", "regression"),
    ("LinearRegression", "kk.LinearRegression()", "linear_model.LinearRegression()",
     "LinearRegression", "regression"),
    ("MajorityVote", "kk.MajorityVote([('a', 'stump'), ('b', 'tree')])",
     "ensemble.VotingClassifier([('a', tree.DecisionTreeClassifier(max_depth=1)), "
     "('b', tree.DecisionTreeClassifier(max_depth=3))])", "VotingClassifier", "binary"),
    ("MulticlassSVM", "kk.MulticlassSVM()", "svm.SVC()", "SVC (nearest)", "multiclass"),
    ("Nystroem", "kk.Nystroem(n_components=20)", "kernel_approximation.Nystroem(n_components=20)",
     "Nystroem", "none"),
    ("NystromKernelRidge", "kk.NystromKernelRidge(n_centers=20)",
     "pipeline.make_pipeline(kernel_approximation.Nystroem(n_components=20), "
     "linear_model.Ridge())", "Nystroem + Ridge", "regression"),
    ("OneClassSVM", "kk.OneClassSVM(nu=0.5)", "svm.OneClassSVM(nu=0.5)", "OneClassSVM",
     "none"),
    ("RandomFourierFeatures", "kk.RandomFourierFeatures(n_components=20)",
     "kernel_approximation.RBFSampler(n_components=20)", "RBFSampler", "none"),
    ("Ridge", "kk.Ridge()", "linear_model.Ridge()", "Ridge", "regression"),
    ("DecisionTree", "kk.ensemble.DecisionTree(max_depth=3)",
     "tree.DecisionTreeClassifier(max_depth=3)", "DecisionTreeClassifier", "multiclass"),
    ("StructuredSVM(multiclass)",
     "kk.structured.StructuredSVM(kk.structured.MulticlassOracle())",
     "svm.LinearSVC(multi_class='crammer_singer')", "LinearSVC crammer_singer (nearest)",
     "multiclass"),
]

SCRIPT = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
kind = {kind!r}
y = {{"binary": np.where(X[:, 0] > 0, 1, 0), "multiclass": np.digitize(X[:, 0], [-0.4, 0.4]),
      "regression": X @ np.arange(1.0, 5.0), "none": None}}[kind]
t0 = time.perf_counter()
{imports}
est = {make}
t1 = time.perf_counter()
est.fit(X) if y is None else est.fit(X, y)
t2 = time.perf_counter()
(est.predict if hasattr(est, "predict") else est.transform)(X)
t3 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "fit_s": t2 - t1, "predict_s": t3 - t2}}))
"""
OURS_IMPORTS = "import kernelkit as kk\nimport kernelkit.ensemble, kernelkit.structured"
PEER_IMPORTS = ("from sklearn import (decomposition, ensemble, gaussian_process, kernel_ridge,"
                " kernel_approximation, linear_model, pipeline, svm, tree)")


def _run(make: str, imports: str, kind: str, cache_dir: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    code = SCRIPT.format(kind=kind, imports=imports, make=make)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{make}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _total(r: dict) -> float:
    return r["import_s"] + r["fit_s"] + r["predict_s"]


def _median_run(runs: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def measure(cases=CASES, repeat: int = 3) -> list[dict]:
    """Cold, warm and peer seconds (import, fit, predict; one fresh process each) for every
    case: cold once, warm and peer ``repeat`` times interleaved (medians)."""
    from kernelkit.warmup import compile_bytecode

    # kernelkit's bytecode, as pip writes it for scikit-learn (an editable install has none,
    # and under PYTHONDONTWRITEBYTECODE every process would compile our sources again)
    compile_bytecode()
    out = []
    for name, ours, peer, label, kind in cases:
        with tempfile.TemporaryDirectory(prefix="kk-numba-") as cache:
            cold = _run(ours, OURS_IMPORTS, kind, cache)
            warms, sks = [], []
            for _ in range(repeat):
                warms.append(_run(ours, OURS_IMPORTS, kind, cache))
                sks.append(_run(peer, PEER_IMPORTS, kind, cache))
        warm, sk = _median_run(warms), _median_run(sks)
        out.append(dict(name=name, peer=label, cold=cold, warm=warm, sk=sk))
        print(f"{name:<28s} import/fit/predict: warm {warm['import_s']:.2f}/{warm['fit_s']:.3f}/"
              f"{warm['predict_s']:.3f} s, peer {sk['import_s']:.2f}/{sk['fit_s']:.3f}/"
              f"{sk['predict_s']:.3f} s, cold fit+predict "
              f"{cold['fit_s'] + cold['predict_s']:.2f} s", flush=True)
    return out


def run(quick: bool = False, repeat: int = 3, cases=None) -> list[Row]:
    cases = CASES if cases is None else cases
    cases = cases[:3] if quick else cases
    rows = []
    for m in measure(cases, repeat):
        warm, sk, cold = m["warm"], m["sk"], m["cold"]
        gap = _total(warm) - _total(sk)
        first = warm["fit_s"] + warm["predict_s"]
        cold_extra = cold["fit_s"] + cold["predict_s"] - first
        met = gap <= 0.5 and cold_extra <= 3.0
        rows.append(Row(
            f"{m['name']}: import + first fit + first predict, warm cache", _total(warm),
            _total(sk), peer=m["peer"],
            agree=f"warm − peer = {gap:+.2f} s; cold − warm (fit + predict) = "
                  f"{cold_extra:+.2f} s",
            target="≤ peer + 0.5 s, cold ≤ warm + 3 s: " + ("met" if met else "NOT met"),
            notes=(f"import / fit / predict: ours {warm['import_s']:.2f} / {warm['fit_s']:.3f}"
                   f" / {warm['predict_s']:.3f} s, peer {sk['import_s']:.2f} / "
                   f"{sk['fit_s']:.3f} / {sk['predict_s']:.3f} s; cold fit "
                   f"{cold['fit_s']:.2f} s, predict {cold['predict_s']:.2f} s"),
        ))
    return rows


if __name__ == "__main__":
    from ._harness import print_rows

    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    cases = [c for c in CASES if not only or c[0] in only]
    repeat = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("--repeat=")), 3)
    print_rows(__doc__.splitlines()[0], run(quick="--quick" in sys.argv, repeat=repeat,
                                            cases=cases))
