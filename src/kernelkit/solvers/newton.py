"""Primal Newton method for smooth losses (Chapelle 2007), with an optional free intercept.

Minimises ``P(beta, b) = 1/2 beta^T K beta + sum_i C_i l(y_i, f_i)``, ``f = K beta + b``.
With ``g = beta + C l'(f)`` and ``D = diag(C l''(f))`` the Newton system (after dropping a
common factor K) is ``(I + D K) dbeta + D 1 db = -g``, ``1^T D (K dbeta + 1 db) = -1^T C l'``.
Writing ``dbeta = -g - D^{1/2} z`` (z on the set S where ``D > 0``) gives the symmetric,
well-conditioned system

    (I + D^{1/2} K_SS D^{1/2}) z = D^{1/2} (-(K g)_S + db 1),      (eigenvalues >= 1)

solved for the two right-hand sides (``db`` enters linearly) by Cholesky when K is dense
and small, else by conjugate gradients on products with K; ``db`` then follows from the
intercept equation ``1^T D^{1/2} z = -1^T C l'``. A backtracking line search on ``P``
(exact in closed form along the line, no extra kernel products) makes it globally
convergent. K is the dense matrix when it fits in working memory, else a
:class:`~kernelkit.linalg.KernelOperator` (blockwise, never more than working memory).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._core.result import Result
from ..exceptions import ConvergenceWarning
from ..linalg import KernelOperator, fits_in_memory, pcg

__all__ = ["solve_newton"]


def solve_newton(
    K,
    y,
    loss,
    C,
    *,
    X=None,
    fit_intercept: bool = False,
    tol: float = 1e-10,
    max_iter: int = 100,
    cg_tol: float = 1e-10,
    direct_max: int = 4000,
    working_memory: float | None = None,
    warn: bool = True,
    callback=None,
) -> Result:
    """Newton's method for ``min 1/2 beta^T K beta + sum_i C_i l(y_i, (K beta)_i + b)``.

    Parameters
    ----------
    K : ndarray (n, n), KernelOperator, or Kernel
        A kernel with ``X`` gives the dense matrix when ``n^2`` float64 fit in working
        memory, else a :class:`~kernelkit.linalg.KernelOperator`.
    y : ndarray (n,)
    loss : Loss or str
        A smooth loss (``loss.smooth``; ``second_derivative`` may be a generalised Hessian,
        e.g. for the squared hinge or Huber).
    C : float or ndarray (n,)
        ``C = 1 / (2 alpha m)`` for the objective ``(1/m) sum l + alpha ||f||^2``.
    fit_intercept : bool, default=False
        Add an unregularised offset ``b``.
    tol : float, default=1e-10
        Stop when half the squared Newton decrement is below ``tol * max(1, |P|)``.
    max_iter : int, default=100
        Newton iterations.
    cg_tol : float, default=1e-10
        Relative residual of the inner conjugate-gradient solves.
    direct_max : int, default=4000
        Use a Cholesky factorisation of the inner system when K is dense and ``|S|`` is at
        most this.
    working_memory : float, optional
    warn : bool, default=True
    callback : callable, optional
        ``callback(n_iter, beta, newton_decrement)`` after each Newton step's direction.

    Returns
    -------
    Result
        ``coef`` = beta; ``info``: ``intercept``, ``f`` (training outputs), ``primal``,
        ``decrement``, ``gap`` (Fenchel gap at ``a = -C l'(f)``; exact duality gap without
        intercept, and at the optimum with one).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.solvers import solve_newton
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = np.sin(X[:, 0])
    >>> K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    >>> res = solve_newton(K, y, "squared", 0.5)  # ridge: beta = (K + I/(2C))^-1 y
    >>> bool(np.allclose(res.coef, np.linalg.solve(K + np.eye(40), y)))
    True
    """
    loss, y, Cs, Kop = _problem(K, X, y, loss, C, working_memory)
    res = _descend(loss, y, Cs, Kop, fit_intercept, tol, max_iter, cg_tol, direct_max,
                   callback)
    gap = res.info["gap"] = _duality_gap(loss, y, Cs, Kop, res.info["f"], res.info["primal"])
    if not res.converged and warn:
        warnings.warn(
            f"Newton reached max_iter={max_iter} with Newton decrement "
            f"{res.info['decrement']:.3g} and duality gap {gap:.3g}; increase max_iter or "
            "tol.", ConvergenceWarning, stacklevel=2)
    return res


def _problem(K, X, y, loss, C, working_memory):
    """The validated problem: ``(loss, y, C per sample, K as an array or operator)``."""
    from ..losses import resolve_loss

    loss = resolve_loss(loss)
    if not loss.smooth:
        raise ValueError(f"solve_newton needs a smooth loss; {loss!r} is not (use dual CD/SMO).")
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    Kop = _as_operator(K, X, n, working_memory)
    Cs = np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)).copy()
    if np.any(~np.isfinite(Cs)) or np.any(Cs <= 0):
        raise ValueError("C must be finite and > 0 (for every sample).")
    return loss, y, Cs, Kop


def _descend(loss, y, Cs, Kop, fit_intercept, tol, max_iter, cg_tol, direct_max,
             callback) -> Result:
    """Damped Newton steps from ``beta = 0, b = 0`` until half the squared decrement is
    below ``tol * max(1, |P|)``; ``info`` without the gap."""
    n = y.shape[0]
    dense = isinstance(Kop, np.ndarray)

    def matvec(V):
        return Kop @ V

    beta, b, Kbeta = np.zeros(n), 0.0, np.zeros(n)
    f = Kbeta + b
    P = _primal(loss, y, Cs, Kbeta, beta, f)
    history = []
    converged = False
    decrement = np.inf
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - it is reported
        lp = Cs * loss.derivative(y, f)
        dbeta, db, Kg = _newton_direction(loss, y, f, Cs, beta, lp, Kop, matvec, dense,
                                          fit_intercept, cg_tol, direct_max)
        Kdbeta = matvec(dbeta)
        # directional derivative: grad . step = (K g) . dbeta + (sum C l') db
        slope = Kg @ dbeta + lp.sum() * db
        decrement = max(-slope, 0.0)
        history.append(decrement)
        if callback is not None:
            callback(it, beta, decrement)
        if 0.5 * decrement <= tol * max(1.0, abs(P)):
            converged = True
            break
        t = _line_search(loss, y, Cs, beta, Kbeta, f, P, dbeta, Kdbeta, db, slope)
        beta = beta + t * dbeta
        Kbeta = Kbeta + t * Kdbeta
        b += t * db
        f = Kbeta + b
        P = _primal(loss, y, Cs, Kbeta, beta, f)
    info = dict(intercept=float(b), f=f, primal=float(P), decrement=float(decrement))
    return Result(coef=beta, n_iter=it, converged=converged, history=history, info=info)


def _duality_gap(loss, y, Cs, Kop, f, P) -> float:
    """``P - D(a)`` at ``a = -C l'(f)`` (inf where the conjugate is infinite)."""
    a = -Cs * loss.derivative(y, f)
    with np.errstate(over="ignore", invalid="ignore"):
        D = -0.5 * a @ (Kop @ a) - Cs @ loss.conjugate(y, -a / Cs)
    return float(P - D) if np.isfinite(D) else np.inf


