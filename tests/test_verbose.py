"""``verbose=`` on long fits: progress on stderr when asked, silent by default (issue 9)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from kernelkit.utils import all_estimators

from .test_common import _data, _fit

pytest.importorskip("tqdm")


@pytest.fixture(autouse=True)
def _no_warnings():
    """Warnings go to stderr too: only the progress output is under test here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield

# extra arguments so that the fit runs the loop the progress bar counts
EXTRA = {"GaussianProcessRegressor": {"n_restarts_optimizer": 1},
         "NystromKernelRidge": {"solver": "cg"},
         "KernelRidge": {"solver": "cg"}}

VERBOSE = [cls for _, cls in all_estimators() if "verbose" in inspect.signature(cls).parameters]


def _estimator(cls):
    params = dict(getattr(cls, "_test_params", [{}])[0])
    extra = {k: v for k, v in EXTRA.get(cls.__name__, {}).items()
             if k in inspect.signature(cls).parameters}
    est = cls(**params, **extra)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return est


def test_long_fits_have_verbose():
    """The fits the issue names: GP restarts, AdaBoost rounds, CG iterations, SVM passes."""
    names = {cls.__name__ for cls in VERBOSE}
    import kernelkit

    for name in ("GaussianProcessRegressor", "AdaBoost", "NystromKernelRidge", "KernelRidge",
                 "KernelClassifier", "KernelRegressor", "OneClassSVM", "MulticlassSVM"):
        if name in kernelkit.__all__:
            assert name in names, f"{name} has no verbose="


@pytest.mark.parametrize("cls", VERBOSE, ids=lambda c: c.__name__)
def test_verbose_progress_and_silence(cls, capfd):
    est = _estimator(cls)
    default = inspect.signature(cls).parameters["verbose"].default
    assert not default, f"{cls.__name__}: verbose must be off by default"
    X, y = _data(est, n=60)
    _fit(clone(est), X, y)
    out, err = capfd.readouterr()
    assert out == "" and err == "", f"{cls.__name__} printed with verbose={default!r}"
    _fit(clone(est).set_params(verbose=1), X, y)
    out, err = capfd.readouterr()
    assert err.strip(), f"{cls.__name__}(verbose=1) showed no progress on stderr"
    assert out == "", f"{cls.__name__}(verbose=1) wrote to stdout (the CLI's output stream)"


def test_structured_verbose(capfd):
    structured = pytest.importorskip("kernelkit.structured")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    for name in ("StructuredSVM", "StructuredPerceptron"):
        cls = getattr(structured, name)
        est = cls(oracle=structured.MulticlassOracle(), random_state=0)
        clone(est).fit(X, y)
        assert capfd.readouterr().err == "", name
        clone(est).set_params(verbose=1).fit(X, y)
        assert capfd.readouterr().err.strip(), name
