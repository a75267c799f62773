"""Stationary kernels: RBF, Laplacian, Matern, RationalQuadratic, ExpSineSquared.

Each length scale may be a scalar or a per-feature array (ARD). Gradients are taken
with respect to the *log* of each hyperparameter, matching ``theta``.
"""

from __future__ import annotations

import numpy as np

from . import _distances as dist
from .base import Kernel

__all__ = ["RBF", "Laplacian", "Matern", "RationalQuadratic", "ExpSineSquared"]


def _check_positive_param(value, name: str) -> None:
    """A length scale / alpha / periodicity must be > 0 (each entry of an ARD array)."""
    if not np.all(np.asarray(value) > 0):  # also rejects NaN
        raise ValueError(f"{name} must be positive; got {value!r}.")


class _LengthScaleKernel(Kernel):
    """Shared handling of a scalar or ARD ``length_scale``."""

    def is_stationary(self):
        return True

    @property
    def anisotropic(self) -> bool:
        return np.ndim(self.length_scale) > 0 and np.size(self.length_scale) > 1

    def _scaled(self, X):
        _check_positive_param(self.length_scale, "length_scale")
        ls = np.asarray(self.length_scale, dtype=X.dtype)
        if ls.ndim > 0 and ls.size not in (1, X.shape[1]):
            raise ValueError(
                f"length_scale has {ls.size} entries but X has {X.shape[1]} features; "
                "pass a scalar or one length scale per feature."
            )
        return X / ls.reshape(-1) if ls.ndim else X / ls

    def _sqdist_scaled(self, X, Y):
        Xs = self._scaled(X)
        return dist.sq_euclidean(Xs, None if Y is None else self._scaled(Y))

    def _ard_terms(self, X):
        """Yield the (x_d - y_d)^2 / l_d^2 matrices, one feature at a time (ARD gradients)."""
        Xs = self._scaled(X)
        for d in range(Xs.shape[1]):
            col = Xs[:, d]
            yield (col[:, None] - col[None, :]) ** 2

    def diag_gradient_dot(self, X, w):
        # k(x, x) = 1 whatever the length scale (and alpha, periodicity)
        return np.zeros(self.n_dims)


class RBF(_LengthScaleKernel):
    """Squared-exponential kernel k(x, y) = exp(-||x - y||^2 / (2 l^2)).

    Parameters
    ----------
    length_scale : float or array of shape (n_features,), default=1.0
        An array gives automatic relevance determination (one scale per feature).
    length_scale_bounds : pair of float or "fixed", default=(1e-5, 1e5)

    Notes
    -----
    Equals ``sklearn.metrics.pairwise.rbf_kernel`` with ``gamma = 1 / (2 l^2)``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> K = RBF(length_scale=1.0)(np.array([[0.0], [1.0]]))
    >>> round(float(K[0, 1]), 6)  # exp(-1/2)
    0.606531
    """

    _hyperparameters = ("length_scale",)

    def __init__(self, length_scale=1.0, length_scale_bounds=(1e-5, 1e5)):
        self.length_scale = length_scale
        self.length_scale_bounds = length_scale_bounds

    def exp_factors(self, X, Y=None):
        # -1/2 ||x/l - y/l||^2 = [x/l, ||x/l||^2, 1] . [y/l, -1/2, -1/2 ||y/l||^2]
        Xs = self._scaled(X)
        return (dist.augmented(Xs, left=True),
                dist.augmented(Xs if Y is None else self._scaled(Y), left=False))

    def _compute(self, X, Y):
        # k = exp(-1/2 ||x/l - y/l||^2): one GEMM of the exp_factors gives the exponent,
        # then NumPy's SIMD exp in place
        B = dist.gram(*self.exp_factors(X, Y))
        np.minimum(B, 0.0, out=B)  # clip rounding: ||x - y||^2 >= 0
        np.exp(B, out=B)
        if Y is None:
            np.fill_diagonal(B, 1.0)
        return B

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _gradient(self, X, K, name):
        if self.anisotropic:
            # dK/dlog l_d = K * (x_d - y_d)^2 / l_d^2
            for T in self._ard_terms(X):
                T *= K
                yield T
        else:
            # dK/dlog l = K * ||x - y||^2 / l^2
            D = self._sqdist_scaled(X, None)
            D *= K
            yield D

    def gradient_dot(self, X, W, K=None):
        if not self.n_dims:
            return np.empty(0)
        return self._value_and_gradient_dot(X, W)[1]

    def _value_and_gradient_dot(self, X, W, K=None):
        # dK/dlog l_f = K * (x_f - y_f)^2 / l_f^2: one fused pass gives sum W*K and, for
        # every feature f, sum W*K*(x_f - y_f)^2/l_f^2 (isotropic: their sum); X is centred
        # first (distances do not change; the rounding of the differences shrinks)
        Xs = self._scaled(self._check_input(X)).astype(np.float64)
        Xs -= Xs.mean(axis=0)
        s, per_feature = dist.rbf_weighted_sums(Xs, W)
        if not self.n_dims:
            return s, np.empty(0)
        return s, per_feature if self.anisotropic else np.array([per_feature.sum()])

    def _scaled_pair(self, X, Y):
        """``X / l`` and ``Y / l`` shifted by the mean of ``Y / l`` (distances unchanged,
        the rounding of the expanded squares smaller)."""
        Xs = self._scaled(self._check_input(X)).astype(np.float64)
        Ys = self._scaled(self._check_input(Y)).astype(np.float64)
        shift = Ys.mean(axis=0)
        return Xs - shift, Ys - shift

    def cross_gradient_dot(self, X, Y, W, K=None):
        if not self.n_dims:
            return np.empty(0)
        return self._value_and_cross_gradient_dot(X, Y, W, K)[1]

    def _value_and_cross_gradient_dot(self, X, Y, W, K=None):
        # dK/dlog l_f = K * (x_f - y_f)^2 / l_f^2; with E = W * K:
        # sum_ij E_ij (x_if - y_jf)^2 = sum_i r_i x_if^2 + sum_j c_j y_jf^2 - 2 (X^T E Y)_ff
        if K is None:
            K = self._compute(self._check_input(X), self._check_input(Y))
        E = np.multiply(W, K, dtype=np.float64)
        Xs, Ys = self._scaled_pair(X, Y)
        r, c = E.sum(axis=1), E.sum(axis=0)
        per_feature = r @ Xs**2 + c @ Ys**2 - 2.0 * np.einsum("if,if->f", Xs, E @ Ys)
        if not self.n_dims:
            return float(r.sum()), np.empty(0)
        return float(r.sum()), per_feature if self.anisotropic else np.array([per_feature.sum()])

    def input_gradient_dot(self, X, Y, W, K=None):
        # d k(x, y)/d y_f = k (x_f - y_f) / l_f^2, so with E = W * K:
        # G_jf = ((E^T X / l)_jf - c_j (y_jf / l_f)) / l_f
        if K is None:
            K = self._compute(self._check_input(X), self._check_input(Y))
        E = np.multiply(W, K, dtype=np.float64)
        Xs, Ys = self._scaled_pair(X, Y)
        G = E.T @ Xs
        G -= E.sum(axis=0)[:, None] * Ys
        ls = np.asarray(self.length_scale, dtype=np.float64).reshape(-1)
        return G / ls


