"""OneClassSVM: Schölkopf's nu-formulation (scikit-learn's model), and the notes' C-form.

Default, Schölkopf et al.'s nu-one-class SVM in libsvm's scaling (that of scikit-learn's
OneClassSVM, so ours is a drop-in):

    min_alpha  1/2 alpha^T K alpha   s.t.  0 <= alpha_i <= 1,  sum_i alpha_i = nu m,

(Schölkopf's problem with ``sum = 1``, ``alpha_i <= 1/(nu m)``, multiplied by ``nu m``),
solved by SMO (:func:`~kernelkit.solvers.solve_smo`), with offset ``rho`` from its KKT
conditions: ``score_samples(x) = sum_i alpha_i k(x_i, x)``, ``decision_function =
score_samples - rho``.

With ``C`` set, the lecture notes' formulation, with no offset:

    min_f  (1/m) sum_i (1 - f(x_i))_+ + 1/(2C) ||f||_H^2,
    dual   max_alpha  sum_i alpha_i - 1/2 alpha^T K alpha,   0 <= alpha_i <= C/m,

``f = sum_i alpha_i k(x_i, .)``; it is the hinge loss with every label +1, solved by
single-coordinate dual steps (:func:`~kernelkit.solvers.solve_dual_cd`: clip(alpha_i +
(1 - f_i)/K_ii, 0, C/m), shrinking, duality-gap stop). ``decision_function(x) = f(x) - 1``:
points with ``f(x) >= 1`` are inliers.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.progress import progress_bar
from .._core.validation import (
    FLOAT_DTYPES,
    check_in_range,
    check_is_fitted,
    check_positive,
    libsvm_sample_weight,
    validate_data,
)
from ..kernels import Linear, resolve_kernel
from ..linalg import as_rows, is_precomputed
from .multiclass import _scale_gamma

__all__ = ["OneClassSVM"]


class OneClassSVM(OutlierMixin, BaseEstimator):
    """One-class SVM: Schölkopf's nu-formulation by default, the notes' hinge form with ``C``.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        As in :func:`~kernelkit.kernels.resolve_kernel` (``"precomputed"`` accepted).
    C : float, optional
        Set it to fit the notes' formulation ``(1/m) sum_i (1 - f(x_i))_+ + 1/(2C) ||f||^2``
        instead of the nu-formulation (``nu`` is then unused); the dual box is ``[0, C/m]``
        (``[0, C w_i / sum w]`` with ``sample_weight``). As ``f(x) <= sum_i alpha_i <= C``
        for a kernel bounded by 1 (RBF), ``C <= 1`` makes every point an outlier; larger C
        gives a larger inlier region.
    nu : float in (0, 1], default=0.5
        The nu-formulation (scikit-learn's OneClassSVM): an upper bound on the fraction
        of training outliers and a lower bound on the fraction of support vectors.
    gamma : {"scale", "auto"} or float, default="scale"
        ``"scale"``: ``1 / (n_features X.var())``, as scikit-learn.
    degree : int, default=3
    coef0 : float, default=0.0
    kernel_params : dict, optional
    tol : float, optional
        Notes' formulation: relative duality gap ``(P - D) / max(|P|, |D|)`` (default 1e-8:
        dual coordinate steps are cheap, and the dual objective is then exact to about
        ``1e-8 |D|``); nu: libsvm's KKT-violation tolerance (default 1e-3, scikit-learn's).
    max_iter : int, optional
        Epochs (notes' formulation, default 10,000) or SMO steps (nu, default libsvm-like).
        ``None`` or ``-1`` (scikit-learn's "no limit") use these defaults.
    shrinking : bool, default=True
    random_state : int, RandomState or None, default=None
        Order of the coordinate steps (notes' formulation).
    cache_size : float, optional
        MiB for the kernel matrix / row cache (as scikit-learn's ``cache_size``); default
        ``sklearn.get_config()["working_memory"]``.
    verbose : bool, default=False
        Show a progress bar of the solve (with the final duality gap) on stderr.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (1, n_SV)
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : ndarray of shape (1,)
    intercept_ : ndarray of shape (1,)
        ``-offset_``.
    offset_ : ndarray of shape (1,)
        ``rho`` (nu) or ``1`` (notes): ``decision_function = score_samples - offset_``.
    dual_objective_ : float
        Notes: ``sum alpha - 1/2 alpha^T K alpha``; nu: ``1/2 alpha^T K alpha`` (minimised).
    duality_gap_ : float
    n_iter_ : int
    fit_status_ : int
        0 if the solver converged, 1 otherwise (a ConvergenceWarning was raised), as
        scikit-learn's.
    shape_fit_ : tuple
        Shape of the training ``X``.
    coef_ : ndarray of shape (1, n_features)
        Linear kernel only: the weight vector ``dual_coef_ @ support_vectors_``.
    kernel_ : Kernel

    Differences from scikit-learn
    -----------------------------
    - The extra parameter ``C`` switches to the notes' formulation (no offset,
      ``offset_ = 1``); ``random_state`` orders its coordinate steps.
    - ``tol`` and ``max_iter`` default to None (1e-3 and no limit for nu, as scikit-learn);
      ``cache_size`` defaults to scikit-learn's ``working_memory``.
    - The extra attributes ``dual_objective_``, ``duality_gap_`` and ``kernel_``; kernelkit
      kernel objects and scikit-learn GP kernels are accepted as ``kernel``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import OneClassSVM
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> oc = OneClassSVM(nu=0.1, gamma=0.5).fit(X)  # scikit-learn's model
    >>> bool(0.05 <= np.mean(oc.predict(X) == -1) <= 0.15)
    True
    >>> OneClassSVM(C=5.0, gamma=0.5).fit(X).predict([[0.0, 0.0], [6.0, 6.0]]).tolist()
    [1, -1]
    """

    # the notes' formulation needs C > 1 for any inlier (f <= sum alpha <= C when k <= 1);
    # fixed gamma: "scale" reads the unweighted X.var(), so duplicated rows change it
    _test_params = [dict(C=20.0, gamma=0.5, tol=1e-10), dict(nu=0.5, gamma=0.5, tol=1e-8)]

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "kernel": [str, callable],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "nu": [Interval(Real, 0, 1, closed="right"), None],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither"),
                  None],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "coef0": [Real],
        "kernel_params": [dict, None],
        "tol": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, -1, None, closed="left"), None],
        "shrinking": ["boolean"],
        "random_state": ["random_state"],
        "cache_size": [Interval(Real, 0, None, closed="neither"), None],
        "verbose": ["verbose"],
    }

    def __init__(self, kernel="rbf", C: float | None = None, nu: float = 0.5,
                 gamma="scale", *, degree: int = 3, coef0: float = 0.0,
                 kernel_params: dict | None = None, tol: float | None = None,
                 max_iter: int | None = None, shrinking: bool = True, random_state=None,
                 cache_size: float | None = None, verbose: bool = False):
        self.kernel = kernel
        self.C = C
        self.nu = nu
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state
        self.cache_size = cache_size
        self.verbose = verbose

    _expected_failed_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "as scikit-learn's OneClassSVM: fits with weights and with repeated rows agree "
            "to ~1e-8, so margin points (decision ~ 0, many in this check) flip sign"),
        "check_sample_weight_equivalence_on_sparse_data": (
            "the same check on sparse X: margin points flip sign, as on dense data"),
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def _check_params(self):
        """(C, nu, tol, max_iter, working memory); C is None for the nu-formulation."""
        C = None if self.C is None else check_positive(self.C, "C")
        nu = None
        if C is None:
            if self.nu is None:
                raise ValueError("Set nu (scikit-learn's formulation) or C (the notes').")
            nu = check_in_range(self.nu, "nu", 0.0, 1.0, closed="right")
        tol = (1e-8 if nu is None else 1e-3) if self.tol is None else check_positive(
            self.tol, "tol")
        max_iter = None if self.max_iter is None or (
            isinstance(self.max_iter, numbers.Integral) and self.max_iter == -1) \
            else self.max_iter
        if max_iter is not None and (isinstance(max_iter, bool) or not isinstance(
                max_iter, numbers.Integral) or max_iter < 1):
            raise ValueError(f"max_iter must be a positive integer or -1 (no limit); got "
                             f"{self.max_iter!r}.")
        wm = None if self.cache_size is None else check_positive(self.cache_size, "cache_size")
        return C, nu, tol, max_iter, wm

    def fit(self, X, y=None, sample_weight=None):
        """Fit on the (unlabelled) rows of X; ``y`` is ignored.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : ignored
        sample_weight : array of shape (n_samples,), optional
            Multiplies each point's box bound (``1`` for nu, whose equality then reads
            ``sum alpha = nu sum w`` as in scikit-learn; ``C/m`` in the notes'
            formulation). A weight <= 0 drops its sample, as in libsvm.

        Returns
        -------
        self
        """
        self._validate_params()
        C, nu, tol, max_iter, wm = self._check_params()
        X = validate_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        sw = libsvm_sample_weight(sample_weight, X)
        kernel = resolve_kernel(self.kernel, gamma=_scale_gamma(self.gamma, X),
                                degree=self.degree, coef0=self.coef0,
                                kernel_params=self.kernel_params, n_features=X.shape[1])
        kernel = clone(kernel) if kernel is self.kernel else kernel
        rows = as_rows(X, kernel=kernel, fit=True)  # a precomputed K: its rows, square
        keep = np.flatnonzero(sw > 0)  # weight <= 0: the point drops out (as libsvm)
        w = sw[keep]
        # the solvers take the kernel and the kept rows (precomputed: the block K[keep, keep])
        K, Xk = kernel, rows.subset(keep).X
        opts = dict(X=Xk, tol=tol, max_iter=max_iter, shrinking=self.shrinking,
                    working_memory=wm)
        with progress_bar(self.verbose, total=1,
                          desc=f"OneClassSVM ({'smo' if C is None else 'dual_cd'})") as bar:
            if C is None:
                alpha, rho, res = self._solve_nu(K, w, nu, opts)
            else:
                alpha, rho, res = self._solve_notes(K, w, C, opts)
            bar.set_postfix_str(f"gap {res.info['gap']:.2e}")
            bar.update()
        nz = np.flatnonzero(alpha > 0)
        support = keep[nz]
        self.kernel_ = kernel
        self.support_ = support
        self.dual_coef_ = alpha[nz][None, :]
        self.support_vectors_ = rows.support_vectors(support)  # precomputed: (n_SV, 0)
        self.n_support_ = np.array([len(support)], dtype=np.int32)
        self.intercept_ = np.array([-rho])
        self.offset_ = -self.intercept_  # shape (1,), as scikit-learn's
        self.duality_gap_ = float(res.info["gap"])
        self.n_iter_ = int(res.n_iter)
        self.fit_status_ = 0 if res.converged else 1
        self.shape_fit_ = X.shape
        return self

    def _solve_nu(self, K, w, nu, opts):
        """Schölkopf's nu-problem in libsvm's scaling by SMO; returns (alpha, rho, result)."""
        from ..solvers import solve_smo

        # libsvm's start: sum alpha = nu sum w, filled greedily up to each bound w_i
        total = nu * w.sum()
        alpha0 = np.minimum(w, np.maximum(total - np.concatenate(([0.0], np.cumsum(
            w)[:-1])), 0.0))
        res = solve_smo(K, np.zeros(len(w)), lower=0.0, upper=w, alpha0=alpha0, **opts)
        self.dual_objective_ = float(res.info["objective"])
        return res.info["dual_coef"], float(res.info["rho"]), res

    def _solve_notes(self, K, w, C, opts):
        """The notes' hinge problem by dual coordinate steps; returns (alpha, 1, result)."""
        from ..solvers import solve_dual_cd

        # dual of (1/sum w) sum_i w_i (1 - f_i)_+ + ||f||^2/(2C): hinge with y = +1,
        # box [0, C w_i / sum w]  (C/m for unit weights)
        opts = dict(opts, max_iter=opts["max_iter"] or 10_000)
        res = solve_dual_cd(K, np.ones(len(w)), "hinge", C * w / w.sum(),
                            random_state=self.random_state, **opts)
        self.dual_objective_ = float(res.info["dual"])
        if not np.any(res.info["f"] >= 1.0):  # decision f - 1 < 0 on every training point
            warnings.warn(
                f"OneClassSVM(C={self.C}) marks every training point as an outlier: "
                "in the notes' formulation f(x) <= sum(alpha) <= C max k(x, x), so "
                "inliers need C > 1 for a kernel bounded by 1 (RBF); increase C (e.g. "
                "C=10) or use the nu-formulation (C=None).", UserWarning, stacklevel=3)
        return res.coef, 1.0, res

    @property
    def coef_(self) -> np.ndarray:
        """Weight vector ``dual_coef_ @ support_vectors_`` (linear kernel only; read-only)."""
        check_is_fitted(self, "dual_coef_")
        if type(self.kernel_) is not Linear:
            raise AttributeError("coef_ is only available when using a linear kernel.")
        coef = self.dual_coef_ @ self.support_vectors_
        coef.flags.writeable = False  # a derived quantity: writing into it changes nothing
        return coef

    def score_samples(self, X) -> np.ndarray:
        """``f(x) = sum_i alpha_i k(x_i, x)`` (unshifted)."""
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        # f(x) = sum_i alpha_i k(x_i, x), blockwise (precomputed: K(X, X_fit)[:, support])
        return as_rows(X, kernel=self.kernel_).predict(
            self.kernel_, self.support_vectors_, self.dual_coef_[0], index=self.support_)

    def decision_function(self, X) -> np.ndarray:
        """``score_samples(x) - offset_``: positive for inliers."""
        return self.score_samples(X) - self.offset_

    def predict(self, X) -> np.ndarray:
        """+1 for inliers (``decision_function >= 0``), -1 for outliers."""
        return np.where(self.decision_function(X) >= 0, 1, -1)
