"""kernelkit: kernel methods, Gaussian processes and boosting.

Every public estimator is importable from the top level (``kernelkit.KernelRidge``);
kernels live in :mod:`kernelkit.kernels`. Imports are lazy (``lazy_loader``), so
``import kernelkit`` is cheap and a command-line call loads only what it uses; the
subpackages are attributes (``kernelkit.kernels.RBF``, ``kernelkit.datasets.load_co2``).
"""

from __future__ import annotations

from ._core.lazy import attach

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
    "GaussianProcessClassifier": "kernelkit.gaussian_process.gpc",
    "MultiOutputGaussianProcessRegressor": "kernelkit.gaussian_process.multi_output",
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
    "AdaBoostClassifier": "kernelkit.ensemble.adaboost",
    "save": "kernelkit.io",
    "load": "kernelkit.io",
}


# subpackages, reachable as attributes (kernelkit.kernels.RBF) without importing them first
_SUBPACKAGES = [
    "datasets",
    "decomposition",
    "ensemble",
    "exceptions",
    "gaussian_process",
    "io",
    "kernel_ridge",
    "kernels",
    "large_scale",
    "linalg",
    "linear_model",
    "losses",
    "machines",
    "report",
    "solvers",
    "structured",
    "utils",
]

__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC, _SUBPACKAGES)
