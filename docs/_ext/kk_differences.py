"""The "Differences from scikit-learn" sections of the class docstrings.

numpydoc knows no section of that name (it would drop it with a warning), so
:func:`setup` moves it out of the docstring before numpydoc parses it and puts it back,
as a rubric before the examples, after numpydoc has rendered the rest. The same sections,
collected from every public class, make the user guide page ``guide/differences.rst``
(written by :func:`write_page` at build time, so the page cannot drift from the code).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

TITLE = "Differences from scikit-learn"
_DASHES = re.compile(r"^\s*-{3,}\s*$")


def split_section(lines: list[str]) -> tuple[list[str], list[str]]:
    """``(lines without the section, the section's body)`` of a docstring's lines.

    The body runs from below the heading's underline to the next numpydoc heading (a line
    followed by a dashed underline) or the end; it is returned dedented, with surrounding
    blank lines removed.
    """
    for i in range(len(lines) - 1):
        if lines[i].strip() == TITLE and _DASHES.match(lines[i + 1]):
            end = i + 2
            while end < len(lines) and not (
                end + 1 < len(lines) and lines[end].strip() and _DASHES.match(lines[end + 1])
            ):
                end += 1
            body = inspect.cleandoc("\n".join(lines[i + 2:end])).splitlines()
            return lines[:i] + lines[end:], body
    return lines, []


def collect() -> list[tuple[str, list[str]]]:
    """``(documented name, section body)`` for every public class that has the section,
    in the order of the API reference."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from kk_api import reference_entries

    seen, out = set(), []
    for target in dict.fromkeys(reference_entries().values()):
        modname, _, name = target.rpartition(".")
        obj = getattr(importlib.import_module(modname), name)
        if not inspect.isclass(obj) or id(obj) in seen:
            continue
        seen.add(id(obj))
        _, body = split_section((inspect.getdoc(obj) or "").splitlines())
        if body:
            out.append((target, body))
    return out


def page() -> str:
    """reStructuredText of the user guide page."""
    lines = [TITLE, "=" * len(TITLE), "",
             "kernelkit keeps scikit-learn's constructor signatures, defaults, fitted "
             "attributes, warnings and error types wherever scikit-learn has the same "
             "estimator, so that ours is a drop-in replacement. Every deliberate difference is "
             "listed in the class docstring under *Differences from scikit-learn*; this page "
             "collects those sections when the documentation is built.", ""]
    entries = collect()
    if not entries:
        lines += ["No class documents a difference yet.", ""]
    for target, body in entries:
        name = target.rpartition(".")[2]
        lines += [name, "-" * len(name), "", f":class:`{target}`", ""] + body + [""]
    return "\n".join(lines)


def write_page(path: str | Path) -> None:
    """Write :func:`page` to ``path`` (only when its text changed)."""
    path, text = Path(path), page()
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_STASH: dict[str, list[str]] = {}


def _take(app, what, name, obj, options, lines):
    if what == "class":
        rest, body = split_section(list(lines))
        if body:
            lines[:] = rest
            _STASH[name] = body


def _put_back(app, what, name, obj, options, lines):
    body = _STASH.pop(name, None)
    if body is None:
        return
    block = [f".. rubric:: {TITLE}", ""] + body + [""]
    at = next((i for i, line in enumerate(lines) if line.strip() == ".. rubric:: Examples"),
              len(lines))
    lines[at:at] = block


def setup(app):
    app.connect("autodoc-process-docstring", _take, priority=100)  # before numpydoc (500)
    app.connect("autodoc-process-docstring", _put_back, priority=900)  # after numpydoc
    return {"parallel_read_safe": True}
