"""kernelkit: kernel methods, Gaussian processes and boosting.

Every public estimator is importable from the top level (``kernelkit.KernelRidge``);
kernels live in :mod:`kernelkit.kernels`. Imports are lazy, so ``import kernelkit`` is
cheap and a command-line call loads only what it uses.
"""

from __future__ import annotations

from ._lazy import attach

__version__ = "0.1.0"

# public name -> module that defines it (DESIGN.md, "Public names")
_PUBLIC = {
    "LinearRegression": "kernelkit.linear_model.least_squares",
    "Ridge": "kernelkit.linear_model.ridge",
    "BayesianLinearRegression": "kernelkit.linear_model.bayesian",
    "KernelRidge": "kernelkit.kernel_ridge.kernel_ridge",
    "KernelRidgeCV": "kernelkit.kernel_ridge.cv",
    "GaussianProcessRegressor": "kernelkit.gaussian_process.gpr",
    "SparseGaussianProcessRegressor": "kernelkit.gaussian_process.sgpr",
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


__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
