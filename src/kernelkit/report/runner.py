"""Run the demo tour: discover the sections, run each with progress, write the report.

A section whose import or ``run`` fails (or that returns something other than a
:class:`~kernelkit.report.Section`) is *shown* as failed, in the terminal and in the HTML
with its traceback, and makes :func:`run_demo` report failure (``kernelkit demo`` then
exits non-zero): a broken section is a bug to fix, never hidden.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import io
import os
import pkgutil
import re
import sys
import textwrap
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import DemoContext, Section

__all__ = ["run_demo", "discover_sections", "accuracy_figure", "SectionResult", "DemoResult"]

SECTIONS_PACKAGE = "kernelkit.report.sections"
ROW_KEYS = ("model", "data", "metric", "ours", "peer")
DEMO_BUDGET_S = {True: 60.0, False: 600.0}  # targets: quick < 1 min, full < 10 min
SECTION_BUDGET_S = {True: 10.0, False: 60.0}
TABLE_COLUMNS = ("model", "data", "metric", "ours", "peer", "ours s", "peer s", "time ratio")


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


def _constants(origin: str | None) -> dict[str, Any]:
    """``ORDER``/``TITLE`` read from a module's source without importing it."""
    out: dict[str, Any] = {}
    if not origin or not origin.endswith(".py"):
        return out
    try:
        tree = ast.parse(Path(origin).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return out
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in ("ORDER", "TITLE"):
                try:
                    out[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    pass
    return out


def discover_sections(only: list[str] | None = None) -> list[tuple[int, str, str]]:
    """``(order, module name, title)`` of every section module, sorted by ``ORDER``."""
    pkg = importlib.import_module(SECTIONS_PACKAGE)
    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        if only and info.name not in only:
            continue
        spec = importlib.util.find_spec(f"{SECTIONS_PACKAGE}.{info.name}")
        consts = _constants(spec.origin if spec else None)
        order = consts.get("ORDER")
        order = order if isinstance(order, int) and not isinstance(order, bool) else 10**6
        title = consts.get("TITLE") if isinstance(consts.get("TITLE"), str) else info.name
        found.append((order, info.name, title))
    if only:
        unknown = sorted(set(only) - {name for _, name, _ in found})
        if unknown:
            known = ", ".join(sorted(info.name for info in pkgutil.iter_modules(pkg.__path__)
                                     if not info.name.startswith("_")))
            raise ValueError(f"unknown demo section {unknown[0]!r}; available: {known}")
    return sorted(found)


# ------------------------------------------------------------------------ formatting
def fmt(value: Any) -> str:
    """A table cell: 4 significant digits for floats, '—' for missing values."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) or hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0:
        v = float(value)
        if v != v:
            return "nan"
        if v == 0 or 1e-3 <= abs(v) < 1e5:
            return f"{v:.4g}"
        return f"{v:.3e}"
    return str(value)


def _seconds(value: Any) -> str:
    return "—" if value is None else f"{float(value):.3g}"


def row_cells(row: dict[str, Any]) -> list[str]:
    """Cells of a result row; ``time ratio`` is peer seconds / our seconds (> 1: we are
    faster)."""
    ours_s, peer_s = row.get("seconds"), row.get("peer_seconds")
    ratio = "—"
    if ours_s is not None and peer_s is not None and float(ours_s) > 0:
        ratio = f"{float(peer_s) / float(ours_s):.2g}x"
    return [fmt(row.get(k)) for k in ROW_KEYS] + [_seconds(ours_s), _seconds(peer_s), ratio]


def text_table(header: list[str], rows: list[list[str]], indent: str = "") -> str:
    widths = [len(h) for h in header]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    line = lambda cells: indent + "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    sep = indent + "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def _check_section(sec: Any, module: str) -> Section:
    if not isinstance(sec, Section):
        raise TypeError(f"{module}.run returned {type(sec).__name__}, not a Section")
    for i, row in enumerate(sec.rows):
        if not isinstance(row, dict):
            raise TypeError(f"row {i} is a {type(row).__name__}, not a dict")
        missing = [k for k in ROW_KEYS if k not in row]
        if missing:
            raise TypeError(f"row {i} lacks key(s) {', '.join(missing)}")
    for i, fig in enumerate(sec.figures):
        if not (isinstance(fig, tuple) and len(fig) == 2 and hasattr(fig[1], "savefig")):
            raise TypeError(f"figure {i} is not a (caption, matplotlib Figure) pair")
    return sec


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    return buf.getvalue()


def _close_all() -> None:
    """Close every pyplot figure a section left open (returned or not)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    plt.close("all")


# ----------------------------------------------------------------------------- running
def _run_one(name: str, order: int, title: str, quick: bool, seed: int, out: TextIO,
             debug: bool) -> SectionResult:
    res = SectionResult(name=name, order=order, title=title)
    start = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"      {time.perf_counter() - start:6.1f}s  {msg}", file=out, flush=True)

    ctx = DemoContext(quick=quick, random_state=seed, progress=progress)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="numba")
        try:
            module = importlib.import_module(f"{SECTIONS_PACKAGE}.{name}")
            res.title = getattr(module, "TITLE", title)
            sec = _check_section(module.run(ctx), name)
            res.section = sec
            res.title = sec.title or res.title
            res.figures_png = [(caption, _png(fig)) for caption, fig in sec.figures]
        except Exception as exc:  # noqa: BLE001 - every failure is reported, not raised
            res.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            res.traceback = traceback.format_exc()
            if debug:
                print(res.traceback, file=out)
        finally:
            _close_all()
    seen: dict[str, int] = {}
    for w in caught:
        key = f"{w.category.__name__}: {str(w.message).splitlines()[0] if str(w.message) else ''}"
        seen[key] = seen.get(key, 0) + 1
    res.warnings = [k if n == 1 else f"{k} (x{n})" for k, n in seen.items()]
    res.seconds = time.perf_counter() - start
    return res


