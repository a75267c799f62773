"""Generate the API reference from the package's ``__all__`` lists (run by conf.py).

Every public module of kernelkit (``kernelkit.X`` not starting with ``_`` that has an
``__all__``) gets one page, ``api/X.rst``; its names are grouped by the module that defines
them (``kernelkit.kernels.stationary``, ...) and each gets an autosummary stub page. The
top-level names (``kernelkit.KernelRidge``) are documented where their subpackage exports
them and linked from ``api/index.rst``; a top-level name that no subpackage exports gets its
own entry there. So a name added to any ``__all__`` appears in the reference at the next
build, and ``tests/test_docs.py`` checks that none is missed.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

# page order and grouping on the reference index; a public module not listed here is put
# under "Other modules" (so it is documented all the same)
GROUPS = [
    ("Models", ["linear_model", "kernel_ridge", "gaussian_process", "machines",
                "decomposition", "structured", "ensemble", "large_scale"]),
    ("Building blocks", ["kernels", "losses", "solvers", "linalg"]),
    ("Data, files and the command line", ["datasets", "io", "cli", "report"]),
    ("Utilities", ["utils", "exceptions"]),
]


def public_modules() -> list[str]:
    """Names of kernelkit's public top-level modules that declare ``__all__``."""
    import kernelkit

    out = []
    for info in pkgutil.iter_modules(kernelkit.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"kernelkit.{info.name}")
        if getattr(mod, "__all__", None):
            out.append(info.name)
    return sorted(out)


def _home(obj, module: str) -> str:
    """The module heading a name is grouped under: its defining module when that module
    is inside ``module`` and public, else ``module`` itself."""
    defined = getattr(obj, "__module__", None) or module
    if defined.startswith(module + ".") and not any(
        part.startswith("_") for part in defined[len(module) + 1:].split(".")
    ):
        return defined
    return module


def reference_entries() -> dict[str, str]:
    """Every public name -> the fully qualified name its reference page documents.

    Keys are ``kernelkit.<module>.<name>`` for each module's ``__all__`` and
    ``kernelkit.<name>`` for the top level's.
    """
    import kernelkit

    entries: dict[str, str] = {}
    by_id: dict[int, str] = {}
    for modname in public_modules():
        mod = importlib.import_module(f"kernelkit.{modname}")
        for name in mod.__all__:
            full = f"kernelkit.{modname}.{name}"
            entries[full] = full
            obj = getattr(mod, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                by_id.setdefault(id(obj), full)
    for name in kernelkit.__all__:
        obj = getattr(kernelkit, name)
        entries[f"kernelkit.{name}"] = by_id.get(id(obj), f"kernelkit.{name}")
    return entries


def _summary_line(module) -> str:
    doc = inspect.getdoc(module) or module.__name__
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def _title(module) -> str:
    """A short heading from a module docstring: its first sentence up to a colon."""
    line = _summary_line(module)
    for stop in (":", ". ", ";"):
        line = line.split(stop)[0]
    return line.rstrip(".").strip() or module.__name__


def _autosummary(names: list[str]) -> list[str]:
    lines = [".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
    return lines + [f"   {n}" for n in names] + [""]


def module_page(modname: str) -> str:
    """reStructuredText of the reference page of ``kernelkit.<modname>``."""
    full = f"kernelkit.{modname}"
    mod = importlib.import_module(full)
    groups: dict[str, list[str]] = {}
    for name in mod.__all__:
        groups.setdefault(_home(getattr(mod, name), full), []).append(name)
    lines = [f"``{full}``", "=" * (len(full) + 4), "", f".. automodule:: {full}",
             "   :no-members:", "", f".. currentmodule:: {full}", ""]
    if len(groups) == 1:
        return "\n".join(lines + _autosummary(next(iter(groups.values()))))
    # a heading per defining module, in the order of __all__ (the package's own order)
    for home, names in groups.items():
        title = _title(importlib.import_module(home)) if home != full else "Other names"
        lines += [title, "-" * len(title), ""]
        if home != full:
            summary = _summary_line(importlib.import_module(home))
            rest = "" if summary.rstrip(".") == title else f" — {summary}"
            lines += [f"*{home}*{rest}", ""]
        lines += _autosummary(names)
    return "\n".join(lines)


def index_page(modules: list[str], entries: dict[str, str]) -> str:
    """reStructuredText of ``api/index.rst``: the module pages and the top-level names."""
    import kernelkit

    lines = ["API reference", "=============", "",
             "Generated at build time from the ``__all__`` list of every public module, so "
             "every public name has an entry. Estimators are importable from the top level "
             "(``kernelkit.KernelRidge``); they are documented in the module that groups "
             "them (``kernelkit.kernel_ridge.KernelRidge``).", ""]
    placed = {m for _, group in GROUPS for m in group}
    groups = [(t, [m for m in g if m in modules]) for t, g in GROUPS]
    groups.append(("Other modules", [m for m in modules if m not in placed]))
    for title, mods in groups:
        if not mods:
            continue
        lines += [title, "-" * len(title), "", ".. toctree::", "   :hidden:", ""]
        lines += [f"   {m}" for m in mods] + ["", ".. list-table::", "   :widths: 30 70", ""]
        for m in mods:
            summary = _summary_line(importlib.import_module(f"kernelkit.{m}"))
            lines += [f"   * - :doc:`kernelkit.{m} <{m}>`", f"     - {summary}"]
        lines.append("")
    lines += ["Top-level names", "---------------", "",
              "``import kernelkit as kk`` gives these names directly:", "",
              ".. list-table::", "   :header-rows: 1", "",
              "   * - ``kernelkit.`` name", "     - documented as"]
    alone = []
    for name in kernelkit.__all__:
        target = entries[f"kernelkit.{name}"]
        if target == f"kernelkit.{name}":
            alone.append(name)
        role = ":class:" if inspect.isclass(getattr(kernelkit, name)) else ":func:"
        lines += [f"   * - ``{name}``", f"     - {role}`{target}`"]
    lines.append("")
    if alone:
        lines += ["Exported only at the top level:", "", ".. currentmodule:: kernelkit", ""]
        lines += _autosummary(alone)
    return "\n".join(lines)


def write_api(out_dir: str | Path) -> list[Path]:
    """Write ``index.rst`` and one page per public module into ``out_dir``; return the
    files written (only those whose text changed are rewritten, so Sphinx's incremental
    build is not invalidated)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    modules = public_modules()
    pages = {f"{m}.rst": module_page(m) for m in modules}
    pages["index.rst"] = index_page(modules, reference_entries())
    written = []
    for name, text in pages.items():
        path = out / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    for stale in out.glob("*.rst"):
        if stale.name not in pages:
            stale.unlink()
    return written
