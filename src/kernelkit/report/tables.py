"""The tour's result rows as table cells, for the terminal and the HTML report.

A section's row is a dict with ``model``, ``data``, ``metric``, ``ours`` and ``peer`` (the
same method in scikit-learn or a named library, on the same data, or ``None``: "no peer"),
and optionally ``peer_name`` (which peer: "sklearn SVC"; default "scikit-learn" when ``peer``
is given), ``seconds`` / ``peer_seconds``, and an instructive reference that is *not* the
same method (``reference``, ``reference_name``, ``reference_seconds``), shown in a table of
its own so that the peer column only ever compares like with like.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from typing import Any

__all__ = ["ROW_KEYS", "TABLE_COLUMNS", "NUMERIC_FROM", "REFERENCE_COLUMNS", "NO_PEER", "fmt",
           "is_number", "clip", "row_cells", "reference_cells", "text_table", "fit_table",
           "wrap", "terminal_width", "summary_text"]

ROW_KEYS = ("model", "data", "metric", "ours", "peer")
# peer: the peer method's name; peer value: its number. Columns from NUMERIC_FROM on hold
# numbers and are right-aligned; the others hold words.
TABLE_COLUMNS = ("model", "data", "metric", "peer", "ours", "peer value", "ours s", "peer s",
                 "speed-up")
NUMERIC_FROM = 4
REFERENCE_COLUMNS = ("model", "metric", "reference (not the same method)", "ours", "reference",
                     "ours s", "reference s")
NO_PEER = "no peer"


def is_number(value: Any) -> bool:
    """A real number (NumPy scalars included), not a bool."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0 and value.dtype.kind in "iuf"


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
        return f"{v:.2e}"
    return str(value)


def _seconds(value: Any) -> str:
    return "—" if value is None else f"{float(value):.3g}"


def _ratio(num: Any, den: Any) -> str:
    if num is None or den is None or not float(den) > 0:
        return "—"
    r = float(num) / float(den)
    return f"{r:.2g}x" if r < 100 else f"{r:.0f}x"


def peer_name(row: dict[str, Any]) -> str:
    """Which method the peer column holds, or "no peer"."""
    if row.get("peer") is None:
        return NO_PEER
    return str(row.get("peer_name") or "scikit-learn")


def row_cells(row: dict[str, Any]) -> list[str]:
    """Cells of a result row in :data:`TABLE_COLUMNS` order; ``speed-up`` is the peer's
    seconds over ours (above 1: kernelkit is faster)."""
    ours_s, peer_s = row.get("seconds"), row.get("peer_seconds")
    if row.get("peer") is None:
        peer_s = None
    return [fmt(row.get("model")), fmt(row.get("data")), fmt(row.get("metric")),
            peer_name(row), fmt(row.get("ours")), fmt(row.get("peer")), _seconds(ours_s),
            _seconds(peer_s), _ratio(peer_s, ours_s)]


def reference_cells(row: dict[str, Any]) -> list[str] | None:
    """Cells in :data:`REFERENCE_COLUMNS` order for a row with a reference, else None."""
    if row.get("reference") is None:
        return None
    return [fmt(row.get("model")), fmt(row.get("metric")), fmt(row.get("reference_name")),
            fmt(row.get("ours")), fmt(row.get("reference")), _seconds(row.get("seconds")),
            _seconds(row.get("reference_seconds"))]


def text_table(header: list[str], rows: list[list[str]], indent: str = "",
               right_from: int | None = None) -> str:
    """A plain-text table; columns from ``right_from`` on are right-aligned."""
    widths = [len(h) for h in header]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    right_from = len(header) if right_from is None else right_from

    def line(cells):
        return indent + "  ".join(c.rjust(w) if j >= right_from else c.ljust(w)
                                  for j, (c, w) in enumerate(zip(cells, widths))).rstrip()

    sep = indent + "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def terminal_width(default: int = 100, minimum: int = 80) -> int:
    """Columns for the demo's terminal output: the terminal's width (``COLUMNS``, or the
    terminal's own), ``default`` when the output is not a terminal, at least ``minimum``."""
    return max(minimum, shutil.get_terminal_size((default, 24)).columns)


