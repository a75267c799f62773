"""The self-contained HTML report: inline CSS, figures as base64 PNG, no scripts."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import os
import platform
from pathlib import Path
from typing import TYPE_CHECKING

from ..io import atomic_write
from .runner import ROW_KEYS, TABLE_COLUMNS, fmt, row_cells

if TYPE_CHECKING:
    from .runner import DemoResult, SectionResult

__all__ = ["write_html", "render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1100px;padding:0 1em;color:#1b1b1b;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
.meta{color:#555;font-size:.9em}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f2f2f2}
figure{margin:1em 0;display:inline-block;vertical-align:top;max-width:100%}
figure img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:.9em;color:#444;max-width:640px}
.failed{border-left:4px solid #c0392b;padding-left:.8em}
.failed h2{color:#c0392b}
.status-ok{color:#1e7d32}.status-failed{color:#c0392b;font-weight:bold}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.85em}
.warn{color:#8a5a00;font-size:.9em}
nav ol{columns:2}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _table(header, rows, numeric_from: int = 0) -> str:
    out = ["<table><thead><tr>"]
    out += [f"<th>{_e(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>")
        for j, c in enumerate(r):
            cls = ' class="num"' if j >= numeric_from else ""
            out.append(f"<td{cls}>{_e(c)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


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
            parts.append(_table(header, [[fmt(c) for c in r] for r in rows], numeric_from=1))
        if sec.rows:
            parts.append(_table(TABLE_COLUMNS, [row_cells(r) for r in sec.rows],
                                numeric_from=len(ROW_KEYS) - 2))
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
    summary_rows = [
        [r.title] + row_cells(row) for r in result.sections if r.ok for row in r.section.rows
    ]
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
        "model's headline number and, where scikit-learn has the same method, the "
        "scikit-learn peer's number on the same data, with both times in seconds; "
        "<em>time ratio</em> is the peer's time over ours (above 1: kernelkit is faster). "
        "Times are wall-clock on this machine, single runs unless a section says "
        "otherwise.</p>",
        f"<nav><ol>{toc}</ol></nav>",
        "<h2>Summary</h2>",
        _table(["section", *TABLE_COLUMNS], summary_rows, numeric_from=4)
        if summary_rows else "<p>No rows.</p>",
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
