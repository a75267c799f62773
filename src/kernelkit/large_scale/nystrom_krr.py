"""Nystrom kernel ridge regression solved by Falkon (preconditioned CG), in or out of core.

Restricting f to the span of M centers, ``f = sum_j alpha_j k(c_j, .)``, turns kernel ridge
regression with the averaged loss ``(1/n) sum (y_i - f(x_i))^2 + lambda ||f||^2`` into

    (K_nM^T K_nM + lambda n K_MM) alpha = K_nM^T y,

solved by :func:`~kernelkit.solvers.solve_falkon`: O(n M) memory-free passes per CG
iteration, O(n d + M^2 + block M) memory; or, when that is cheaper, exactly: the M x M
matrix formed in one pass over the row blocks and factorized
(:func:`~kernelkit.solvers.nystrom.solve_nystrom_cholesky`). With dask arrays the passes
run on a cluster, with the same sums as in memory.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, Options, StrOptions

from .._core.progress import progress_bar
from .._core.validation import FLOAT_DTYPES, KERNEL_PARAMETER_CONSTRAINTS, check_is_fitted
from ..exceptions import ConvergenceWarning, NumericalError
from ..kernels import resolve_estimator_kernel
from ..linalg import check_rows, fits_in_memory, is_precomputed
from ..linalg.blocks import ROW_QUANTUM, block_rows
from ..solvers.nystrom import (
    NYSTROM_SOLVERS,
    choose_nystrom_solver,
    solve_falkon,
    solve_nystrom_cholesky,
)
from ..solvers.preconditioners import NystromPreconditioner

__all__ = ["NystromKernelRidge"]

# Row blocks of a few tens of MiB stay in cache and are reused by the allocator; much larger
# ones only cost page faults. The default block budget is min(working_memory, this); one
# block per BLAS thread is formed at a time.
BLOCK_MIB = 32
DEFAULT_MAX_ITER = 1000  # cap of max_iter=None ("iterate to tol")


class NystromKernelRidge(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression on M Nystrom centers, solved exactly or by Falkon's CG.

    Minimizes ``(1/n) sum_i (y_i - f(x_i))^2 + alpha ||f||_H^2`` over
    ``f = sum_j dual_coef_j k(centers_j, .)``, i.e. solves
    ``(K_nM^T K_nM + alpha n K_MM) dual_coef = K_nM^T y``, either by conjugate gradients
    with the Falkon preconditioner ``B = n^-1/2 T^-1 A^-1``, ``T = chol(K_MM + eps M I)``,
    ``A = chol(T T^T / M + alpha I)`` (Rudi, Carratino & Rosasco, 2017), each iteration one
    pass over the data in row blocks (K is never held, and K_nM only when it fits in
    ``working_memory``: then it is formed once instead of once per pass), or by Cholesky:
    ``K_nM^T K_nM`` summed over the same row blocks in one pass (never the n x n matrix),
    then one factorization of the M x M system. ``solver="auto"`` takes the cheaper.

    With all n points as centers this is exact kernel ridge regression with
    ``KernelRidge(alpha=alpha * n)``: ``alpha`` here is *per sample*.

    Parameters
    ----------
    n_centers : int, default=1000
        M, the number of Nystrom centers (clamped to n with a warning).
    alpha : float, default=1e-6
        Per-sample ridge penalty lambda (> 0).
    kernel : str, callable or Kernel, default="rbf"
        Anything :func:`~kernelkit.kernels.resolve_kernel` accepts except "precomputed".
    gamma : float, optional
        scikit-learn's gamma for string kernels (None means 1 / n_features).
    center_selection : {"uniform"}, default="uniform"
        Centers are M distinct training rows drawn uniformly at random.
    max_iter : int, optional
        Cap on the CG iterations (passes over the data); ``None`` (default) iterates until
        ``tol`` is met, capped at 1,000. Reaching the cap first warns ``ConvergenceWarning``
        (with the residual reached): the solution is then short of the optimum.
    tol : float, default=1e-7
        Stop when the relative residual of the preconditioned system is below tol (CG).
    solver : {"auto", "cg", "cholesky"}, default="auto"
        ``"cholesky"`` forms ``H = K_nM^T K_nM + alpha n K_MM`` in one pass over fixed row
        blocks (``n M^2 + M^3 / 3`` flops, three M x M float64 matrices; float64 whatever
        ``dtype``) and solves it exactly (jitter, with a JitterWarning, if H is not
        numerically positive definite); ``"cg"`` runs Falkon's preconditioned CG to
        ``tol``. ``"auto"`` picks Cholesky when the M x M matrices fit in
        ``working_memory`` and its flop count is below that of the CG iterations expected
        at ``tol`` (capped by ``max_iter``): rule and constants in
        :func:`~kernelkit.solvers.nystrom.choose_nystrom_solver`. E.g. n = 12,000 and
        M = 2,000 use Cholesky; n = 1,000,000, M = 5,000 and ``max_iter=20`` use CG.
        Where H turns out not to be numerically positive definite (close centers, a tiny
        ``alpha``), ``"auto"`` solves by CG instead of adding jitter; ``solver_`` says
        which ran.
    dtype : {None, "float32", "float64"}, default=None
        Working precision of the kernel products; None keeps float32 input in float32 and
        uses float64 otherwise. In float32 the kernel blocks and their products are float32,
        the sums over blocks and the CG vectors (length M) float64, and the CG residual is
        recomputed every 10 iterations; ``dual_coef_`` is stored in the working dtype.
    random_state : int, RandomState or None
        Seeds the choice of centers.
    degree, coef0, kernel_params : keyword-only
        scikit-learn's other parameters for string kernels (as ``KernelRidge``).
    working_memory : float, optional, keyword-only
        MiB for ``K(X, centers)`` (default: scikit-learn's ``working_memory``). When all of
        it fits, it is formed once and kept across the CG passes; otherwise each pass forms
        it in row blocks of ``min(working_memory, 32)`` MiB, one per BLAS thread at a time.
        The blocks depend on the sizes only and their partial products are added in
        float64 in block order, so a fit is reproducible bit for bit across thread counts
        and on a dask cluster (whose row chunks are realigned to whole blocks).
    verbose : int, default=0, keyword-only
        Show a progress bar with the residual per iteration.

    Attributes
    ----------
    dual_coef_ : ndarray of shape ``(n_centers_,)`` or ``(n_centers_, n_targets)``
    centers_ : ndarray of shape ``(n_centers_, n_features)``
    center_indices_ : ndarray of shape ``(n_centers_,)``
        Rows of X used as centers (sorted).
    n_centers_ : int
    kernel_ : Kernel
    solver_ : {"cg", "cholesky"}
        The solver used.
    n_iter_ : int
        CG iterations (passes over the data); 1 for Cholesky.
    converged_ : bool
    history_ : ndarray of shape ``(n_iter_ + 1,)``
        Relative residual of the preconditioned system, starting at iteration 0 (CG);
        empty for Cholesky.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import NystromKernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1)); y = np.sin(X[:, 0])
    >>> model = NystromKernelRidge(n_centers=100, alpha=1e-4, gamma=0.5, random_state=0)
    >>> model = model.fit(X, y)
    >>> bool(np.abs(model.predict(X) - y).max() < 5e-2)
    True

    On a cluster (see the README), pass dask arrays with a running ``Client``:
    ``model.fit(dask_X, dask_y)``; ``model.predict(dask_X)`` is then a dask array.
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        **KERNEL_PARAMETER_CONSTRAINTS,
        "n_centers": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, np.inf, closed="neither")],
        "center_selection": [StrOptions({"uniform"})],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions(set(NYSTROM_SOLVERS))],
        "dtype": [StrOptions({"float32", "float64"}), Options(type, {np.float32, np.float64}),
                  Options(np.dtype, {np.dtype(np.float32), np.dtype(np.float64)}), None],
        "random_state": ["random_state"],
        "working_memory": [Interval(Real, 0, np.inf, closed="neither"), None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_centers: int = 1000,
        alpha: float = 1e-6,
        kernel="rbf",
        gamma: float | None = None,
        center_selection: str = "uniform",
        max_iter: int | None = None,
        tol: float = 1e-7,
        dtype=None,
        random_state=None,
        *,
        solver: str = "auto",
        degree: float = 3,
        coef0: float = 1,
        kernel_params: dict | None = None,
        working_memory: float | None = None,
        verbose: int = 0,
    ):
        self.n_centers = n_centers
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.center_selection = center_selection
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.dtype = dtype
        self.working_memory = working_memory
        self.verbose = verbose
        self.random_state = random_state

    # ---------------------------------------------------------------- checks
    def _work_dtype(self, input_dtype) -> np.dtype:
        if self.dtype is not None:
            return np.dtype(self.dtype)
        return np.dtype(np.float32 if input_dtype == np.float32 else np.float64)

    def _memory_mib(self) -> float:
        if self.working_memory is not None:
            return float(self.working_memory)
        return sklearn.get_config()["working_memory"]

    def _block_mib(self) -> float:
        return min(self._memory_mib(), BLOCK_MIB)

    def _resolve_kernel(self, n_features: int):
        kernel = resolve_estimator_kernel(self, n_features)
        if is_precomputed(kernel):
            raise ValueError(
                "NystromKernelRidge needs the kernel itself (it evaluates K(X, centers)); "
                "kernel='precomputed' is not supported. Use KernelRidge for a precomputed K."
            )
        return kernel

    def _select_centers(self, n: int) -> np.ndarray:
        M = int(self.n_centers)
        if M > n:
            warnings.warn(
                f"n_centers={M} is larger than the number of samples n={n}; using all "
                f"{n} samples as centers (exact kernel ridge regression).",
                UserWarning,
                stacklevel=3,
            )
            M = n
        rng = check_random_state(self.random_state)
        # uniform Nystrom sampling: M distinct rows, sorted for locality
        return np.sort(rng.choice(n, size=M, replace=False))

    # ------------------------------------------------------------------- fit
    def fit(self, X, y):
        """Fit on numpy arrays (in this process) or dask arrays (on the running Client).

        Parameters
        ----------
        X : array of shape (n_samples, n_features), or a dask array
        y : array of shape (n_samples,) or (n_samples, n_targets), or a dask array

        Returns
        -------
        self
        """
        self._validate_params()
        rows, y = self._fit_rows(X, y)
        self.kernel_ = self._resolve_kernel(rows.n_features)
        self.center_indices_ = self._select_centers(rows.n_rows)
        centers = rows.take(self.center_indices_)
        itemsize = rows.dtype.itemsize
        n, M = rows.n_rows, centers.shape[0]
        # fixed blocks that depend on the sizes only: the same partials in every process
        block = block_rows(M, itemsize, self._block_mib(), n_rows=n, quantum=ROW_QUANTUM)
        # K_nM is formed once and kept across the CG passes when it fits in the working
        # memory (as Falkon does for small problems); otherwise once per pass
        keep = fits_in_memory(n * M * itemsize, self._memory_mib())
        self.solver_ = choose_nystrom_solver(
            self.solver, n, M, rows.n_features, keep=keep, tol=float(self.tol),
            max_iter=self._max_iter(), working_memory=self._memory_mib())
        # Cholesky reads K_nM once: no block is worth keeping
        keep = keep and self.solver_ == "cg"
        knm = rows.kernel_operator(self.kernel_, centers, block, keep_blocks=keep)
        return self._solve(knm, centers, y)

    def _max_iter(self) -> int:
        return DEFAULT_MAX_ITER if self.max_iter is None else int(self.max_iter)

    def _fit_rows(self, X, y):
        """Where the rows live (:func:`kernelkit.linalg.check_rows`: in memory, sparse
        X kept CSR, or in dask chunks), in the working dtype, and y aligned with them."""
        return check_rows(self, X, y, work_dtype=self._work_dtype, accept_sparse="csr",
                          dtype=FLOAT_DTYPES, multi_output=True, y_numeric=True)

    def _solve(self, knm, centers, y):
        # kernel blocks in the working dtype; their products are summed in float64 and the
        # CG recurrences (vectors of length M) run in float64. The preconditioner's jitter
        # eps M follows the working dtype (K_MM carries float32 rounding in float32).
        kmm = self.kernel_(centers)
        res = None
        if self.solver_ == "cholesky":
            try:  # 'auto' takes the exact path only where it needs no jitter, else CG
                res = solve_nystrom_cholesky(knm, kmm, y, float(self.alpha),
                                             allow_jitter=self.solver == "cholesky")
            except NumericalError:
                self.solver_ = "cg"
        if res is None:
            res = self._solve_cg(knm, kmm, y)
        return self._store(res, knm, centers)

    def _solve_cg(self, knm, kmm, y):
        precond = NystromPreconditioner(kmm, float(self.alpha), knm.shape[0])
        max_iter = self._max_iter()
        with progress_bar(self.verbose, total=max_iter, desc="Falkon CG") as bar:
            def report(it, coef, rel):
                bar.update()
                bar.set_postfix_str(f"residual {rel:.2e}")

            res = solve_falkon(
                knm, kmm.astype(np.float64), y, float(self.alpha), max_iter=max_iter,
                tol=float(self.tol), preconditioner=precond,
                recompute_every=10 if knm.block_dtype == np.float32 else None,
                callback=report if self.verbose else None,
            )
        if not res.converged:
            best = float(np.min(res.history))
            why = (f"stopped at max_iter={max_iter}; increase max_iter (or tol)"
                   if res.n_iter >= max_iter else
                   "stalled at the rounding floor of this system; increase alpha or tol")
            warnings.warn(
                f"NystromKernelRidge: conjugate gradients {why}. Smallest relative residual "
                f"{best:.3g} > tol={self.tol}: the solution is short of the optimum.",
                ConvergenceWarning, stacklevel=4)
        return res

    def _store(self, res, knm, centers):
        self.centers_ = centers
        self.n_centers_ = centers.shape[0]
        self.dual_coef_ = res.coef.astype(knm.block_dtype, copy=False)
        self.n_iter_ = int(res.n_iter)
        self.converged_ = bool(res.converged)
        self.history_ = np.asarray(res.history)
        return self

    # --------------------------------------------------------------- predict
    def predict(self, X):
        """``f(X) = K(X, centers_) @ dual_coef_``, blockwise (a dask array for dask X).

        A dask X needs a running ``dask.distributed`` Client (as ``fit``); the result is
        then a lazy dask array with X's row chunks, computed on the workers.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), or a dask array

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self)
        rows = check_rows(self, X, reset=False, work_dtype=self.dual_coef_.dtype,
                          accept_sparse="csr", dtype=FLOAT_DTYPES)
        return rows.predict(self.kernel_, self.centers_, self.dual_coef_, self._block_mib())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.target_tags.multi_output = True
        return tags

    _test_params = [dict(n_centers=50, max_iter=50)]
