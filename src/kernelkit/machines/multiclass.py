"""MulticlassSVM: the all-together multiclass SVM (Weston-Watkins or Crammer-Singer).

One function per class, f_j(x) = sum_i alpha_ij k(x_i, x), no offsets; prediction
argmax_j f_j(x). With C_i = C * sample_weight_i the primal is

    min_f  1/2 sum_j ||f_j||_H^2 + sum_i C_i l(y_i, f(x_i))

(equivalently the notes' (1/m) sum_i l_i + (1 / (2 C m)) sum_j ||f_j||^2 when all weights
are 1), with l the Weston-Watkins loss sum_{r != y} (1 - (f_y - f_r))_+ or the
Crammer-Singer loss max_{r != y} (1 - (f_y - f_r))_+. Its dual,

    max  D(alpha) = sum_i alpha_{i y_i} - 1/2 sum_j alpha_{:j}^T K alpha_{:j},
    sum_j alpha_ij = 0,  CS: alpha_ij <= C_i [j = y_i];  WW: -C_i <= alpha_ij <= 0 (j != y_i),

is solved by exact per-example block coordinate ascent
(:func:`~kernelkit.solvers.solve_multiclass_cd`).
"""

from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.memory import require_memory
from .._core.progress import progress_bar
from .._core.validation import (
    FLOAT_DTYPES,
    KERNEL_PARAMETER_CONSTRAINTS,
    check_classification_targets,
    check_is_fitted,
    check_positive,
    check_sample_weight,
    check_two_classes,
    validate_data,
)
from ..kernels import resolve_kernel
from ..linalg import as_rows, fits_in_memory, is_precomputed
from ..linalg.rows import KernelRows, as_kernel_rows
from ..losses.multiclass import CrammerSinger, MulticlassLoss, WestonWatkins

__all__ = ["MulticlassSVM"]

_LOSSES = {"crammer_singer": CrammerSinger, "weston_watkins": WestonWatkins}
# float64 kernel matrices up to this many rows (128 MiB), float32 above: on 10,000 letters
# float32 forms K in 0.31 s against 0.67-1.05 s and halves every sweep's reads
_WIDE_KERNEL_ROWS = 4096


def _weighted_variance(X, w) -> float:
    """``sum_i w_i mean_j (x_ij - mu)^2`` with ``mu = sum_i w_i mean_j x_ij`` (X.var() for
    uniform w); sparse rows by ``mean_j (x_ij - mu)^2 = ||x_i||^2 / d - 2 mu m_i + mu^2``
    (m_i the row mean), never densified, as scikit-learn's SVC does for sparse X."""
    if not sp.issparse(X):
        mu = float(w @ X.mean(axis=1))
        return float(w @ ((X - mu) ** 2).mean(axis=1))
    d = X.shape[1]
    m = np.asarray(X.sum(axis=1), dtype=np.float64).ravel() / d
    sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel() / d
    mu = float(w @ m)
    return float(w @ (sq - 2.0 * mu * m + mu * mu))


