"""Least squares and ridge on a scipy.sparse design, centred implicitly (never densified).

With weights w (s = sqrt(w)) and the weighted means x_bar = X^T w / sum(w), y_bar, the
centred, rescaled design is Xc = S (X - 1 x_bar^T). It is never formed: products use

    Xc v   = s * (X v - (x_bar . v) 1)
    Xc^T u = X^T (s * u) - x_bar (s . u)

so a product costs two sparse products over the non-zeros and O(n + d) more. Solvers:

- ``gram`` (few features, d <= :data:`GRAM_MAX_FEATURES`): the d x d centred Gram matrix
  Xc^T Xc = X^T W X - sum(w) x_bar x_bar^T (one sparse product) and its eigendecomposition
  V diag(s^2) V^T, which gives the same coefficients, singular values and rank as the SVD of
  the dense path (singular values below ``max(n, d) * eps * s_max`` dropped; the Gram
  matrix squares the condition number, so this cut is coarser than the dense SVD's).
- ``cg`` (alpha > 0, many features): conjugate gradients on the centred normal equations
  (Xc^T Xc + alpha I) theta = Xc^T yc, preconditioned by their diagonal (Jacobi:
  ``sum_i w_i x_ij^2 - sum(w) x_bar_j^2 + alpha``), all targets at once.
- ``lsqr`` (alpha = 0, many features): LSQR on Xc theta = yc, the minimum-norm solution.
- ``nnls`` (``positive=True``, few features): the dense path's Lawson-Hanson NNLS on the
  square factor diag(sqrt(s^2 + alpha)) V^T of the centred Gram matrix (same solution).
- ``lbfgs`` (``positive=True``, many features): bounded L-BFGS-B on 1/2 ||Xc theta - yc||^2 +
  alpha/2 ||theta||^2, theta >= 0, with the gradient Xc^T (Xc theta - yc) + alpha theta,
  stopped when the projected gradient falls below ``1e-4 * tol`` times its value at 0.

The iterative solvers stop at a relative residual of ``ITERATIVE_RTOL_FACTOR * tol``:
scikit-learn's ``tol`` bounds the residual, and the coefficient error is up to the
condition number times larger, so the solve runs 10^4 times tighter than ``tol`` to keep
the coefficients close to the direct solution (better than 1e-6 relative at Ridge's default
on tf-idf data: benchmarks/bench_sparse_linear.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
from numba import njit
from scipy.sparse.linalg import LinearOperator, lsqr

from ..exceptions import ConvergenceWarning
from ..linalg import pcg
from ._nnls import nnls_solve

__all__ = ["GRAM_MAX_FEATURES", "ITERATIVE_RTOL_FACTOR", "SparseFit", "sparse_fit"]

GRAM_MAX_FEATURES = 1000  # d x d Gram + eigh (8 MB, ~0.1 s) below; iterative above
ITERATIVE_RTOL_FACTOR = 1e-4


class SparseFit:
    """What the estimators keep from a sparse solve (a plain record)."""

    def __init__(self, coef, x_mean, y_mean, rss, solver, n_iter, spectrum=None):
        self.coef, self.x_mean, self.y_mean, self.rss = coef, x_mean, y_mean, rss
        self.solver, self.n_iter, self.spectrum = solver, n_iter, spectrum


@njit(cache=True)
def _weighted_col_sq(data, indices, indptr, w, d, by_rows):  # pragma: no cover - numba
    """out[j] = sum_i w_i x_ij^2 over the stored entries of a CSR (by_rows) or CSC matrix."""
    out = np.zeros(d)
    for a in range(indptr.shape[0] - 1):
        for p in range(indptr[a], indptr[a + 1]):
            if by_rows:  # row a, column indices[p]
                out[indices[p]] += w[a] * data[p] * data[p]
            else:  # column a, row indices[p]
                out[a] += w[indices[p]] * data[p] * data[p]
    return out


class _Centered:
    """The implicitly centred, rescaled design Xc = S (X - 1 x_bar^T) as products."""

    def __init__(self, X, w, x_mean):
        self.X, self.w, self.s, self.x_mean = X, w, np.sqrt(w), x_mean

    def matvec(self, V):  # Xc V = s * (X V - 1 x_bar^T V)
        XV = self.X @ V
        XV -= self.x_mean @ V
        return XV * (self.s if XV.ndim == 1 else self.s[:, None])

    def rmatvec(self, U):  # Xc^T U = X^T (s * U) - x_bar (s^T U)
        SU = U * (self.s if U.ndim == 1 else self.s[:, None])
        return self.X.T @ SU - np.multiply.outer(self.x_mean, self.s @ U)

    def normal(self, V, alpha):  # (Xc^T Xc + alpha I) V, one alpha per column
        # Xc^T Xc V = X^T (w * (X V - x_bar^T V)) - x_bar (w^T (X V - x_bar^T V))
        U = self.X @ V
        U -= self.x_mean @ V
        WU = U * self.w[:, None]
        return self.X.T @ WU - np.outer(self.x_mean, WU.sum(axis=0)) + V * alpha

    def operator(self):
        n, d = self.X.shape
        return LinearOperator((n, d), matvec=self.matvec, rmatvec=self.rmatvec,
                              dtype=np.float64)


def _gram_eigh(Xc: _Centered):
    """Eigenpairs (descending) of the centred Gram matrix Xc^T Xc and the kept ones."""
    X, w, m = Xc.X, Xc.w, Xc.x_mean
    G = (X.T @ sp.diags(w) @ X).toarray()  # X^T W X (d x d, dense)
    G -= w.sum() * np.outer(m, m)  # Xc^T Xc = X^T W X - sum(w) x_bar x_bar^T
    lam, V = scipy.linalg.eigh(G, check_finite=False)
    lam, V = lam[::-1].clip(min=0.0), V[:, ::-1]
    keep = lam > max(X.shape) * np.finfo(float).eps * (lam[0] if lam.size else 0.0)
    return lam, V, keep


def _gram_solve(Xc: _Centered, B, alpha):
    """coef = V diag(1 / (s^2 + alpha)) V^T B from the centred Gram matrix (see module doc)."""
    lam, V, keep = _gram_eigh(Xc)
    with np.errstate(divide="ignore", invalid="ignore"):
        D = np.where(keep[:, None], 1.0 / (lam[:, None] + alpha[None, :]), 0.0)
    coef = V @ (D * (V.T @ B))  # Xc^T Xc = V diag(s^2) V^T
    return coef, (np.sqrt(lam), V.T, keep)


def _positive_gram_solve(Xc: _Centered, B, alpha, max_iter):
    """theta >= 0 by Lawson-Hanson NNLS on a square factor of the centred Gram matrix.

    With Xc^T Xc + alpha I = V diag(m) V^T (m = s^2 + alpha over the kept eigenpairs),
    1/2 ||Xc theta - yc||^2 + alpha/2 ||theta||^2 = 1/2 ||A theta - c||^2 + const for
    A = diag(sqrt(m)) V^T and c = diag(1 / sqrt(m)) V^T B (B = Xc^T yc lies in the span of
    the kept eigenvectors): the dense path's NNLS problem, solved by the same algorithm.
    """
    lam, V, keep = _gram_eigh(Xc)
    coef = np.empty((V.shape[0], B.shape[1]))
    for k in range(B.shape[1]):
        sel = keep | (alpha[k] > 0)  # with alpha > 0 every eigenpair has m > 0
        sq = np.sqrt(lam[sel] + alpha[k])
        Vs = V[:, sel]
        A, c = sq[:, None] * Vs.T, (Vs.T @ B[:, k]) / sq  # A^T A = Xc^T Xc + alpha I
        coef[:, k] = nnls_solve(A, c[:, None], np.zeros(1), max_iter)[:, 0]
    return coef, (np.sqrt(lam), V.T, keep)


def _cg_solve(Xc: _Centered, B, alpha, rtol, max_iter):
    """Jacobi-preconditioned CG on (Xc^T Xc + alpha I) theta = B, all columns at once."""
    X, w = Xc.X, Xc.w
    if not X.has_canonical_format:  # duplicates add up (as scipy's products read them)
        X = X.copy()
        X.sum_duplicates()
    csr = X.format == "csr"
    diag = _weighted_col_sq(X.data, X.indices, X.indptr, w, X.shape[1], csr)
    diag -= w.sum() * Xc.x_mean**2  # diag(Xc^T Xc) = sum_i w_i x_ij^2 - sum(w) x_bar_j^2
    P = 1.0 / (np.maximum(diag, 0.0)[:, None] + alpha[None, :])  # diag(...)^-1 (alpha > 0)
    res = pcg(lambda V: Xc.normal(V, alpha), B, M=lambda R: P * R, tol=rtol,
              max_iter=max_iter)
    if not res.converged:
        warnings.warn(f"The sparse ridge solve (preconditioned CG) did not reach the relative "
                      f"residual {rtol:.1e} in {res.n_iter} iterations; increase max_iter or "
                      "alpha.", ConvergenceWarning, stacklevel=5)
    return res.coef, res.n_iter


def _lsqr_solve(Xc: _Centered, Yc, rtol, max_iter):
    """Minimum-norm least squares Xc theta = yc by LSQR, one target at a time."""
    op = Xc.operator()
    coef = np.empty((Xc.X.shape[1], Yc.shape[1]))
    n_iter = 0
    for k in range(Yc.shape[1]):
        out = lsqr(op, Yc[:, k], atol=rtol, btol=rtol, iter_lim=max_iter)
        coef[:, k], n_iter = out[0], max(n_iter, int(out[2]))
        if out[1] == 7:  # iteration limit
            warnings.warn(f"The sparse least-squares solve (LSQR) stopped at its iteration "
                          f"limit {out[2]}; increase max_iter.", ConvergenceWarning,
                          stacklevel=5)
    return coef, n_iter


def _positive_solve(Xc: _Centered, Yc, B, alpha, rtol, max_iter):
    """theta >= 0 minimizing 1/2 ||Xc theta - yc||^2 + alpha/2 ||theta||^2 (L-BFGS-B).

    Stops when the largest projected gradient is below ``rtol`` times its value at
    theta = 0 (``max |Xc^T yc|``), as the other iterative solvers stop at a relative residual.
    """
    d = Xc.X.shape[1]
    coef = np.empty((d, Yc.shape[1]))
    n_iter = 0
    for k in range(Yc.shape[1]):
        def f(c, k=k):  # value and gradient Xc^T (Xc c - y) + alpha c
            r = Xc.matvec(c) - Yc[:, k]
            return 0.5 * float(r @ r + alpha[k] * c @ c), Xc.rmatvec(r) + alpha[k] * c

        gtol = rtol * max(float(np.max(np.abs(B[:, k]), initial=0.0)), np.finfo(float).tiny)
        res = scipy.optimize.minimize(f, np.zeros(d), jac=True, method="L-BFGS-B",
                                      bounds=[(0.0, None)] * d,
                                      options=dict(maxiter=max_iter or 15000, gtol=gtol,
                                                   ftol=64 * np.finfo(float).eps))
        if not res.success and res.status != 2:  # 2: no further decrease (at round-off)
            warnings.warn(f"The positive sparse solve (L-BFGS-B) did not converge: "
                          f"{res.message}; increase max_iter.", ConvergenceWarning,
                          stacklevel=5)
        coef[:, k], n_iter = res.x, max(n_iter, int(res.nit))
    return coef, n_iter


def sparse_fit(X, Y, sw, alpha, *, fit_intercept: bool, positive: bool = False,
               tol: float = 1e-4, max_iter: int | None = None) -> SparseFit:
    """Coefficients of (weighted, ridge) least squares on sparse X, centred implicitly.

    ``X`` is CSR or CSC (float64), ``Y`` (n, k) dense, ``sw`` weights or None, ``alpha``
    one penalty per target. See the module docstring for the solvers.
    """
    n, d = X.shape
    w = np.ones(n) if sw is None else np.asarray(sw, dtype=np.float64)
    if fit_intercept:  # weighted means (the intercept is unpenalized)
        x_mean = np.asarray(X.T @ w).ravel() / w.sum()
        y_mean = (w @ Y) / w.sum()
    else:
        x_mean, y_mean = np.zeros(d), np.zeros(Y.shape[1])
    Xc = _Centered(X, w, x_mean)
    Yc = (Y - y_mean) * Xc.s[:, None]  # s * (y - y_bar)
    B = Xc.rmatvec(Yc)  # Xc^T yc
    rtol = ITERATIVE_RTOL_FACTOR * tol
    spectrum = None
    if positive and d <= GRAM_MAX_FEATURES:
        solver, n_iter = "nnls", 1
        coef, spectrum = _positive_gram_solve(Xc, B, alpha, max_iter)
    elif positive:
        solver, (coef, n_iter) = "lbfgs", _positive_solve(Xc, Yc, B, alpha, rtol, max_iter)
    elif d <= GRAM_MAX_FEATURES:
        solver, n_iter = "gram", 1
        coef, spectrum = _gram_solve(Xc, B, alpha)
    elif np.all(alpha > 0):
        solver, (coef, n_iter) = "cg", _cg_solve(Xc, B, alpha, rtol, max_iter)
    else:
        solver, (coef, n_iter) = "lsqr", _lsqr_solve(Xc, Yc, rtol, max_iter)
    resid = Yc - Xc.matvec(coef)  # s * (y - X theta - theta_0)
    return SparseFit(coef, x_mean, y_mean, np.sum(resid**2, axis=0), solver, n_iter, spectrum)
