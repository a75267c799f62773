"""Thin wrappers over ``sklearn.utils.validation`` shared by every estimator."""

from __future__ import annotations

import numbers
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted
from sklearn.utils.validation import validate_data as _sk_validate_data

__all__ = [
    "validate_data",
    "check_classification_targets",
    "check_target_magnitude",
    "check_is_fitted",
    "check_positive",
    "check_nonnegative",
    "check_in_range",
    "check_sample_weight",
    "libsvm_sample_weight",
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


# magnitudes past which squared distances and inner products overflow (sqrt of the largest
# float, with room for sums over features): such input is refused rather than fitted to NaN
_MAX_MAGNITUDE = {np.dtype(np.float64): 1e150, np.dtype(np.float32): 1e18}
# targets enter likelihoods and their gradients squared and divided by a noise variance as
# small as 1e-5 (y y^T / sigma^4 for a GP): a tighter bound keeps those finite
_MAX_TARGET = 1e100


def validate_data(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, with clearer messages for what it lets through.

    - a 1-D ``X``: scikit-learn's message prints the whole array; ours names the estimator
      and the shape;
    - a pandas frame with non-numeric columns (strings, categories of strings): the columns
      are named, with what to do;
    - float values so large that their squares overflow (X beyond 1e150 in float64, 1e18
      in float32; a float y beyond 1e100, or 1e18 with float32 X): refused, since kernels,
      Gram matrices, likelihoods and their gradients would hold inf or NaN.
    """
    try:
        out = _sk_validate_data(estimator, X, y, **kwargs)
    except (ValueError, TypeError) as exc:
        _raise_clearer(estimator, X, exc)
        raise
    if not (isinstance(X, str) and X == "no_validation"):
        _check_magnitude(estimator, out[0] if isinstance(out, tuple) else out, "X")
    if isinstance(out, tuple) and not (isinstance(y, str) and y == "no_validation"):
        # with float32 X the targets are computed in float32 too (scikit-learn's rule)
        x_dtype = getattr(out[0], "dtype", None)
        _check_magnitude(estimator, out[1], "y", x_dtype if x_dtype in _MAX_MAGNITUDE else None)
    return out


def _raise_clearer(estimator, X, exc) -> None:
    name = type(estimator).__name__
    if isinstance(exc, ValueError) and str(exc).startswith("Expected 2D array, got 1D array"):
        shape = getattr(X, "shape", None)
        got = f"a 1-D array of shape {tuple(shape)}" if shape is not None else "a 1-D list"
        raise ValueError(
            f"{name} expects a 2-D X of shape (n_samples, n_features); "
            f"got {got}. Reshape your data with X.reshape(-1, 1) if it has "
            "a single feature, or X.reshape(1, -1) if it is a single sample.") from None
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return
    import pandas as pd

    bad = [f"{c!r} ({t})" for c, t in zip(X.columns, dtypes)
           if not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t))]
    if bad:
        raise ValueError(
            f"{name} needs numeric features; column{'s' if len(bad) > 1 else ''} "
            f"{', '.join(bad[:5])} of X {'are' if len(bad) > 1 else 'is'} not numeric. "
            "Encode categories and strings first (e.g. OneHotEncoder or OrdinalEncoder) and "
            "convert dates to numbers.") from None


def _check_magnitude(estimator, X, name: str, dtype=None) -> None:
    if name == "X" and not getattr(estimator, "_squares_inputs", True):
        return  # e.g. stumps and trees only compare feature values
    data = X.data if hasattr(X, "tocsr") and hasattr(X, "data") else X
    if not isinstance(data, np.ndarray) or data.dtype not in _MAX_MAGNITUDE or not data.size:
        return
    limit = min(_MAX_MAGNITUDE[data.dtype], _MAX_MAGNITUDE.get(dtype, np.inf),
                _MAX_TARGET if name == "y" else np.inf)
    top = max(float(np.max(data)), -float(np.min(data)))
    if top > limit:  # NaN / inf are scikit-learn's to refuse (allow_nan), not checked here
        raise ValueError(
            f"{type(estimator).__name__}: {name} has values of magnitude up to {top:.3g}; "
            f"beyond {limit:.0e} ({dtype or data.dtype}) their squares overflow, so kernels, Gram "
            "matrices and likelihoods would hold inf or NaN. Scale "
            f"{'the features (e.g. StandardScaler)' if name == 'X' else 'the targets'}.")


def check_target_magnitude(estimator, Y) -> None:
    """The bound :func:`validate_data` puts on a float y, for targets validated elsewhere
    (NaN entries, e.g. missing outputs, are skipped)."""
    Y = np.asarray(Y)
    if Y.dtype.kind == "f":
        _check_magnitude(estimator, Y[np.isfinite(Y)], "y")


# weights enter sums of squares multiplied by the data: beyond these they overflow or
# underflow, and only their ratios (to each other and to alpha / C) matter anyway
_WEIGHT_RANGE = (1e-100, 1e100)


def _check_weight_scale(sw) -> None:
    top = float(np.max(sw)) if sw.size else 1.0
    if top > 0 and not _WEIGHT_RANGE[0] <= top <= _WEIGHT_RANGE[1]:
        raise ValueError(
            f"sample_weight values reach {top:.3g}; beyond {_WEIGHT_RANGE[0]:.0e}-"
            f"{_WEIGHT_RANGE[1]:.0e} the weighted sums overflow or underflow. Weights matter "
            "only relative to each other (and to alpha or C): divide them by their mean.")


def check_classification_targets(y) -> None:
    """scikit-learn's ``check_classification_targets``, with a ValueError for labels of
    mixed types (it lets NumPy's TypeError from sorting them escape)."""
    from sklearn.utils.multiclass import check_classification_targets as _check

    try:
        _check(y)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in np.asarray(y, dtype=object).ravel()[:10000]})
        raise ValueError(f"y mixes labels of different types ({', '.join(kinds)}); give "
                         "labels of one type, e.g. all strings or all integers.") from None


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


def check_sample_weight(sample_weight, X, *, positive: bool = False, dtype=None,
                        any_scale: bool = False) -> np.ndarray:
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
    if not any_scale:  # any_scale: the caller rescales the weights (and alpha) itself
        _check_weight_scale(sw)
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
    _check_weight_scale(sw)
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
