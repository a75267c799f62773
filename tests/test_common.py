"""The contract every public estimator meets (DESIGN: tests and benchmarks).

Discovers every public estimator with ``kernelkit.utils.all_estimators()`` and runs
scikit-learn's ``parametrize_with_checks`` plus kernelkit's bad-input checks. An
estimator class can supply constructor arguments for these tests with a class attribute
``_test_params`` (a list of kwargs dicts; required arguments and small ``max_iter``), and
list checks it is known to fail, with the reason, in ``_expected_failed_checks``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_outlier_detector, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.utils import all_estimators


def _instances():
    out = []
    for _, cls in all_estimators():
        for params in getattr(cls, "_test_params", [{}]):
            out.append(cls(**params))
    return out


INSTANCES = _instances()
# the contract's data sets (10-40 rows) are smaller than NystromKernelRidge's test n_centers=50
# and SparseGaussianProcessRegressor's default n_inducing=512: their note that they then use
# every sample as a center / inducing point is expected here
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:n_centers=.* is larger than the number of samples:UserWarning"),
    pytest.mark.filterwarnings(
        "ignore:n_inducing=.* is larger than the number of samples:UserWarning"),
    # ... and SGPR using every one of a few random points as inducing point needs jitter;
    # the contract's MulticlassSVM instance asks for tol=1e-12 on purpose (exact agreement
    # checks), which its capped max_iter may not reach on sklearn's sparse checks' data
    pytest.mark.filterwarnings(
        "ignore:The inducing-point covariance K_MM was not numerically positive definite"
        ":kernelkit.exceptions.JitterWarning"),
    pytest.mark.filterwarnings(
        "ignore:solve_multiclass_cd reached max_iter:sklearn.exceptions.ConvergenceWarning"),
    # a GP's marginal likelihood on scikit-learn's tiny check data can be flat to rounding:
    # L-BFGS-B then stops on a line search (ABNORMAL), which the GP reports; it depends on
    # the last bits of the BLAS (a fresh-clone CI run met it once, in
    # check_positive_only_tag_during_fit)
    pytest.mark.filterwarnings(
        "ignore:lbfgs failed to converge.*ABNORMAL:sklearn.exceptions.ConvergenceWarning"),
]


def _expected_failed(estimator):
    return dict(getattr(estimator, "_expected_failed_checks", {}))


def test_discovery_is_consistent():
    import kernelkit

    names = {name for name, _ in all_estimators()}
    assert names <= set(kernelkit.__all__)
    for name in names:
        assert hasattr(kernelkit, name)


if INSTANCES:

    # scikit-learn's checks fit on tiny, easy data: a perfect first weak learner is expected
    @pytest.mark.filterwarnings("ignore:AdaBoost stopped at round .* perfect")
    # ... and on random targets, where a GP's optimum at a bound is expected (scikit-learn's
    # own GaussianProcessRegressor warns the same there), as are the caps that the contract
    # instances set on purpose (NystromKernelRidge max_iter=50, OneClassSVM tol=1e-10) and
    # the jitter of an SGPR that uses every one of a few random points as inducing point
    @pytest.mark.filterwarnings(
        "ignore:The optimal value found for dimension .* is close to the specified"
        ":sklearn.exceptions.ConvergenceWarning")
    @pytest.mark.filterwarnings(
        "ignore:NystromKernelRidge. conjugate gradients stopped at max_iter=50"
        ":sklearn.exceptions.ConvergenceWarning")
    @pytest.mark.filterwarnings(
        "ignore:Dual coordinate descent reached max_iter:sklearn.exceptions.ConvergenceWarning")
    @pytest.mark.filterwarnings(
        "ignore:The inducing-point covariance K_MM was not numerically positive definite"
        ":kernelkit.exceptions.JitterWarning")
    @parametrize_with_checks(INSTANCES, expected_failed_checks=_expected_failed)
    def test_sklearn_compatible(estimator, check):
        check(estimator)


def _data(estimator, n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if is_classifier(estimator):
        y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    elif is_regressor(estimator):
        y = X @ np.arange(1.0, d + 1) + 0.1 * rng.normal(size=n)
    else:
        y = None
    return X, y


def _fit(est, X, y):
    return est.fit(X) if y is None else est.fit(X, y)


def _ids(instances):
    return [type(e).__name__ for e in instances]


def _supervised(est):
    return is_classifier(est) or is_regressor(est)


BAD = ["nan", "inf", "empty", "1d", "mismatched", "one_class", "complex"]


@pytest.mark.parametrize("estimator", INSTANCES, ids=_ids(INSTANCES))
@pytest.mark.parametrize("kind", BAD)
def test_bad_input_at_fit(estimator, kind):
    est = clone(estimator)
    X, y = _data(est)
    if kind == "nan":
        X[3, 1] = np.nan
    elif kind == "inf":
        X[5, 0] = np.inf
    elif kind == "empty":
        X, y = X[:0], (None if y is None else y[:0])
    elif kind == "1d":
        X = X[:, 0]
    elif kind == "mismatched":
        if y is None:
            pytest.skip("unsupervised: no y to mismatch")
        y = y[:-3]
    elif kind == "one_class":
        if not is_classifier(est):
            pytest.skip("only classifiers need two classes")
        y = np.ones_like(y)
    elif kind == "complex":
        X = X + 1j
    with pytest.raises(ValueError):
        _fit(est, X, y)


@pytest.mark.parametrize("estimator", INSTANCES, ids=_ids(INSTANCES))
def test_bad_input_nonfinite_target(estimator):
    est = clone(estimator)
    if not is_regressor(est):
        pytest.skip("targets only checked for regressors")
    X, y = _data(est)
    y = y.astype(float)
    y[2] = np.nan
    with pytest.raises(ValueError):
        est.fit(X, y)


@pytest.mark.parametrize("estimator", INSTANCES, ids=_ids(INSTANCES))
def test_not_fitted_and_wrong_n_features(estimator):
    est = clone(estimator)
    X, y = _data(est)
    method = next(
        m for m in ("predict", "transform", "decision_function", "score_samples")
        if hasattr(est, m)
    )
    if get_tags(est).requires_fit:  # e.g. a GP predicts from its prior before fit
        with pytest.raises(NotFittedError):
            getattr(est, method)(X)
    _fit(est, X, y)
    with pytest.raises(ValueError):
        getattr(est, method)(X[:, :2])
    with pytest.raises(ValueError):
        getattr(est, method)(np.where(np.arange(X.size).reshape(X.shape) == 4, np.nan, X))


@pytest.mark.parametrize("estimator", INSTANCES, ids=_ids(INSTANCES))
def test_fit_does_not_mutate_params_and_is_deterministic(estimator):
    est = clone(estimator)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    before = repr(est.get_params(deep=False))
    X, y = _data(est)
    _fit(est, X, y)
    assert repr(est.get_params(deep=False)) == before
    method = "predict" if hasattr(est, "predict") else "transform"
    out1 = getattr(est, method)(X)
    out2 = getattr(_fit(clone(est), X, y), method)(X)
    np.testing.assert_allclose(out1, out2, rtol=1e-7, atol=1e-9)
    if is_outlier_detector(est):
        assert set(np.unique(out1)) <= {-1, 1}


_OUTPUT_METHODS = ("predict", "predict_proba", "decision_function", "transform", "score_samples")


@pytest.mark.parametrize("estimator", INSTANCES, ids=_ids(INSTANCES))
def test_save_load_round_trip(estimator, tmp_path):
    """kernelkit.save / kernelkit.load keep every public estimator's outputs identical."""
    from kernelkit.io import load, save

    est = clone(estimator)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    X, y = _data(est)
    _fit(est, X, y)
    est2 = load(save(est, tmp_path / "model.kkm"))
    assert type(est2) is type(est)
    assert repr(est2.get_params(deep=False)) == repr(est.get_params(deep=False))
    checked = 0
    for method in _OUTPUT_METHODS:
        if hasattr(est, method):
            np.testing.assert_array_equal(getattr(est2, method)(X), getattr(est, method)(X),
                                          err_msg=f"{type(est).__name__}.{method}")
            checked += 1
    assert checked


