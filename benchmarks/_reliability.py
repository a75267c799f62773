"""The reliability campaign's shared pieces: a part's result table and RELIABILITY.md.

A campaign part is a module ``benchmarks/_rel_PART.py`` that defines
``campaign(size: int, jobs: int, seed: int) -> Table``; :mod:`benchmarks.fuzz` runs the parts
and writes each one's table into its own section of RELIABILITY.md, so a run of one part
updates that part alone.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Table", "write_part", "RELIABILITY_MD"]

RELIABILITY_MD = Path(__file__).resolve().parent.parent / "RELIABILITY.md"

_PREAMBLE = (
    "# Reliability\n\n"
    "Written by the reliability campaign (`python -m benchmarks.fuzz`; see its `--help`): "
    "generated inputs for every public estimator, hostile model files, faults and long use. "
    "A *failure* is anything other than a correct fit (checked against an invariant) or a "
    "clear `ValueError`/`TypeError` (for model files: a `FormatError`) naming the problem; "
    "every count of failures must be 0. `make test` runs a bounded profile of the same "
    "generators (tests/reliability/).\n"
)


@dataclass
class Table:
    """One part's result: a Markdown table plus the number of failures it found."""

    title: str
    header: list[str]
    rows: list[list[str]]
    failures: int
    notes: str = ""
    details: list[str] = field(default_factory=list)  # one line per failure, for the log

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.header) + " |", "|" + "---|" * len(self.header)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        text = "\n".join(lines)
        if self.notes:
            text += "\n\n" + self.notes.strip()
        return text


def write_part(name: str, table: Table, context: str, command: str,
               path: Path = RELIABILITY_MD) -> None:
    """Replace (or append) part ``name``'s section of RELIABILITY.md."""
    start, end = f"<!-- reliability:{name} -->", f"<!-- /reliability:{name} -->"
    stamp = time.strftime("%Y-%m-%d %H:%M")
    body = (f"{start}\n## {table.title}\n\n_run {stamp}; {context}; `{command}`; "
            f"failures: {table.failures}_\n\n{table.markdown()}\n{end}")
    text = path.read_text() if path.exists() else _PREAMBLE
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: body, text) if pattern.search(text) else (
        text.rstrip() + "\n\n" + body + "\n")
    path.write_text(text)
