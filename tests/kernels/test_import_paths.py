"""The kernels' import paths and stored class names that predate composite.py still work."""

from __future__ import annotations

import pytest

from kernelkit import kernels
from kernelkit.io import _resolve_class


@pytest.mark.parametrize("name", ["Kernel", "Hyperparameter", "Sum", "Product", "Scale",
                                  "Constant"])
def test_base_names_the_kernel_and_the_algebra(name):
    from kernelkit.kernels import base

    assert getattr(base, name) is getattr(kernels, name)


@pytest.mark.parametrize("name", ["Sum", "Product", "Scale", "Constant"])
def test_model_files_naming_kernels_base_still_load(name):
    # files written before the composites moved name them kernelkit.kernels.base:<name>
    assert _resolve_class(f"kernelkit.kernels.base:{name}", "a test") is getattr(kernels, name)
    assert _resolve_class(f"kernelkit.kernels.composite:{name}", "a test") is getattr(kernels,
                                                                                       name)
