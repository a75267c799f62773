"""The tour's result rows as table cells, for the terminal and the HTML report.

A section's row is a dict with ``model``, ``data``, ``metric``, ``ours`` and ``peer`` (the
same method in scikit-learn or a named library, on the same data, or ``None``: "no peer"),
and optionally ``peer_name`` (which peer: "sklearn SVC"; default "scikit-learn" when ``peer``
is given), ``seconds`` / ``peer_seconds``, and an instructive reference that is *not* the
same method (``reference``, ``reference_name``, ``reference_seconds``), shown in a table of
its own so that the peer column only ever compares like with like.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ROW_KEYS", "TABLE_COLUMNS", "NUMERIC_FROM", "REFERENCE_COLUMNS", "NO_PEER", "fmt",
           "is_number", "clip", "row_cells", "reference_cells", "text_table", "summary_text"]

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