_VALIDATED = [e for e in INSTANCES if hasattr(type(e), "_parameter_constraints")]


@pytest.mark.parametrize("estimator", _VALIDATED, ids=_ids(_VALIDATED))
def test_invalid_parameters_raise_sklearns_InvalidParameterError(estimator):
    """scikit-learn's own check: every parameter has a constraint, and a value of the wrong
    type or range raises InvalidParameterError naming it, from fit / fit_transform / ..."""
    from sklearn.utils.estimator_checks import check_param_validation

    check_param_validation(type(estimator).__name__, clone(estimator))


def _structured_classes():
    """The structured estimators (public in kernelkit.structured, not at the top level)."""
    import inspect

    import kernelkit.structured as st

    return [getattr(st, n) for n in st.__all__ if inspect.isclass(getattr(st, n))
            and hasattr(getattr(st, n), "predict")]


def test_every_public_estimator_validates_its_parameters():
    """scikit-learn's parameter validation is part of the contract: every public estimator,
    top-level and structured, declares ``_parameter_constraints`` (a future estimator
    without them fails here, and the test above checks every parameter is covered)."""
    classes = [cls for _, cls in all_estimators()] + _structured_classes()
    assert len(classes) >= 21
    missing = [c.__name__ for c in classes if not hasattr(c, "_parameter_constraints")]
    assert not missing, f"no _parameter_constraints: {missing}"
    assert {type(e).__name__ for e in _VALIDATED} == {name for name, _ in all_estimators()}


