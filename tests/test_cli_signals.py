"""Ctrl-C and SIGTERM in the ``kernelkit`` command (kernelkit.cli.signals): a main thread
stuck in a native call is ended by the watchdog, an interrupt during the command's imports
is one line and status 130, and a guard that ended stands its watchdog down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from benchmarks._rel_faults import interruptible

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _python(code: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible, **kw)


# a main thread stuck as in a native call that does not return: it blocks the signals (so
# that they reach the other thread, whose C handler wakes the watchdog) and sleeps; Python's
# handler still runs in it if the signal lands before the sleep begins, and is then ignored
STUCK = """
    import signal, sys, time
    from kernelkit._core import files
    from kernelkit.cli.signals import interrupt_guard
    tmp = sys.argv[1]
    with interrupt_guard(grace_s=1.0):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        files._PENDING_WRITES.add(tmp)
        open(tmp, "w").write("half a model")
        try:
            print("ready", flush=True)
            time.sleep(60)
        except KeyboardInterrupt:  # its handler ran before the sleep began: stay stuck
            time.sleep(60)
    print("the guard let the process run on", flush=True)
"""


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stuck_main_thread_is_ended_by_the_watchdog(tmp_path, sig, code):
    tmp = tmp_path / ".model.kkm.tmp"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(STUCK), str(tmp)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=interruptible)
    assert p.stdout.readline().strip() == "ready"
    t0 = time.monotonic()
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    took = time.monotonic() - t0
    assert p.returncode == code, err
    assert 0.9 <= took < 30, took  # after the grace period, not at once and not never
    assert "no partial output was left" in err and "a native call did not return" in err
    assert "the guard let" not in out
    assert not tmp.exists()  # the file being written was removed


def test_a_guard_that_ended_stands_its_watchdog_down():
    p = _python("""
        import os, signal, time
        from kernelkit.cli.signals import interrupt_guard
        with interrupt_guard(grace_s=0.3):
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
            except KeyboardInterrupt:
                pass
        time.sleep(1.0)  # past the grace period: the watchdog must not end the process
        print("still here")
    """)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0 and out.strip() == "still here", err


def test_an_interrupt_while_the_command_imports_is_one_line_and_130():
    # KeyboardInterrupt raised by the import of the subcommands' module, as Ctrl-C pressed
    # while NumPy and pandas load (a traceback and status -2 before the package split)
    p = _python("""
        import sys
        class Interrupting:
            def find_spec(self, name, path=None, target=None):
                if name == "kernelkit.cli.commands":
                    raise KeyboardInterrupt
        sys.meta_path.insert(0, Interrupting())
        from kernelkit.cli import main
        print(main(["info", "model.kkm"]))
    """)
    out, err = p.communicate(timeout=60)
    assert out.strip() == "130", err
    assert err.strip() == "kernelkit: interrupted; no partial output was left"


def test_the_package_stays_light():
    # the entry point imports no NumPy before its guard is in place
    p = _python("""
        import sys
        import kernelkit.cli
        print("numpy" in sys.modules)
    """)
    out, err = p.communicate(timeout=60)
    assert out.strip() == "False", err


def test_remove_pending_writes_removes_only_files_being_written(tmp_path):
    from kernelkit._core import files

    kept = tmp_path / "model.kkm"
    files.atomic_write(kept, lambda fh: fh.write(b"done"))
    half = tmp_path / ".half.tmp"
    half.write_bytes(b"half")
    files._PENDING_WRITES.add(str(half))
    try:
        assert files.remove_pending_writes() == [str(half)]
    finally:
        files._PENDING_WRITES.discard(str(half))
    assert kept.read_bytes() == b"done" and not half.exists()
    assert files.remove_pending_writes() == []
