"""Kernel ridge regression's linear system, solved three ways: problem -> Result.

With sample weights w (S = diag(sqrt w)) and, for an intercept, the projection
P = I - u u^T onto the complement of u = S 1 / ||S 1||, the dual coefficients solve

    (P S K S P + a I) gamma = P S y,      beta = S gamma                             (1)

(notes: KRR with weighted squared loss; the intercept is eliminated by P). Three methods:

- ``"cholesky"``: K formed once, S K S and P K P in place, a on the diagonal, an in-place
  jittered Cholesky (one n x n matrix);
- ``"mixed"``: a float32 Cholesky of the same matrix as the preconditioner of CG on the
  exact float64 system (falls back to "cholesky" when float32 is not enough);
- ``"cg"``: K applied block by block (never formed), preconditioned by the Nystrom
  approximation of :mod:`kernelkit.solvers.preconditioners`.

:func:`choose_solver` is the rule for ``"auto"``; :func:`solve_krr` the one entry point.
"""

from __future__ import annotations

import warnings

import numpy as np
import sklearn
from numba import njit, prange

from .._core.memory import require_memory
from .._core.result import Result
from ..exceptions import ConvergenceWarning
from ..linalg import KernelOperator, cho_solve, fits_in_memory, jitter_cholesky, pcg
from ..linalg.algebra import Diagonal, Projection, as_map
from .preconditioners import nystrom_woodbury

__all__ = ["solve_krr", "choose_solver", "DENSE_BUDGETS", "MIXED_MIN_N"]

# "auto" factorizes densely while the n x n matrix takes at most this many working_memory
# budgets (scikit-learn's working_memory, 1024 MiB by default => 4 GiB => n <= 23,170).
DENSE_BUDGETS = 4
# from this n on, "auto" factorizes float64 problems in float32 and refines with CG
MIXED_MIN_N = 8000


@njit(parallel=True, cache=True)
def _center_inplace(K, u, r, c):  # pragma: no cover - numba
    # P K P with P = I - u u^T (||u|| = 1), r = K u, c = u^T K u:
    # (P K P)_ij = K_ij - u_i r_j - r_i u_j + c u_i u_j   (in place, no n x n temporary)
    n = K.shape[0]
    for i in prange(n):
        ui, ri = u[i], r[i]
        for j in range(n):
            K[i, j] += -ui * r[j] - ri * u[j] + c * ui * u[j]


@njit(parallel=True, cache=True)
def _scale_inplace(K, s):  # pragma: no cover - numba
    # K <- S K S with S = diag(s)
    n = K.shape[0]
    for i in prange(n):
        si = s[i]
        for j in range(n):
            K[i, j] *= si * s[j]


def choose_solver(solver: str, n: int, itemsize: int) -> str:
    """Resolve ``solver="auto"`` (rule in the KernelRidge docstring)."""
    if solver not in ("auto", "cholesky", "mixed", "cg"):
        raise ValueError(
            f"solver must be 'auto', 'cholesky', 'mixed' or 'cg'; got {solver!r}.")
    if solver != "auto":
        return solver
    if itemsize == 8 and n >= MIXED_MIN_N and fits_in_memory(n * n * 4, budgets=DENSE_BUDGETS):
        return "mixed"
    return "cholesky" if fits_in_memory(n * n * itemsize, budgets=DENSE_BUDGETS) else "cg"


def solve_krr(op: KernelOperator, Y: np.ndarray, penalty: float, *, weights=None,
              center=None, method: str = "cholesky", tol: float = 1e-10,
              max_iter: int | None = None, random_state=None, callback=None) -> Result:
    """Solve (1) for ``gamma`` (one column per target).

    Parameters
    ----------
    op : KernelOperator
        ``K(X, X)`` (its kernel and rows are used to form K for the direct methods).
    Y : ndarray of shape (n, t)
        The right-hand side ``P S y`` (already weighted and centred).
    penalty : float
        a >= 0.
    weights : ndarray of shape (n,), optional
        ``sqrt(w)``, the diagonal of S.
    center : ndarray of shape (n,), optional
        The unit vector u of P (with an intercept).
    method : {"cholesky", "mixed", "cg"}
    tol, max_iter : CG's relative residual and iteration budget ("cg": default 1000).
    random_state : seeds the landmarks of the Nystrom preconditioner ("cg").
    callback : callable, optional
        ``callback(n_iter, coef, relative_residual)`` per CG iteration.

    Returns
    -------
    Result
        ``coef`` = gamma of shape (n, t); ``info["method"]`` the method that produced it
        ("mixed" may fall back to "cholesky").

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg import KernelOperator
    >>> from kernelkit.solvers.krr import solve_krr
    >>> X = np.random.default_rng(0).normal(size=(50, 2)); y = np.sin(X[:, :1])
    >>> op = KernelOperator(RBF(), X)
    >>> res = solve_krr(op, y, 0.1, method="cg", tol=1e-12)
    >>> bool(np.allclose(res.coef, np.linalg.solve(RBF()(X) + 0.1 * np.eye(50), y)))
    True
    """
    if method == "cholesky":
        n = op.shape[0]  # K and its factor (in place) plus the solve's workspace
        require_memory(8.0 * n * n, f"The dense solve of kernel ridge on {n:,} points",
                       "KernelRidge(solver='cg') or solver='mixed' (blockwise, nothing of "
                       "n x n), or NystromKernelRidge")
        coef, L, jitter = _solve_dense(op, Y, penalty, weights, center)
        # the factor travels in info (KernelRidge.partial_fit extends it)
        return Result(coef, 1, True, [], dict(method="cholesky", factor=L, jitter=jitter))
    if method == "mixed":
        return _solve_mixed(op, Y, penalty, weights, center, tol, callback)
    if method == "cg":
        return _solve_cg(op, Y, penalty, weights, center, tol, max_iter, random_state,
                         callback)
    raise ValueError(f"method must be 'cholesky', 'mixed' or 'cg'; got {method!r}.")


