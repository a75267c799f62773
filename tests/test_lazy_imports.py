"""``import kernelkit as kk`` gives the subpackages as attributes (issue 22, item 6)."""

from __future__ import annotations

import subprocess
import sys

_CHECK = """
import sys
import kernelkit as kk
assert "kernelkit.kernels" not in sys.modules and "numba" not in sys.modules  # still lazy
assert kk.kernels.RBF.__name__ == "RBF"
assert callable(kk.datasets.load_co2)
assert kk.structured.StructuredSVM.__name__ == "StructuredSVM"
assert kk.linalg.__name__ == "kernelkit.linalg" and kk.io.save is kk.save
names = dir(kk)
assert not [n for n in names if n.startswith("_")], names
assert {"kernels", "datasets", "structured", "linalg", "io"} <= set(names)
assert set(kk.__all__) <= set(names) and "kernels" not in kk.__all__
print("ok")
"""


def test_subpackages_are_attributes_of_a_fresh_import():
    out = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
