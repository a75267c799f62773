"""Explicit feature maps whose inner products approximate a kernel: Nystroem and random
Fourier features. A linear model on these features approximates the kernel machine.

- Nystroem: ``z(x) = K_MM^-1/2 k_M(x)`` for M sampled training points, so that
  ``z(x) . z(y) = k_M(x)^T K_MM^-1 k_M(y)``, the Nystrom approximation of k(x, y).
- Random Fourier features (Rahimi & Recht, 2007): by Bochner's theorem a stationary kernel
  is ``k(x - y) = E_w[cos(w^T (x - y))]`` with w drawn from its spectral density, so
  ``z(x) = sqrt(2 / D) cos(W^T x + b)`` with D draws of w and b ~ U[0, 2 pi] gives an
  unbiased estimate ``z(x) . z(y)`` whose error shrinks as 1 / sqrt(D).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.linalg import eigh
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.validation import FLOAT_DTYPES, check_is_fitted, check_positive, validate_data
from ..kernels import RBF, Laplacian, Matern, resolve_kernel
from ..linalg import as_rows

__all__ = ["Nystroem", "RandomFourierFeatures"]


def _check_n_components(value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"n_components must be a positive integer; got {value!r}.")
    return int(value)


class Nystroem(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Nystroem features ``z(x) = K_MM^-1/2 k(components_, x)`` for any kernelkit kernel.

    A drop-in for ``sklearn.kernel_approximation.Nystroem`` (same parameters, the same
    components for the same ``random_state``, the same features), that also accepts
    kernelkit kernels and scikit-learn GP kernels, and ``Nystroem(kernel, n_components)``
    positionally.

    Parameters
    ----------
    kernel : str, callable or Kernel, default="rbf"
        Anything :func:`~kernelkit.kernels.resolve_kernel` accepts. ``"precomputed"``, as
        in scikit-learn: ``fit`` takes the square kernel matrix ``K(X, X)`` and
        ``transform`` takes ``K(X_new, X)`` (one column per training sample);
        ``components_`` are then the sampled rows of ``K(X, X)``.
    n_components : int, default=100
        M, the number of sampled training rows (clamped to n with a warning).
    gamma, coef0, degree, kernel_params :
        scikit-learn's parameters for string kernels (None: the defaults 1 / n_features,
        1 and 3).
    random_state : int, RandomState or None
    n_jobs : int, optional
        Accepted for scikit-learn compatibility and unused: the kernel products run blockwise
        on the BLAS threads.

    Attributes
    ----------
    components_ : ndarray of shape ``(n_components_, n_features)``
    component_indices_ : ndarray of shape ``(n_components_,)``
    normalization_ : ndarray of shape ``(n_components_, n_components_)``
        ``K_MM^-1/2`` (eigenvalues clipped at 1e-12, as scikit-learn; negative ones of a
        kernel that is not PSD by their absolute value, as scikit-learn's SVD).
    kernel_ : Kernel
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    - ``kernel`` also takes kernelkit kernels and scikit-learn GP kernels; ``n_jobs`` is
      unused (the kernel products run blockwise on the BLAS threads).
    - ``normalization_`` comes from a symmetric eigendecomposition (the same matrix as
      scikit-learn's SVD, up to rounding); ``component_indices_`` are the same rows.
    - Sparse X is not accepted yet (issue 15).
    - ``kernel="precomputed"`` also works with ``n_components`` below the number of
      samples (scikit-learn then raises "Precomputed metric requires shape ...": it takes
      the sampled rows of ``K(X, X)`` as the kernel between the components, which is
      square only when every sample is a component). Here ``K_MM`` is the block of
      ``K(X, X)`` at the sampled rows and columns; with every sample a component the
      features equal scikit-learn's.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import Nystroem
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> Z = Nystroem(gamma=0.2, n_components=50, random_state=0).fit_transform(X)
    >>> from kernelkit.kernels import resolve_kernel
    >>> bool(np.allclose(Z @ Z.T, resolve_kernel("rbf", gamma=0.2)(X), atol=1e-6))
    True
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "kernel": [str, callable],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "coef0": [Real, None],
        "degree": [Interval(Real, 1, None, closed="left"), None],
        "kernel_params": [dict, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, kernel="rbf", n_components: int = 100, *, gamma=None, coef0=None,
                 degree=None, kernel_params=None, random_state=None, n_jobs=None):
        self.kernel = kernel
        self.n_components = n_components
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.kernel_params = kernel_params
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Sample the components and compute ``K_MM^-1/2``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Or the (n_samples, n_samples) kernel matrix with ``kernel="precomputed"``.
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        M = _check_n_components(self.n_components)
        X = validate_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        n = X.shape[0]
        user_function = callable(self.kernel) and not hasattr(self.kernel, "get_params")
        named_precomputed = isinstance(self.kernel, str) and self.kernel == "precomputed"
        if (user_function or named_precomputed) and any(
                p is not None for p in (self.gamma, self.coef0, self.degree)):
            raise ValueError("Don't pass gamma, coef0 or degree to Nystroem if using a "
                             "callable or precomputed kernel; pass a callable's parameters "
                             "in kernel_params.")
        # chi2's own default gamma is 1 (as scikit-learn's chi2_kernel), not 1 / n_features
        gamma = 1.0 if self.gamma is None and self.kernel == "chi2" else self.gamma
        kernel = resolve_kernel(
            self.kernel, gamma=gamma, degree=3 if self.degree is None else self.degree,
            coef0=1 if self.coef0 is None else self.coef0, kernel_params=self.kernel_params,
            n_features=X.shape[1])
        rows = as_rows(X, kernel=kernel, fit=True)  # a precomputed K: its rows, square
        self.kernel_ = clone(kernel) if kernel is self.kernel else kernel
        if M > n:
            warnings.warn(f"n_components > n_samples. This is not possible (n_components={M}"
                          f" > n_samples={n}); using n_components={n}.",
                          UserWarning, stacklevel=2)
            M = n
        rng = check_random_state(self.random_state)
        idx = rng.permutation(n)[:M]  # scikit-learn's choice of components
        basis = rows.take(idx)
        # K_MM: the kernel between the components (precomputed: the block K[idx, idx])
        kmm = self.kernel_(rows.subset(idx).X).astype(np.float64, copy=False)
        # K_MM = Q diag(s) Q^T = U S V^T (SVD: U = Q, S = |s|, V^T = sign(s) Q^T), and
        # normalization = U S^-1/2 V^T = Q diag(sign(s) / sqrt(max(|s|, 1e-12))) Q^T: for a
        # PSD kernel K_MM^-1/2; for one that is not (sigmoid, additive_chi2) the negative
        # eigenvalues count by their size, as scikit-learn's SVD, instead of blowing up
        s, Q = eigh(kmm, check_finite=False)
        Qs = Q * (np.where(s < 0, -1.0, 1.0) / np.sqrt(np.maximum(np.abs(s), 1e-12)))
        self.normalization_ = (Qs @ Q.T).astype(X.dtype, copy=False)
        self.components_ = basis
        self.component_indices_ = idx
        return self

    @property
    def _n_features_out(self) -> int:
        return self.components_.shape[0]

    def transform(self, X):
        """``Z = K(X, components_) @ normalization_.T``, computed in row blocks.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Or ``K(X, X_fit)`` of shape (n_samples, n_fit_samples) with
            ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape ``(n_samples, n_components_)``
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        rows = as_rows(X, kernel=self.kernel_, dtype=self.components_.dtype)
        # Z = K(X, components) N^T (precomputed: X = K(X_new, X_fit), its component columns)
        return rows.predict(self.kernel_, self.components_, self.normalization_.T,
                            index=self.component_indices_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags

    _test_params = [dict(n_components=10)]


_SPECTRAL = ("rbf", "laplacian", "matern")


def _from_sklearn_gp(k):
    """scikit-learn's GP ``RBF`` / ``Matern`` (nu in 0.5, 1.5, 2.5) as kernelkit's; else ``k``."""
    from sklearn.gaussian_process import kernels as gp

    if type(k) is gp.RBF:
        return RBF(length_scale=k.length_scale)
    if type(k) is gp.Matern and k.nu in (0.5, 1.5, 2.5):
        return Matern(length_scale=k.length_scale, nu=k.nu)
    return k


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Random Fourier features for the RBF, Laplacian and Matern kernels.

    ``z(x) = sqrt(2 / D) cos(W^T x + b)``, ``b ~ U[0, 2 pi]``, with the columns of W drawn
    from the kernel's spectral density (length scale l, per feature for ARD):

    - RBF ``exp(-||x - y||^2 / (2 l^2))``: ``w ~ N(0, I / l^2)`` (same draws and features as
      ``sklearn.kernel_approximation.RBFSampler`` for the same ``random_state``);
    - Laplacian ``exp(-||x - y||_1 / l)``: independent Cauchy coordinates with scale 1 / l;
    - Matern(nu) for nu in {0.5, 1.5, 2.5}: a multivariate Student t with 2 nu degrees of
      freedom and scale 1 / l, ``w = z / (l sqrt(g / (2 nu)))``, z ~ N(0, I),
      g ~ chi^2(2 nu).

    Parameters
    ----------
    kernel : {"rbf", "laplacian", "matern"} or a kernelkit RBF, Laplacian or Matern
        A kernel object supplies its own length scale (and nu); scikit-learn's GP ``RBF``
        and ``Matern`` (nu in 0.5, 1.5, 2.5) are accepted too.
    n_components : int, default=100
        D, the number of random features.
    gamma : float or "scale", optional
        scikit-learn's gamma for a kernel name: RBF and Matern ``l = (2 gamma)^-1/2``,
        Laplacian ``l = 1 / gamma``; ``"scale"`` is ``1 / (n_features X.var())`` (as
        RBFSampler's). Default 1 / n_features (when length_scale is None).
    length_scale : float or array of shape (n_features,), optional
        Takes precedence over gamma.
    nu : {0.5, 1.5, 2.5}, default=1.5
        Matern smoothness (for ``kernel="matern"``).
    random_state : int, RandomState or None

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
    random_offset_ : ndarray of shape (n_components,)
    kernel_ : Kernel
        The kernel that ``z(x) . z(y)`` approximates.
    n_features_in_ : int

    Differences from scikit-learn
    -----------------------------
    The peer is ``sklearn.kernel_approximation.RBFSampler`` (the same draws and features
    for ``kernel="rbf"``). ``gamma`` defaults to ``1 / n_features`` (RBFSampler: 1.0) and
    the first parameter is the kernel, so ``RandomFourierFeatures(gamma=g, n_components=D,
    random_state=r)`` is ``RBFSampler(gamma=g, n_components=D, random_state=r)``; Laplacian
    and Matern kernels and ARD length scales are extras. Sparse X is not accepted yet
    (issue 15).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import RandomFourierFeatures
    >>> from kernelkit.kernels import Matern
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> rff = RandomFourierFeatures(Matern(length_scale=2.0, nu=2.5), n_components=20000,
    ...                             random_state=0)
    >>> Z = rff.fit_transform(X)
    >>> bool(np.abs(Z @ Z.T - rff.kernel_(X)).max() < 0.05)
    True
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "kernel": [str, callable],  # other names: our error points to Nystroem
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": [StrOptions({"scale"}), Interval(Real, 0, None, closed="neither"), None],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like", None],
        "nu": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel="rbf", n_components: int = 100, *, gamma=None,
                 length_scale=None, nu: float = 1.5, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.gamma = gamma
        self.length_scale = length_scale
        self.nu = nu
        self.random_state = random_state

    def _target_kernel(self, X):
        """The kernel to approximate, as a kernelkit RBF, Laplacian or Matern."""
        n_features = X.shape[1]
        k = self.kernel
        if isinstance(k, (RBF, Laplacian, Matern)):
            return clone(k)
        k = _from_sklearn_gp(k)
        if k is not self.kernel:
            return k
        if not isinstance(k, str) or k.lower() not in _SPECTRAL:
            raise ValueError(
                f"RandomFourierFeatures supports kernel in {_SPECTRAL} or a kernelkit RBF, "
                f"Laplacian or Matern; got {k!r}. Use Nystroem for other kernels."
            )
        name = k.lower()
        if self.length_scale is not None:
            ls = np.asarray(self.length_scale, dtype=float)
            if np.any(~np.isfinite(ls)) or np.any(ls <= 0):
                raise ValueError(f"length_scale must be positive; got {self.length_scale!r}.")
            ls = float(ls) if ls.ndim == 0 else ls
        else:
            if isinstance(self.gamma, str) and self.gamma == "scale":
                # scikit-learn's "scale": 1 / (n_features X.var()); sparse X as its SVC:
                # E[x^2] - E[x]^2 over all entries, never densified
                var = (float(X.multiply(X).mean() - X.mean() ** 2) if hasattr(X, "tocsr")
                       else float(X.var()))
                gamma = 1.0 / (n_features * var) if var > 0 else 1.0
            else:
                gamma = 1.0 / n_features if self.gamma is None else check_positive(
                    self.gamma, "gamma")
            ls = 1.0 / gamma if name == "laplacian" else float(np.sqrt(0.5 / gamma))
        if name == "rbf":
            return RBF(length_scale=ls)
        if name == "laplacian":
            return Laplacian(length_scale=ls)
        if self.nu not in (0.5, 1.5, 2.5):
            raise ValueError(f"nu must be 0.5, 1.5 or 2.5; got {self.nu!r}.")
        return Matern(length_scale=ls, nu=self.nu)

    def fit(self, X, y=None):
        """Draw the random frequencies and phases.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        D = _check_n_components(self.n_components)
        X = validate_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        d = X.shape[1]
        self.kernel_ = self._target_kernel(X)
        ls = np.asarray(self.kernel_.length_scale, dtype=float).reshape(-1)
        if ls.size not in (1, d):
            raise ValueError(f"length_scale has {ls.size} entries but X has {d} features.")
        rng = check_random_state(self.random_state)
        # frequencies from the kernel's spectral density (Bochner): Gaussian for the RBF,
        # Cauchy for the Laplacian, Student t for the Matern (Kernel.spectral_sample)
        W, _, _ = self.kernel_.spectral_sample(d, D, rng)
        b = rng.uniform(0, 2 * np.pi, size=D)
        self.random_weights_ = W.astype(X.dtype, copy=False)
        self.random_offset_ = b.astype(X.dtype, copy=False)
        return self

    @property
    def _n_features_out(self) -> int:
        return self.random_offset_.shape[0]

    def transform(self, X):
        """``Z = sqrt(2 / D) cos(X W + b)``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=FLOAT_DTYPES)
        Z = X.astype(self.random_weights_.dtype, copy=False) @ self.random_weights_
        Z += self.random_offset_
        np.cos(Z, out=Z)
        Z *= np.sqrt(2.0 / self._n_features_out)
        return Z

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
