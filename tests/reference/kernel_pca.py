"""Plain reference of kernel PCA as derived in the notes (explicit H, full eigh).

K~ = H K H with H = I - 1 1^T / m; K~ alpha = m lambda alpha with the k largest
eigenvalues; ||alpha||^2 = 1 / (m lambda) so that the feature-space axis has unit norm;
the projection of x is sum_i alpha_i k~(x_i, x) with
k~(x, x_i) = k(x, x_i) - mean_j k(x, x_j) - mean_j k(x_j, x_i) + mean_jl k(x_j, x_l).
"""

from __future__ import annotations

import numpy as np


def centering_matrix(m):
    return np.eye(m) - np.ones((m, m)) / m


def kernel_pca(K, n_components):
    """Return (mu, alpha, Kc): eigenvalues mu = m lambda (descending), scaled
    coefficients alpha (unit feature-space axes) and the centred matrix."""
    m = K.shape[0]
    H = centering_matrix(m)
    Kc = H @ K @ H
    mu, V = np.linalg.eigh(Kc)
    mu, V = mu[::-1][:n_components], V[:, ::-1][:, :n_components]
    alpha = V / np.sqrt(mu)
    return mu, alpha, Kc


def center_test(K_test, K_train):
    """Test-side centring: rows of k~(x, x_i) for the test points x."""
    m = K_train.shape[0]
    n = K_test.shape[0]
    one_m = np.ones((m, m)) / m
    one_nm = np.ones((n, m)) / m
    return K_test - one_nm @ K_train - K_test @ one_m + one_nm @ K_train @ one_m


def project(K_test, K_train, alpha):
    return center_test(K_test, K_train) @ alpha
