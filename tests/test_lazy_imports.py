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


def _run_fresh(script: str) -> None:
    """Run ``script`` in a fresh interpreter; it prints "ok" when its asserts hold."""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_subpackages_are_attributes_of_a_fresh_import():
    _run_fresh(_CHECK)


_GC = """
import gc
import kernelkit as kk
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
kk.MulticlassSVM  # the estimator's modules, numba and scikit-learn's base: thousands of objects
assert gc.isenabled()  # the collector is back on after the lazy import
assert 2 not in collections, collections  # and no full collection ran during it
gc.disable()
kk.KernelPCA
assert not gc.isenabled()  # a caller's disabled collector stays disabled
print("ok")
"""


def test_a_lazy_import_runs_no_full_garbage_collection():
    # a full collection over NumPy's, SciPy's, numba's and scikit-learn's objects found
    # nothing to free and took 0.1 s of a 0.14 s import
    _run_fresh(_GC)
