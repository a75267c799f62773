"""KernelClassifier and KernelRegressor: a loss + a kernel + an RKHS penalty.

The lecture notes' regularised risk

    f = argmin_f  (1/m) sum_i l(y_i, f(x_i)) + alpha ||f||_H^2   (+ a free offset b)

becomes, by the representer theorem, ``f(x) = sum_i a_i k(x_i, x) + b``. Multiplying by
``1/(2 alpha)`` gives libsvm's scaling ``1/2 ||f||^2 + C sum_i l_i`` with
``C = 1 / (2 alpha m)``; the estimators build ``K`` once and hand the problem to a solver:

* ``"smo"`` — piecewise-linear losses with an intercept (hinge = C-SVC, epsilon-insensitive
  = eps-SVR, absolute, quantile): :func:`~kernelkit.solvers.solve_smo`;
* ``"newton"`` — smooth losses (squared, Huber, squared hinge, logistic), with or without
  intercept: :func:`~kernelkit.solvers.solve_newton`;
* ``"dual_cd"`` — any loss with a dual step, without intercept:
  :func:`~kernelkit.solvers.solve_dual_cd`.

Binary losses handle several classes one-vs-rest; the multiclass losses (Weston-Watkins,
Crammer-Singer) are solved jointly by :func:`~kernelkit.solvers.solve_multiclass_cd`
(no offset, as in the notes).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from .._core.progress import progress_bar
from .._core.validation import (
    FLOAT_DTYPES,
    KERNEL_PARAMETER_CONSTRAINTS,
    check_classification_targets,
    check_dense_target,
    check_is_fitted,
    check_sample_weight,
    check_two_classes,
    validate_data,
)
from ..kernels import resolve_kernel
from ..linalg import KernelRows, as_rows, is_precomputed
from ..losses import Loss, resolve_loss
from ..solvers.dual import DualProblem, choose_method, solve_dual
from .multiclass import _weighted_variance

__all__ = ["KernelClassifier", "KernelRegressor"]

_SOLVERS = ("auto", "smo", "dual_cd", "newton")

# scikit-learn's parameter validation (SVC's constraints where it has the parameter); a loss
# name is checked against the task by _resolve_loss, whose message lists the right names
_CONSTRAINTS: dict = {
    **KERNEL_PARAMETER_CONSTRAINTS,
    "loss": [str, Loss],
    "alpha": [Interval(Real, 0, np.inf, closed="neither")],
    "fit_intercept": ["boolean"],
    "solver": [StrOptions(set(_SOLVERS))],
    "tol": [Interval(Real, 0, np.inf, closed="neither"), None],
    "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither")],
    "loss_params": [dict, None],
    "shrinking": ["boolean"],
    "verbose": ["verbose"],
    "random_state": ["random_state"],
}


class _KernelMachine(BaseEstimator):
    """Shared fit/decision logic; subclasses set the loss family and the targets."""

    _task = "regression"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    # ------------------------------------------------------------- resolution
    def _resolve_loss(self):
        params = dict(self.loss_params or {})
        if hasattr(self, "epsilon"):
            params.setdefault("epsilon", self.epsilon)
        loss = resolve_loss(self.loss, **params)
        if self.loss_params and not isinstance(self.loss, str):
            raise ValueError(f"loss_params apply to a loss given by name; set them on "
                             f"loss={self.loss!r} itself.")
        if self.loss_params:
            import inspect

            accepted = set(inspect.signature(type(loss)).parameters)
            unknown = sorted(set(self.loss_params) - accepted)
            if unknown:
                raise ValueError(
                    f"loss_params {unknown} are not parameters of loss={self.loss!r}; it "
                    f"accepts {sorted(accepted) or 'none'}.")
        if self._task == "classification" and not (loss.is_classification
                                                   or loss.is_multiclass):
            raise ValueError(
                f"loss={self.loss!r} is a regression loss; KernelClassifier needs 'hinge', "
                "'squared_hinge', 'logistic', 'weston_watkins' or 'crammer_singer' (use "
                "KernelRegressor for regression losses).")
        if self._task == "regression" and not loss.is_regression:
            raise ValueError(
                f"loss={self.loss!r} is a classification loss; KernelRegressor needs "
                "'squared', 'absolute', 'epsilon_insensitive', 'huber' or 'quantile'.")
        return loss

    def _resolve_solver(self, loss) -> str:
        return choose_method(loss, self.fit_intercept, self.solver)

    def _gamma(self, X, sw):
        gamma = self.gamma
        if isinstance(gamma, str):
            if gamma == "scale":
                # 1 / (d Var(X)) with the sample-weighted variance (= X.var() for unit weights)
                w = sw / sw.sum()
                var = _weighted_variance(X, w) if X.shape[0] * X.shape[1] else 0.0
                return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
            return 1.0 / X.shape[1]  # "auto"
        return gamma

    # -------------------------------------------------------------------- fit
    def _fit(self, X, Y, sample_weight):
        """Fit one problem per column of ``Y`` (labels +-1 / targets)."""
        loss = self._resolve_loss()
        solver = self._resolve_solver(loss)
        sw = check_sample_weight(sample_weight, X)
        keep = np.flatnonzero(sw > 0)
        # alpha=None: libsvm's default C = 1 (per unit weight), alpha = 1/(2 sum w)
        alpha = 1.0 / (2.0 * sw.sum()) if self.alpha is None else float(self.alpha)
        # (1/m) sum w_i l_i + alpha ||f||^2 <=> 1/2 ||f||^2 + sum C_i l_i, C_i = w_i/(2 alpha sum w)
        Cs = sw[keep] / (2.0 * alpha * sw.sum())
        kernel = self._fit_kernel(X, sw)
        rows = as_rows(X, kernel=kernel, fit=True)  # a precomputed K: its rows, square
        # every weight positive: no copy of X; else the kept rows (precomputed: K[keep, keep])
        Xk = X if len(keep) == X.shape[0] else rows.subset(keep).X
        A, b, n_iter, gaps = self._solve(solver, kernel, Xk, Y[keep], Cs, loss)
        A = _scatter(A, keep, X.shape[0])  # coefficients of the dropped rows are 0
        self.loss_ = loss
        self.solver_ = solver
        support = np.flatnonzero(np.any(A != 0, axis=0))
        self.support_ = support
        self.dual_coef_ = A[:, support]
        self.intercept_ = b
        self.n_iter_ = n_iter
        self.duality_gap_ = gaps
        self.support_vectors_ = rows.support_vectors(support)  # precomputed: (n_SV, 0)
        self.n_support_ = len(support)
        self.C_ = 1.0 / (2.0 * alpha * len(keep)) if sample_weight is None else Cs
        return self

    def _fit_kernel(self, X, sw):
        """``kernel_``: the resolved kernel (a copy of a kernel object passed in)."""
        kernel = resolve_kernel(self.kernel, gamma=self._gamma(X, sw), degree=self.degree,
                                coef0=self.coef0, kernel_params=self.kernel_params,
                                n_features=X.shape[1])
        if kernel is self.kernel:
            from sklearn.base import clone

            kernel = clone(kernel)
        self.kernel_ = kernel
        return kernel

    def _solve(self, solver, kernel, Xk, Yk, Cs, loss):
        """Build the dual problem of each column of ``Yk`` and solve it: ``(A, b, n_iter,
        gaps)`` with the dual coefficients A of shape (n_problems, n_kept)."""
        options = dict(method=solver, tol=self.tol, max_iter=self.max_iter,
                       shrinking=self.shrinking, random_state=self.random_state)
        n_prob = Yk.shape[1]
        if solver == "multiclass_cd":
            rows = KernelRows(kernel, Xk, dense=True)
            res = solve_dual(DualProblem(rows, Yk[:, 0].astype(np.int64), loss, Cs,
                                         n_classes=n_prob), **options)
            return (res.coef.T, np.zeros(n_prob), np.full(n_prob, res.n_iter, dtype=np.int64),
                    np.full(n_prob, res.info["gap"]))
        A = np.zeros((n_prob, Yk.shape[0]))
        b = np.zeros(n_prob)
        n_iter = np.zeros(n_prob, dtype=np.int64)
        gaps = np.zeros(n_prob)
        rows = KernelRows(kernel, Xk)  # each solver asks it for its form (solvers.dual)
        with progress_bar(self.verbose, total=n_prob,
                          desc=f"{type(self).__name__} ({solver})") as bar:
            for k in range(n_prob):
                problem = DualProblem(rows, Yk[:, k], loss, Cs,
                                      fit_intercept=self.fit_intercept)
                res = solve_dual(problem, **options)
                A[k], b[k] = res.coef, res.info["intercept"]
                n_iter[k], gaps[k] = res.n_iter, res.info["gap"]
                bar.update()
        return A, b, n_iter, gaps

    # --------------------------------------------------------------- decision
    def _decision(self, X) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        # f(x) = sum_r a_r k(x_r, x) + b, blockwise within working memory (precomputed:
        # K(X_test, X_train) restricted to the support)
        F = as_rows(X, kernel=self.kernel_).predict(self.kernel_, self.support_vectors_,
                                                    self.dual_coef_.T, index=self.support_)
        return F + self.intercept_


def _dtype(X):
    return getattr(X, "dtype", None)


def _scatter(A, keep, n):
    """The (n_problems, n) coefficients with A's columns at the kept rows."""
    out = np.zeros((A.shape[0], n))
    out[:, keep] = A
    return out


