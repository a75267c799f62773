"""kernelkit._core.validation: the shared parameter checks and the estimator kernel resolver."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit._core.validation import (
    check_in_range,
    check_positive,
    check_sample_weight,
)
from kernelkit.kernels import RBF, Laplacian, Polynomial, resolve_estimator_kernel


def test_check_positive_and_in_range():
    assert check_positive(2, "alpha") == 2.0
    assert check_positive(0.0, "alpha", allow_zero=True) == 0.0
    for bad in (0.0, -1.0, np.nan, np.inf, "1", True, None):
        with pytest.raises(ValueError, match="alpha"):
            check_positive(bad, "alpha")
    assert check_in_range(0.5, "nu", 0, 1, closed="right") == 0.5
    with pytest.raises(ValueError, match=r"nu must lie in \(0, 1\]"):
        check_in_range(0.0, "nu", 0, 1, closed="right")
    with pytest.raises(ValueError, match="nu must be a real number"):
        check_in_range("a", "nu", 0, 1)


def test_check_sample_weight():
    X = np.zeros((4, 2))
    np.testing.assert_array_equal(check_sample_weight(None, X), np.ones(4))
    np.testing.assert_array_equal(check_sample_weight(2.0, X), np.full(4, 2.0))
    for bad in ([1.0, -1.0, 1.0, 1.0], [1.0, np.nan, 1.0, 1.0]):
        with pytest.raises(ValueError, match="sample_weight"):
            check_sample_weight(np.array(bad), X)
    with pytest.raises(ValueError, match="sample_weight"):
        check_sample_weight(np.array([1.0, 0.0, 1.0, 1.0]), X, positive=True)
    with pytest.raises(ValueError):
        check_sample_weight(np.ones(3), X)


class _Est:
    def __init__(self, kernel="rbf", gamma=None, degree=3, coef0=1, kernel_params=None):
        self.kernel, self.gamma, self.degree = kernel, gamma, degree
        self.coef0, self.kernel_params = coef0, kernel_params


def test_resolve_estimator_kernel_strings_and_clones():
    k = resolve_estimator_kernel(_Est("rbf"), n_features=4)  # gamma None -> 1 / n_features
    assert isinstance(k, RBF) and k.length_scale == pytest.approx(np.sqrt(0.5 / 0.25))
    k = resolve_estimator_kernel(_Est("laplacian", gamma=0.5), n_features=4)
    assert isinstance(k, Laplacian) and k.length_scale == pytest.approx(2.0)
    k = resolve_estimator_kernel(_Est("poly", gamma=0.1, degree=2, coef0=0.5), n_features=4)
    assert isinstance(k, Polynomial) and (k.degree, k.gamma, k.coef0) == (2, 0.1, 0.5)
    given = RBF(2.0)
    k = resolve_estimator_kernel(_Est(given), n_features=4)
    assert k == given and k is not given  # a clone: fitting never mutates the parameter


def test_resolve_estimator_kernel_does_not_share_a_sklearn_kernel():
    from sklearn.gaussian_process.kernels import RBF as SkRBF

    sk = SkRBF(1.5)
    k = resolve_estimator_kernel(_Est(sk), n_features=2)
    k.theta = np.log([0.2])  # what a hyperparameter search does to kernel_
    assert sk.length_scale == 1.5 and k.kernel is not sk


# ---------------------------------------------- found by the estimator fuzzer (issue 19)
@pytest.mark.parametrize("scale,dtype", [(1e200, np.float64), (1e300, np.float64),
                                         (1e20, np.float32)])
def test_values_whose_squares_overflow_are_refused_by_name(scale, dtype):
    """KernelPCA, KernelRidgeCV and the multi-output GP raised a raw LinAlgError from eigh,
    Nystroem returned NaN features: their kernels of such X hold inf or NaN."""
    from kernelkit import KernelPCA, KernelRidge, Nystroem

    X = (np.random.default_rng(0).normal(size=(8, 2)) * scale).astype(dtype)
    for est in (KernelPCA(), Nystroem(n_components=4), KernelRidge()):
        with pytest.raises(ValueError, match=r"X has values of magnitude up to .*Scale the "
                                             "features"):
            est.fit(X, np.ones(8)) if isinstance(est, KernelRidge) else est.fit(X)


def test_huge_targets_are_refused_and_stumps_take_huge_features():
    from kernelkit import AdaBoost, GaussianProcessRegressor

    X = np.random.default_rng(0).normal(size=(8, 2))
    with pytest.raises(ValueError, match="y has values of magnitude"):
        GaussianProcessRegressor().fit(X, np.full(8, 1e300))
    # stumps only compare values: no overflow, no refusal
    y = (X[:, 0] > 0).astype(float)
    with pytest.warns(UserWarning, match="perfect"):  # y is X[:, 0]'s sign: one stump
        clf = AdaBoost(n_estimators=3).fit(np.c_[X[:, 0] * 1e300, X[:, 1]], y)
    assert np.isfinite(clf.decision_function(np.c_[X[:, 0] * 1e300, X[:, 1]])).all()


def test_mixed_label_types_are_a_value_error():
    """sklearn's check_classification_targets let NumPy's TypeError ("'<' not supported
    between instances of 'int' and 'str'") escape from AdaBoost and KernelPerceptron."""
    from kernelkit import AdaBoost, KernelPerceptron

    X = np.random.default_rng(0).normal(size=(6, 2))
    y = np.array(["a", 1, "a", 1, 1, "a"], dtype=object)
    for est in (AdaBoost(), KernelPerceptron()):
        with pytest.raises(ValueError, match=r"mixes labels of different types \(int, str\)"):
            est.fit(X, y)


def test_non_numeric_frame_columns_are_named():
    pd = pytest.importorskip("pandas")
    from kernelkit import KernelRidge

    X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": pd.Categorical(["x", "y", "x"])})
    with pytest.raises(ValueError, match=r"column 'b' \(category\) of X is not numeric"):
        KernelRidge().fit(X, [1.0, 2.0, 3.0])


def test_subnormal_features_make_a_clear_least_squares_error():
    """Subnormal X: 1/s overflowed and LinearRegression predicted inf."""
    from kernelkit import LinearRegression

    X = np.random.default_rng(0).normal(size=(6, 2)) * 1e-310
    with pytest.raises(ValueError, match="coefficients overflow float64"):
        LinearRegression().fit(X, np.arange(6.0))


def test_extreme_sample_weights_are_refused_by_name():
    """Weights of 1e300 made Ridge's SVD fail (LinAlgError / 'A has a NaN entry') and the
    SVMs' dual solvers run past 10 s (found by the estimator fuzzer)."""
    from kernelkit import KernelClassifier, LinearRegression, OneClassSVM, Ridge

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(8, 2)) * 1e8, np.r_[np.zeros(4), np.ones(4)]
    for est, target in ((Ridge(), y), (LinearRegression(), y), (KernelClassifier(), y),
                        (OneClassSVM(), None)):
        for w in (1e300, 1e-300):
            with pytest.raises(ValueError, match="sample_weight values reach"):
                est.fit(X, target, sample_weight=np.full(8, w)) if target is not None \
                    else est.fit(X, sample_weight=np.full(8, w))


def test_multi_output_targets_are_bounded_too():
    from kernelkit import MultiOutputGaussianProcessRegressor

    with pytest.raises(ValueError, match="y has values of magnitude"):
        MultiOutputGaussianProcessRegressor().fit(np.zeros((2, 1)), [[1e150, 1.0], [0, 1]])
