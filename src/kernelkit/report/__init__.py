"""The demo report: a tour of every model on bundled data (``kernelkit demo``).

Each topic is a module in :mod:`kernelkit.report.sections` with ``ORDER`` (position in the
tour), ``TITLE`` and ``run(ctx: DemoContext) -> Section``. Sections are discovered, so a
model issue adds its section by adding a file; a section for a model that is not built
yet simply does not exist (never faked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Section", "DemoContext", "run_demo"]


@dataclass
class Section:
    """What one topic of the tour produced.

    Attributes
    ----------
    title : str
    rows : list of dict
        Table rows with keys ``model``, ``data``, ``metric``, ``ours`` and ``peer``
        (``peer`` is the scikit-learn number where one exists, else ``None``), and
        optionally ``seconds`` / ``peer_seconds``.
    figures : list of (caption, matplotlib.figure.Figure)
    text : str
        A short paragraph (plain text) shown above the figures.
    tables : list of (caption, header, rows)
        Extra tables printed in the terminal and the report: ``header`` is a list of
        column names, ``rows`` a list of lists of cells (numbers or strings).
    """

    title: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    figures: list[tuple[str, Any]] = field(default_factory=list)
    text: str = ""
    tables: list[tuple[str, list[str], list[list[Any]]]] = field(default_factory=list)


@dataclass
class DemoContext:
    """Passed to every section: ``quick`` mode, a seed and a progress callback."""

    quick: bool = False
    random_state: int = 0
    progress: Any = print


def __getattr__(name: str):
    if name == "run_demo":
        from .runner import run_demo

        return run_demo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
