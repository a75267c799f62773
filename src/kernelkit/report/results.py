"""What the demo tour passes around: a section's output (:class:`Section`), the context a
section runs in (:class:`DemoContext`), and the record of the tour as run
(:class:`SectionResult`, :class:`DemoResult`).

A leaf module (it imports nothing from kernelkit): the package, the runner, the HTML writer
and the figures all read these types, so none of them needs another to know them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Section", "DemoContext", "SectionResult", "DemoResult"]


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


@dataclass
class SectionResult:
    """One section of the tour as run: its output, or how it failed."""

    name: str
    order: int
    title: str
    section: Section | None = None
    error: str | None = None  # one line
    traceback: str | None = None
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    figures_png: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class DemoResult:
    """What :func:`run_demo` returns."""

    sections: list[SectionResult]
    html_path: Path | None
    seconds: float
    quick: bool
    not_in_tour: list[str] = field(default_factory=list)
    summary_figures: list[tuple[str, bytes]] = field(default_factory=list)  # (caption, PNG)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.sections)

    @property
    def failed(self) -> list[SectionResult]:
        return [s for s in self.sections if not s.ok]
