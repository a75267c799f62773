"""Faults (issue 19, bounded profile of ``python -m benchmarks.fuzz --part faults``): a Dask
worker killed mid-fit, the command interrupted, problems past the available memory."""

from __future__ import annotations

import signal

import pytest

from benchmarks import _rel_faults as rel


@pytest.mark.parametrize("name", sorted(rel.memory_cases()))
def test_exact_methods_refuse_before_allocating(name):
    """At 10^6 points: InsufficientMemoryError at once, saying how much and what instead
    (KernelPCA and the GPs raised NumPy's raw "Unable to allocate 7.28 TiB")."""
    r = rel.memory_refusal(name)
    assert r["error"] == "InsufficientMemoryError", r
    assert "would need" in r["message"] and "available. Use " in r["message"]
    assert r["seconds"] < 1.0 and r["peak_mb"] < 100


def test_the_blockwise_solver_is_chosen_where_it_exists():
    from kernelkit.solvers.krr import choose_solver

    assert choose_solver("auto", 10**6, 8) == "cg"
    assert choose_solver("auto", 500, 8) == "cholesky"


def test_memory_check_reads_the_override(monkeypatch):
    from kernelkit._core.memory import available_memory, require_memory
    from kernelkit.exceptions import InsufficientMemoryError

    monkeypatch.setenv("KERNELKIT_AVAILABLE_MEMORY", str(2**27))
    assert available_memory() == 2**27
    with pytest.raises(InsufficientMemoryError, match="would need 256.0 MiB, but 128.0 MiB"):
        require_memory(2**28, "A test matrix")
    require_memory(2**26, "A test matrix")  # fits


@pytest.mark.parametrize("command", ["fit", "predict"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_command_leaves_no_output(tmp_path, command, sig):
    """SIGTERM killed the process without cleanup (a stray temporary file could stay); both
    signals now end in one line on stderr, a non-zero status and no file in the folder."""
    r = rel.cli_interrupted(command, sig, 3.0, str(tmp_path))
    assert r["rc"] == (130 if sig == signal.SIGINT else 143), r
    assert r["left"] == [], r
    assert len(r["stderr"].splitlines()) == 1 and "no partial output" in r["stderr"]


@pytest.mark.parametrize("kill_after", [0.05, 0.5])
def test_killed_dask_worker_gives_the_same_model_or_an_error(kill_after):
    """Killed while Y was broadcast (0.05 s), the fit hung: the scheduler kept trying to
    replicate to the dead worker. Now Y and the target parts are futures of tasks that hold
    their data, recomputed when their worker dies."""
    pytest.importorskip("distributed")
    cluster, client = rel.local_cluster()
    try:
        r = rel.dask_worker_killed(client, kill_after)
    finally:
        client.close()
        cluster.close()
    assert r["killed"], "the worker was not killed: the test tested nothing"
    assert r["outcome"] == "same model" or r["outcome"].startswith("error"), r
