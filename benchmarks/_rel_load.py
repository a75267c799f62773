"""Load and long use (reliability campaign, part "load").

- :func:`concurrent_predict`: one fitted model per public estimator, its outputs (predict,
  predict_proba, decision_function, transform, a GP's std) computed by 8 threads at once
  (a barrier makes them overlap), several rounds: equal to the sequential outputs.
- :func:`cycles_rss`: ``cycles`` fit/predict cycles of one estimator in a fresh process;
  the growth of its resident memory after a warm-up (target < 50 MB).
- :func:`csv_predict`: ``kernelkit predict`` on a CSV of ``mb`` megabytes in a subprocess,
  its peak resident memory polled from /proc; the output checked against in-process predict.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from ._reliability import Table

SRC = str(Path(__file__).resolve().parent.parent / "src")
ROOT = str(Path(__file__).resolve().parent.parent)


def _estimators():
    from kernelkit.utils import all_estimators

    return all_estimators()


def _make(cls):
    return cls(**cls._test_params[0]) if cls.__name__ == "MajorityVote" else cls()


def _data(cls, n=60, d=3, seed=0):
    from sklearn.base import is_classifier, is_regressor

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    est = _make(cls)
    if cls.__name__.startswith("MultiOutput"):
        return X, np.c_[np.sin(X[:, 0]), np.cos(X[:, 1])]
    if is_classifier(est):
        return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    if is_regressor(est):
        return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    return X, None


def _outputs(model, X):
    out = {}
    for method in ("predict", "predict_proba", "decision_function", "transform",
                   "score_samples"):
        f = getattr(model, method, None)
        if f is None:
            continue
        try:
            out[method] = np.asarray(f(X))
        except (AttributeError, ValueError, NotImplementedError):
            continue
    predict = getattr(model, "predict", None)
    if predict is not None and "return_std" in inspect.signature(predict).parameters:
        out["std"] = np.asarray(predict(X, return_std=True)[1])
    return out


def _equal(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if x.dtype.kind in "fc":
            if not np.allclose(x, y, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(y).max())):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def concurrent_predict(name: str, threads: int = 8, rounds: int = 5) -> dict:
    """Mismatches between threaded and sequential outputs of estimator ``name``."""
    cls = dict(_estimators())[name]
    X, y = _data(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = _make(cls).fit(X, y) if y is not None else _make(cls).fit(X)
    inputs = [np.random.default_rng(10 + t).normal(size=(40, X.shape[1]))
              for t in range(threads)]
    reference = [_outputs(model, Z) for Z in inputs]
    mismatches, errors = 0, []
    for r in range(rounds):
        barrier = threading.Barrier(threads)
        results: list = [None] * threads

        def work(t, r=r, barrier=barrier, results=results):
            barrier.wait()
            Z = inputs[0] if r % 2 else inputs[t]  # identical inputs on odd rounds
            try:
                results[t] = (_outputs(model, Z), 0 if r % 2 else t)
            except Exception as exc:  # noqa: BLE001 - reported
                results[t] = (exc, None)

        pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        for got, which in results:
            if which is None:
                errors.append(f"{type(got).__name__}: {got}")
                mismatches += 1
            elif not _equal(got, reference[which]):
                mismatches += 1
    return dict(name=name, calls=threads * rounds, mismatches=mismatches, errors=errors[:3])


# ------------------------------------------------------------------------- long use
_CYCLES = r"""
import gc, json, sys, warnings, resource
import numpy as np
sys.path.insert(0, {root!r})
from benchmarks._rel_load import _data, _estimators, _make, _outputs
warnings.simplefilter("ignore")
cls = dict(_estimators())[{name!r}]
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
def cycle(i):
    X, y = _data(cls, seed=i % 7)
    m = _make(cls).fit(X, y) if y is not None else _make(cls).fit(X)
    _outputs(m, X)
for i in range({warmup}):
    cycle(i)
# and once with every numba loop compiled (loaded from the cache): small problems run their
# loops interpreted until 0.1 s of it (kernelkit._core.interpreted), so the one-time load of
# the compiled code (~40 MB of numba and LLVM) would otherwise land inside the cycles
from kernelkit._core.interpreted import compiled
with compiled():
    for i in range(7):  # every data seed
        cycle(i)
gc.collect()
start = rss()
for i in range({cycles}):
    cycle(i)
