"""The self-contained HTML report: inline CSS, figures as base64 PNG, no scripts."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import os
import platform
from pathlib import Path
from typing import TYPE_CHECKING

from .._core.files import atomic_write
from .tables import (
    NUMERIC_FROM,
    REFERENCE_COLUMNS,
    TABLE_COLUMNS,
    fmt,
    is_number,
    reference_cells,
    row_cells,
)

if TYPE_CHECKING:
    from .results import DemoResult, SectionResult

__all__ = ["write_html", "render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1100px;padding:0 1em;color:#1b1b1b;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
.meta{color:#555;font-size:.9em}
table{border-collapse:collapse;margin:.8em 0;font-size:.85em;max-width:100%}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
td{overflow-wrap:break-word}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap;overflow-wrap:normal}
th{background:#f2f2f2}
tr.group th{background:#e4ebf5;text-align:left;font-size:1.05em}
table.results{width:100%}
figure{margin:1em 0;display:inline-block;vertical-align:top;max-width:100%}
figure img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:.9em;color:#444;max-width:640px}
.failed{border-left:4px solid #c0392b;padding-left:.8em}
.failed h2{color:#c0392b}
.status-ok{color:#1e7d32}.status-failed{color:#c0392b;font-weight:bold}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.85em}
.warn{color:#8a5a00;font-size:.9em}
nav ol{columns:2;column-gap:4em}
@media (max-width:1000px){nav ol{columns:1}table{font-size:.8em}th,td{padding:.2em .35em}
td{overflow-wrap:anywhere}}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _cell(c: str, numeric: bool, tag: str = "td") -> str:
    return f'<{tag} class="num">{_e(c)}</{tag}>' if numeric else f"<{tag}>{_e(c)}</{tag}>"


def _table(header, rows, numeric_from: int | None = None, *, groups=None,
           cls: str = "") -> str:
    """An HTML table. Columns from ``numeric_from`` on hold numbers (right-aligned, never
    broken); without it a cell is numeric when its value is a number. ``groups`` (a list of
    ``(title, rows)``) puts one header row per group instead of a repeated column."""
    attr = f' class="{cls}"' if cls else ""
    ncol = len(header)

    def numeric(j, value):
        return is_number(value) if numeric_from is None else j >= numeric_from

    out = [f"<table{attr}><thead><tr>"]
    out += [_cell(h, numeric_from is not None and j >= numeric_from, "th")
            for j, h in enumerate(header)]
    out.append("</tr></thead>")
    for title, block in (groups if groups is not None else [(None, rows)]):
        out.append("<tbody>")
        if title is not None:
            out.append(f'<tr class="group"><th colspan="{ncol}">{_e(title)}</th></tr>')
        for r in block:
            out.append("<tr>" + "".join(_cell(fmt(c), numeric(j, c)) for j, c in enumerate(r))
                       + "</tr>")
        out.append("</tbody>")
    out.append("</table>")
    return "".join(out)


def _results_tables(rows) -> list[str]:
    """A section's result table, and its table of instructive references (if any)."""
    parts = [_table(TABLE_COLUMNS, [row_cells(r) for r in rows], NUMERIC_FROM,
                    cls="results")]
    refs = [c for c in map(reference_cells, rows) if c is not None]
    if refs:
        parts.append("<p><em>Instructive references: a different method on the same data, "
                     "shown for scale; not a peer.</em></p>")
        parts.append(_table(REFERENCE_COLUMNS, refs, 3))
    return parts


def _figure(caption: str, png: bytes) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _anchor(res: SectionResult) -> str:
    return "sec-" + "".join(ch if ch.isalnum() else "-" for ch in res.name)