@pytest.mark.parametrize("cls", _structured_classes(), ids=lambda c: c.__name__)
def test_structured_estimators_pass_sklearns_param_validation_check(cls):
    from sklearn.utils.estimator_checks import check_param_validation

    from kernelkit.structured import MulticlassOracle

    check_param_validation(cls.__name__, cls(MulticlassOracle()))


# one wrong value per estimator family, with the words scikit-learn's message starts with
_BAD_PARAMETERS = [
    ("KernelRidge", dict(alpha="0.1"), "alpha"),
    ("KernelRidgeCV", dict(cv="loocv"), "cv"),
    ("BayesianLinearRegression", dict(noise=0.0), "noise"),
    ("GaussianProcessRegressor", dict(optimizer="adam"), "optimizer"),
    ("GaussianProcessClassifier", dict(multi_class="ovr"), "multi_class"),
    ("MultiOutputGaussianProcessRegressor", dict(kappa_bounds="free"), "kappa_bounds"),
    ("SparseGaussianProcessRegressor", dict(inducing="grid"), "inducing"),
    ("KernelClassifier", dict(gamma="0.1"), "gamma"),
    ("KernelClassifier", dict(alpha=np.inf), "alpha"),  # the penalty is finite
    ("KernelRegressor", dict(solver="lbfgs"), "solver"),
    ("MulticlassSVM", dict(C=0), "C"),
    ("KernelPerceptron", dict(variant="avg"), "variant"),
    ("MajorityVote", dict(estimators="stump"), "estimators"),
    ("NystromKernelRidge", dict(n_centers=10.5), "n_centers"),
]


@pytest.mark.parametrize("name, params, param", _BAD_PARAMETERS,
                         ids=[b[0] for b in _BAD_PARAMETERS])
def test_a_wrong_parameter_raises_sklearns_InvalidParameterError(name, params, param):
    from sklearn.utils._param_validation import InvalidParameterError

    import kernelkit as kk

    X, y = _data(kk.KernelClassifier(), n=20)
    with pytest.raises(InvalidParameterError,
                       match=f"The '{param}' parameter of {name} must be .* Got .* instead"):
        getattr(kk, name)(**params).fit(X, y)


def test_a_wrong_structured_parameter_raises_sklearns_InvalidParameterError():
    from sklearn.utils._param_validation import InvalidParameterError

    import kernelkit as kk
    from kernelkit.structured import MulticlassOracle, StructuredPerceptron, StructuredSVM

    X, y = _data(kk.KernelClassifier(), n=20)
    with pytest.raises(InvalidParameterError, match="'solver' parameter of StructuredSVM"):
        StructuredSVM(MulticlassOracle(), solver="sgd").fit(X, y)
    with pytest.raises(InvalidParameterError, match="'oracle' parameter of StructuredPercep"):
        StructuredPerceptron(oracle="multiclass").fit(X, y)


def test_gp_parameters_accept_what_scikit_learn_accepts():
    """The GP constraints keep every documented form: kernelkit, scikit-learn and named
    kernels or None; alpha a float, array or list; optimizer the name, a callable or None."""
    from sklearn.gaussian_process.kernels import RBF as SkRBF

    import kernelkit as kk
    from kernelkit.kernels import RBF

    X, y = _data(kk.GaussianProcessRegressor(), n=12)

    def optimizer(obj_func, initial_theta, bounds):
        return initial_theta, float(obj_func(initial_theta, eval_gradient=False))

    for kernel in (None, RBF(1.0), SkRBF(1.0), "rbf"):
        for alpha in (1e-2, np.full(12, 1e-2), [1e-2] * 12):
            for opt in ("fmin_l_bfgs_b", optimizer, None):
                gp = kk.GaussianProcessRegressor(kernel, alpha=alpha, optimizer=opt).fit(X, y)
                assert np.all(np.isfinite(gp.predict(X)))
    lists = kk.MultiOutputGaussianProcessRegressor([RBF(1.0), SkRBF(2.0)], optimizer=None)
    assert lists.fit(X, np.c_[y, -y]).predict(X).shape == (12, 2)
