"""The ``kernelkit`` command (also ``python -m kernelkit``).

::

    kernelkit demo [--out DIR] [--quick]
    kernelkit fit MODEL --data FILE --target COLUMN [--param NAME=VALUE ...] --out MODEL_FILE
    kernelkit predict --model MODEL_FILE --data FILE [--out FILE] [--std]
    kernelkit evaluate --model MODEL_FILE --data FILE --target COLUMN
    kernelkit info MODEL_FILE
    kernelkit warmup

Data files are CSV (``.csv``, ``.txt``, ``.tsv``) or Parquet (``.parquet``, ``.pq``), read
with pandas (the ``io`` extra), or sparse: a ``.npz`` matrix written by
``scipy.sparse.save_npz`` with ``--target`` naming a target file, or LibSVM/SVMlight text
(``.svm``, ``.svmlight``, ``.libsvm``) with its labels (:mod:`kernelkit.cli.sparse`).
Every error is one line on stderr and a non-zero exit status (2 for a malformed command
line, 1 otherwise); ``--debug`` shows the traceback. A command that fails writes nothing.

The package: :mod:`.commands` (the parser and the subcommands), :mod:`.data`,
:mod:`.sparse` and :mod:`.stream` (reading and writing data files), :mod:`.info` (model
files) and :mod:`.signals` (Ctrl-C and SIGTERM). This module stays light (no NumPy) so that
an interrupt arriving while the rest is imported still ends in one line and status 130.
"""

from __future__ import annotations

import sys

from .signals import finish, interrupt_guard, interrupted

__all__ = ["main", "run"]

# names of the subcommands' module offered here, imported on first use
_FROM_COMMANDS = {"CLIError", "build_parser", "parse_params", "dispatch"}


def main(argv: list[str] | None = None) -> int:
    """Run the ``kernelkit`` command with ``argv`` (default ``sys.argv[1:]``); returns the
    exit status. Ctrl-C or SIGTERM at any point, the imports included, gives one line on
    stderr, no partial output file and status 130 or 143 (:mod:`kernelkit.cli.signals`)."""
    try:
        with interrupt_guard():
            from .commands import dispatch

            return dispatch(argv)  # which handles an interrupt of the command itself
    except KeyboardInterrupt as exc:  # while the guard starts, or the subcommands import
        return interrupted(exc)


def run() -> None:
    """Entry point of the ``kernelkit`` program (console script and ``python -m kernelkit``):
    :func:`main`, then exit with its status (an interrupted command by ``os._exit``, after
    flushing its streams: :func:`kernelkit.cli.signals.finish`)."""
    code = main()
    if code in (130, 143):
        finish(code)
    sys.exit(code)


def __getattr__(name: str):
    if name in _FROM_COMMANDS:
        from . import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
