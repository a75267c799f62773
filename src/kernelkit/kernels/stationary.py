"""Stationary kernels: RBF, Laplacian, Matern, RationalQuadratic, ExpSineSquared.

Each length scale may be a scalar or a per-feature array (ARD). Gradients are taken
with respect to the *log* of each hyperparameter, matching ``theta``.
"""

from __future__ import annotations

import functools

import numpy as np

from .._core.scratch import scratch_empty
from . import _distances as dist
from ._sparse import SparseRowProducts, as_sparse_rows, is_sparse, scale_columns
from .base import Kernel
from .kernel import TileFactors, _frobenius

__all__ = ["RBF", "Laplacian", "Matern", "RationalQuadratic", "ExpSineSquared"]


def _check_positive_param(value, name: str) -> None:
    """A length scale / alpha / periodicity must be > 0 (each entry of an ARD array)."""
    if not np.all(np.asarray(value) > 0):  # also rejects NaN
        raise ValueError(f"{name} must be positive; got {value!r}.")


def _cache_fits(X, n_matrices: int) -> bool:
    """Whether ``n_matrices`` float64 n x n matrices fit in scikit-learn's working memory
    (then a kernel keeps its derivative matrices for the gradient of the same evaluation)."""
    import sklearn

    n = X.shape[0]
    return n_matrices * n * n * 8 <= sklearn.get_config()["working_memory"] * 2**20


#: the key in ``parts`` (see Kernel.matrix_parts) of the squared Euclidean distances of X:
#: they do not depend on theta, so a caller may keep them from one evaluation to the next
SQDIST = "sqdist"


def _shared_sqdist(X, parts) -> np.ndarray:
    """The squared distances of ``X`` recorded in ``parts`` (computed and recorded, read
    only, if absent): every isotropic stationary factor of a composite kernel scales the
    same matrix instead of forming its own Gram matrix."""
    D = parts.get(SQDIST)
    if D is None or D.shape[0] != X.shape[0]:
        D = dist.sq_euclidean(X, None)
        D.flags.writeable = False
        parts[SQDIST] = D
    return D


def _keep_parts(kernel, parts, K, *derivatives):
    """Record a copy of ``K`` and the free hyperparameters' dK/dtheta matrices (one
    evaluation's worth) for gradient_dot; return ``K``, the caller's to overwrite."""
    free = [G for G, h in zip(derivatives, kernel.hyperparameters) if not h.fixed]
    kept = scratch_empty(K.shape, K.dtype)  # dies with the evaluation's parts
    np.copyto(kept, K)
    parts[id(kernel)] = (kept, free)
    return K


def _dot_parts(entry, W):
    """``(sum W K, [sum W dK/dtheta_j])`` from recorded matrices: no kernel recomputed."""
    K, derivatives = entry
    return _frobenius(W, K), np.array([_frobenius(W, G) for G in derivatives])


def _dense_pair(X, Y) -> bool:
    """Whether X and Y (None: X) are dense float arrays of one dtype (fused tiles)."""
    Y = X if Y is None else Y
    return all(isinstance(Z, np.ndarray) and Z.ndim == 2 and Z.dtype in (np.float32, np.float64)
               for Z in (X, Y)) and X.dtype == Y.dtype