def wrap(text: str, width: int, indent: str = "", subsequent: str | None = None,
         keep_words: bool = False) -> str:
    """``text`` in lines of at most ``width`` columns, the first starting with ``indent``, the
    others with ``subsequent`` (default: ``indent``); ``keep_words`` never breaks a word (a
    file path), which may then run past ``width`` alone on its line."""
    subsequent = indent if subsequent is None else subsequent
    text = re.sub(r"[ \t\n\r\f\v]+", " ", str(text)).strip()  # (no-break spaces stay)
    return textwrap.fill(text, width, initial_indent=indent,
                         subsequent_indent=subsequent, break_long_words=not keep_words,
                         break_on_hyphens=False) or indent.rstrip()


def _cell_lines(cell: str, w: int, words: bool) -> list[str]:
    if not words or len(cell) <= w:
        return [cell]
    return textwrap.wrap(cell, w, break_on_hyphens=False) or [""]


def _shrunk(header: list[str], rows: list[list[str]], room: int, right_from: int,
            floor: int) -> tuple[list[str], list[list[str]]] | None:
    """The lines of the header and of each row of a table at most ``room`` wide, its word
    columns (those before ``right_from``) wrapped between words, none narrower than
    ``floor`` or its longest word (or than its widest cell, if that is less); None if that
    is still too wide."""
    n = len(header)
    widths = [max(len(header[j]), *(len(r[j]) for r in rows)) for j in range(n)]
    longest = [max(len(w) for c in [header[j], *(r[j] for r in rows)] for w in c.split() or [""])
               for j in range(n)]
    least = [min(w, max(floor, longest[j])) if j < right_from else w
             for j, w in enumerate(widths)]
    while sum(widths) + 2 * (n - 1) > room:
        j = max(range(n), key=lambda k: widths[k] - least[k])
        if widths[j] <= least[j]:
            return None
        widths[j] -= 1

    def lines(cells: list[str]) -> list[str]:
        parts = [_cell_lines(c, w, j < right_from) for j, (c, w) in enumerate(zip(cells, widths))]
        out = []
        for i in range(max(map(len, parts))):
            out.append("  ".join(
                (p[i] if i < len(p) else "").rjust(w) if j >= right_from
                else (p[i] if i < len(p) else "").ljust(w)
                for j, (p, w) in enumerate(zip(parts, widths))).rstrip())
        return out

    return lines(header) + ["  ".join("-" * w for w in widths)], [lines(r) for r in rows]


def _fits(text: str, width: int) -> bool:
    return max(map(len, text.splitlines())) <= width


def _shows_number(cell: str) -> bool:
    """A cell that shows a number ("0.93", "-1.5e-12", "3x", "—")."""
    return re.fullmatch(r"[-+]?(\d[\d,]*\.?\d*(e[-+]?\d+)?x?|nan|inf|—)", cell.strip()) is not None


def _columns(header, rows, cols, indent, right_from) -> str:
    """:func:`text_table` of the columns ``cols`` only."""
    return text_table([header[k] for k in cols], [[r[k] for k in cols] for r in rows], indent,
                      sum(k < right_from for k in cols))


def _folded(header, rows, width: int, indent: str, right_from: int) -> str | None:
    """The table cut into tables of a few columns each, one below the other, each starting
    with the first column again (the rows' labels); None if one column does not fit."""
    groups: list[list[int]] = [[]]
    for j in range(1, len(header)):
        if not _fits(_columns(header, rows, [0, *groups[-1], j], indent, right_from), width):
            if not groups[-1]:
                return None
            groups.append([])
        groups[-1].append(j)
    if not _fits(_columns(header, rows, [0, *groups[-1]], indent, right_from), width):
        return None
    return "\n\n".join(_columns(header, rows, [0, *g], indent, right_from) for g in groups)


def _two_lines(header, rows, width: int, indent: str, right_from: int,
               lead: int) -> str | None:
    """A row's first ``lead`` cells on a line of their own, the other columns (wrapped
    between words) below them; None if they do not fit or the rows' first cells are
    numbers."""
    if lead < 1 or all(_shows_number(r[0]) for r in rows):
        return None
    shrunk = _shrunk(header[lead:], [r[lead:] for r in rows], width - len(indent) - 2,
                     right_from - lead, floor=8)
    if shrunk is None:
        return None
    head, blocks = shrunk
    out = [wrap(" · ".join(header[:lead]), width, indent)]
    out += [indent + "  " + line for line in head]
    for r, block in zip(rows, blocks):
        out.append(wrap(" · ".join(r[:lead]), width, indent))
        out += [indent + "  " + line for line in block]
    return "\n".join(out)


