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
    "LinearRegression": "kernelkit.linear_model.least_squares",
    "Ridge": "kernelkit.linear_model.ridge",
    "BayesianLinearRegression": "kernelkit.linear_model.bayesian",
    "KernelRidge": "kernelkit.kernel_ridge.kernel_ridge",
    "KernelRidgeCV": "kernelkit.kernel_ridge.cv",
    "GaussianProcessRegressor": "kernelkit.gaussian_process.gpr",
    "KernelClassifier": "kernelkit.machines.kernel_machine",
    "KernelRegressor": "kernelkit.machines.kernel_machine",
    "OneClassSVM": "kernelkit.machines.one_class",
    "MulticlassSVM": "kernelkit.machines.multiclass",
    "KernelPerceptron": "kernelkit.machines.perceptron",
    "KernelPCA": "kernelkit.decomposition.kernel_pca",
    "NystromKernelRidge": "kernelkit.large_scale.nystrom_krr",
    "Nystroem": "kernelkit.large_scale.features",
    "RandomFourierFeatures": "kernelkit.large_scale.features",
    "MajorityVote": "kernelkit.ensemble.majority",
    "AdaBoost": "kernelkit.ensemble.adaboost",
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
