"""kernelkit: kernel methods, Gaussian processes and boosting.

Every public estimator is importable from the top level (``kernelkit.KernelRidge``);
kernels live in :mod:`kernelkit.kernels`. Imports are lazy, so ``import kernelkit`` is
cheap and a command-line call loads only what it uses.
"""

from __future__ import annotations

import importlib
import importlib.util

__version__ = "0.1.0"

# public name -> module that defines it (DESIGN.md, "Public names")
_PUBLIC = {
    "LinearRegression": "kernelkit.linear_model",
    "Ridge": "kernelkit.linear_model",
    "BayesianLinearRegression": "kernelkit.linear_model",
    "KernelRidge": "kernelkit.kernel_ridge",
    "KernelRidgeCV": "kernelkit.kernel_ridge",
    "GaussianProcessRegressor": "kernelkit.gaussian_process",
    "KernelClassifier": "kernelkit.machines",
    "KernelRegressor": "kernelkit.machines",
    "OneClassSVM": "kernelkit.machines",
    "MulticlassSVM": "kernelkit.machines",
    "KernelPerceptron": "kernelkit.machines",
    "KernelPCA": "kernelkit.decomposition",
    "NystromKernelRidge": "kernelkit.large_scale",
    "Nystroem": "kernelkit.large_scale",
    "RandomFourierFeatures": "kernelkit.large_scale",
    "MajorityVote": "kernelkit.ensemble",
    "AdaBoost": "kernelkit.ensemble",
    "save": "kernelkit.io",
    "load": "kernelkit.io",
}


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


__all__ = sorted(name for name, mod in _PUBLIC.items() if _available(mod))


def __getattr__(name: str):
    if name in _PUBLIC:
        module = importlib.import_module(_PUBLIC[name])
        return getattr(module, name)
    raise AttributeError(f"module 'kernelkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
