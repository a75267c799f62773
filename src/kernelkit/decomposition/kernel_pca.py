"""Kernel principal component analysis, a drop-in for ``sklearn.decomposition.KernelPCA``.

The derivation (Schoelkopf, Smola & Mueller 1998) in the notes' notation: with m training
points and feature map phi, the covariance C = (1/m) sum_i phi~(x_i) phi~(x_i)^T of the
centred features phi~ = phi - mean(phi) has eigenvectors v = sum_i alpha_i phi~(x_i) with

    K~ alpha = m lambda alpha,      K~ = H K H,   H = I - (1/m) 1 1^T,

and ``||v|| = 1`` iff ``alpha^T K~ alpha = 1`` i.e. ``||alpha||^2 = 1 / (m lambda)``. The
projection of x on v is ``sum_i alpha_i k~(x_i, x)`` with the test-side centring

    k~(x, x_i) = k(x, x_i) - mean_j k(x, x_j) - mean_j k(x_j, x_i) + mean_jl k(x_j, x_l).

``eigenvalues_`` are the eigenvalues mu = m lambda of K~ (as scikit-learn) and
``explained_variance_`` the notes' lambda = mu / m.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import NotFittedError, PositiveSpectrumWarning
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.interpreted import pick
from .._core.memory import require_memory
from .._core.threads import limit_blas, pool
from .._core.validation import (
    FLOAT_DTYPES,
    KERNEL_PARAMETER_CONSTRAINTS,
    check_is_fitted,
    check_nonnegative,
    validate_data,
)
from ..kernels import resolve_estimator_kernel
from ..linalg import block_rows, cho_solve, is_precomputed, jitter_cholesky, top_eigh

__all__ = ["KernelPCA"]

_SOLVERS = ("auto", "dense", "randomized", "lobpcg", "arpack")


@njit(parallel=True, cache=True)
def _center_in_place(K, col_means, row_means, grand_mean):  # pragma: no cover - numba
    # K~_ij = K_ij - mean_l K_lj - mean_l K_il + mean_lm K_lm   (K~ = H K H, in place)
    n, m = K.shape
    for i in prange(n):
        ri = row_means[i] - grand_mean
        for j in range(m):
            K[i, j] -= col_means[j] + ri


@njit(parallel=True, cache=True)
def _center_mirror(K, means, grand, ts):  # pragma: no cover - numba
    # upper triangle (j >= i) holds K: K~_ij = K_ij - m_i - m_j + g  (K~ = H K H), then
    # K~_ji = K~_ij; tiles of ts x ts, tile row p paired with nt - 1 - p (equal work)
    n = K.shape[0]
    nt = (n + ts - 1) // ts
    for p in prange((nt + 1) // 2):
        for rep in range(2):
            ti = p if rep == 0 else nt - 1 - p
            if rep == 1 and ti == p:
                break
            i0 = ti * ts
            i1 = min(n, i0 + ts)
            for tj in range(ti, nt):
                j0 = tj * ts
                j1 = min(n, j0 + ts)
                for i in range(i0, i1):
                    ci = means[i] - grand
                    for j in range(max(j0, i), j1):
                        K[i, j] -= means[j] + ci
                for j in range(j0, j1):
                    for i in range(i0, min(i1, j)):
                        K[j, i] = K[i, j]


@njit(nogil=True, cache=True, fastmath={"reassoc"})
def _clip_and_sum(T, rs, cs, cols):  # pragma: no cover - numba
    # k = min(exp(-1/2 d^2), 1) = exp(min(-1/2 d^2, 0)) (clip rounding); rs_i += sum_j k_ij,
    # and cs_j += sum_i k_ij when cols (an off-diagonal tile: the mirrored rows' sums)
    r, c = T.shape
    for i in range(r):
        acc = 0.0
        if cols:
            for j in range(c):
                v = min(T[i, j], 1.0)
                T[i, j] = v
                acc += v
                cs[j] += v
        else:
            for j in range(c):
                v = min(T[i, j], 1.0)
                T[i, j] = v
                acc += v
        rs[i] += acc


def _exp_gram_centered(A, B):
    """The centred Gram matrix ``H K H`` of a kernel ``K = exp(min(A B^T, 0))`` (the RBF's
    ``exp_factors``) in one n x n array, each pair computed once.

    Row blocks of the upper triangle are computed in tiles on every core (one thin GEMM
    gives the exponent, e.g. ``-1/2 ||x - y||^2 = [x, ||x||^2, 1] . [y, -1/2, -1/2 ||y||^2]``,
    then NumPy's SIMD exp, in cache), the row sums come from the same tiles, and one
    parallel pass centres the triangle in place and mirrors it. Returns ``(K~, row means of
    K, grand mean of K)``.
    """
    n = A.shape[0]
    K = np.empty((n, n), dtype=A.dtype)
    r, c = 128, 2048  # tiles of 128 x 2048 (in cache between the steps)
    clip_and_sum = pick(_clip_and_sum, n)  # a small problem interpreted (_core/interpreted.py)

    def row_block(s):
        # k_ij = exp(min(-1/2 ||x_i - x_j||^2, 0)) for i in [s, e), j >= s
        e = min(n, s + r)
        rs = np.zeros(e - s)
        cs = np.zeros(n - e + 1)
        for c0 in [s] + list(range(e, n, c)):
            c1 = e if c0 == s else min(n, c0 + c)
            T = K[s:e, c0:c1]
            np.matmul(A[s:e], B[c0:c1].T, out=T)
            np.exp(T, out=T)
            if c0 == s:
                np.fill_diagonal(T, 1.0)
            clip_and_sum(T, rs, cs[c0 - e:c1 - e] if c0 > s else cs, c0 > s)
        return s, e, rs, cs[:n - e]

    sums = np.zeros(n)
    with limit_blas(1):
        for s, e, rs, cs in pool(max(1, numba.get_num_threads())).map(row_block,
                                                                        range(0, n, r)):
            sums[s:e] += rs
            sums[e:] += cs
    means = (sums / n).astype(K.dtype)  # symmetric K: row means = column means
    grand = float(sums.sum() / n / n)
    pick(_center_mirror, n)(K, means, K.dtype.type(grand), 64)
    return K, means, grand


def _flip_signs(V):
    """In place: the largest-|.| entry of every column positive (scikit-learn's svd_flip)."""
    if V.shape[1] == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1
    V *= signs.astype(V.dtype, copy=False)
    return V


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel principal component analysis (drop-in for scikit-learn's ``KernelPCA``).

    Builds the Gram matrix once, centres it in feature space **in place**
    (``K~ = H K H``, one n x n matrix), solves ``K~ alpha = m lambda alpha`` for the leading
    pairs and projects new points with the test-side centring. For the RBF kernel every
    pair is evaluated once (upper-triangle tiles on all cores) and the centring and the
    mirroring into the lower triangle are one in-place pass.

    Parameters
    ----------
    n_components : int, default=None
        Number of components; ``None`` keeps every non-zero component. Larger than the
        number of training samples is an error. Components with a negative eigenvalue (a
        kernel whose centred matrix is not PSD) are dropped with a
        ``PositiveSpectrumWarning``, so fewer may be kept.
    kernel : str, callable, kernelkit or scikit-learn GP kernel, default="linear"
        ``"linear"``, ``"poly"``, ``"rbf"``, ``"sigmoid"``, ``"cosine"``, ``"laplacian"``,
        ``"precomputed"``, a kernelkit :class:`~kernelkit.kernels.Kernel`, ...
    gamma : float, default=None
        Kernel coefficient of rbf/poly/sigmoid/laplacian; ``None`` means ``1/n_features``.
    degree : float, default=3
    coef0 : float, default=1
    kernel_params : dict, default=None
        Extra parameters of a string or callable kernel.
    alpha : float, default=1.0
        Ridge of the kernel ridge regression that learns the pre-image map
        (``fit_inverse_transform=True``).
    fit_inverse_transform : bool, default=False
        Learn ``inverse_transform`` (Bakir, Weston & Schoelkopf 2004).
    eigen_solver : {"auto", "dense", "randomized", "lobpcg", "arpack"}, default="auto"
        "dense": LAPACK, only the requested subset (``syevr``), or every pair with
        ``syevd`` when all components are wanted. "randomized": randomized block Krylov
        (block Lanczos) iterated until the residuals meet ``tol``. "lobpcg": scipy's
        LOBPCG. "arpack": scipy's ``eigsh`` (as scikit-learn). "auto": "randomized" when
        ``n_samples > 1000`` and ``n_components < n_samples / 10``, else "dense".
    tol : float, default=0
        Relative residual tolerance ``||K~ v - mu v|| <= tol * mu_1`` of the iterative
        solvers; 0 means 1e-10 in float64 (eigenvalues to machine precision, eigenvectors
        to about ``1e-10 mu_1 / gap``) and 1e-5 in float32 ("randomized"; LOBPCG's own
        default for "lobpcg", machine precision for "arpack").
    max_iter : int, default=None
        Iteration cap of the iterative solvers.
    iterated_power : int or "auto", default="auto"
        "randomized" only: "auto" iterates until ``tol`` is met; an int runs exactly that
        many block Krylov steps.
    remove_zero_eig : bool, default=False
        Drop components with zero eigenvalue (always done when ``n_components=None``).
    random_state : int, RandomState or None, default=None
        Seed of the randomized / LOBPCG / ARPACK start.
    copy_X : bool, default=True
        Copy the training data (with ``kernel="precomputed"`` the matrix is centred in
        place when ``copy_X=False``).
    n_jobs : int, default=None
        Accepted for compatibility; kernel matrices use every numba/BLAS thread.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues ``mu = m lambda`` of the centred kernel matrix, descending.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        Unit eigenvectors of the centred kernel matrix (sign: largest entry positive).
    explained_variance_ : ndarray of shape (n_components,)
        The notes' ``lambda = eigenvalues_ / n_samples``: the variance of the training
        features along each principal axis.
    dual_coef_ : ndarray of shape (n_samples, n_features)
        Pre-image regression coefficients (``fit_inverse_transform=True``).
    X_transformed_fit_ : ndarray of shape (n_samples, n_components)
        Projections of the training data (``fit_inverse_transform=True``).
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training data (the centred matrix itself for ``kernel="precomputed"``).
    K_fit_rows_ : ndarray of shape (n_samples,)
        Column means of the training kernel matrix (test-side centring).
    K_fit_all_ : float
        Grand mean of the training kernel matrix.
    kernel_ : Kernel
        The resolved kernel.
    gamma_ : float or None
        The kernel coefficient used (``1/n_features`` when ``gamma=None``).
    eigen_solver_ : str
        The solver that ran.
    n_iter_ : int
        Products with K~ of the iterative solver (1 for "dense").
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Differences from scikit-learn
    -----------------------------
    - A centred kernel matrix with significantly negative eigenvalues (a kernel that is not
      PSD, e.g. a precomputed indefinite matrix) warns ``PositiveSpectrumWarning`` and drops
      those components; scikit-learn raises ``ValueError`` for the same input.
    - Eigenvalues below ``max(1e-12, n eps) max|mu|`` (eps of the data's dtype) count as
      zero, so float32 and float64 input keep the same components.
    - ``eigen_solver`` adds "dense" and "lobpcg"; ``tol=0`` means 1e-10 (float64) for the
      iterative solvers. Extra attributes ``explained_variance_``, ``kernel_``,
      ``gamma_``, ``eigen_solver_``, ``n_iter_``. Sparse X is not accepted yet (issue 15).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> kpca = KernelPCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    >>> kpca.transform(X[:4]).shape
    (4, 2)
    >>> bool(np.allclose(kpca.explained_variance_ * 50, kpca.eigenvalues_))
    True
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        **KERNEL_PARAMETER_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_inverse_transform": ["boolean"],
        "eigen_solver": [StrOptions({"auto", "dense", "randomized", "lobpcg", "arpack"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "iterated_power": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
        "remove_zero_eig": ["boolean"],
        "random_state": ["random_state"],
        "copy_X": ["boolean"],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        alpha=1.0,
        fit_inverse_transform=False,
        eigen_solver="auto",
        tol=0,
        max_iter=None,
        iterated_power="auto",
        remove_zero_eig=False,
        random_state=None,
        copy_X=True,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.copy_X = copy_X
        self.n_jobs = n_jobs

    # ---------------------------------------------------------------- checks
    def _check_params(self, n_samples: int) -> int:
        if self.eigen_solver not in _SOLVERS:
            raise ValueError(f"eigen_solver must be one of {_SOLVERS}; got {self.eigen_solver!r}.")
        check_nonnegative(self.alpha, "alpha")
        check_nonnegative(self.tol, "tol")
        if self.gamma is not None:
            check_nonnegative(self.gamma, "gamma")
        if not (self.iterated_power == "auto" or (
                isinstance(self.iterated_power, numbers.Integral)
                and not isinstance(self.iterated_power, bool) and self.iterated_power >= 0)):
            raise ValueError(
                f"iterated_power must be 'auto' or an int >= 0; got {self.iterated_power!r}.")
        if self.max_iter is not None and (
                not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1):
            raise ValueError(f"max_iter must be None or an int >= 1; got {self.max_iter!r}.")
        if self.fit_inverse_transform and self._precomputed():
            raise ValueError("Cannot fit_inverse_transform with a precomputed kernel.")
        k = self.n_components
        if k is None:
            return n_samples
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_components must be None or an int >= 1; got {k!r}.")
        if k > n_samples:
            raise ValueError(
                f"n_components={k} is larger than the number of training samples "
                f"({n_samples}): the centred kernel matrix has at most {n_samples} "
                "eigenpairs. Pass n_components <= n_samples (or None for all)."
            )
        return int(k)

    def _precomputed(self) -> bool:
        return is_precomputed(self.kernel)

    def _solver(self, n: int, k: int) -> str:
        if self.eigen_solver != "auto":
            return self.eigen_solver
        return "randomized" if (n > 1000 and k < n / 10) else "dense"

    # ------------------------------------------------------------------- fit
    def fit(self, X, y=None):
        """Fit the model from data in X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, or the (n_samples, n_samples) Gram matrix for
            ``kernel="precomputed"``.
        y : Ignored

        Returns
        -------
        self : KernelPCA
        """
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES, copy=self.copy_X)
        n = X.shape[0]
        k = self._check_params(n)
        self.kernel_ = resolve_estimator_kernel(self, X.shape[1])
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else self.gamma
        if not self._precomputed():  # every eigen_solver here works on the n x n matrix
            require_memory(8.0 * n * n, f"KernelPCA's {n:,} x {n:,} kernel matrix",
                           "KernelPCA on a subsample, or Nystroem features and PCA")
        if self._precomputed():
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"kernel='precomputed' needs a square (n_samples, n_samples) Gram matrix "
                    f"at fit; got shape {X.shape}.")
            # centred in place (a copy already when copy_X=True), as scikit-learn; a sparse
            # Gram matrix is n x n values whatever its storage: its dense twin
            X = X.toarray() if sp.issparse(X) else X
            self._fit_centered_eigh(*self._center(X), k)
        elif (factors := self.kernel_.exp_factors(X)) is not None:
            # K = exp(A B^T) (the RBF): every pair once, centred in the same pass
            self._fit_centered_eigh(*_exp_gram_centered(*factors), k)
        else:
            self._fit_centered_eigh(*self._center(self.kernel_(X)), k)  # the one n x n matrix
        if self.fit_inverse_transform:
            if sp.issparse(X):  # as scikit-learn: the pre-image regression needs dense X
                raise NotImplementedError("Inverse transform not implemented for sparse "
                                          "matrices! Pass dense X (X.toarray()) or set "
                                          "fit_inverse_transform=False.")
            self._fit_inverse(self.eigenvectors_ * np.sqrt(self.eigenvalues_), X)
        self.X_fit_ = X
        return self

    def _center(self, K):
        """Centre the raw K in place; ``(K~, column means of K, grand mean of K)``."""
        # test-side centring needs the column means and grand mean of the raw K
        col_means = K.mean(axis=0)
        row_means = K.mean(axis=1) if self._precomputed() else col_means  # K symmetric
        grand = float(col_means.mean())
        _center_in_place(K, col_means, row_means, K.dtype.type(grand))
        return K, col_means, grand

    def _fit_centered_eigh(self, K, col_means, grand, k):
        """Eigenpairs of the centred ``K`` (raw column means and grand mean kept)."""
        n = K.shape[0]
        self.K_fit_rows_ = col_means
        self.K_fit_all_ = grand
        # K~ alpha = mu alpha, the k largest mu (mu = m lambda)
        solver = self._solver(n, k)
        # default: residuals <= 1e-10 mu_1 (float64): eigenvalues to machine precision,
        # eigenvectors to ~1e-10 mu_1 / gap (1e-9 on the benchmark, whose check is 1e-6)
        tol = {"randomized": self.tol or (1e-10 if K.dtype == np.float64 else 1e-5),
               "lobpcg": self.tol or None}.get(solver, self.tol)
        # small oversampling: each block product costs ~ (k + p) n^2 flops, and the Krylov
        # space (not the block width) does the converging
        # a precomputed K~ is X_fit_ (kept, as scikit-learn): the solver must not destroy it
        # (top_eigh hands LAPACK a C-ordered K~ as its Fortran-order transpose: in place)
        overwrite = not self._precomputed()
        w, V, n_iter = top_eigh(
            K, k, solver, overwrite_a=overwrite, random_state=self.random_state,
            n_oversamples=max(2, k // 5),
            n_iter=None if self.iterated_power == "auto" else int(self.iterated_power),
            tol=tol, max_iter=self.max_iter, return_n_iter=True,
        )
        w, V = self._clean_spectrum(w, V)
        self.eigenvalues_ = w
        self.eigenvectors_ = _flip_signs(V)
        self.explained_variance_ = w / n  # the notes' lambda
        self.eigen_solver_ = solver
        self.n_iter_ = int(n_iter)

    def _clean_spectrum(self, w, V):
        """Zero round-off eigenvalues; warn about and drop significantly negative ones."""
        w = np.array(w, copy=True)
        eps_neg, eps_abs, eps_small = (
            (1e-5, 1e-10, 1e-12) if w.dtype == np.float64 else (5e-3, 1e-6, 2e-7))
        top = float(w.max()) if w.size else 0.0
        neg = w < -max(eps_neg * max(top, 0.0), eps_abs)
        if neg.any():
            warnings.warn(
                f"The centred kernel matrix is not positive semi-definite: {int(neg.sum())} "
                f"of the requested eigenvalues are negative (smallest {float(w.min()):.3g}, "
                f"largest {top:.3g}). Their components are dropped; use a PSD kernel "
                "(e.g. rbf, poly, linear) to keep them.",
                PositiveSpectrumWarning, stacklevel=3,
            )
        w[(w < 0) & ~neg] = 0.0  # round-off
        # numerically zero: the round-off of an eigenvalue of the n x n K~ computed in
        # precision eps is up to ~ n eps ||K~||_2, ||K~||_2 = max |mu| (so float32 and
        # float64 keep the same components; on a negative definite K~ the null vector's
        # mu = 1e-15 is not a component)
        scale = float(np.abs(w).max()) if w.size else 0.0
        rel = max(eps_small, V.shape[0] * float(np.finfo(w.dtype).eps))
        w[(w > 0) & (w < rel * scale)] = 0.0
        keep = ~neg
        if self.remove_zero_eig or self.n_components is None:
            keep &= w > 0
        return (w, V) if keep.all() else (w[keep], V[:, keep])

    def _fit_inverse(self, Z, X):
        # pre-image map by kernel ridge regression on the projections:
        # (K_Z + alpha I) A = X,  x^(z) = k(z, Z) A
        K = self.kernel_(Z)
        K.flat[:: K.shape[0] + 1] += self.alpha
        L, _ = jitter_cholesky(K, overwrite_a=True, what="kernel matrix of the projections",
                               hint="increase alpha")
        self.dual_coef_ = cho_solve(L, np.asarray(X, dtype=L.dtype))
        self.X_transformed_fit_ = Z

    def fit_transform(self, X, y=None, **params):
        """Fit and return the projections of X (``eigenvectors_ * sqrt(eigenvalues_)``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
        """
        self.fit(X, **params)
        # projection of training point i: sum_j alpha_j K~_ji = mu alpha_i / sqrt(mu)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    # ------------------------------------------------------------- transform
    def _scaled_alphas(self):
        # alpha = v / sqrt(mu) gives unit feature-space axes; zero for mu = 0 (null space)
        A = np.zeros_like(self.eigenvectors_)
        nz = np.flatnonzero(self.eigenvalues_)
        A[:, nz] = self.eigenvectors_[:, nz] / np.sqrt(self.eigenvalues_[nz])
        return A

    def transform(self, X):
        """Project X on the principal axes (test-side centring of ``k(X, X_fit_)``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            (n_samples, n_train) kernel values for ``kernel="precomputed"``.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES, reset=False)
        A = self._scaled_alphas()
        n_fit = self.eigenvectors_.shape[0]
        # K~_t A = K_t A - 1 (r^T A) - (K_t 1/m) (1^T A) + g (1^T A)
        rA = self.K_fit_rows_ @ A
        sA = A.sum(axis=0)
        dtype = np.result_type(X.dtype, A.dtype)
        out = np.empty((X.shape[0], A.shape[1]), dtype=dtype)
        step = block_rows(n_fit, np.dtype(dtype).itemsize)
        for start in range(0, X.shape[0], step):
            sl = slice(start, start + step)
            if self._precomputed():
                Kt = X[sl].toarray() if sp.issparse(X) else X[sl]
            else:
                Kt = self.kernel_(X[sl], self.X_fit_)
            P = Kt @ A
            P -= rA
            P -= np.outer(Kt.mean(axis=1), sA)
            P += self.K_fit_all_ * sA
            out[sl] = P
        return out

    def inverse_transform(self, X):
        """Map projections back to input space with the learned pre-image regression.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)

        Notes
        -----
        As scikit-learn: the centred kernel carries no information about the feature-space
        mean, so the reconstruction does not restore it (e.g. for the linear kernel).
        """
        if not self.fit_inverse_transform:
            raise NotFittedError(
                "The fit_inverse_transform parameter was not set to True when instantiating "
                "and hence the inverse transform is not available."
            )
        check_is_fitted(self)
        from sklearn.utils.validation import check_array

        Z = check_array(X, dtype=FLOAT_DTYPES)
        if Z.shape[1] != self.X_transformed_fit_.shape[1]:
            raise ValueError(
                f"X has {Z.shape[1]} columns but the model has "
                f"{self.X_transformed_fit_.shape[1]} components."
            )
        return self.kernel_(Z, self.X_transformed_fit_) @ self.dual_coef_

    # ------------------------------------------------------------------ misc
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = self._precomputed()
        return tags

    @property
    def _n_features_out(self):
        """Number of transformed output features."""
        return self.eigenvalues_.shape[0]
