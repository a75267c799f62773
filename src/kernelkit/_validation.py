"""Thin wrappers over ``sklearn.utils.validation`` shared by every estimator."""

from __future__ import annotations

import numbers
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted
from sklearn.utils.validation import validate_data as _sk_validate_data

from .kernels import Kernel, SklearnKernel, resolve_kernel

__all__ = [
    "validate_data",
    "check_is_fitted",
    "check_positive",
    "check_nonnegative",
    "check_in_range",
    "check_sample_weight",
    "libsvm_sample_weight",
    "resolve_estimator_kernel",
    "check_two_classes",
    "check_dense_target",
    "plain",
    "FLOAT_DTYPES",
    "KERNEL_PARAMETER_CONSTRAINTS",
]

FLOAT_DTYPES = (np.float64, np.float32)

# scikit-learn's parameter validation (``_parameter_constraints``) of the kernel parameters
# every kernel estimator shares, as in scikit-learn's KernelRidge: ``kernel`` is a name, a
# kernelkit kernel, a scikit-learn GP kernel or a function (kernel objects are callable);
# a name that resolve_kernel does not know still gets its ValueError listing the names
KERNEL_PARAMETER_CONSTRAINTS: dict = {
    "kernel": [str, callable],
    "gamma": [Interval(Real, 0, None, closed="left"), None],
    "degree": [Interval(Real, 0, None, closed="left")],
    "coef0": [Real],
    "kernel_params": [dict, None],
}


def validate_data(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, with a short message for a 1-D ``X``.

    scikit-learn's message prints the whole array; ours names the estimator and the shape.
    """
    try:
        return _sk_validate_data(estimator, X, y, **kwargs)
    except ValueError as exc:
        if not str(exc).startswith("Expected 2D array, got 1D array"):
            raise
        shape = getattr(X, "shape", None)
        got = f"a 1-D array of shape {tuple(shape)}" if shape is not None else "a 1-D list"
        raise ValueError(
            f"{type(estimator).__name__} expects a 2-D X of shape (n_samples, n_features); "
            f"got {got}. Reshape your data with X.reshape(-1, 1) if it has "
            "a single feature, or X.reshape(1, -1) if it is a single sample.") from None


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as float, raising a ValueError that names the parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def check_nonnegative(value, name: str) -> float:
    return check_positive(value, name, allow_zero=True)


def check_in_range(value, name: str, low: float, high: float, *, closed: str = "both") -> float:
    """Check ``low <(=) value <(=) high``; ``closed`` in {"both", "left", "right", "neither"}."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {value!r}.")
    lo_ok = value >= low if closed in ("both", "left") else value > low
    hi_ok = value <= high if closed in ("both", "right") else value < high
    if not (lo_ok and hi_ok):
        lb = "[" if closed in ("both", "left") else "("
        rb = "]" if closed in ("both", "right") else ")"
        raise ValueError(f"{name} must lie in {lb}{low}, {high}{rb}; got {value!r}.")
    return float(value)


def check_sample_weight(sample_weight, X, *, positive: bool = False, dtype=None) -> np.ndarray:
    """Validated sample weights (ones when ``None``), non-negative and finite.

    In ``dtype`` when given (e.g. float64 weights for float32 X), else in X's dtype. The
    errors are scikit-learn's (same class, same key phrase): "Negative values in data passed
    to `sample_weight`", "Sample weights must contain at least one non-zero number".
    """
    from sklearn.utils.validation import _check_sample_weight

    if dtype is None:
        dtype = X.dtype if hasattr(X, "dtype") else None
    sw = _check_sample_weight(sample_weight, X, dtype=dtype, ensure_non_negative=True)
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight must be finite (no NaN or inf).")
    if sw.size and not np.any(sw > 0):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    if positive and np.any(sw == 0):
        raise ValueError("sample_weight must be positive (no zero entries).")
    return sw


def libsvm_sample_weight(sample_weight, X) -> np.ndarray:
    """Sample weights as libsvm (scikit-learn's SVMs) reads them: a weight <= 0 drops its
    sample, so negative weights are allowed; ValueError when none is positive."""
    from sklearn.utils import check_array

    n = X.shape[0]
    if sample_weight is None or isinstance(sample_weight, numbers.Number):
        sw = np.full(n, 1.0 if sample_weight is None else float(sample_weight))
    else:
        sw = check_array(sample_weight, ensure_2d=False, dtype=np.float64,
                         input_name="sample_weight")
        if sw.shape != (n,):
            raise ValueError(f"sample_weight.shape == {sw.shape}, expected {(n,)}!")
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight must be finite (no NaN or inf).")
    if n and not np.any(sw > 0):
        raise ValueError("Invalid input - all samples have zero or negative weights.")
    return sw


def plain(value) -> str:
    """A value as a user writes it: ``1``, ``'a'``, ``[1, 2]``, never ``np.int64(1)`` or
    ``array([1, 2])`` (NumPy 2 puts its type in a scalar's repr)."""
    if isinstance(value, np.ndarray):
        items = [plain(v) for v in value.ravel()[:6]]
        return "[" + ", ".join(items) + (", ..." if value.size > 6 else "") + "]"
    if isinstance(value, (list, tuple)):
        return plain(np.asarray(value, dtype=object))
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def check_two_classes(estimator, y, classes=None) -> np.ndarray:
    """The sorted classes of ``y``; a ValueError naming the estimator if there is only one.

    The one wording every kernelkit classifier uses for this condition:
    "<Name> needs samples of at least 2 classes; got 1 class: <label>."

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import AdaBoost
    >>> check_two_classes(AdaBoost(), np.array([3, 3, 3]))
    Traceback (most recent call last):
    ...
    ValueError: AdaBoost needs samples of at least 2 classes; got 1 class: 3.
    """
    classes = np.unique(y) if classes is None else classes
    if len(classes) < 2:
        name = estimator if isinstance(estimator, str) else type(estimator).__name__
        got = f"1 class: {plain(classes[0])}" if len(classes) else "no samples"
        raise ValueError(f"{name} needs samples of at least 2 classes; got {got}.")
    return classes


def resolve_estimator_kernel(estimator, n_features: int) -> Kernel:
    """Resolve an estimator's ``kernel`` (+ ``gamma/degree/coef0/kernel_params``) parameters.

    Returns a *clone* for kernel objects, so that fitting never mutates a constructor
    parameter.
    """
    from sklearn.base import clone

    kernel = getattr(estimator, "kernel", "rbf")
    k = resolve_kernel(
        kernel,
        gamma=getattr(estimator, "gamma", None),
        degree=getattr(estimator, "degree", 3),
        coef0=getattr(estimator, "coef0", 1),
        kernel_params=getattr(estimator, "kernel_params", None),
        n_features=n_features,
    )
    # a wrapped scikit-learn kernel is the user's object too: clone the wrapper deeply
    return clone(k) if k is kernel or isinstance(k, SklearnKernel) else k


def check_dense_target(y):
    """``y`` itself, or scikit-learn's TypeError for a scipy.sparse target (a multi-output
    ``validate_data`` lets CSR targets through; kernel estimators need dense targets).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> check_dense_target(sp.csr_matrix([[1.0], [2.0]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: Sparse data was passed for y, but dense data is required. Use '.toarray()'...
    """
    import scipy.sparse as sp

    if sp.issparse(y):
        raise TypeError("Sparse data was passed for y, but dense data is required. Use "
                        "'.toarray()' to convert to a dense numpy array.")
    return y