def _print_section(res: SectionResult, out: TextIO, quick: bool) -> None:
    if not res.ok:
        print(f"      FAILED after {res.seconds:.1f}s: {res.error}", file=out, flush=True)
        return
    sec = res.section
    for caption, header, rows in sec.tables:
        print(f"      {caption}", file=out)
        print(text_table([str(h) for h in header], [[fmt(c) for c in r] for r in rows],
                         indent="      "), file=out)
    if sec.rows:
        print(text_table(list(TABLE_COLUMNS), [row_cells(r) for r in sec.rows],
                         indent="      "), file=out)
    for w in res.warnings[:5]:
        print(f"      warning: {w[:200]}", file=out)
    if len(res.warnings) > 5:
        print(f"      ... and {len(res.warnings) - 5} more warnings (see the report)", file=out)
    print(f"      done in {res.seconds:.1f}s ({len(res.figures_png)} figures)", file=out,
          flush=True)
    budget = SECTION_BUDGET_S[quick]
    if res.seconds > budget:
        print(f"      note: over the {budget:.0f} s a {'quick' if quick else 'full'} section "
              "should take", file=out, flush=True)


def _number(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if v == v else None


def accuracy_figure(results: list[SectionResult]):
    """One bar chart of every accuracy row of the tour (ours and the peer's where given):
    the multiclass, structured and binary accuracies side by side. ``None`` if no row
    reports an accuracy."""
    rows = []
    for r in results:
        if not r.ok:
            continue
        for row in r.section.rows:
            ours = _number(row.get("ours"))
            if "accuracy" not in str(row.get("metric", "")).lower() or ours is None:
                continue
            if not 0.0 <= ours <= 1.0:
                continue
            peer = _number(row.get("peer"))
            rows.append((str(row["model"]), str(row.get("data", "")), ours,
                         peer if peer is not None and 0.0 <= peer <= 1.0 else None))
    if not rows:
        return None
    import matplotlib.pyplot as plt
    import numpy as np

    n = len(rows)
    fig, ax = plt.subplots(figsize=(9.0, 0.38 * n + 1.2))
    pos = np.arange(n)[::-1]
    ax.barh(pos + 0.2, [r[2] for r in rows], height=0.4, color="#1f77b4", label="kernelkit")
    peers = [(p, r[3]) for p, r in zip(pos, rows) if r[3] is not None]
    if peers:
        ax.barh([p - 0.2 for p, _ in peers], [v for _, v in peers], height=0.4,
                color="#ff7f0e", label="peer (the table's peer column)")
    labels = [textwrap.shorten(f"{m} · {d}", 70, placeholder="…") for m, d, _, _ in rows]
    ax.set_yticks(pos, labels, fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel("test accuracy")
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _not_in_tour(results: list[SectionResult]) -> list[str]:
    """Public estimators that no row of the tour names (a missing section, not a failure)."""
    from ..utils import all_estimators

    text = " ".join(str(row.get("model", "")) for r in results if r.ok
                    for row in r.section.rows)
    words = set(re.findall(r"[A-Za-z_]\w*", text))
    return [name for name, _ in all_estimators() if name not in words]


def _preload() -> None:
    """Import the heavy libraries once, so that the first section's time is its own."""
    for module in ("sklearn.base", "sklearn.metrics", "scipy.linalg", "matplotlib.pyplot",
                   "kernelkit.kernels", "kernelkit.linalg", "kernelkit.datasets.loaders"):
        try:
            importlib.import_module(module)
        except ImportError:  # reported by the section that needs it
            pass


def run_demo(
    out_dir: str | os.PathLike = "kernelkit-report",
    *,
    quick: bool = False,
    only: list[str] | None = None,
    random_state: int = 0,
    stream: TextIO | None = None,
    debug: bool = False,
) -> DemoResult:
    """Run every demo section and write ``out_dir/report.html``.

    Parameters
    ----------
    out_dir : path, default="kernelkit-report"
    quick : bool, default=False
        Small data and few iterations: the whole tour in under a minute.
    only : list of str, optional
        Run only these section modules (e.g. ``["kernels"]``).
    random_state : int, default=0
    stream : text stream, default=sys.stdout
        Where progress and tables are printed.
    debug : bool
        Print the traceback of a failing section as it happens.

    Returns
    -------
    DemoResult
        ``.ok`` is False if any section failed; ``.html_path`` is the report.

    Examples
    --------
    >>> import io, tempfile
    >>> from kernelkit.report import run_demo
    >>> res = run_demo(tempfile.mkdtemp(), quick=True, only=["kernels"],
    ...                stream=io.StringIO())  # doctest: +SKIP
    >>> res.ok  # doctest: +SKIP
    True
    """
    from .html import write_html

    out = stream if stream is not None else sys.stdout
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
    except ImportError:
        print("note: matplotlib is not installed (pip install 'kernelkit[plot]'); sections "
              "that draw figures will fail.", file=out)
    start = time.perf_counter()
    found = discover_sections(only)
    out_dir = Path(out_dir)
    mode = "quick" if quick else "full"
    print(f"kernelkit demo ({mode}): {len(found)} sections -> {out_dir / 'report.html'}",
          file=out, flush=True)
    t0 = time.perf_counter()
    _preload()
    print(f"libraries loaded in {time.perf_counter() - t0:.1f}s", file=out, flush=True)
    results = []
    for i, (order, name, title) in enumerate(found, 1):
        print(f"[{i}/{len(found)}] {title} ({name})", file=out, flush=True)
        res = _run_one(name, order, title, quick, random_state, out, debug)
        _print_section(res, out, quick)
        results.append(res)
    seconds = time.perf_counter() - start
    result = DemoResult(sections=results, html_path=None, seconds=seconds, quick=quick)
    rows = [[r.name] + row_cells(row) for r in results if r.ok for row in r.section.rows]
    print("\nSummary: every model's headline number and its scikit-learn peer", file=out)
    if rows:
        print(text_table(["section", *TABLE_COLUMNS], rows), file=out)
    for r in result.failed:
        print(f"FAILED section {r.name}: {r.error}", file=out)
    try:
        fig = accuracy_figure(results)
        if fig is not None:
            result.summary_figures.append(
                ("Test accuracy of every classifier in the tour (multiclass, structured and "
                 "binary), ours and the peer of the same row on the same data.", _png(fig)))
    except Exception as exc:  # noqa: BLE001 - the summary figure is a convenience
        print(f"note: no accuracy summary figure ({type(exc).__name__}: {exc})", file=out)
    finally:
        _close_all()
    if only is None:
        result.not_in_tour = _not_in_tour(results)
        if result.not_in_tour:
            print(f"public estimators not in the tour yet: {', '.join(result.not_in_tour)}",
                  file=out)
    result.html_path = write_html(result, out_dir / "report.html")
    status = "all sections ok" if result.ok else f"{len(result.failed)} section(s) FAILED"
    print(f"\nreport: {result.html_path} ({len(results)} sections, {status}) "
          f"in {seconds:.1f}s", file=out, flush=True)
    if seconds > DEMO_BUDGET_S[quick]:
        print(f"note: the {mode} demo took {seconds:.0f} s; its target is under "
              f"{DEMO_BUDGET_S[quick]:.0f} s", file=out, flush=True)
    return result