def _records(header, rows, width: int, indent: str, lead: int) -> str:
    """A row's first ``lead`` cells, then its other cells as "name: value" pairs."""
    out = []
    for r in rows:
        out.append(wrap(" · ".join(r[:lead]), width, indent))
        # a short "name: value" pair stays on one line (no-break spaces while wrapping)
        pairs = [f"{h}: {c}" for h, c in zip(header[lead:], r[lead:])]
        pairs = [p.replace(" ", "\xa0") if len(p) <= 30 else p for p in pairs]
        out.append(wrap("; ".join(pairs), width, indent + "  ").replace("\xa0", " "))
    return "\n".join(out)


def fit_table(header: list[str], rows: list[list[str]], width: int, indent: str = "",
              right_from: int | None = None, lead: int = 1) -> str:
    """:func:`text_table` in at most ``width`` columns.

    In order, the first that fits: the table as it is; its word columns wrapped between
    words (each at least 12 wide); two lines a row, the first ``lead`` cells (the model and
    its data) on a line of their own above the other columns (wrapped between words); the
    table cut into tables of a few columns, one below the other, each starting with the
    first column; a record a row ("name: value" pairs under the row's first ``lead`` cells).

    Examples
    --------
    >>> print(fit_table(["model", "metric", "ours"], [["a very long model name", "R^2",
    ...                 "0.91"]], width=30, right_from=2))
    model             metric  ours
    ----------------  ------  ----
    a very long       R^2     0.91
    model name
    """
    right_from = len(header) if right_from is None else right_from
    text = text_table(header, rows, indent, right_from)
    if _fits(text, width) or not rows:
        return text
    shrunk = _shrunk(header, rows, width - len(indent), right_from, floor=12)
    if shrunk is not None:
        head, blocks = shrunk
        return "\n".join(indent + line for line in head + [x for b in blocks for x in b])
    lead = min(lead, right_from, len(header) - 1)
    for text in (_two_lines(header, rows, width, indent, right_from, lead),
                 _folded(header, rows, width, indent, right_from)):
        if text is not None:
            return text
    return _records(header, rows, width, indent, max(lead, 1))


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in '…' when cut."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"


SUMMARY_COLUMNS = ("model", "metric", "ours", "peer", "ours s", "peer s", "speed-up")


def summary_text(groups: list[tuple[str, list[dict[str, Any]]]], width: int = 100) -> str:
    """The terminal summary, grouped by section, at most ``width`` columns wide.

    Model and metric are shortened to fit; the full words are in the sections' tables above
    and in the report. ``peer`` shows the peer's number or "no peer".
    """
    cells = []
    for _, rows in groups:
        for row in rows:
            c = row_cells(row)
            cells.append([c[0], c[2], c[4], c[5] if row.get("peer") is not None else NO_PEER,
                          c[6], c[7], c[8]])
    if not cells:
        return ""
    fixed = [max(len(h), *(len(r[j]) for r in cells)) for j, h in enumerate(SUMMARY_COLUMNS)]
    room = width - sum(fixed[2:]) - 2 * (len(SUMMARY_COLUMNS) - 1)
    w_model = max(12, min(fixed[0], room * 3 // 5))
    w_metric = max(10, min(fixed[1], room - w_model))
    out, i = [], 0
    for title, rows in groups:
        if not rows:
            continue
        block = []
        for _ in rows:
            r = cells[i]
            i += 1
            block.append([clip(r[0], w_model), clip(r[1], w_metric), *r[2:]])
        out.append((clip(title, width), block))
    widths = [w_model, w_metric, *fixed[2:]]
    header = [h.ljust(w) if j < 2 else h.rjust(w)
              for j, (h, w) in enumerate(zip(SUMMARY_COLUMNS, widths))]
    lines = ["  ".join(header).rstrip(), "  ".join("-" * w for w in widths)]
    for title, block in out:
        lines.append(title)
        for r in block:
            lines.append("  ".join(c.ljust(w) if j < 2 else c.rjust(w)
                                   for j, (c, w) in enumerate(zip(r, widths))).rstrip())
    return "\n".join(lines)
