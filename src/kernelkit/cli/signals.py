"""Ctrl-C and SIGTERM for the ``kernelkit`` command: always an end, and never a partial file.

Python turns SIGINT into ``KeyboardInterrupt`` (and the command turns SIGTERM into
:class:`Terminated`, a ``KeyboardInterrupt`` too), raised in the main thread at its next
bytecode. The command's handler then removes the file being written
(:func:`kernelkit._core.files.atomic_write`) and exits with status 130 (143 for SIGTERM).

A native library that does not return leaves that exception waiting forever: the suite once
saw a multithreaded LAPACK call (OpenBLAS potri) never come back after a SIGINT reached the
process in the middle of it, about one run in 250. :func:`interrupt_guard` therefore also
watches for the signal from a second thread (``signal.set_wakeup_fd``): when the command has
not ended ``GRACE_S`` seconds after it, that thread removes the files being written, prints
the same one line, and ends the process with the same status.

Examples
--------
>>> import signal
>>> from kernelkit.cli.signals import exit_status
>>> exit_status(signal.SIGINT), exit_status(signal.SIGTERM)
(130, 143)
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from .._core.files import remove_pending_writes

__all__ = ["GRACE_S", "Terminated", "exit_status", "finish", "interrupt_guard",
           "interrupted", "message"]

#: seconds the main thread has, after a signal, to end the command itself
GRACE_S = 5.0


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that a model or prediction file being written is
    removed (``_core.files.atomic_write``) instead of left half-written."""


def _on_sigterm(signum, frame):
    raise Terminated()


def exit_status(signum: int) -> int:
    """The shell's status for a command ended by ``signum``: 128 + its number."""
    return 128 + int(signum)


def message(signum: int) -> str:
    """The one line the command prints when ``signum`` ended it."""
    if signum == signal.SIGTERM:
        return "kernelkit: terminated (SIGTERM); no partial output was left"
    return "kernelkit: interrupted; no partial output was left"


def interrupted(exc: KeyboardInterrupt) -> int:
    """Print the one line for the interrupt ``exc`` (Ctrl-C, or SIGTERM as
    :class:`Terminated`) and return its exit status."""
    signum = signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT
    print(message(signum), file=sys.stderr)
    return exit_status(signum)


def finish(code: int) -> None:
    """End the process with ``code`` after flushing its streams (``os._exit``: with a plain
    ``sys.exit`` the interpreter sometimes ended itself by SIGINT after the interrupt had
    been handled, exit status -2 instead of 130, about one run in ten)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # pragma: no cover - a closed or broken stream
            pass
    os._exit(code)


def _watch(read_fd: int, done: threading.Event, grace_s: float) -> None:
    """The watchdog thread: wait for a SIGINT/SIGTERM byte on ``read_fd``, then give the
    main thread ``grace_s`` seconds (until ``done``) before ending the process itself."""
    try:
        signum = _wait_for_signal(read_fd)
    finally:
        os.close(read_fd)
    if signum is None or done.wait(grace_s):
        return  # the command ended (normally, or by its own handler)
    remove_pending_writes()
    print(f"{message(signum)} (ended after {grace_s:g} s: a native call did not return)",
          file=sys.stderr)
    finish(exit_status(signum))


def _wait_for_signal(read_fd: int) -> int | None:
    """The first SIGINT or SIGTERM number written to the wakeup descriptor; None at its
    end (the guard closed it)."""
    while True:
        data = os.read(read_fd, 64)
        if not data:
            return None
        for signum in data:
            if signum in (signal.SIGINT, signal.SIGTERM):
                return signum


@contextlib.contextmanager
def interrupt_guard(grace_s: float = GRACE_S):
    """Inside: SIGTERM raises :class:`Terminated`, and a SIGINT or SIGTERM that the main
    thread has not turned into the end of the command within ``grace_s`` seconds ends the
    process from a watchdog thread (partial files removed, status 130 or 143).

    In another thread than the main one nothing changes; ``grace_s=None`` keeps the SIGTERM
    handler without the watchdog. The previous SIGTERM handler and wakeup descriptor are
    restored on the way out, and the watchdog stands down.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    done = threading.Event()
    previous = signal.getsignal(signal.SIGTERM)
    write_fd = old_wakeup = None
    try:  # the set-up inside: an interrupt arriving during it still undoes what was done
        signal.signal(signal.SIGTERM, _on_sigterm)
        if grace_s is not None:
            read_fd, write_fd = os.pipe()
            os.set_blocking(write_fd, False)
            old_wakeup = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
            threading.Thread(target=_watch, args=(read_fd, done, grace_s), daemon=True,
                             name="kernelkit-interrupt-watchdog").start()
        yield
    finally:
        done.set()
        if write_fd is not None:
            signal.set_wakeup_fd(-1 if old_wakeup is None else old_wakeup)
            os.close(write_fd)  # the watchdog reads end-of-file and returns
        signal.signal(signal.SIGTERM, previous)
