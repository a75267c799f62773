"""Faults (reliability campaign, part "faults"): a Dask worker killed mid-fit, the command
interrupted, problems past the available memory.

- :func:`dask_worker_killed`: NystromKernelRidge on dask arrays on a 2-worker LocalCluster;
  one worker process is killed (SIGKILL) while the fit runs. The fit must return the
  coefficients of an undisturbed fit (Dask recomputes the lost chunks) or raise; never a
  different model.
- :func:`cli_interrupted`: ``kernelkit fit`` / ``kernelkit predict`` in a subprocess, sent
  SIGINT or SIGTERM while it works: it exits non-zero with one line on stderr and leaves no
  output file, finished or partial, and no temporary file beside it.
- :func:`memory_refusal`: exact methods on 10^6 points refuse at once, before allocating,
  saying how much they would need and what to use instead.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import numpy as np

from ._reliability import Table

HANG_S = 120.0
KW = dict(n_centers=60, alpha=1e-3, gamma=0.5, random_state=0, max_iter=40, tol=1e-10,
          working_memory=0.02)


def _data(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, d))
    return X, np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=n)


# ------------------------------------------------------------------------- dask worker
def dask_worker_killed(client, kill_after: float, n: int = 6000) -> dict:
    """Fit once undisturbed and once with a worker killed ``kill_after`` s into the fit."""
    import dask.array as da

    from kernelkit import NystromKernelRidge

    X, y = _data(n)
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500)
    t0 = time.perf_counter()
    ref = NystromKernelRidge(**KW).fit(Xd, yd)
    t_ref = time.perf_counter() - t0
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]

    def kill():
        time.sleep(kill_after)
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:  # pragma: no cover - already gone
            pass

    killer = threading.Thread(target=kill)
    killer.start()
    t0 = time.perf_counter()
    runner = ThreadPoolExecutor(1)
    try:  # a fit that does not end within HANG_S is a hang (a failure), not a wait
        model = runner.submit(NystromKernelRidge(**KW).fit, Xd, yd).result(timeout=HANG_S)
        outcome = "same model"
        diff = float(np.max(np.abs(model.dual_coef_ - ref.dual_coef_)) /
                     np.max(np.abs(ref.dual_coef_)))
        if not diff <= 1e-8:
            outcome = "DIFFERENT MODEL"
    except FutureTimeout:
        outcome, diff = "HANG", float("nan")
    except Exception as exc:  # noqa: BLE001 - a clear error is an allowed outcome
        outcome, diff = f"error: {type(exc).__name__}", float("nan")
    runner.shutdown(wait=False)
    took = time.perf_counter() - t0
    killer.join()
    # the nanny restarts the worker; wait for it (and for its pid) before the next round
    now = {}
    for _ in range(30):
        try:
            client.wait_for_workers(2, timeout=60)
            now = client.run(os.getpid)
            break
        except Exception:  # noqa: BLE001 - a worker still restarting: ask again
            time.sleep(1.0)
    return dict(outcome=outcome, rel_diff=diff, seconds=took, reference_s=t_ref,
                killed=victim not in now.values())


def local_cluster():
    import distributed

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    return cluster, distributed.Client(cluster)


# ---------------------------------------------------------------------------- the CLI
def interruptible() -> None:
    """Run in a child before it starts (``preexec_fn``): Ctrl-C's default disposition,
    whatever the parent's. A background job of a non-interactive shell starts with SIGINT
    ignored, its children inherit that, and Python then leaves SIGINT ignored: a signal test
    run that way would test nothing (the command ran to its end)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(__file__).resolve().parent.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-m", "kernelkit", *args], cwd=cwd, env=env,
                            preexec_fn=interruptible,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _write_csv(path, n, d=3, seed=0):
    X, y = _data(n, d, seed)
    header = ",".join([f"x{j}" for j in range(d)] + ["y"])
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="",
               fmt="%.6g")


def cli_interrupted(command: str, sig: int, delay: float, workdir: str) -> dict:
    """Run ``kernelkit fit`` (a slow GP) or ``kernelkit predict`` (a large file), send ``sig``
    after ``delay`` s (predict: once its output file has appeared, i.e. mid-write, however
    fast the machine), and report the exit status, stderr and what is left in out/."""
    work = Path(workdir)
    out = work / "out"
    out.mkdir(exist_ok=True)
    for f in out.iterdir():
        f.unlink()
    if command == "fit":
        data = work / "fit.csv"
        if not data.exists():
            _write_csv(data, 2500)
        args = ["fit", "GaussianProcessRegressor", "--data", str(data), "--target", "y",
                "--param", "n_restarts_optimizer=20", "--out", str(out / "model.kkm")]
    else:
        model = work / "model.kkm"
        if not model.exists():
            _write_csv(work / "small.csv", 300)
            p = _cli("fit", "KernelRidge", "--data", str(work / "small.csv"), "--target", "y",
                     "--param", "kernel=rbf", "--out", str(model), cwd=work)
            p.communicate(timeout=120)
        data = work / "big.csv"
        if not data.exists():
            _write_csv(data, 400_000)
        args = ["predict", "--model", str(model), "--data", str(data),
                "--out", str(out / "pred.csv"), "--chunk-rows", "20000"]
    proc = _cli(*args, cwd=work)
    deadline = time.monotonic() + (delay if command == "fit" else 120.0)
    while time.monotonic() < deadline and proc.poll() is None:
        if command == "predict" and any(out.iterdir()):
            break  # the first chunks are written: 20 chunks in all, most still to come
        time.sleep(0.01)
    if proc.poll() is not None:
        _, err = proc.communicate()
        return dict(rc=proc.returncode, stderr="finished before the signal: " + err.strip(),
                    left=sorted(os.listdir(out)))
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # pragma: no cover - a hang is the finding
        proc.kill()
        _, err = proc.communicate()
        return dict(rc=None, stderr="hung", left=sorted(os.listdir(out)))
    return dict(rc=proc.returncode, stderr=err.strip(), left=sorted(os.listdir(out)))