_COMMON_PARAMS = """
    kernel : str, Kernel, callable or sklearn GP kernel, default="rbf"
        Anything :func:`~kernelkit.kernels.resolve_kernel` accepts (``"precomputed"``: X
        is the Gram matrix).
    alpha : float, optional
        Weight of ``||f||^2`` in ``(1/m) sum l + alpha ||f||^2``. libsvm's ``C`` is
        ``1 / (2 alpha m)`` (m = number of training samples, or the sum of the sample
        weights); e.g. sklearn ``SVC(C=1)`` on m = 1000 points is ``alpha = 5e-4``.
        ``None`` is libsvm's default ``C = 1``, i.e. ``alpha = 1 / (2 m)``
        (KernelClassifier's default: ``KernelClassifier()`` is ``SVC()``'s model);
        KernelRegressor defaults to ``alpha = 1.0``.
    fit_intercept : bool, default=True
        Fit an unregularised offset ``b`` (SMO or Newton). Multiclass losses have none.
    solver : {"auto", "smo", "dual_cd", "newton"}, default="auto"
        ``"auto"``: Newton for smooth losses; for piecewise-linear ones SMO with intercept,
        dual coordinate descent without.
    tol : float, optional
        Solver tolerance: KKT violation for SMO (default 1e-3, as libsvm), relative duality
        gap for dual CD (1e-5), half squared Newton decrement relative to the objective
        for Newton (1e-10).
    max_iter : int, optional
        SMO iterations (default ``max(1e7, 100 n)``), dual CD epochs (10,000), Newton steps
        (100). Reaching it warns ``ConvergenceWarning`` with the duality gap.
    gamma : {"scale", "auto"} or float, default="scale"
        RBF/polynomial/laplacian gamma; ``"scale"`` is ``1 / (n_features X.var())`` (as
        sklearn's SVC), ``"auto"`` is ``1 / n_features``.
    degree, coef0 : float
        Polynomial kernel parameters.
    kernel_params : dict, optional
        Extra parameters of a string or callable kernel.
    loss_params : dict, optional
        Loss constructor arguments (``delta`` for Huber, ``q`` for quantile).
    shrinking : bool, default=True
        Shrink variables at bounds (SMO, dual CD).
    verbose : int, default=0
        Show a progress bar over the sub-problems (one-vs-rest classes) when > 0.
    random_state : int, RandomState or None
        Coordinate order of dual CD / multiclass CD.
"""