class Laplacian(_LengthScaleKernel):
    """Laplacian kernel k(x, y) = exp(-||x - y||_1 / l) (L1 distance).

    Equals ``sklearn.metrics.pairwise.laplacian_kernel`` with ``gamma = 1 / l``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Laplacian
    >>> round(float(Laplacian(2.0)(np.array([[0.0, 0.0], [1.0, 1.0]]))[0, 1]), 6)
    0.367879
    """

    _hyperparameters = ("length_scale",)

    def __init__(self, length_scale=1.0, length_scale_bounds=(1e-5, 1e5)):
        self.length_scale = length_scale
        self.length_scale_bounds = length_scale_bounds

    def _compute(self, X, Y):
        # k = exp(-sum_d |x_d - y_d| / l_d)
        Xs = self._scaled(X)
        D = dist.manhattan(Xs, None if Y is None else self._scaled(Y))
        dist.exp_neg_scaled(D, 1.0)
        return D

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _gradient(self, X, K, name):
        Xs = self._scaled(X)
        if self.anisotropic:
            # dK/dlog l_d = K * |x_d - y_d| / l_d
            for d in range(Xs.shape[1]):
                col = Xs[:, d]
                T = np.abs(col[:, None] - col[None, :])
                T *= K
                yield T
        else:
            # dK/dlog l = K * ||x - y||_1 / l
            D = dist.manhattan(Xs)
            D *= K
            yield D


class Matern(_LengthScaleKernel):
    """Matern kernel for nu in {0.5, 1.5, 2.5} (closed forms; nu=0.5 is exp(-r)).

    With r = ||x - y|| / l:  nu=0.5: exp(-r);  nu=1.5: (1 + sqrt3 r) exp(-sqrt3 r);
    nu=2.5: (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r).

    Parameters
    ----------
    length_scale : float or array of shape (n_features,), default=1.0
        An array gives automatic relevance determination (one scale per feature).
    nu : {0.5, 1.5, 2.5}, default=1.5
        Smoothness; the second positional argument, ``Matern(length_scale, nu)``
        (scikit-learn's Matern takes ``length_scale_bounds`` second: pass it by keyword).
    length_scale_bounds : pair of float or "fixed", default=(1e-5, 1e5)

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Matern
    >>> K = Matern(length_scale=1.0, nu=1.5)(np.array([[0.0], [1.0]]))
    >>> round(float(K[0, 1]), 6)
    0.483358
    """

    _hyperparameters = ("length_scale",)

    def __init__(self, length_scale=1.0, nu=1.5, length_scale_bounds=(1e-5, 1e5)):
        self.length_scale = length_scale
        self.nu = nu
        self.length_scale_bounds = length_scale_bounds

    def _nu2(self):
        if isinstance(self.nu, bool) or self.nu not in (0.5, 1.5, 2.5):
            raise ValueError(f"Matern nu must be 0.5, 1.5 or 2.5; got {self.nu!r}.")
        return int(round(2 * self.nu))

    def _compute(self, X, Y):
        nu2 = self._nu2()
        D = self._sqdist_scaled(X, Y)
        dist.matern_from_sqdist(D, nu2)
        return D

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _radial_factor(self, X):
        """g(r) = -(dK/dr) / r, so that dK/dlog l_d = g(r) * (x_d - y_d)^2 / l_d^2."""
        nu2 = self._nu2()
        r = np.sqrt(self._sqdist_scaled(X, None))
        if nu2 == 1:
            with np.errstate(divide="ignore", invalid="ignore"):
                g = np.where(r > 0, np.exp(-r) / r, 0.0)
        elif nu2 == 3:
            g = 3.0 * np.exp(-np.sqrt(3.0) * r)
        else:
            s = np.sqrt(5.0) * r
            g = 5.0 / 3.0 * (1.0 + s) * np.exp(-s)
        return g, r

    def _gradient(self, X, K, name):
        g, r = self._radial_factor(X)
        if self.anisotropic:
            for T in self._ard_terms(X):
                T *= g
                yield T
        else:
            # dK/dlog l = g(r) * r^2
            g *= r * r
            yield g