def _scale_gamma(gamma, X) -> float | None:
    """scikit-learn's ``gamma``: ``"scale"`` = 1 / (n_features X.var()), ``"auto"`` = 1/d."""
    if isinstance(gamma, str):
        if gamma == "scale":
            n, d = X.shape
            if not n * d:
                var = 0.0
            elif sp.issparse(X):  # X.var() of the sparse matrix, never densified
                var = _weighted_variance(X, np.full(n, 1.0 / n))
            else:
                var = float(X.var())
            return 1.0 / (d * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive float; got {gamma!r}.")
    if gamma is not None:
        check_positive(gamma, "gamma")
    return gamma


class MulticlassSVM(ClassifierMixin, BaseEstimator):
    """All-together multiclass SVM, ``f_j(x) = sum_i alpha_ij k(x_i, x)``, ``argmax_j f_j``.

    Solves (module docstring) ``min 1/2 sum_j ||f_j||^2 + C sum_i w_i l(y_i, f(x_i))``, i.e.
    scikit-learn's C scaling (the notes' ``(1/m) sum l + 1/(2Cm) sum ||f_j||^2``), by exact
    per-example block dual coordinate ascent with shrinking.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        As in :func:`~kernelkit.kernels.resolve_kernel` (``"precomputed"``: X is the Gram
        matrix at fit and ``K(X_test, X_train)`` at predict).
    C : float, default=1.0
        Weight of the summed losses (> 0).
    loss : {"weston_watkins", "crammer_singer"} or MulticlassLoss, default="weston_watkins"
        The notes' multiclass hinge ``sum_{r != y} (1 - (f_y - f_r))_+`` (Weston-Watkins) or
        its max over ``r`` (Crammer-Singer).
    gamma : {"scale", "auto"} or float, default="scale"
        RBF/polynomial/Laplacian gamma, as scikit-learn's SVC.
    degree : int, default=3
    coef0 : float, default=0.0
    kernel_params : dict, optional
    tol : float, default=1e-2
        Relative duality gap ``(P - D) / P`` at which the solver stops (``tol=1e-10`` for
        exact optima). The gap certifies both objectives, whatever the pass order; 1e-2 is
        the loosest value at which fits with different ``random_state`` agree: on letters
        (2,000-16,000 rows, RBF gamma 0.1-0.2, C = 10) on >= 99.9% of the test labels,
        with decision values within 0.3-0.5% of the largest score, where 0.1 (test accuracy
        already flat) left 99.7-99.8% and 2-3%. It is looser than SVC's ``tol=1e-3``,
        libsvm's largest KKT violation in margin units, which bounds each example's gap
        term by ``1e-3 C_i``: at 1e-2 the largest violation here is still about 5e-2, and
        on 10,000 letters 148 passes (against 40) had not brought it to 1e-3.
    max_iter : int, default=1000
        Maximum passes over the data (a ConvergenceWarning reports the gap reached).
    shrinking : bool, default=True
    random_state : int, RandomState or None, default=None
        Seed of the pass order.
    verbose : int, default=0
        Show a progress bar of the passes (with the relative gap).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_classes, n_SV)
        ``alpha`` of the support vectors, ``f_j(x) = sum_s dual_coef_[j, s] k(sv_s, x)``.
    support_ : ndarray of shape (n_SV,)
        Indices of the training points with a nonzero ``alpha_i``.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : int
    kernel_ : Kernel
    loss_ : MulticlassLoss
    dual_objective_, primal_objective_ : float
        ``D(alpha)`` and ``P(K alpha)`` of the problem above at the solution.
    duality_gap_ : float
    n_iter_ : int
        Passes performed.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from kernelkit import MulticlassSVM
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = MulticlassSVM(C=10.0, gamma=0.5, random_state=0).fit(X, y)
    >>> clf.dual_coef_.shape[0], round(clf.score(X, y), 2) >= 0.95
    (3, True)
    """

    # tight solves and a fixed gamma ("scale" reads the unweighted X.var(), as SVC) so that
    # sklearn's sample-weight equivalence check compares the same optima
    _test_params = [dict(gamma=1.0, tol=1e-12, max_iter=20_000),
                    dict(loss="crammer_singer", gamma=1.0, tol=1e-12, max_iter=20_000)]

    # scikit-learn's parameter validation (SVC's constraints where it has the parameter); a
    # loss name is checked by _resolve_loss, whose message points binary losses elsewhere
    _parameter_constraints: dict = {
        **KERNEL_PARAMETER_CONSTRAINTS,
        "C": [Interval(Real, 0, np.inf, closed="neither")],
        "loss": [str, MulticlassLoss],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shrinking": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, kernel="rbf", C: float = 1.0, loss="weston_watkins", *,
                 gamma="scale", degree: int = 3, coef0: float = 0.0,
                 kernel_params: dict | None = None, tol: float = 1e-2, max_iter: int = 1000,
                 shrinking: bool = True, random_state=None, verbose: int = 0):
        self.kernel = kernel
        self.C = C
        self.loss = loss
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def _resolve_loss(self) -> MulticlassLoss:
        if isinstance(self.loss, MulticlassLoss):
            return self.loss
        if isinstance(self.loss, str) and self.loss.lower() in _LOSSES:
            return _LOSSES[self.loss.lower()]()
        raise ValueError(
            f"Unknown loss {self.loss!r} for MulticlassSVM; use 'weston_watkins' or "
            "'crammer_singer' (binary and regression losses: KernelClassifier/KernelRegressor)."
        )

    def fit(self, X, y, sample_weight=None):
        """Fit the multiclass SVM.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
        sample_weight : array of shape (n_samples,), optional
            Per-example multipliers of ``C``.

        Returns
        -------
        self
        """
        from ..solvers.multiclass_cd import solve_multiclass_cd

        self._validate_params()
        C, tol, max_iter = float(self.C), float(self.tol), int(self.max_iter)
        loss = self._resolve_loss()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=FLOAT_DTYPES)
        check_classification_targets(y)
        classes, yi = np.unique(y, return_inverse=True)
        check_two_classes(self, y, classes)
        sw = check_sample_weight(sample_weight, X)
        kernel = resolve_kernel(self.kernel, gamma=_scale_gamma(self.gamma, X),
                                degree=self.degree, coef0=self.coef0,
                                kernel_params=self.kernel_params, n_features=X.shape[1])
        kernel = clone(kernel) if kernel is self.kernel else kernel
        rows = as_rows(X, kernel=kernel, fit=True)  # a precomputed K: its rows, square
        if is_precomputed(kernel):
            K = as_kernel_rows(X.toarray() if sp.issparse(X) else np.ascontiguousarray(X))
        else:
            # kernel rows with room for K, which the solver forms once (matrix()) by row
            # blocks into memory on small pages (the first write of fresh huge pages
            # costs several times more here) and restricts as it shrinks: float64 up to
            # _WIDE_KERNEL_ROWS rows, else float32 as libsvm's kernel cache (half the
            # time to form K and to read its rows; the solver keeps scores and alpha in
            # float64, and its duality gap is that of the problem with this K)
            wide = (X.dtype == np.float64 and X.shape[0] <= _WIDE_KERNEL_ROWS
                    and fits_in_memory(X.shape[0] ** 2 * 8))
            require_memory(X.shape[0] ** 2 * (8 if wide else 4),
                           f"The {X.shape[0]} x {X.shape[0]} kernel")
            K = KernelRows(kernel, X, dense=True, dtype=np.float64 if wide else np.float32)
        seed = np.random.RandomState(self.random_state).randint(2**31) \
            if not isinstance(self.random_state, numbers.Integral) else self.random_state
        with progress_bar(self.verbose, total=max_iter, desc="MulticlassSVM") as bar:
            def callback(it, coef, gap):
                bar.update()
                bar.set_postfix_str(f"gap {gap:.2e}")

            res = solve_multiclass_cd(K, yi, len(classes), C=C * sw, loss=loss, tol=tol,
                                      max_iter=max_iter, shrinking=self.shrinking,
                                      random_state=seed, callback=callback)
        del K
        A = res.coef
        support = np.flatnonzero(np.any(A != 0, axis=1))
        self.classes_ = classes
        self.kernel_ = kernel
        self.loss_ = loss
        self.support_ = support
        self.dual_coef_ = np.ascontiguousarray(A[support].T)
        self.support_vectors_ = rows.support_vectors(support)  # precomputed: (n_SV, 0)
        self.n_support_ = len(support)
        self.dual_objective_ = float(res.info["dual_objective"])
        self.primal_objective_ = float(res.info["primal_objective"])
        self.duality_gap_ = float(res.info["gap"])
        self.n_iter_ = int(res.n_iter)
        return self

    def _scores(self, X) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        # f_j(x) = sum_s alpha_sj k(sv_s, x), blockwise within working memory (precomputed:
        # K(X_test, X_train) on the support)
        return as_rows(X, kernel=self.kernel_).predict(self.kernel_, self.support_vectors_,
                                                       self.dual_coef_.T, index=self.support_)

    def decision_function(self, X) -> np.ndarray:
        """Scores ``f_j(x)``, shape (n, n_classes); for 2 classes ``f_1 - f_0``, shape (n,)."""
        F = self._scores(X)
        return F[:, 1] - F[:, 0] if F.shape[1] == 2 else F

    def predict(self, X) -> np.ndarray:
        """``classes_[argmax_j f_j(x)]``."""
        F = self._scores(X)
        return self.classes_[np.argmax(F, axis=1)]