def _section(res: SectionResult) -> str:
    cls = "" if res.ok else ' class="failed"'
    parts = [f'<section id="{_anchor(res)}"{cls}>', f"<h2>{_e(res.title)}</h2>"]
    status = (
        f'<span class="status-ok">ok</span> in {res.seconds:.1f} s'
        if res.ok
        else f'<span class="status-failed">FAILED</span> after {res.seconds:.1f} s'
    )
    parts.append(f'<p class="meta">section <code>{_e(res.name)}</code> · {status}</p>')
    if not res.ok:
        parts.append(f"<p><strong>{_e(res.error)}</strong></p>")
        parts.append(f"<pre>{_e(res.traceback or '')}</pre>")
    else:
        sec = res.section
        if sec.text:
            for para in str(sec.text).split("\n\n"):
                parts.append(f"<p>{_e(para)}</p>")
        for caption, header, rows in sec.tables:
            parts.append(f"<p><em>{_e(caption)}</em></p>")
            parts.append(_table(header, rows))
        if sec.rows:
            parts += _results_tables(sec.rows)
        parts += [_figure(caption, png) for caption, png in res.figures_png]
    if res.warnings:
        parts.append('<ul class="warn">' + "".join(f"<li>{_e(w)}</li>" for w in res.warnings)
                     + "</ul>")
    parts.append("</section>")
    return "\n".join(parts)


def _environment() -> str:
    import numpy
    import scipy
    import sklearn

    from .. import __version__

    return (
        f"kernelkit {__version__} · Python {platform.python_version()} · NumPy "
        f"{numpy.__version__} · SciPy {scipy.__version__} · scikit-learn {sklearn.__version__}"
        f" · {platform.system()} {platform.machine()} · {os.cpu_count()} CPUs"
    )


def render_html(result: DemoResult) -> str:
    """The report as one HTML string (no external resources, no scripts)."""
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    mode = "quick" if result.quick else "full"
    n_fail = len(result.failed)
    status = (
        '<span class="status-ok">all sections ok</span>'
        if not n_fail
        else f'<span class="status-failed">{n_fail} section(s) failed</span>'
    )
    toc = "".join(
        f'<li><a href="#{_anchor(r)}">{_e(r.title)}</a>'
        + ("" if r.ok else ' <span class="status-failed">FAILED</span>') + "</li>"
        for r in result.sections
    )
    # the summary drops the data column (each section's table has it); one header row per
    # section instead of its title repeated in every row
    keep = [j for j, c in enumerate(TABLE_COLUMNS) if c != "data"]
    groups = [(r.title, [[row_cells(row)[j] for j in keep] for row in r.section.rows])
              for r in result.sections if r.ok and r.section.rows]
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>kernelkit demo report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>kernelkit demo report</h1>",
        f'<p class="meta">{_e(when)} · {mode} demo · {len(result.sections)} sections · '
        f"{status} · {result.seconds:.1f} s<br>{_e(_environment())}</p>",
        "<p>A tour of every model in kernelkit on real bundled data. Each row gives the "
        "model's headline number and, where scikit-learn (or the library named in the "
        "<em>peer</em> column) has the same method, that peer's number on the same data; "
        "otherwise the row says <em>no peer</em>. A different method that is instructive "
        "for scale (a linear model beside a kernel model, a per-letter classifier beside "
        "a chain) appears in a separate table of references under its section, never as a "
        "peer. <em>speed-up</em> is the peer's time over ours (above 1: kernelkit is "
        "faster).</p>",
        "<p>How times were taken: wall-clock seconds of <code>fit</code> on this machine, "
        "single runs unless a section says otherwise, after a warm-up that fits every "
        "kernelkit estimator once on a tiny problem, so that numba's compilation (or the "
        "loading of its cached machine code) is not counted; library imports are "
        "excluded too.</p>",
        f"<nav><ol>{toc}</ol></nav>",
        "<h2>Summary</h2>",
        _table([TABLE_COLUMNS[j] for j in keep], [], NUMERIC_FROM - 1, groups=groups,
               cls="results") if groups else "<p>No rows.</p>",
    ]
    body += [_figure(caption, png) for caption, png in result.summary_figures]
    if result.not_in_tour:
        body.append(f"<p>Public estimators not in the tour yet (no section names them): "
                    f"{_e(', '.join(result.not_in_tour))}.</p>")
    body += [_section(r) for r in result.sections]
    body.append("</body></html>\n")
    return "\n".join(body)


def write_html(result: DemoResult, path: str | os.PathLike) -> Path:
    """Write the report atomically to ``path`` (creating its folder)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render_html(result)
    return atomic_write(path, lambda fh: fh.write(text), mode="w")
