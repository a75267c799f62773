"""The documentation's generated parts cover every public name (no Sphinx build here)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import sys
from pathlib import Path

import pytest

import kernelkit

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _load(name: str):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        spec = importlib.util.spec_from_file_location(name, DOCS / "_ext" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(DOCS / "_ext"))


kk_api = _load("kk_api")
kk_differences = _load("kk_differences")


def _public_modules() -> list[str]:
    # found here independently of the generator: every kernelkit.X with a non-empty __all__
    out = []
    for info in pkgutil.iter_modules(kernelkit.__path__):
        if not info.name.startswith("_"):
            mod = importlib.import_module(f"kernelkit.{info.name}")
            if getattr(mod, "__all__", None):
                out.append(info.name)
    return out


@pytest.fixture(scope="module")
def api_pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("api")
    kk_api.write_api(out)
    return {p.stem: p.read_text() for p in out.glob("*.rst")}


def _listed(pages: dict[str, str]) -> set[str]:
    """Fully qualified names that some autosummary table of the pages lists."""
    names = set()
    for text in pages.values():
        current = None
        for line in text.splitlines():
            if line.startswith(".. currentmodule:: "):
                current = line.split()[-1]
            elif line.startswith("   ") and not line.strip().startswith(":") and current:
                entry = line.strip()
                if entry and " " not in entry and not entry.startswith(("*", "-")):
                    names.add(f"{current}.{entry}")
    return names


def test_every_public_module_has_a_page(api_pages):
    assert set(kk_api.public_modules()) == set(_public_modules())
    for mod in _public_modules():
        assert f"automodule:: kernelkit.{mod}\n" in api_pages[mod]
        # and the index's toctree links it
        assert f"\n   {mod}\n" in api_pages["index"]  # in a toctree


def test_every_name_in_a_subpackage_all_has_an_entry(api_pages):
    entries = kk_api.reference_entries()
    listed = _listed(api_pages)
    for mod in _public_modules():
        for name in importlib.import_module(f"kernelkit.{mod}").__all__:
            full = f"kernelkit.{mod}.{name}"
            assert entries[full] == full
            assert full in listed, f"{full} has no autosummary entry"


def test_every_top_level_name_has_an_entry(api_pages):
    entries = kk_api.reference_entries()
    listed = _listed(api_pages)
    for name in kernelkit.__all__:
        target = entries[f"kernelkit.{name}"]
        assert target in listed, f"kernelkit.{name} -> {target} is not documented"
        modname, _, attr = target.rpartition(".")
        assert getattr(importlib.import_module(modname), attr) is getattr(kernelkit, name)
        assert f"   * - ``{name}``\n" in api_pages["index"]


def test_top_level_estimators_are_documented_in_their_subpackage():
    entries = kk_api.reference_entries()
    for name in ("KernelRidge", "AdaBoost", "save"):
        assert entries[f"kernelkit.{name}"].count(".") == 2  # kernelkit.<module>.<name>


def test_every_public_class_and_function_has_a_docstring():
    for mod in _public_modules():
        module = importlib.import_module(f"kernelkit.{mod}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                assert inspect.getdoc(obj), f"kernelkit.{mod}.{name} has no docstring"


def test_differences_section_is_split_out():
    doc = """Summary.

    Parameters
    ----------
    a : int

    Differences from scikit-learn
    -----------------------------
    - one
    - two

    Examples
    --------
    >>> 1
    1
    """
    rest, body = kk_differences.split_section(inspect.cleandoc(doc).splitlines())
    assert body == ["- one", "- two"]
    assert "Differences from scikit-learn" not in "\n".join(rest)
    assert "Examples" in rest and "a : int" in rest


def test_differences_page_collects_every_section():
    page = kk_differences.page()
    for target, body in kk_differences.collect():
        assert f":class:`{target}`" in page
        assert "\n".join(body) in page
    # every public class whose docstring has the section is on the page
    for mod in _public_modules():
        module = importlib.import_module(f"kernelkit.{mod}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and "Differences from scikit-learn\n---" in (
                inspect.getdoc(obj) or ""
            ):
                assert f"\n{obj.__name__}\n" in page
