"""Benchmark harness: timing (median of repeats), peak memory, rows, BENCHMARKS.md.

A bench module ``benchmarks/bench_NAME.py`` defines ``run(quick: bool = False) -> list[Row]``.
Each Row compares kernelkit ("ours") with its peer on the same data in this process.
"""

from __future__ import annotations

import gc
import re
import statistics
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Row", "timeit", "peak_memory", "print_rows", "write_section", "BENCHMARKS_MD"]

BENCHMARKS_MD = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


@dataclass
class Row:
    """One comparison. ``ratio`` = peer time / our time (> 1 means we are faster)."""

    name: str
    ours_s: float | None
    peer_s: float | None
    peer: str = "scikit-learn"
    agree: str = ""
    notes: str = ""
    target: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.ours_s and self.peer_s:
            return self.peer_s / self.ours_s
        return None

    def cells(self) -> list[str]:
        fmt = lambda t: "—" if t is None else f"{t:.3f}"
        ratio = "—" if self.ratio is None else f"{self.ratio:.2f}×"
        return [self.name, fmt(self.ours_s), f"{fmt(self.peer_s)} ({self.peer})", ratio,
                self.target or "—", self.agree or "—", self.notes or ""]


HEADER = ["case", "ours s", "peer s", "speed-up (peer/ours)", "target", "agreement", "notes"]


def timeit(fn, repeat: int = 3, warmup: int = 1) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``repeat`` runs (after ``warmup``); last result."""
    out = None
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def peak_memory(fn) -> tuple[int, object]:
    """Peak bytes allocated (NumPy reports to tracemalloc) while running ``fn()``."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, out


def print_rows(title: str, rows: list[Row]) -> None:
    print(f"\n## {title}")
    print(" | ".join(HEADER))
    for r in rows:
        print(" | ".join(r.cells()), flush=True)


def _table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)


def write_section(name: str, title: str, rows: list[Row], context: str = "",
                  path: Path = BENCHMARKS_MD) -> None:
    """Replace (or append) the section of bench ``name`` in BENCHMARKS.md."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    stamp = time.strftime("%Y-%m-%d %H:%M")
    body = f"{start}\n### {title}\n\n_measured {stamp}; {context}_\n\n{_table(rows)}\n{end}"
    text = path.read_text() if path.exists() else (
        "# Benchmarks\n\nkernelkit against its peer on the same data, in one process "
        "(`python -m benchmarks.run [name ...]`). Times are medians of repeats on the "
        "development machine (2 cores, 24 GB, noisy); speed-up = peer time / our time.\n"
    )
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: body, text) if pattern.search(text) else (
        text.rstrip() + "\n\n" + body + "\n")
    path.write_text(text)