# ---------------------------------------------------------------------- memory budget
def memory_cases():
    from kernelkit import (
        GaussianProcessClassifier,
        GaussianProcessRegressor,
        KernelPCA,
        KernelRidge,
        MultiOutputGaussianProcessRegressor,
    )

    return {
        "GaussianProcessRegressor": (GaussianProcessRegressor(), "y"),
        "GaussianProcessClassifier": (GaussianProcessClassifier(), "labels"),
        "KernelRidge(solver='cholesky')": (KernelRidge(kernel="rbf", solver="cholesky"), "y"),
        "KernelPCA": (KernelPCA(kernel="rbf"), None),
        "MultiOutputGaussianProcessRegressor": (MultiOutputGaussianProcessRegressor(), "Y"),
    }


def memory_refusal(name: str, n: int = 1_000_000) -> dict:
    """Fit ``name`` on n x 1 data; returns the error, its time and the traced peak."""
    est, target = memory_cases()[name]
    X = np.linspace(0, 1, n)[:, None]
    y = {"y": X[:, 0], "labels": X[:, 0] > 0.5, "Y": np.c_[X, X], None: None}[target]
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        est.fit(X) if y is None else est.fit(X, y)
        error, message = None, ""
    except Exception as exc:  # noqa: BLE001 - classified by the caller
        error, message = type(exc).__name__, str(exc)
    took = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return dict(error=error, message=message, seconds=took, peak_mb=peak / 2**20)


# --------------------------------------------------------------------------- campaign
def campaign(size: int, jobs: int, seed: int) -> Table:
    rows, failures, details = [], 0, []
    cluster, client = local_cluster()
    try:
        res = [dask_worker_killed(client, t) for t in (0.05, 0.3, 0.8, 1.5, 2.5)]
    finally:
        client.close()
        cluster.close()
    bad = [r for r in res if r["outcome"] in ("DIFFERENT MODEL", "HANG")]
    failures += len(bad)
    outcomes = ", ".join(sorted({r["outcome"] for r in res}))
    diffs = [r["rel_diff"] for r in res if np.isfinite(r["rel_diff"])]
    rows.append(["Dask worker SIGKILLed mid NystromKernelRidge fit (kill at 0.05-2.5 s)", len(res),
                 outcomes, f"max rel. coef. diff {max(diffs) if diffs else float('nan'):.1e}; "
                 f"fit {min(r['seconds'] for r in res):.1f}-{max(r['seconds'] for r in res):.1f}"
                 f" s vs {res[0]['reference_s']:.1f} s undisturbed", len(bad)])
    with tempfile.TemporaryDirectory() as tmp:
        for command, delay in (("fit", 3.0), ("predict", 3.0)):
            for sig in (signal.SIGINT, signal.SIGTERM):
                r = cli_interrupted(command, sig, delay, tmp)
                ok = r["rc"] not in (0, None) and not r["left"] and len(
                    r["stderr"].splitlines()) == 1
                failures += not ok
                if not ok:
                    details.append(f"cli {command} {sig.name}: {r}")
                rows.append([f"kernelkit {command} sent {sig.name} after {delay:.0f} s", 1,
                             f"exit {r['rc']}, files left {len(r['left'])}",
                             r["stderr"][:90], int(not ok)])
    for name in memory_cases():
        r = memory_refusal(name)
        ok = r["error"] == "InsufficientMemoryError" and r["seconds"] < 1.0
        failures += not ok
        if not ok:
            details.append(f"memory {name}: {r}")
        rows.append([f"{name} on 10^6 points", 1, r["error"] or "fitted",
                     f"{r['seconds'] * 1e3:.0f} ms, peak {r['peak_mb']:.0f} MB: "
                     f"{r['message'][:70]}…", int(not ok)])
    return Table("Faults: a killed Dask worker, an interrupted command, memory",
                 ["fault", "runs", "outcome", "figures", "failures"], rows, failures,
                 details=details)
