"""Plain reference for the linear model of coregionalization: the full (nT x nT) matrix.

Nothing clever: ``np.kron`` builds ``sum_q B_q (x) K_q + D (x) I`` over every (output, input)
pair (output-major, index ``t n + i``), the missing pairs are deleted, and the likelihood and
posterior come from ``np.linalg`` (slogdet, solve) as written in R&W eqs. 2.25-2.30.
"""

from __future__ import annotations

import numpy as np


def lmc_covariance(Ks, Bs, noise=None):
    """``sum_q B_q (x) K_q (+ D (x) I)``, shape (nT, nT)."""
    C = sum(np.kron(B, K) for K, B in zip(Ks, Bs))
    if noise is not None:
        C = C + np.kron(np.diag(noise), np.eye(Ks[0].shape[0]))
    return C


def lmc_lml(Ks, Bs, noise, Y):
    """Log marginal likelihood of the observed (non-NaN) entries of Y (n, T)."""
    y = Y.T.ravel()  # output-major vec
    keep = ~np.isnan(y)
    C = lmc_covariance(Ks, Bs, noise)[np.ix_(keep, keep)]
    sign, logdet = np.linalg.slogdet(C)
    assert sign > 0
    yo = y[keep]
    return float(-0.5 * yo @ np.linalg.solve(C, yo) - 0.5 * logdet
                 - 0.5 * keep.sum() * np.log(2 * np.pi))


def lmc_posterior(Ks_train, Ks_cross, Ks_test, Bs, noise, Y):
    """Posterior mean (m, T) and covariance (m, T, m, T) of the noise-free outputs.

    ``Ks_cross[q]`` is ``k_q(X_test, X_train)``, ``Ks_test[q]`` is ``k_q(X_test, X_test)``.
    """
    m, T = Ks_cross[0].shape[0], Y.shape[1]
    y = Y.T.ravel()
    keep = ~np.isnan(y)
    C = lmc_covariance(Ks_train, Bs, noise)[np.ix_(keep, keep)]
    cross = sum(np.kron(B, K) for K, B in zip(Ks_cross, Bs))[:, keep]  # (mT, N)
    prior = sum(np.kron(B, K) for K, B in zip(Ks_test, Bs))
    mean = cross @ np.linalg.solve(C, y[keep])
    cov = prior - cross @ np.linalg.solve(C, cross.T)
    # output-major (t m + i) -> (i, t)
    mean = mean.reshape(T, m).T
    cov = cov.reshape(T, m, T, m).transpose(1, 0, 3, 2)
    return mean, cov
