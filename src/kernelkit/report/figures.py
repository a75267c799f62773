"""Figures drawn from the whole tour (not by one section): the accuracy chart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .tables import clip, peer_name

if TYPE_CHECKING:
    from .results import SectionResult

__all__ = ["accuracy_rows", "accuracy_figure"]

FONT = 10  # points: 13 px at the report's 96 dpi


def _number(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if v == v else None


def accuracy_rows(results: list[SectionResult]) -> list[tuple[str, float, float | None, str]]:
    """``(label, ours, peer or None, peer name)`` of every accuracy row in [0, 1]."""
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
            peer = peer if peer is not None and 0.0 <= peer <= 1.0 else None
            label = clip(str(row["model"]), 44)  # the data is in the section's table
            rows.append((label, ours, peer, peer_name(row) if peer is not None else ""))
    return rows


def accuracy_figure(results: list[SectionResult]):
    """Every test accuracy of the tour as a dot plot: ours (filled circle) and, on the same
    line, the same method's peer (open diamond). The axis spans the accuracies seen (not
    0 to 1), so differences of a point are visible; rows without a peer show one dot.
    ``None`` if no row reports an accuracy."""
    rows = accuracy_rows(results)
    if not rows:
        return None
    import matplotlib.pyplot as plt
    import numpy as np

    n = len(rows)
    fig, ax = plt.subplots(figsize=(9.0, 0.36 * n + 1.3))
    pos = np.arange(n)[::-1]
    values = [v for _, o, p, _ in rows for v in (o, p) if v is not None]
    lo = max(0.0, np.floor((min(values) - 0.02) * 20) / 20)
    hi = min(1.0, np.ceil((max(values) + 0.01) * 20) / 20)
    for y, (_, ours, peer, _) in zip(pos, rows):
        if peer is not None:
            ax.plot([ours, peer], [y, y], color="0.75", lw=1.5, zorder=1)
    ax.scatter([r[1] for r in rows], pos, s=42, color="#1f77b4", zorder=3, label="kernelkit")
    with_peer = [(y, r[2]) for y, r in zip(pos, rows) if r[2] is not None]
    if with_peer:
        ax.scatter([v for _, v in with_peer], [y for y, _ in with_peer], s=48, marker="D",
                   facecolors="none", edgecolors="#d62728", linewidths=1.5, zorder=2,
                   label="peer: the same method in scikit-learn (the table's peer column)")
    ax.set_yticks(pos, [r[0] for r in rows], fontsize=FONT)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(lo, hi)
    ax.tick_params(axis="x", labelsize=FONT)
    ax.set_xlabel("test accuracy", fontsize=FONT + 1)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=FONT,
              frameon=False)
    ax.grid(axis="x", alpha=0.35)
    fig.tight_layout()
    return fig
