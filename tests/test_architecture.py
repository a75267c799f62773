"""The layering of docs/design.md, read from the source (ast): forbidden import directions,
import cycles, private names across subpackages, and the size rules.

Every import counts, including the ones inside functions (a deferred import is still a
dependency: it only moves the failure from import time to call time).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kernelkit

ROOT = Path(kernelkit.__file__).parent

ESTIMATORS = {"linear_model", "kernel_ridge", "gaussian_process", "machines",
              "decomposition", "structured", "ensemble", "large_scale"}
TOP = {"cli", "report", "io"}

# (importing area, forbidden areas, why) — docs/design.md, "Layers and seams"
FORBIDDEN = [
    ("kernels", {"linalg", "solvers", "losses", "datasets"} | ESTIMATORS | TOP,
     "kernels are maths: they import only the core"),
    ("losses", {"kernels"}, "a loss never holds a kernel"),
    ("linalg", ESTIMATORS | TOP, "linalg (memory) never imports estimators"),
    ("solvers", ESTIMATORS | TOP, "solvers take problems, never estimators"),
    *[(est, TOP, "estimators never import cli/report/io") for est in sorted(ESTIMATORS)],
    ("datasets", ESTIMATORS, "datasets fit nothing"),
]



MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _imports(module: str) -> set[tuple[str, str | None]]:
    """``(imported module, imported name)`` for every kernelkit import of ``module``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {(a.name, None) for a in node.names if a.name.startswith("kernelkit")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "kernelkit":
                continue
            for a in node.names:  # ``from package import submodule`` names the submodule
                sub = f"{target}.{a.name}"
                out.add((sub, None) if sub in MODULES else (target, a.name))
    return out


IMPORTS = {m: _imports(m) for m in MODULES}


def _area(module: str) -> str:
    """The subpackage (or top-level module) a module belongs to; '' for the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_scan_sees_the_package():
    # a scan that found nothing would pass every check below
    assert {"kernelkit.kernels.base", "kernelkit.linalg.operator",
            "kernelkit.linalg.blocks"} <= set(MODULES)
    assert ("kernelkit.kernels.base", "Kernel") in IMPORTS["kernelkit.kernels.stationary"]
    # a deferred import (inside a function) is seen too
    assert ("kernelkit.linalg.dask_rows", None) not in IMPORTS["kernelkit.linalg.operator"]
    assert sum(len(v) for v in IMPORTS.values()) > 200


@pytest.mark.parametrize("area, forbidden, why", FORBIDDEN,
                         ids=[f"{a}" for a, _, _ in FORBIDDEN])
def test_no_forbidden_import_direction(area, forbidden, why):
    bad = sorted(f"{m} imports {t}" for m, imps in IMPORTS.items() if _area(m) == area
                 for t, _ in imps if _area(t) in forbidden)
    assert not bad, f"{why}:\n" + "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    graph = {m: {t for t, _ in imps if t in MODULES and t != m} for m, imps in IMPORTS.items()}
    assert _cycles(graph) == []


def test_no_private_name_imported_from_another_subpackage():
    # the bottom layer (kernelkit._core.threads, kernelkit._core.validation, ...) is shared by
    # every subpackage; inside a subpackage, a leading underscore means "ours only"
    bad = []
    for m, imps in IMPORTS.items():
        for t, name in imps:
            if _area(t) == _area(m):
                continue
            private_module = any(p.startswith("_") for p in t.split(".")[2:])
            private_name = (name is not None and name.startswith("_")
                            and not name.startswith("__"))
            if private_module or private_name:
                bad.append(f"{m} imports {t}" + (f".{name}" if name else ""))
    assert not bad, "\n".join(sorted(bad))


def _is_numba(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in {"njit", "jit", "vectorize", "guvectorize"}:
            return True
    return False


def test_no_file_over_800_lines():
    long = {str(p.relative_to(ROOT)): n for p in MODULES.values()
            if (n := len(p.read_text().splitlines())) > MAX_FILE_LINES}
    assert not long, f"files over {MAX_FILE_LINES} lines: {long}"


def _lines(fn: ast.FunctionDef) -> int:
    """Lines of a whole ``def``: signature, docstring and body (decorators excluded)."""
    return fn.end_lineno - fn.lineno + 1


def test_line_count_includes_the_docstring():
    src = 'def f(x):\n    """Doc.\n\n    More doc.\n    """\n    return x\n'
    assert _lines(ast.parse(src).body[0]) == 6


def test_no_function_over_80_lines_outside_numba():
    long = []
    for p in MODULES.values():
        rel = p.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(p.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or _is_numba(node):
                continue
            n = _lines(node)
            if n > MAX_FUNCTION_LINES:
                long.append(f"{rel}::{node.name} ({n} lines)")
    assert not long, "functions over 80 lines (docstring included):\n" + "\n".join(sorted(long))


def test_numba_threads_are_set_only_in_threads_module():
    # "small problem -> one thread" is kernelkit._core.threads.single_threaded; a second copy of
    # the save / set / restore of numba's thread count is a second mechanism
    bad = []
    for m, p in MODULES.items():
        if m == "kernelkit._core.threads":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "set_num_threads":
                bad.append(f"{m}:{node.lineno}")
    assert not bad, "use kernelkit._core.threads.single_threaded:\n" + "\n".join(bad)
    assert "set_num_threads" in MODULES["kernelkit._core.threads"].read_text()


def test_the_bottom_layer_imports_nothing_above_it():
    """kernelkit._core is the bottom layer (docs/design.md, "Layers and seams"): its modules
    import one another and nothing else of kernelkit, not even the package's root."""
    core = [m for m in MODULES if _area(m) == "_core"]
    assert {"kernelkit._core.threads", "kernelkit._core.validation",
            "kernelkit._core.exceptions"} <= set(core)
    bad = sorted(f"{m} imports {t}" for m in core for t, _ in IMPORTS[m]
                 if _area(t) != "_core")
    assert not bad, "the core imports only the core:\n" + "\n".join(bad)


def test_only_the_command_line_imports_the_command_line():
    bad = sorted(f"{m} imports {t}" for m, imps in IMPORTS.items()
                 if _area(m) not in ("cli", "__main__") for t, _ in imps if _area(t) == "cli")
    assert not bad, "\n".join(bad)