gc.collect()
print(json.dumps(dict(start=start, end=rss())))
"""


def cycles_rss(name: str, cycles: int, warmup: int = 20) -> dict:
    code = _CYCLES.format(root=ROOT, name=name, cycles=cycles, warmup=warmup)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=3600)
    took = time.perf_counter() - t0
    if p.returncode != 0:
        return dict(name=name, growth_mb=float("nan"), seconds=took, error=p.stderr[-300:])
    r = json.loads(p.stdout.strip().splitlines()[-1])
    return dict(name=name, growth_mb=r["end"] - r["start"], rss_mb=r["end"], seconds=took,
                error="")


# ---------------------------------------------------------------------- a large CSV
BLOCK = 20000


def _write_big_csv(path: Path, mb: float, d: int = 8) -> tuple[int, list, list]:
    """A CSV of about ``mb`` MB: four formatted blocks of ``BLOCK`` rows written in turn
    (fast at 1 GB); returns (rows, the blocks' values, the order they were written in)."""
    rng = np.random.default_rng(0)
    blocks = [np.round(rng.normal(size=(BLOCK, d)), 6) for _ in range(4)]
    texts = ["\n".join(",".join(f"{v:.6f}" for v in row) for row in b) + "\n" for b in blocks]
    order = []
    with open(path, "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(d)) + "\n")
        while fh.tell() < mb * 2**20:
            order.append(len(order) % 4)
            fh.write(texts[order[-1]])
    return BLOCK * len(order), blocks, order


def _peak_rss_of(cmd: list[str], env) -> tuple[int, float, float, str]:
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    peak, t0 = 0.0, time.perf_counter()
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) / 1024)
        except OSError:
            pass
        time.sleep(0.02)
    err = p.stderr.read()
    return p.returncode, peak, time.perf_counter() - t0, err


def csv_predict(mb: float, chunk_rows: int, workdir: str) -> dict:
    """Predict a CSV of ``mb`` MB through the command; peak RSS, time, rows and a check."""
    import kernelkit
    from kernelkit import KernelRidge

    work = Path(workdir)
    rng = np.random.default_rng(1)
    Xtr = rng.normal(size=(300, 8))
    model = KernelRidge(kernel="rbf", gamma=0.1).fit(Xtr, np.sin(Xtr[:, 0]))
    kernelkit.save(model, work / "model.kkm")
    data = work / f"big_{mb:g}.csv"
    rows, blocks, order = _write_big_csv(data, mb)
    out = work / "pred.csv"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    rc, peak, took, err = _peak_rss_of(
        [sys.executable, "-m", "kernelkit", "predict", "--model", str(work / "model.kkm"),
         "--data", str(data), "--out", str(out), "--chunk-rows", str(chunk_rows)], env)
    checked, ok = 0, rc == 0
    if ok:
        import pandas as pd

        got = pd.read_csv(out)["prediction"].to_numpy()
        ok = len(got) == rows
        for i in sorted({0, 1, len(order) // 2, len(order) - 1}):  # first, middle, last
            want = model.predict(blocks[order[i]])
            ok = ok and np.allclose(got[i * BLOCK:(i + 1) * BLOCK], want, rtol=1e-12,
                                    atol=1e-12)
            checked += BLOCK
    size = data.stat().st_size / 2**20
    for f in (data, out):
        if f.exists():
            f.unlink()
    return dict(mb=size, rows=rows, peak_mb=peak, seconds=took, ok=ok, checked=checked,
                error=err.strip()[-300:] if rc else "")


# --------------------------------------------------------------------------- campaign
def campaign(size: int, jobs: int, seed: int) -> Table:
    names = [n for n, _ in _estimators()]
    rows, failures, details = [], 0, []
    conc = [concurrent_predict(n) for n in names]
    bad = [c for c in conc if c["mismatches"]]
    failures += len(bad)
    details += [f"threads {c['name']}: {c}" for c in bad]
    rows.append(["8 threads predicting on one fitted model (every estimator, 5 rounds)",
                 sum(c["calls"] for c in conc), f"{sum(c['mismatches'] for c in conc)} "
                 "mismatches with the sequential outputs", int(bool(bad))])
    with ProcessPoolExecutor(max(1, jobs)) as ex:
        cyc = list(ex.map(cycles_rss, names, [size] * len(names)))
    bad = [c for c in cyc if not c["growth_mb"] < 50]
    failures += len(bad)
    details += [f"cycles {c['name']}: {c}" for c in bad]
    worst = max(cyc, key=lambda c: c["growth_mb"] if np.isfinite(c["growth_mb"]) else 1e9)
    rows.append([f"{size} fit/predict cycles of each estimator (fresh process each)",
                 size * len(names), f"RSS growth max {worst['growth_mb']:.1f} MB "
                 f"({worst['name']}), median "
                 f"{np.median([c['growth_mb'] for c in cyc]):.1f} MB; "
                 f"{sum(c['seconds'] for c in cyc):.0f} s", len(bad)])
    mb = float(os.environ.get("KERNELKIT_FUZZ_CSV_MB", "1024"))
    with tempfile.TemporaryDirectory() as tmp:
        r = csv_predict(mb, 100_000, tmp)
    failures += not r["ok"]
    if not r["ok"]:
        details.append(f"csv: {r}")
    rows.append([f"kernelkit predict on a {r['mb']:.0f} MB CSV ({r['rows']:,} rows, "
                 "--chunk-rows 100000)", 1, f"peak RSS {r['peak_mb']:.0f} MB, "
                 f"{r['seconds']:.0f} s; {r['checked']:,} rows checked against in-process "
                 f"predict: {'equal' if r['ok'] else 'NOT EQUAL'}", int(not r["ok"])])
    table = Table("Load and long use", ["check", "calls / cycles / files", "figures",
                                        "failures"], rows, failures, details=details)
    table.notes = "Per-estimator RSS growth: " + ", ".join(
        f"{c['name']} {c['growth_mb']:.1f}" for c in cyc) + " (MB)."
    return table
