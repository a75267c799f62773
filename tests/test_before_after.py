"""benchmarks/before_after.py: an earlier commit's kernelkit beside this one, in one process.

The tool's numbers are measurements (not tested here); what is tested is that "old" really
runs the exported commit's code under the name ``kernelkit`` and "new" this tree's, so that
a before/after list compares what it says it compares.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
from benchmarks.before_after import Versions, export_old
tmp = Path(tempfile.mkdtemp())
export_old("HEAD", tmp)
left = [p for p in (tmp / "kernelkit_old").rglob("*.py")
        if "from kernelkit." in p.read_text() or "import kernelkit\\n" in p.read_text()]
assert not left, left  # every absolute import renamed
import kernelkit.linalg as pre  # imported before the switch (a bench module's import)
v = Versions(tmp)
v.use("old")
import kernelkit.linalg as a
from kernelkit._core.threads import blas_threads as f_old
import kernelkit.datasets as d  # a package again (its own spec kept)
assert d.__spec__.submodule_search_locations, d.__spec__
v.use("new")
import kernelkit.linalg as b
from kernelkit._core.threads import blas_threads as f_new
v.use("old")
import kernelkit.linalg as c
print(a.__name__, b.__name__, c is a, b is pre, f_old.__module__, f_new.__module__)
"""


def test_old_and_new_kernelkit_alternate_in_one_process():
    if not (ROOT / ".git").exists():
        pytest.skip("needs the repository's history (git archive HEAD)")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(ROOT))], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    # "old" is the old code even when this tree's kernelkit was imported before the switch
    # (it was taken as "old": the gp rows of one before/after list compared new with new)
    assert out.stdout.split() == ["kernelkit_old.linalg", "kernelkit.linalg", "True", "True",
                                  "kernelkit_old._core.threads", "kernelkit._core.threads"]


def _prepare_old():
    """``benchmarks.before_after.prepare_old`` (skips without the repository's history)."""
    if not (ROOT / ".git").exists():
        pytest.skip("needs the repository's history (git archive HEAD)")
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.before_after import prepare_old
    finally:
        sys.path.remove(str(ROOT))
    return prepare_old


def test_a_kept_old_dir_is_reused_not_exported_again(tmp_path):
    prepare_old = _prepare_old()
    dest = prepare_old("HEAD", tmp_path / "old")
    init = dest / "kernelkit_old" / "__init__.py"
    assert init.is_file()
    marker = dest / "kernelkit_old" / "__pycache__" / "compiled.marker"  # a cache file
    marker.parent.mkdir(exist_ok=True)
    marker.write_text("kept")
    init.write_text(init.read_text() + "# edited\n")
    assert prepare_old("HEAD", dest) == dest
    assert marker.read_text() == "kept" and init.read_text().endswith("# edited\n")


def test_a_kept_old_dir_of_another_commit_is_refused(tmp_path):
    prepare_old = _prepare_old()
    dest = prepare_old("HEAD", tmp_path / "old")
    (dest / "REV").write_text("0" * 40 + "\n")  # as if exported from another commit
    with pytest.raises(SystemExit, match="holds commit 0000"):
        prepare_old("HEAD", dest)
