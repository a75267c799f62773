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
import time
import traceback
import warnings
from pathlib import Path
from typing import Any, TextIO

from .figures import accuracy_figure
from .results import DemoContext, DemoResult, Section, SectionResult
from .tables import (
    NUMERIC_FROM,
    REFERENCE_COLUMNS,
    ROW_KEYS,
    TABLE_COLUMNS,
    fit_table,
    fmt,
    reference_cells,
    row_cells,
    summary_text,
    terminal_width,
    wrap,
)

__all__ = ["run_demo", "discover_sections", "accuracy_figure", "SectionResult", "DemoResult"]

SECTIONS_PACKAGE = "kernelkit.report.sections"
HEARTBEAT_S = 10.0  # a long section prints a line at least this often
DEMO_BUDGET_S = {True: 60.0, False: 600.0}  # targets: quick < 1 min, full < 10 min
SECTION_BUDGET_S = {True: 10.0, False: 60.0}
IND = "      "  # a section's lines are indented under its "[i/n] title" line


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
class _Heartbeat:
    """Prints "... still running" when a section has printed nothing for ``every`` seconds."""

    def __init__(self, out: TextIO, start: float, label: str, every: float = HEARTBEAT_S,
                 width: int = 100):
        import threading

        self.out, self.start, self.label, self.every = out, start, label, every
        self.width = width
        self.last = time.perf_counter()
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def say(self, msg: str) -> None:
        with self.lock:
            head = f"{IND}{time.perf_counter() - self.start:6.1f}s  "
            print(wrap(msg, self.width, head, " " * len(head)), file=self.out, flush=True)
            self.last = time.perf_counter()

    def _beat(self) -> None:
        while not self.done.wait(0.5):
            if time.perf_counter() - self.last >= self.every:
                self.say(f"... still running {self.label}")

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def _warning_key(w: warnings.WarningMessage) -> str:
    text = str(w.message).splitlines()[0].strip() if str(w.message).strip() else ""
    if not text:  # a warning without a message: say where it came from instead
        text = f"(no message; raised at {Path(w.filename).name}:{w.lineno})"
    return f"{w.category.__name__}: {text}"


def _run_one(name: str, order: int, title: str, quick: bool, seed: int, out: TextIO,
             debug: bool, width: int = 100) -> SectionResult:
    res = SectionResult(name=name, order=order, title=title)
    start = time.perf_counter()
    with (_Heartbeat(out, start, name, width=width) as beat,
          warnings.catch_warnings(record=True) as caught):
        ctx = DemoContext(quick=quick, random_state=seed, progress=beat.say)
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
        key = _warning_key(w)
        seen[key] = seen.get(key, 0) + 1
    res.warnings = [k if n == 1 else f"{k} (x{n})" for k, n in seen.items()]
    res.seconds = time.perf_counter() - start
    return res


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _print_section(res: SectionResult, out: TextIO, quick: bool, width: int = 100) -> None:
    """A section's tables, warnings and time, every line at most ``width`` columns (a table
    too wide for one line a row takes two: see :func:`~kernelkit.report.tables.fit_table`)."""
    def say(text: str) -> None:
        print(wrap(text, width, IND, IND + "  "), file=out, flush=True)

    if not res.ok:
        say(f"FAILED after {res.seconds:.1f}s: {res.error}")
        return
    sec = res.section
    for caption, header, rows in sec.tables:
        say(caption)
        print(fit_table([str(h) for h in header], [[fmt(c) for c in r] for r in rows], width,
                        indent=IND), file=out)
    if sec.rows:
        print(fit_table(list(TABLE_COLUMNS), [row_cells(r) for r in sec.rows], width,
                        indent=IND, right_from=NUMERIC_FROM, lead=2), file=out)
    refs = [c for c in map(reference_cells, sec.rows) if c is not None]
    if refs:
        say("instructive references (a different method, not a peer):")
        print(fit_table(list(REFERENCE_COLUMNS), refs, width, indent=IND, right_from=3),
              file=out)
    for w in res.warnings[:5]:
        say(f"warning: {w[:200]}")
    if len(res.warnings) > 5:
        say(f"... and {len(res.warnings) - 5} more warnings (see the report)")
    say(f"done in {res.seconds:.1f}s ({_plural(len(res.figures_png), 'figure')})")
    budget = SECTION_BUDGET_S[quick]
    if res.seconds > budget:
        say(f"note: over the {budget:.0f} s a {'quick' if quick else 'full'} section should "
            "take")


def _not_in_tour(results: list[SectionResult]) -> list[str]:
    """Public estimators that no row of the tour names (a missing section, not a failure)."""
    from ..utils import all_estimators

    text = " ".join(str(row.get(key, "")) for r in results if r.ok
                    for row in r.section.rows for key in ("model", "peer_name"))
    words = set(re.findall(r"[A-Za-z_]\w*", text))
    return [name for name, _ in all_estimators() if name not in words]


