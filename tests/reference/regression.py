"""Naive O(n^3) references for the regression estimators (explicit inverses on purpose)."""

from __future__ import annotations

import numpy as np


def augmented(X, fit_intercept=True):
    return np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X


def ols(X, y, fit_intercept=True):
    """theta = (A^T A)^-1 A^T y with A = [X, 1]; returns coef, intercept."""
    A = augmented(X, fit_intercept)
    theta = np.linalg.inv(A.T @ A) @ A.T @ y
    return (theta[:-1], theta[-1]) if fit_intercept else (theta, 0.0)


def ridge(X, y, lam, fit_intercept=True):
    """theta = (lam I + Xc^T Xc)^-1 Xc^T yc; intercept = y_bar - x_bar^T theta."""
    xm = X.mean(0) if fit_intercept else np.zeros(X.shape[1])
    ym = y.mean(0) if fit_intercept else 0.0
    Xc, yc = X - xm, y - ym
    theta = np.linalg.inv(lam * np.eye(X.shape[1]) + Xc.T @ Xc) @ Xc.T @ yc
    return theta, ym - xm @ theta


def krr_dual(K, y, lam):
    """alpha = (K + lam I)^-1 y."""
    return np.linalg.inv(K + lam * np.eye(len(K))) @ y


def krr_intercept(K, y, lam):
    """alpha = (lam I + C K C)^-1 C y, theta_0 = mean(y - K alpha) (notes: scaled by lam)."""
    n = len(K)
    C = np.eye(n) - np.ones((n, n)) / n
    a = np.linalg.inv(lam * np.eye(n) + C @ K @ C) @ C @ y
    return a, float(np.mean(y - K @ a))


def loo_bruteforce(K, y, lam):
    """Squared leave-one-out residuals by n refits."""
    n = len(K)
    out = np.empty(n)
    for i in range(n):
        m = np.arange(n) != i
        a = krr_dual(K[np.ix_(m, m)], y[m], lam)
        out[i] = (y[i] - K[i, m] @ a) ** 2
    return out


def gp_posterior(K, Ks, Kss, y, noise):
    """mean = K_* (K + s I)^-1 y, cov = K_** - K_* (K + s I)^-1 K_*^T."""
    Ki = np.linalg.inv(K + noise * np.eye(len(K)))
    return Ks @ Ki @ y, Kss - Ks @ Ki @ Ks.T


def gp_lml(K, y, noise):
    """log N(y; 0, K + s I)."""
    C = K + noise * np.eye(len(K))
    _, logdet = np.linalg.slogdet(C)
    return float(-0.5 * y @ np.linalg.inv(C) @ y - 0.5 * logdet - 0.5 * len(y) * np.log(2 * np.pi))


def blr_posterior(Phi, y, alpha, noise):
    """Sigma_w = (Phi^T Phi / s + alpha I)^-1, mu_w = Sigma_w Phi^T y / s."""
    S = np.linalg.inv(Phi.T @ Phi / noise + alpha * np.eye(Phi.shape[1]))
    return S @ Phi.T @ y / noise, S