def _primal(loss, y, Cs, Kbeta, beta, f) -> float:
    # P(beta, b) = 1/2 beta^T K beta + sum_i C_i l(y_i, f_i)
    return 0.5 * beta @ Kbeta + Cs @ loss.value(y, f)


def _newton_direction(loss, y, f, Cs, beta, lp, Kop, matvec, dense, fit_intercept,
                      cg_tol, direct_max):
    """The Newton step ``(dbeta, db)`` and ``K g`` (g = beta + C l'(f), the gradient wrt
    beta being K g)."""
    d = Cs * loss.second_derivative(y, f)
    g = beta + lp
    Kg = matvec(g)
    S = np.flatnonzero(d > 0)
    sq = np.sqrt(d[S])
    # RHS columns: -(D^1/2 K g)_S and D^1/2 1 (coefficient of db)
    R = np.column_stack([-sq * Kg[S], sq])
    Z = _inner_solve(Kop, matvec, S, sq, R, dense, len(y), cg_tol, direct_max)
    z0, z1 = Z[:, 0], Z[:, 1]
    if fit_intercept:
        den = sq @ z1
        # intercept equation: 1^T D^1/2 z = -sum C l'
        db = (-lp.sum() - sq @ z0) / den if den > 1e-300 else 0.0
        z = z0 + db * z1
    else:
        db, z = 0.0, z0
    dbeta = -g
    dbeta[S] -= sq * z
    return dbeta, db, Kg


def _line_search(loss, y, Cs, beta, Kbeta, f, P, dbeta, Kdbeta, db, slope) -> float:
    """Backtracking (Armijo) on P(beta + t dbeta, b + t db), its quadratic part in closed
    form in t."""
    t = 1.0
    q1, q2 = dbeta @ Kbeta, dbeta @ Kdbeta
    for _ in range(50):
        f_t = f + t * (Kdbeta + db)
        P_t = 0.5 * (beta @ Kbeta) + t * q1 + 0.5 * t * t * q2 + Cs @ loss.value(y, f_t)
        if P_t <= P + 1e-4 * t * slope:
            break
        t *= 0.5
    return t


def _as_operator(K, X, n, working_memory):
    from ..kernels import Kernel

    if isinstance(K, Kernel):
        if fits_in_memory(n * n * 8, working_memory):
            return np.ascontiguousarray(K(X))
        return KernelOperator(K, X, working_memory=working_memory)
    if isinstance(K, KernelOperator):
        return K
    K = np.asarray(K)
    if K.shape != (n, n):
        raise ValueError(f"K must have shape ({n}, {n}); got {K.shape}.")
    return K


def _inner_solve(Kop, matvec, S, sq, R, dense, n, cg_tol, direct_max):
    """Solve ``(I + D^1/2 K_SS D^1/2) Z = R``."""
    m = len(S)
    if m == 0:
        return np.zeros((0, R.shape[1]))
    if dense and m <= direct_max:
        from scipy.linalg import cho_factor, cho_solve

        A = Kop[np.ix_(S, S)].astype(np.float64)
        A *= sq[:, None]
        A *= sq[None, :]
        A[np.diag_indices(m)] += 1.0
        return cho_solve(cho_factor(A, lower=True, check_finite=False), R,
                         check_finite=False)
    full = m == n

    def apply(V):
        # (I + D^1/2 K_SS D^1/2) V via a product with the full K (zero outside S)
        W = np.zeros((n, V.shape[1]))
        W[S] = sq[:, None] * V
        KW = matvec(W)
        return V + sq[:, None] * (KW if full else KW[S])

    res = pcg(apply, R, tol=cg_tol, max_iter=max(100, 10 * int(np.sqrt(m)) + 200))
    return res.coef
