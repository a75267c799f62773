"""Posterior (and prior) function samples of a GP regression.

Two ways:

- ``"cholesky"``: ``f = mean + L z`` with ``L L^T`` the (m x m) predictive covariance
  (plus adaptive jitter, warned, when rounding makes it indefinite) and z ~ N(0, I): one
  Cholesky (m^3 / 3) where scikit-learn takes an SVD.
- ``"pathwise"``: Matheron's rule (Wilson et al. 2020),
  ``f_post(x) = f(x) + k(x, X) (K + sigma^2 I)^-1 (y - f(X) - eps)`` with a prior draw f
  from D random Fourier features of the (stationary) kernel,
  ``f(x) = sqrt(2 v / D) cos(x W + b) w``, w ~ N(0, I_D) (Bochner's theorem,
  :meth:`Kernel.spectral_sample`), and eps ~ N(0, sigma^2 I). Test points are taken in
  blocks, so memory is O(m) per sample (plus the n x D and block x n work arrays) and
  m = 100,000 points cost no m x m matrix. Exact in the posterior *update*; the prior
  draw carries the random-feature error (O(1 / sqrt(D)) in its covariance).
"""

from __future__ import annotations

import numpy as np

from ..linalg import block_rows, jitter_cholesky

__all__ = ["sample_from_covariance", "pathwise_samples"]


def sample_from_covariance(mean: np.ndarray, cov: np.ndarray, n_samples: int, rng):
    """``mean + L z`` per target, ``L`` the jittered Cholesky factor of ``cov``.

    ``mean`` of shape (m,) or (m, t), ``cov`` (m, m) or (m, m, t); returns (m, n_samples)
    or (m, t, n_samples).
    """
    single = mean.ndim == 1
    means = mean[:, None] if single else mean
    covs = cov[:, :, None] if single else cov
    out = np.empty((means.shape[0], means.shape[1], n_samples))
    for k in range(means.shape[1]):
        L, _ = jitter_cholesky(
            np.array(covs[:, :, k], order="F"), overwrite_a=True,
            what="predictive covariance of the sampled points",
            hint="sample at fewer or better-separated points, add noise (alpha or a White "
            "kernel), or use method='pathwise'",
        )
        z = rng.standard_normal((means.shape[0], n_samples))
        out[:, k, :] = means[:, k, None] + L @ z  # f = mean + L z, cov(f) = L L^T
    return out[:, 0, :] if single else out


class _PriorDraw:
    """``f(x) = sqrt(2 v / D) cos(x W + b) w + white noise``, T functions at once."""

    def __init__(self, kernel, n_features, n_components, n_functions, rng):
        self.W, self.variance, self.white = kernel.spectral_sample(n_features, n_components,
                                                                   rng)
        self.b = rng.uniform(0.0, 2.0 * np.pi, n_components)
        self.w = rng.standard_normal((n_components, n_functions))
        self.rng = rng

    def __call__(self, X):
        Z = X @ self.W
        Z += self.b
        np.cos(Z, out=Z)
        out = Z @ self.w
        out *= np.sqrt(2.0 * self.variance / self.W.shape[1])
        if self.white > 0:  # the kernel's white noise: independent at every point
            out += np.sqrt(self.white) * self.rng.standard_normal(out.shape)
        return out


def pathwise_samples(kernel, X, n_samples: int, rng, *, n_components: int, n_targets: int,
                     train=None):
    """Samples at ``X`` by Matheron's rule with a random-feature prior draw.

    Parameters
    ----------
    kernel : Kernel
        Stationary, with :meth:`~kernelkit.kernels.Kernel.spectral_sample`.
    X : ndarray of shape (m, d)
    n_samples : int
    rng : numpy.random.RandomState
    n_components : int
        D, random features of the prior draw.
    n_targets : int
    train : tuple, optional
        ``(X_train, L, noise, A, y_mean, y_std)``: training inputs, the factor of
        ``K + noise I`` (a :class:`~kernelkit.linalg.BlockCholesky`), the noise variances
        (scalar or (n,)), the dual coefficients ``A = (K + noise I)^-1 y`` of shape (n, t)
        and the target scaling. ``None`` samples
        the prior.

    Returns
    -------
    ndarray of shape (m, n_targets, n_samples)
    """
    m, d = X.shape
    T = n_targets * n_samples  # column t * n_samples + s: target t, sample s
    prior = _PriorDraw(kernel, d, n_components, T, rng)
    if train is None:
        out = np.vstack([prior(X[s:s + 4096]) for s in range(0, m, 4096)]) if m else \
            np.empty((0, T))
        return out.reshape(m, n_targets, n_samples)
    X_train, L, noise, A, y_mean, y_std = train
    n = X_train.shape[0]
    # f(X) + eps at the training inputs, eps ~ N(0, noise I)
    G = prior(X_train)
    G += np.sqrt(np.asarray(noise, dtype=float)).reshape(-1, 1) * rng.standard_normal((n, T))
    # posterior sample = y_mean + y_std (k(x, X) (a - (K + noise I)^-1 (f(X) + eps)) + f(x))
    C = np.repeat(A.reshape(n, n_targets), n_samples, axis=1) - L.cho_solve(G)
    out = np.empty((m, T))
    step = block_rows(n + prior.W.shape[1], 8)
    for s in range(0, m, step):
        sl = slice(s, min(s + step, m))
        out[sl] = kernel(X[sl], X_train) @ C
        out[sl] += prior(X[sl])
    out = out.reshape(m, n_targets, n_samples)
    out *= np.reshape(y_std, (1, -1, 1))
    out += np.reshape(y_mean, (1, -1, 1))
    return out