def _centred(X):
    """``X`` minus its column means in float64: distances do not change, the rounding of
    the differences of large coordinates (years, say) shrinks."""
    Xc = np.array(X, dtype=np.float64)
    Xc -= Xc.mean(axis=0)
    return Xc


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
        if is_sparse(X):  # x / l as a sparse diagonal product: the same non-zeros
            return scale_columns(X, 1.0 / ls)
        return X / ls.reshape(-1) if ls.ndim else X / ls

    def _sqdist_scaled(self, X, Y):
        Xs = self._scaled(X)
        return dist.sq_euclidean(Xs, None if Y is None else self._scaled(Y))

    def spectral_sample(self, n_features: int, size: int, random_state=None):
        """Frequencies from the spectral density: ``k(x, y) = E_w cos(w . (x - y))``.

        Bochner's theorem: ``w = v / l`` with v drawn from the density of the kernel at unit
        length scale (:meth:`_unit_frequencies`).

        Parameters
        ----------
        n_features : int
        size : int
            Number of frequencies.
        random_state : int, RandomState or None

        Returns
        -------
        W : ndarray of shape (n_features, size)
        variance : float
            ``k(x, x)`` of the continuous part (1.0).
        white : float
            Variance of a white-noise part (0.0).

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> W, var, white = RBF(2.0).spectral_sample(1, 200000, random_state=0)
        >>> bool(abs(np.cos(W[0] * 1.5).mean() - RBF(2.0)([[0.0]], [[1.5]])[0, 0]) < 1e-2)
        True
        """
        from sklearn.utils import check_random_state

        rng = check_random_state(random_state)
        _check_positive_param(self.length_scale, "length_scale")
        ls = np.asarray(self.length_scale, dtype=float).reshape(-1)
        if ls.size not in (1, n_features):
            raise ValueError(f"length_scale has {ls.size} entries but X has {n_features} "
                             "features.")
        return self._unit_frequencies(n_features, size, rng) / ls[:, None], 1.0, 0.0

    def _unit_frequencies(self, d, size, rng):
        raise ValueError(
            f"{type(self).__name__} has no spectral sampler; use an RBF, Laplacian, "
            "Matern or RationalQuadratic kernel (or sums and products of them)."
        )

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

    def _exp_rows(self, X, Y):
        """Dense rows ``A``, ``B`` with ``A B^T = -1/2 ||x/l - y/l||^2``: the exponent by one
        GEMM, ``[x/l, ||x/l||^2, 1] . [y/l, -1/2, -1/2 ||y/l||^2]``."""
        Xs = self._scaled(X)
        return (dist.augmented(Xs, left=True),
                dist.augmented(Xs if Y is None else self._scaled(Y), left=False))

    def tile_factors(self, X, Y=None):
        if not _dense_pair(X, Y):
            return None
        # exp(A B^T) = K (so exp_factors gives A, B), rows centred as _exponent's
        A, B = self._exp_rows(*dist.centre_pair(X, Y))
        return TileFactors(A, B, None, dist.exp_tile_map(A, B))

    def sparse_row_products(self, X):
        """Rows of exp(-||x - y||^2 / (2 l^2)) for sparse X from its columns: gamma
        ``1/(2 l^2)``, or (ARD) X's columns scaled by 1/l once and gamma 1/2."""
        if not is_sparse(X):
            return None
        if self.anisotropic:
            return SparseRowProducts(as_sparse_rows(self._scaled(X)), gamma=0.5)
        ls = float(np.ravel(self.length_scale)[0])
        return SparseRowProducts(as_sparse_rows(X), gamma=0.5 / ls**2) if ls > 0 else None

    def _exponent(self, X, Y):
        if is_sparse(X) or is_sparse(Y):
            # -1/2 ||x/l - y/l||^2 from the sparse products (clipped at 0), never densified
            B = self._sqdist_scaled(X, Y)
            B *= -0.5
            return B
        # one GEMM of the exponent's rows of X and Y centred on their common mean (distances
        # unchanged, the cancellation of the expansion shrinks for data far from 0)
        Xc, Yc = dist.centre_pair(X, Y)
        B = dist.gram(*self._exp_rows(Xc, Yc))
        np.minimum(B, 0.0, out=B)  # clip rounding: ||x - y||^2 >= 0
        if Y is None:
            np.fill_diagonal(B, 0.0)
        return B

    def _compute(self, X, Y):
        # k = exp(-1/2 ||x/l - y/l||^2): the exponent by one GEMM, NumPy's SIMD exp in place
        B = self._exponent(X, Y)
        np.exp(B, out=B)
        return B

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _unit_frequencies(self, d, size, rng):
        # exp(-||r||^2 / 2) is the characteristic function of N(0, I)
        return rng.standard_normal((d, size))

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

    def matrix_parts(self, X, parts):
        X = self._check_input(X)
        if self.anisotropic or is_sparse(X) or not _cache_fits(X, 4):
            return super().matrix_parts(X, parts)  # ARD: the fused pass of gradient_dot
        _check_positive_param(self.length_scale, "length_scale")
        # K and dK/dlog l = K ||x - y||^2 / l^2 from the shared squared distances
        K, G = dist.rbf_and_derivative(_shared_sqdist(X, parts), float(self.length_scale))
        return _keep_parts(self, parts, K, G)

    def gradient_dot(self, X, W, K=None, parts=None):
        if not self.n_dims:
            return np.empty(0)
        return self._value_and_gradient_dot(X, W, parts=parts)[1]

    def _value_and_gradient_dot(self, X, W, K=None, parts=None):
        if parts is not None and id(self) in parts:
            return _dot_parts(parts[id(self)], W)
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

    _contracts_through_product = True  # (only E = W * K is read below)

    def _value_and_cross_gradient_dot(self, X, Y, W, K=None):
        # dK/dlog l_f = K * (x_f - y_f)^2 / l_f^2; with E = W * K:
        # sum_ij E_ij (x_if - y_jf)^2 = sum_i r_i x_if^2 + sum_j c_j y_jf^2 - 2 (X^T E Y)_ff
        if K is None:
            K = self._compute(self._check_input(X), self._check_input(Y))
        E = np.multiply(W, K, out=scratch_empty(np.broadcast_shapes(W.shape, K.shape)))
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

    def tile_factors(self, X, Y=None):
        if not _dense_pair(X, Y):
            return None
        Xs = self._scaled(X)  # exp(-||a - b||_1) over the scaled rows
        return TileFactors(Xs, Xs if Y is None else self._scaled(Y), dist.tile_l1,
                           dist.tile_neg_exp)

    def _compute(self, X, Y):
        # k = exp(-sum_d |x_d - y_d| / l_d)
        Xs = self._scaled(X)
        D = dist.manhattan(Xs, None if Y is None else self._scaled(Y))
        dist.exp_neg_scaled(D, 1.0)
        return D

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _unit_frequencies(self, d, size, rng):
        # exp(-sum_j |r_j|) is the characteristic function of independent Cauchy(0, 1)
        return rng.standard_cauchy((d, size))

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

    def tile_factors(self, X, Y=None):
        nu2 = self._nu2()
        if not _dense_pair(X, Y) or nu2 not in (1, 3, 5):
            return None
        Xc, Yc = dist.centre_pair(X, Y)
        Xs = self._scaled(Xc)  # r^2 = -2 A B^T, A and B the RBF's augmented rows
        Ys = Xs if Yc is None else self._scaled(Yc)
        return TileFactors(dist.augmented(Xs, left=True), dist.augmented(Ys, left=False), None,
                           functools.partial(dist.tile_matern, nu2=nu2))

    def _compute(self, X, Y):
        nu2 = self._nu2()
        D = self._sqdist_scaled(X, Y)
        dist.matern_from_sqdist(D, nu2, work=D.size)
        return D

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _unit_frequencies(self, d, size, rng):
        # Matern(nu) has a Student-t spectral density with 2 nu degrees of freedom
        # (R&W eq. 4.15): w = z sqrt(2 nu / g), z ~ N(0, I), g ~ chi^2(2 nu)
        dof = float(self._nu2())
        return rng.standard_normal((d, size)) * np.sqrt(dof / rng.chisquare(dof, size))

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
        dist.rq_from_sqdist(D, float(self.alpha))  # (1 + d^2 / (2 alpha l^2))^-alpha
        return D

    def diag(self, X):
        X = self._check_input(X)
        return np.ones(X.shape[0], dtype=X.dtype)

    def _unit_frequencies(self, d, size, rng):
        # (1 + r^2 / (2 alpha))^-alpha = E_tau exp(-tau r^2 / 2), tau ~ Gamma(alpha, rate
        # alpha) (R&W eq. 4.20): an RBF with random precision tau, w | tau ~ N(0, tau I)
        _check_positive_param(self.alpha, "alpha")
        tau = rng.gamma(self.alpha, 1.0 / self.alpha, size)
        return rng.standard_normal((d, size)) * np.sqrt(tau)

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

    def matrix_parts(self, X, parts):
        X = self._check_input(X)
        if self.anisotropic or not _cache_fits(X, 5):
            return super().matrix_parts(X, parts)
        _check_positive_param(self.length_scale, "length_scale")
        _check_positive_param(self.alpha, "alpha")
        K, G1, G2 = dist.rq_and_derivatives(_shared_sqdist(X, parts),
                                            float(self.length_scale), self.alpha)
        return _keep_parts(self, parts, K, G1, G2)

    def gradient_dot(self, X, W, K=None, parts=None):
        return self._value_and_gradient_dot(X, W, parts=parts)[1]

    def _value_and_gradient_dot(self, X, W, K=None, parts=None):
        if parts is not None and id(self) in parts:
            return _dot_parts(parts[id(self)], W)
        # one fused pass over the triangle gives sum W*K and sum W*dK/dlog(l, alpha)
        if self.anisotropic:
            raise ValueError("RationalQuadratic supports a scalar length_scale only.")
        _check_positive_param(self.alpha, "alpha")
        Xs = _centred(self._scaled(self._check_input(X)))
        s, gl, ga = dist.rq_weighted_sums(Xs, W, self.alpha)
        free = [not h.fixed for h in self.hyperparameters]
        return float(s), np.array([gl, ga])[free]


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
    accepts_sparse = False  # a periodic kernel of a (1-D, dense) time axis

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

    def _check_params(self):
        if self.anisotropic:
            raise ValueError("ExpSineSquared supports a scalar length_scale only.")
        _check_positive_param(self.length_scale, "length_scale")
        _check_positive_param(self.periodicity, "periodicity")

    def _compute(self, X, Y):
        # exp(-2 sin^2(pi d / p) / l^2), in place on the squared distances
        self._check_params()
        D = dist.sq_euclidean(X, Y)
        dist.exp_sine_from_sqdist(D, np.pi / float(self.periodicity),
                                  2.0 / float(self.length_scale) ** 2)
        return D

    def matrix_parts(self, X, parts):
        X = self._check_input(X)
        if not _cache_fits(X, 5):
            return super().matrix_parts(X, parts)
        self._check_params()
        if X.shape[1] == 1:  # a time axis: two rank-2 products instead of a sine per pair
            free = [not h.fixed for h in self.hyperparameters]
            K, G1, G2 = dist.exp_sine_1d_and_derivatives(
                X[:, 0], self.length_scale, self.periodicity, *free)
        else:
            K, G1, G2 = dist.exp_sine_and_derivatives(_shared_sqdist(X, parts),
                                                      self.length_scale, self.periodicity)
        return _keep_parts(self, parts, K, G1, G2)

    def gradient_dot(self, X, W, K=None, parts=None):
        return self._value_and_gradient_dot(X, W, parts=parts)[1]

    def _value_and_gradient_dot(self, X, W, K=None, parts=None):
        if parts is not None and id(self) in parts:
            return _dot_parts(parts[id(self)], W)
        # one fused pass over the triangle gives sum W*K and sum W*dK/dlog(l, p)
        self._check_params()
        Xc = _centred(self._check_input(X))
        s, gl, gp = dist.exp_sine_weighted_sums(Xc, W, self.length_scale, self.periodicity)
        free = [not h.fixed for h in self.hyperparameters]
        return float(s), np.array([gl, gp])[free]

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
