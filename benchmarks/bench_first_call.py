"""First call: the first fit of each estimator in a fresh process, cold and warm numba cache.

Each estimator is fitted once on a small problem (60 rows, 4 features) in a fresh Python
process, three ways: ``cold`` with an empty numba cache (``NUMBA_CACHE_DIR`` set to a new
folder: every numba function it meets is compiled), ``warm`` in a second fresh process with
the cache the cold run wrote (what a user gets after ``make demo`` / ``make test`` /
``kernelkit warmup``), and its scikit-learn peer (the same method, or the nearest one where
scikit-learn has none, named in the table) in a fresh process too. Times are the ``fit``
call alone; the import of kernelkit (or scikit-learn) and of the estimator's module is
reported beside it. Targets: cold first fit ≤ 3 s of compilation is not met by every
estimator (see BENCHMARKS.md); warm first fit within 0.5 s of the peer's.

Run: ``flock /tmp/kk-cpu.lock .venv/bin/python -m benchmarks.bench_first_call``.
"""

from __future__ import annotations

import json
import os
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
print(json.dumps({{"import_s": t1 - t0, "fit_s": t2 - t1}}))
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


def measure(cases=CASES) -> list[dict]:
    """Cold, warm and peer first-fit seconds (one fresh process each) for every case."""
    out = []
    for name, ours, peer, label, kind in cases:
        with tempfile.TemporaryDirectory(prefix="kk-numba-") as cache:
            cold = _run(ours, OURS_IMPORTS, kind, cache)
            warm = _run(ours, OURS_IMPORTS, kind, cache)
            sk = _run(peer, PEER_IMPORTS, kind, cache)
        out.append(dict(name=name, peer=label, cold=cold, warm=warm, sk=sk))
        print(f"{name:<28s} cold {cold['fit_s']:6.2f} s  warm {warm['fit_s']:6.3f} s  "
              f"peer {sk['fit_s']:6.3f} s  (imports: ours {warm['import_s']:.2f} s, peer "
              f"{sk['import_s']:.2f} s)", flush=True)
    return out


def run(quick: bool = False) -> list[Row]:
    cases = CASES[:3] if quick else CASES
    rows = []
    for m in measure(cases):
        gap = m["warm"]["fit_s"] - m["sk"]["fit_s"]
        rows.append(Row(
            f"{m['name']}: warm first fit (cold {m['cold']['fit_s']:.2f} s)",
            m["warm"]["fit_s"], m["sk"]["fit_s"], peer=m["peer"],
            agree=f"warm − peer = {gap:+.3f} s",
            target="warm ≤ peer + 0.5 s: " + ("met" if gap <= 0.5 else "NOT met"),
            notes=(f"imports: ours {m['warm']['import_s']:.2f} s, peer "
                   f"{m['sk']['import_s']:.2f} s; cold = empty numba cache"),
        ))
    return rows


if __name__ == "__main__":
    from ._harness import print_rows

    print_rows(__doc__.splitlines()[0], run(quick="--quick" in sys.argv))
