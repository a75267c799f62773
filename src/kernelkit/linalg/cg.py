"""Preconditioned conjugate gradients for symmetric positive definite operators.

Works with any operator: a dense array, a :class:`KernelOperator`, or a callable
``v -> A v``. Several right-hand sides are solved together (one product per
iteration for all columns), each column with its own step sizes.
"""

from __future__ import annotations

import numpy as np

from .._core.result import Result

__all__ = ["pcg"]


def _as_apply(A):
    if A is None:
        return None
    if hasattr(A, "__matmul__") and not callable(A):
        return lambda V: A @ V
    if callable(A):
        return A
    return lambda V: A @ V


def pcg(
    A,
    b: np.ndarray,
    M=None,
    x0: np.ndarray | None = None,
    tol: float = 1e-6,
    max_iter: int | None = None,
    callback=None,
    recompute_every: int | None = None,
) -> Result:
    """Solve ``A x = b`` by preconditioned conjugate gradients.

    Parameters
    ----------
    A : array, operator with ``@``, or callable
        Symmetric positive definite.
    b : ndarray of shape (n,) or (n, k)
    M : array, operator or callable, optional
        Applies the *inverse* preconditioner, ``r -> M^-1 r``.
    x0 : ndarray, optional
        Starting point (zeros by default).
    tol : float, default=1e-6
        Stop when ``||r_j|| <= tol * ||b_j||`` for every column j.
    max_iter : int, optional
        Defaults to ``10 * n``.
    callback : callable, optional
        Called as ``callback(iteration, x, relative_residual)`` after each iteration.
    recompute_every : int, optional
        Recompute the residual as ``b - A x`` every this many iterations (guards
        against drift in float32).

    Returns
    -------
    Result
        ``coef`` is x; ``history`` holds the largest relative residual per iteration.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import pcg
    >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> res = pcg(A, np.array([1.0, 2.0]), tol=1e-12)
    >>> bool(np.allclose(A @ res.coef, [1.0, 2.0])), res.converged
    (True, True)
    """
    apply_A = _as_apply(A)
    B, X, R = _start(apply_A, b, x0)
    vector = np.asarray(b).ndim == 1
    max_iter = 10 * B.shape[0] if max_iter is None else int(max_iter)
    bnorm = np.linalg.norm(B, axis=0)
    bnorm[bnorm == 0] = 1.0
    history = [float((np.linalg.norm(R, axis=0) / bnorm).max())]
    if history[0] <= tol:
        return Result(X[:, 0] if vector else X, 0, True, history)

    def report(it, rel):
        history.append(rel)
        if callback is not None:
            callback(it, X[:, 0] if vector else X, rel)

    it, converged = _iterate(apply_A, _as_apply(M), B, X, R, bnorm, tol, max_iter,
                             recompute_every, report)
    coef = X[:, 0] if vector else X
    return Result(coef, it, converged, history)


def _start(apply_A, b, x0):
    """``(B, X, R)``: b as columns (validated), the start x0 (zeros by default) and its
    residual ``b - A x0``, in b's float dtype (at least float32)."""
    b = np.asarray(b)
    B = b[:, None] if b.ndim == 1 else b
    if not np.all(np.isfinite(B)):
        raise ValueError("pcg: the right-hand side b has non-finite entries (NaN or inf).")
    if x0 is not None and np.size(x0) != B.size:
        raise ValueError(f"pcg: x0 has {np.size(x0)} entries but b has shape {b.shape}.")
    X = np.zeros_like(B, dtype=np.result_type(B, np.float32)) if x0 is None else (
        np.array(x0, dtype=np.result_type(B, np.float32)).reshape(B.shape))
    R = B - apply_A(X).reshape(B.shape) if x0 is not None else B.astype(X.dtype, copy=True)
    return B, X, R


def _iterate(apply_A, apply_M, B, X, R, bnorm, tol, max_iter, recompute_every, report):
    """The CG recurrences, X updated in place, each column with its own step; ``report(it,
    largest relative residual)`` after each iteration. Returns ``(iterations, converged)``."""
    rel = np.linalg.norm(R, axis=0) / bnorm
    Z = R if apply_M is None else apply_M(R).reshape(B.shape)
    P = Z.copy()
    rz = np.einsum("ij,ij->j", R, Z)
    it = 0
    for it in range(1, max_iter + 1):
        AP = apply_A(P).reshape(B.shape)
        pAp = np.einsum("ij,ij->j", P, AP)
        active = rel > tol
        step = np.where(active & (pAp > 0), rz / np.where(pAp > 0, pAp, 1.0), 0.0)
        X += step * P  # x <- x + a p
        if recompute_every and it % recompute_every == 0:
            R = B - apply_A(X).reshape(B.shape)
        else:
            R -= step * AP  # r <- r - a A p
        rel = np.linalg.norm(R, axis=0) / bnorm
        report(it, float(rel.max()))
        if rel.max() <= tol:
            return it, True
        Z = R if apply_M is None else apply_M(R).reshape(B.shape)
        rz_new = np.einsum("ij,ij->j", R, Z)
        beta = np.where(rz != 0, rz_new / np.where(rz != 0, rz, 1.0), 0.0)
        P *= beta
        P += Z  # p <- z + beta p
        rz = rz_new
    return it, False