_COMMON_ATTRS = """
    kernel_ : Kernel
        The resolved kernel.
    loss_ : Loss
        The resolved loss.
    solver_ : str
        The solver used.
    support_ : ndarray of int
        Indices of training points with a non-zero coefficient (in any sub-problem).
    support_vectors_ : ndarray (n_SV, n_features)
    dual_coef_ : ndarray (n_problems, n_SV)
        Representer coefficients ``a`` (``f(x) = sum a_r k(x_r, x) + b``); for the hinge
        ``a_r = y_r alpha_r``, sklearn's ``SVC.dual_coef_``.
    intercept_ : ndarray (n_problems,)
    n_iter_ : ndarray (n_problems,)
    duality_gap_ : ndarray (n_problems,)
        Final duality gap of each sub-problem (in the ``C`` scaling).
    C_ : float or ndarray
        The libsvm ``C = 1/(2 alpha m)`` used (per sample with ``sample_weight``).
    n_features_in_ : int
"""


class KernelClassifier(ClassifierMixin, _KernelMachine):
    __doc__ = f"""Kernel classifier minimising ``(1/m) sum l(y_i, f(x_i)) + alpha ||f||^2``.

    Parameters
    ----------
    loss : str or Loss, default="hinge"
        ``"hinge"`` (SVM), ``"squared_hinge"``, ``"logistic"`` (kernel logistic regression,
        with ``predict_proba``), or the multiclass ``"weston_watkins"``, ``"crammer_singer"``.
{_COMMON_PARAMS}
    Attributes
    ----------
    classes_ : ndarray
{_COMMON_ATTRS}
    Notes
    -----
    With the hinge loss this is libsvm's C-SVC with ``C = 1/(2 alpha m)`` (same solution).
    More than two classes: one-vs-rest for binary losses (``dual_coef_`` has one row per
    class), joint for the multiclass losses.

    Differences from scikit-learn
    -----------------------------
    The peer is ``sklearn.svm.SVC`` (hinge loss). The penalty is ``alpha`` (the notes'
    ``(1/m) sum l + alpha ||f||^2``) instead of ``C = 1/(2 alpha m)``; the default
    ``alpha=None`` is SVC's ``C = 1``. Several classes are one-vs-rest (SVC: one-vs-one),
    so ``dual_coef_`` has one row per class; with default arguments the 5-fold accuracy on
    iris, wine and breast cancer is within a point of ``SVC()``. ``coef0`` defaults to 1
    (SVC: 0). No ``class_weight``, ``probability`` or ``cache_size``; ``predict_proba``
    exists for the logistic loss only.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import KernelClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> clf = KernelClassifier(alpha=1e-3, gamma=1.0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _task = "classification"
    _test_params = [dict(tol=1e-9), dict(loss="logistic")]
    _parameter_constraints: dict = {
        **_CONSTRAINTS, "alpha": [Interval(Real, 0, np.inf, closed="neither"), None]}

    def __init__(self, loss="hinge", kernel="rbf", alpha: float | None = None,
                 fit_intercept: bool = True, solver: str = "auto", tol: float | None = None,
                 max_iter: int | None = None, *, gamma="scale", degree: float = 3,
                 coef0: float = 1.0, kernel_params: dict | None = None,
                 loss_params: dict | None = None, shrinking: bool = True, verbose: int = 0,
                 random_state=None):
        self.loss = loss
        self.kernel = kernel
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.loss_params = loss_params
        self.shrinking = shrinking
        self.verbose = verbose
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None) -> KernelClassifier:
        """Fit on ``X`` (n, d) and labels ``y`` (n,); returns self."""
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=FLOAT_DTYPES)
        check_classification_targets(y)
        classes, yi = np.unique(y, return_inverse=True)
        check_two_classes(self, y, classes)
        self.classes_ = classes
        loss = self._resolve_loss()
        if loss.is_multiclass:
            Y = yi[:, None].astype(float)
        elif len(classes) == 2:
            Y = np.where(yi == 1, 1.0, -1.0)[:, None]
        else:  # one-vs-rest
            Y = np.where(yi[:, None] == np.arange(len(classes))[None, :], 1.0, -1.0)
        if loss.is_multiclass:
            return self._fit_native(X, Y, sample_weight, len(classes))
        return self._fit(X, Y, sample_weight)

    def _fit_native(self, X, Y, sample_weight, n_classes):
        # one column of class indices -> n_classes rows of coefficients
        Yrep = np.repeat(Y, n_classes, axis=1)
        return self._fit(X, Yrep, sample_weight)

    def decision_function(self, X) -> np.ndarray:
        """``f(x)``: shape (n,) for two classes (> 0 means ``classes_[1]``), else (n, k)."""
        F = self._decision(X)
        if F.shape[1] == 2 and self.loss_.is_multiclass:
            return F[:, 1] - F[:, 0]  # two classes, joint loss: f_1 - f_0 (> 0: classes_[1])
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X) -> np.ndarray:
        """Class labels: sign of f for two classes, argmax over classes otherwise."""
        F = self.decision_function(X)
        if F.ndim == 1:
            return self.classes_[(F > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]

    def _is_logistic(self):
        try:
            return resolve_loss(self.loss).name == "logistic"
        except ValueError:
            return False

    @available_if(_is_logistic)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (logistic loss): ``sigma(f)``; one-vs-rest normalised."""
        F = self.decision_function(X)
        if F.ndim == 1:
            p = expit(F)
            return np.column_stack([1.0 - p, p])
        P = expit(F)
        return P / P.sum(axis=1, keepdims=True)

    @available_if(_is_logistic)
    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class KernelRegressor(RegressorMixin, _KernelMachine):
    __doc__ = f"""Kernel regressor minimising ``(1/m) sum l(y_i, f(x_i)) + alpha ||f||^2``.

    Parameters
    ----------
    loss : str or Loss, default="squared"
        ``"squared"`` ((y - f)^2: kernel ridge regression with ridge ``m alpha``),
        ``"absolute"``, ``"epsilon_insensitive"`` (SVR), ``"huber"``, ``"quantile"``.
{_COMMON_PARAMS}
    epsilon : float, default=0.1
        Tube width of the epsilon-insensitive loss (as sklearn's SVR).

    Attributes
    ----------
{_COMMON_ATTRS}
    Notes
    -----
    ``loss="epsilon_insensitive"`` is libsvm's eps-SVR with ``C = 1/(2 alpha m)``;
    ``loss="squared", fit_intercept=False`` equals ``KernelRidge(alpha=m * alpha)``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import KernelRegressor
    >>> X = np.linspace(0, 3, 50)[:, None]; y = np.sin(2 * X[:, 0])
    >>> reg = KernelRegressor(alpha=1e-4, gamma=2.0).fit(X, y)
    >>> bool(np.max(np.abs(reg.predict(X) - y)) < 0.05)
    True
    """

    _task = "regression"
    _test_params = [dict(), dict(loss="epsilon_insensitive", tol=1e-9)]
    _parameter_constraints: dict = {
        **_CONSTRAINTS, "epsilon": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, loss="squared", kernel="rbf", alpha: float = 1.0,
                 fit_intercept: bool = True, solver: str = "auto", tol: float | None = None,
                 max_iter: int | None = None, *, gamma="scale", degree: float = 3,
                 coef0: float = 1.0, kernel_params: dict | None = None,
                 loss_params: dict | None = None, epsilon: float = 0.1,
                 shrinking: bool = True, verbose: int = 0, random_state=None):
        self.loss = loss
        self.kernel = kernel
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.loss_params = loss_params
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.verbose = verbose
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X, y, sample_weight=None) -> KernelRegressor:
        """Fit on ``X`` (n, d) and targets ``y`` (n,) or (n, n_outputs); returns self.

        Several outputs are independent problems sharing the kernel (one row of
        ``dual_coef_`` per output).
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=FLOAT_DTYPES, y_numeric=True,
                             multi_output=True)
        y = check_dense_target(y)
        if not np.all(np.isfinite(y)):
            raise ValueError("y must be finite (no NaN or inf).")
        Y = np.asarray(y, dtype=np.float64)
        self._y_ndim = Y.ndim
        return self._fit(X, Y if Y.ndim == 2 else Y[:, None], sample_weight)

    def predict(self, X) -> np.ndarray:
        """``f(x) = sum_r a_r k(x_r, x) + b``: shape (n,), or (n, n_outputs) for 2-D ``y``."""
        F = self._decision(X)
        F = F.astype(np.float32, copy=False) if _dtype(X) == np.float32 else F  # keep float32
        return F if getattr(self, "_y_ndim", 1) == 2 else F[:, 0]
