"""The kernel machines' dual problem, and the one function that solves it.

The regularized risk of a kernel machine with per-sample weights C_i (notes, Sec. 2),

    min_f  1/2 ||f||_H^2 + sum_i C_i l(y_i, f(x_i) [+ b]),                       (1)

has by the representer theorem ``f = sum_i a_i k(x_i, .)``: the problem is given by the
kernel rows of the training points, the targets, the loss, the C_i and whether an
intercept b is fitted. :class:`DualProblem` holds exactly that, and :func:`solve_dual`
chooses a method (rule in :func:`choose_method`), its tolerance and iteration defaults,
and returns a :class:`~kernelkit._core.result.Result` whose ``coef`` are the dual coefficients
a (one column per class for a multiclass loss) and ``info["intercept"]`` is b.

Methods: ``"smo"`` (piecewise-linear losses with an intercept: libsvm's equality-
constrained QP), ``"dual_cd"`` (losses with a closed-form dual step, no intercept),
``"newton"`` (smooth losses), ``"multiclass_cd"`` (Weston-Watkins / Crammer-Singer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._core.result import Result
from ..linalg.rows import KernelRows, as_kernel_rows
from .dual_cd import solve_dual_cd
from .multiclass_cd import solve_multiclass_cd
from .newton import solve_newton
from .smo import solve_smo

__all__ = ["DualProblem", "choose_method", "solve_dual", "DEFAULT_TOL", "DEFAULT_MAX_ITER"]

METHODS = ("auto", "dual_cd", "smo", "newton", "multiclass_cd")
# stopping rule of each method (its own measure: KKT violation, relative duality gap,
# Newton decrement) and its iteration budget (None: the method's own default)
DEFAULT_TOL = {"smo": 1e-3, "dual_cd": 1e-5, "newton": 1e-10, "multiclass_cd": 1e-3}
DEFAULT_MAX_ITER = {"smo": None, "dual_cd": 10_000, "newton": 100, "multiclass_cd": 10_000}


@dataclass
class DualProblem:
    """Problem (1): kernel rows, targets, loss, weights C and the intercept.

    Parameters
    ----------
    rows : KernelRows
        The kernel of the training points, one typed object from which each method asks
        the form it reads: the row cache's view (SMO, dual CD), the whole matrix
        (multiclass CD, :meth:`KernelRows.matrix`) or K for products (Newton,
        :meth:`KernelRows.operator`). A kernel matrix (ndarray) is taken as
        ``as_kernel_rows(K)``; build one from a kernel and X with
        ``as_kernel_rows(kernel, X)``.
    y : ndarray of shape (n,)
        Targets, labels in {-1, +1}, or class indices 0..n_classes-1 (multiclass loss).
    loss : Loss
    C : float or ndarray of shape (n,)
        Weight of each loss term (``C_i = w_i / (2 alpha sum w)`` for the estimators'
        ``(1/m) sum w_i l_i + alpha ||f||^2``).
    fit_intercept : bool, default=False
    n_classes : int, optional
        Number of classes, for a multiclass loss.
    """

    rows: KernelRows
    y: np.ndarray
    loss: object
    C: object
    fit_intercept: bool = False
    n_classes: int | None = None

    def __post_init__(self):
        self.rows = as_kernel_rows(self.rows)


def choose_method(loss, fit_intercept: bool, method: str = "auto") -> str:
    """The method for a loss: multiclass losses -> ``multiclass_cd``; with an intercept,
    ``smo`` for piecewise-linear losses, else ``newton`` for smooth ones; without,
    ``newton`` for smooth losses (exact) and ``dual_cd`` for the others. A named
    method is checked against the loss.

    Examples
    --------
    >>> from kernelkit.losses import Hinge, Logistic
    >>> from kernelkit.solvers.dual import choose_method
    >>> choose_method(Hinge(), True), choose_method(Logistic(), False)
    ('smo', 'newton')
    """
    if method not in METHODS:
        raise ValueError(f"solver must be one of {METHODS}; got {method!r}.")
    if loss.is_multiclass:
        return "multiclass_cd"
    linear = loss.libsvm_form(np.zeros(1), 1.0) is not None
    if method == "auto":
        if fit_intercept:
            method = "smo" if linear else "newton" if loss.smooth else "none"
        else:  # smooth losses: Newton's optimum is exact (squared: one step)
            method = "dual_cd" if loss.has_dual_step and not loss.smooth else "newton"
    if method == "none":
        raise ValueError(f"No solver fits an intercept with loss {loss!r}; use "
                         "fit_intercept=False.")
    if method == "smo" and not (linear and fit_intercept):
        raise ValueError("solver='smo' needs a piecewise-linear loss (hinge, absolute, "
                         "epsilon_insensitive, quantile) and fit_intercept=True.")
    if method == "dual_cd" and (fit_intercept or not loss.has_dual_step):
        raise ValueError("solver='dual_cd' fits no intercept: use fit_intercept=False "
                         "(or solver='smo'/'newton').")
    if method == "newton" and not loss.smooth:
        raise ValueError(f"solver='newton' needs a smooth loss; {loss!r} is not.")
    return method


def solve_dual(problem: DualProblem, method: str = "auto", tol: float | None = None,
               max_iter: int | None = None, callback=None, *, shrinking: bool = True,
               random_state=None) -> Result:
    """Solve (1) with ``method`` (``"auto"``: :func:`choose_method`).

    Parameters
    ----------
    problem : DualProblem
    method : {"auto", "smo", "dual_cd", "newton", "multiclass_cd"}, default="auto"
    tol, max_iter : optional
        Defaults per method: :data:`DEFAULT_TOL`, :data:`DEFAULT_MAX_ITER`.
    callback : callable, optional
        ``callback(n_iter, coef, measure)`` as the method progresses (measure: KKT
        violation, relative duality gap or Newton decrement).
    shrinking : bool, default=True
    random_state : int, RandomState or None
        Order of the coordinate sweeps (CD methods).

    Returns
    -------
    Result
        ``coef``: the dual coefficients a, shape (n,) (or (n, n_classes)); ``info``:
        ``"intercept"`` (b, 0 without one), ``"gap"`` (duality gap), ``"method"`` and the
        method's own entries.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.losses import Hinge
    >>> from kernelkit.solvers.dual import DualProblem, solve_dual
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = solve_dual(DualProblem(RBF()(X), y, Hinge(), 10.0, fit_intercept=True))
    >>> res.info["method"], res.converged
    ('smo', True)
    """
    method = choose_method(problem.loss, problem.fit_intercept, method)
    tol = DEFAULT_TOL[method] if tol is None else tol
    max_iter = DEFAULT_MAX_ITER[method] if max_iter is None else max_iter
    res = _METHODS[method](problem, tol, max_iter, callback, shrinking, random_state)
    res.info.setdefault("intercept", 0.0)
    res.info["method"] = method
    return res


def _smo(problem, tol, max_iter, callback, shrinking, random_state):
    # libsvm's form of (1): min 1/2 b^T Q b + p^T b, ys^T b = 0, lower <= b <= upper
    form = problem.loss.libsvm_form(problem.y, problem.C)
    res = solve_smo(problem.rows, form["p"], ys=form["ys"], lower=form["lower"],
                    upper=form["upper"], idx=form["idx"], tol=tol, max_iter=max_iter,
                    shrinking=shrinking, callback=callback)
    # f(x) = sum_r a_r k(x_r, x) - rho
    info = dict(res.info, intercept=-res.info["rho"], variables=res.coef)
    return Result(res.info["dual_coef"], res.n_iter, res.converged, res.history, info)


def _dual_cd(problem, tol, max_iter, callback, shrinking, random_state):
    return solve_dual_cd(problem.rows, problem.y, problem.loss, problem.C, tol=tol,
                         max_iter=max_iter, shrinking=shrinking, random_state=random_state,
                         callback=callback)


def _newton(problem, tol, max_iter, callback, shrinking, random_state):
    return solve_newton(problem.rows.operator(), problem.y, problem.loss, problem.C,
                        fit_intercept=problem.fit_intercept, tol=tol, max_iter=max_iter,
                        callback=callback)


def _multiclass_cd(problem, tol, max_iter, callback, shrinking, random_state):
    return solve_multiclass_cd(problem.rows, problem.y, problem.n_classes, C=problem.C,
                               loss=problem.loss, tol=tol, max_iter=max_iter,
                               shrinking=shrinking, random_state=random_state,
                               callback=callback)


_METHODS = {"smo": _smo, "dual_cd": _dual_cd, "newton": _newton,
            "multiclass_cd": _multiclass_cd}