class RationalQuadratic(_LengthScaleKernel):
    """Rational quadratic kernel k = (1 + ||x - y||^2 / (2 alpha l^2))^(-alpha).

    A scale mixture of RBF kernels; ``alpha -> inf`` recovers the RBF.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RationalQuadratic
    >>> K = RationalQuadratic(1.0, alpha=1.0)(np.array([[0.0], [1.0]]))
    >>> round(float(K[0, 1]), 6)
    0.666667
    """

    _hyperparameters = ("length_scale", "alpha")

    def __init__(
        self,
        length_scale=1.0,
        alpha=1.0,
        length_scale_bounds=(1e-5, 1e5),
        alpha_bounds=(1e-5, 1e5),
    ):
        self.length_scale = length_scale
        self.alpha = alpha
        self.length_scale_bounds = length_scale_bounds
        self.alpha_bounds = alpha_bounds

    def _compute(self, X, Y):
        if self.anisotropic:
            raise ValueError("RationalQuadratic supports a scalar length_scale only.")
        _check_positive_param(self.alpha, "alpha")
        D = self._sqdist_scaled(X, Y)
        D /= 2.0 * self.alpha
        D += 1.0
        D **= -self.alpha
        return D

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _gradient(self, X, K, name):
        _check_positive_param(self.alpha, "alpha")
        u = self._sqdist_scaled(X, None)
        u /= 2.0 * self.alpha  # u = d^2 / (2 alpha l^2)
        if name == "length_scale":
            # dK/dlog l = (d^2 / l^2) (1 + u)^(-alpha - 1) = 2 alpha u K / (1 + u)
            yield 2.0 * self.alpha * u * K / (1.0 + u)
        else:
            # dK/dlog alpha = alpha K (-log(1 + u) + u / (1 + u))
            yield self.alpha * K * (-np.log1p(u) + u / (1.0 + u))


class ExpSineSquared(_LengthScaleKernel):
    """Periodic kernel k = exp(-2 sin^2(pi ||x - y|| / p) / l^2).

    Positive semi-definite for 1-D inputs (time series); like scikit-learn's
    ExpSineSquared it is not guaranteed PSD on the Euclidean distance in d > 1.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import ExpSineSquared
    >>> K = ExpSineSquared(length_scale=1.0, periodicity=1.0)(np.array([[0.0], [1.0]]))
    >>> round(float(K[0, 1]), 6)  # one full period apart
    1.0
    """

    _hyperparameters = ("length_scale", "periodicity")

    def __init__(
        self,
        length_scale=1.0,
        periodicity=1.0,
        length_scale_bounds=(1e-5, 1e5),
        periodicity_bounds=(1e-5, 1e5),
    ):
        self.length_scale = length_scale
        self.periodicity = periodicity
        self.length_scale_bounds = length_scale_bounds
        self.periodicity_bounds = periodicity_bounds

    def _arg(self, X, Y):
        if self.anisotropic:
            raise ValueError("ExpSineSquared supports a scalar length_scale only.")
        _check_positive_param(self.length_scale, "length_scale")
        _check_positive_param(self.periodicity, "periodicity")
        d = np.sqrt(dist.sq_euclidean(X, Y))
        d *= np.pi / self.periodicity
        return d

    def _compute(self, X, Y):
        S = np.sin(self._arg(X, Y))
        S **= 2
        S *= -2.0 / self.length_scale**2
        np.exp(S, out=S)
        return S

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _gradient(self, X, K, name):
        a = self._arg(X, None)  # a = pi d / p
        ls2 = self.length_scale**2
        if name == "length_scale":
            # dK/dlog l = 4 sin^2(a) / l^2 * K
            yield 4.0 / ls2 * np.sin(a) ** 2 * K
        else:
            # dK/dlog p = 4 a sin(a) cos(a) / l^2 * K
            yield 4.0 / ls2 * a * np.sin(a) * np.cos(a) * K