def _solve_dense(op, Yt, a, s, u):
    # one n x n matrix: K -> S K S -> P K P -> + a I -> L (in place) -> solve
    K = op.to_dense()
    if s is not None:
        _scale_inplace(K, s)
    if u is not None:
        r = K @ u
        _center_inplace(K, u, r, float(u @ r))
    K.flat[:: K.shape[0] + 1] += a
    # a pivot below n * eps (relative) is rounding error (e.g. duplicated inputs with
    # alpha = 0): jitter and a warning instead of a meaningless solve
    L, jitter = jitter_cholesky(
        K, overwrite_a=True, what="regularized kernel matrix K + alpha I",
        hint="increase alpha or use a kernel that is positive semi-definite",
        min_pivot=K.shape[0] * float(np.finfo(K.dtype).eps),
    )
    return cho_solve(L, Yt), L, jitter


def _operator(op, a, s, u):
    """The system ``P S K S P + a I`` with K applied block by block (never formed), and the
    one-sided map ``P S`` (None when there is neither a scaling nor an offset)."""
    # blocks of at most 256 MiB: next to the float32 factor of "mixed", the product's
    # blocks stay small compared with one n x n float64 matrix
    wm = min(256.0, float(sklearn.get_config()["working_memory"]))
    system = as_map(KernelOperator(op.kernel, op.X, working_memory=wm))
    left = None
    for outer in (None if s is None else Diagonal(s), None if u is None else Projection(u)):
        if outer is not None:  # S K S, then P (S K S) P
            system = outer @ system @ outer
            left = outer if left is None else outer @ left
    return system + a, left


def _solve_cg(op, Yt, a, s, u, tol, max_iter, random_state, callback):
    system, left = _operator(op, a, s, u)
    M = nystrom_woodbury(op.kernel, op.X, a, left, random_state) if a > 0 else None
    max_iter = 1000 if max_iter is None else int(max_iter)
    res = pcg(system.matmul, Yt, M=None if M is None else M.solve, tol=tol,
              max_iter=max_iter, callback=callback)
    if not res.converged:
        warnings.warn(
            f"KernelRidge CG did not reach tol={tol:g} in {res.n_iter} iterations "
            f"(relative residual {res.history[-1]:.2e}); increase max_iter or alpha.",
            ConvergenceWarning, stacklevel=4,
        )
    return Result(res.coef, res.n_iter, res.converged, res.history, dict(method="cg"))


def _solve_mixed(op, Yt, a, s, u, tol, callback):
    # float32 Cholesky of K + a I (half the memory and about half the time of float64)
    # used as the preconditioner of CG on the exact float64 system: the residual is
    # computed in float64, so the solution is as accurate as the float64 solve (tol).
    K = op.kernel(op.X.astype(np.float32))
    if s is not None:
        _scale_inplace(K, s.astype(np.float32))
    if u is not None:
        u32 = u.astype(np.float32)
        r = K @ u32
        _center_inplace(K, u32, r, float(u32 @ r))
    K.flat[:: K.shape[0] + 1] += np.float32(a)
    with warnings.catch_warnings():  # a preconditioner: jitter only slows CG down
        warnings.simplefilter("ignore")
        L32, _ = jitter_cholesky(K, overwrite_a=True)
    del K

    def apply_M(R):
        return cho_solve(L32, R.astype(np.float32)).astype(np.float64)

    system, _ = _operator(op, a, s, u)
    res = pcg(system.matmul, Yt, M=apply_M, tol=tol, max_iter=100, callback=callback)
    if not res.converged:  # ill-conditioned beyond float32: solve in float64 instead
        del L32, apply_M
        coef, L, jitter = _solve_dense(op, Yt, a, s, u)
        return Result(coef, 1, True, res.history,
                      dict(method="cholesky", factor=L, jitter=jitter))
    return Result(res.coef, res.n_iter, res.converged, res.history, dict(method="mixed"))
