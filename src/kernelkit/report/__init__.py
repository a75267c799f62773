"""The demo report: a tour of every model on bundled data (``kernelkit demo``).

Each topic is a module in :mod:`kernelkit.report.sections` with ``ORDER`` (position in the
tour), ``TITLE`` and ``run(ctx: DemoContext) -> Section``. Sections are discovered, so a
model issue adds its section by adding a file; a section for a model that is not built
yet simply does not exist (never faked).
"""

from __future__ import annotations

from .results import DemoContext, Section

__all__ = ["Section", "DemoContext", "run_demo"]


def __getattr__(name: str):
    if name == "run_demo":
        from .runner import run_demo

        return run_demo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
