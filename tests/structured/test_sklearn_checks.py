"""scikit-learn's estimator checks on the structured estimators with a MulticlassOracle.

They live in kernelkit.structured (not the top level), so tests/test_common.py does not
discover them; with a MulticlassOracle they are plain multiclass estimators and pass
sklearn's generic checks.
"""

import warnings
from contextlib import nullcontext

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.exceptions import ConvergenceWarning
from kernelkit.structured import (
    ChainOracle,
    MulticlassOracle,
    StructuredPerceptron,
    StructuredSVM,
)


@parametrize_with_checks([StructuredSVM(MulticlassOracle(), max_iter=20, random_state=0),
                          StructuredPerceptron(MulticlassOracle(), random_state=0)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # scikit-learn's checks fit with a pass budget (max_iter=20), not to convergence;
        # the convergence warning itself is asserted in test_svm.py
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.mark.parametrize("cls", [StructuredSVM, StructuredPerceptron])
def test_decision_function_without_y_is_the_score_of_the_prediction(cls):
    rng = np.random.default_rng(0)
    Y = [rng.integers(0, 3, size=rng.integers(1, 5)) for _ in range(12)]
    X = [np.c_[y + 0.5 * rng.normal(size=len(y))] for y in Y]
    kw = {"max_iter": 1, "tol": 1e-12} if cls is StructuredSVM else {}
    budget = pytest.warns(ConvergenceWarning) if cls is StructuredSVM else nullcontext()
    with budget:  # 1 pass: the SVM says it stopped before the duality gap met tol
        m = cls(ChainOracle(3), kernel="linear", random_state=0, **kw).fit(X, Y)
    pred = m.predict(X)
    np.testing.assert_allclose(m.decision_function(X), m.decision_function(X, pred))
    assert np.all(m.decision_function(X) >= m.decision_function(X, Y) - 1e-12)


@pytest.mark.parametrize("cls", [StructuredSVM, StructuredPerceptron])
@pytest.mark.parametrize("cache_size", [1024, 0])
def test_precomputed_kernel_equals_the_kernel(cls, cache_size):
    from kernelkit.kernels import RBF

    rng = np.random.default_rng(0)
    y = np.arange(30) % 3
    X = rng.normal(size=(30, 2)) + np.c_[y, -y]
    Xt = rng.normal(size=(10, 2))
    kw = dict(random_state=0, cache_size=cache_size)
    # the SVM to a tight gap: kernel rows formed on demand (cache_size=0) round differently
    # from the precomputed matrix in the last bit, which can flip a tie between a block's
    # corners and so the path of the pairwise steps, not the optimum
    kw.update(max_iter=1000, tol=1e-12) if cls is StructuredSVM else None
    a = cls(MulticlassOracle(), kernel=RBF(1.0), **kw).fit(X, y)
    b = cls(MulticlassOracle(), kernel="precomputed", **kw).fit(RBF(1.0)(X), y)
    Kt = RBF(1.0)(Xt, X)
    if cls is StructuredSVM:
        assert a.converged_ and b.converged_
    np.testing.assert_allclose(b.decision_function(Kt), a.decision_function(Xt), atol=1e-9)
    np.testing.assert_array_equal(b.predict(Kt), a.predict(Xt))