def _use_agg(out: TextIO, width: int = 100) -> None:
    """Draw off-screen (PNG into the report)."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
    except ImportError:
        print(wrap("note: matplotlib is not installed (pip install 'kernelkit[plot]'); "
                   "sections that draw figures will fail.", width), file=out)


def _prepare(out: TextIO, quick: bool, warm: bool, width: int = 100) -> None:
    """Import the heavy libraries and load (or, the first time, compile) kernelkit's numba
    code, so that every section's times are the methods' own."""
    for module in ("sklearn.base", "sklearn.metrics", "scipy.linalg", "matplotlib.pyplot",
                   "kernelkit.kernels", "kernelkit.linalg", "kernelkit.datasets.loaders"):
        try:
            importlib.import_module(module)
        except ImportError:  # reported by the section that needs it
            pass
    if not warm:
        return
    from ..warmup import warm_up

    t0 = time.perf_counter()
    print(wrap("loading kernelkit's compiled numba code (compiling it once if this "
               "environment has no cache yet; `kernelkit warmup` does this at install)", width),
          file=out, flush=True)
    with _Heartbeat(out, t0, "the warm-up", width=width) as beat:
        try:
            warm_up(parallel=not quick)  # parallel twins only run on the full tour's sizes
            beat.say("numba code ready")
        except Exception as exc:  # noqa: BLE001 - sections then compile on first use
            beat.say(f"warm-up failed ({type(exc).__name__}: {exc}); sections compile "
                     "their numba code as they go, and their first times include it")


def _with_path(head: str, tail: str, width: int) -> str:
    """``head tail`` on one line if it fits, else ``head`` and then ``tail`` indented (a
    file path is never broken)."""
    line = f"{head} {tail}"
    if len(line) <= width:
        return line
    return "\n".join([wrap(head, width, keep_words=True), wrap(tail, width, "  ",
                                                              keep_words=True)])


def _summarize(result: DemoResult, out: TextIO, width: int = 100) -> None:
    """The terminal summary, the accuracy chart and the list of models not in the tour."""
    groups = [(r.title, r.section.rows) for r in result.sections if r.ok]
    text = summary_text(groups, width=width)
    print("\n" + wrap("Summary: each model's headline number next to its peer (the same "
                      "method in scikit-learn)", width), file=out)
    if text:
        print(text, file=out)
    for r in result.failed:
        print(wrap(f"FAILED section {r.name}: {r.error}", width, "", "  "), file=out)
    try:
        fig = accuracy_figure(result.sections)
        if fig is not None:
            result.summary_figures.append(
                ("Test accuracy of every classifier in the tour (multiclass, structured and "
                 "binary): kernelkit's and, on the same line, its peer's (the same method in "
                 "scikit-learn) on the same data.", _png(fig)))
    except Exception as exc:  # noqa: BLE001 - the summary figure is a convenience
        print(wrap(f"note: no accuracy summary figure ({type(exc).__name__}: {exc})", width),
              file=out)
    finally:
        _close_all()


def run_demo(
    out_dir: str | os.PathLike = "kernelkit-report",
    *,
    quick: bool = False,
    only: list[str] | None = None,
    random_state: int = 0,
    stream: TextIO | None = None,
    debug: bool = False,
    warm_up: bool = True,
    width: int | None = None,
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
    warm_up : bool, default=True
        First fit every estimator on a tiny problem (:func:`kernelkit.warmup.warm_up`), so
        that no section's times include numba compilation.
    width : int, optional
        Columns of the terminal output: every line fits (tables too wide take two lines a
        row). Default: the terminal's width, 100 when the output is not a terminal, at
        least 80.

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
    width = terminal_width() if width is None else int(width)
    _use_agg(out, width)
    start = time.perf_counter()
    found = discover_sections(only)
    out_dir = Path(out_dir)
    mode = "quick" if quick else "full"
    print(_with_path(f"kernelkit demo ({mode}): {len(found)} sections ->",
                     str(out_dir / "report.html"), width), file=out, flush=True)
    _prepare(out, quick, warm_up, width)
    results = []
    for i, (order, name, title) in enumerate(found, 1):
        print(wrap(f"[{i}/{len(found)}] {title} ({name})", width, "", IND), file=out,
              flush=True)
        res = _run_one(name, order, title, quick, random_state, out, debug, width)
        _print_section(res, out, quick, width)
        results.append(res)
    seconds = time.perf_counter() - start
    result = DemoResult(sections=results, html_path=None, seconds=seconds, quick=quick)
    _summarize(result, out, width)
    if only is None:
        result.not_in_tour = _not_in_tour(results)
        if result.not_in_tour:
            print(wrap(f"public estimators not in the tour yet: "
                       f"{', '.join(result.not_in_tour)}", width, "", "  "), file=out)
    result.html_path = write_html(result, out_dir / "report.html")
    _print_closing(result, out, width)
    return result


def _print_closing(result: DemoResult, out: TextIO, width: int) -> None:
    """The demo's last lines: where the report is, the sections' status, the time (and a
    note when it is over the mode's budget)."""
    mode, seconds = ("quick" if result.quick else "full"), result.seconds
    status = "all sections ok" if result.ok else f"{len(result.failed)} section(s) FAILED"
    print("\n" + _with_path(f"report: {result.html_path}",
                            f"({len(result.sections)} sections, {status}) in {seconds:.1f}s",
                            width), file=out, flush=True)
    if seconds > DEMO_BUDGET_S[result.quick]:
        print(wrap(f"note: the {mode} demo took {seconds:.0f} s; its target is under "
                   f"{DEMO_BUDGET_S[result.quick]:.0f} s", width), file=out, flush=True)
