"""Choosing the M inducing points of a sparse GP: k-means centres, random rows, or greedy
variance selection (pivoted Cholesky).

Every method works on at most ``n_candidates`` rows drawn uniformly (all rows when there
are fewer), so that choosing M points costs O(n_candidates M (M + d)), not O(n M^2).
"""

from __future__ import annotations

import numpy as np

__all__ = ["select_inducing", "greedy_variance"]


def candidate_count(n_inducing: int) -> int:
    """How many rows the selection looks at: 50 per inducing point, at least 10,000."""
    return max(10_000, 50 * int(n_inducing))


def greedy_variance(kernel, X: np.ndarray, m: int) -> np.ndarray:
    """Indices of ``m`` rows chosen by greedy variance reduction (pivoted Cholesky).

    Step j picks the row whose Nystrom residual variance
    ``d_i = k(x_i, x_i) - sum_{l<j} R_il^2`` is largest and appends the column
    ``R_:j = (k(X, x_p) - R R_p^T) / sqrt(d_p)`` of the partial factor (Bach & Jordan 2002;
    Fine & Scheinberg 2001): O(n m (m + d)) time, O(n m) memory.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> X = np.array([[0.0], [0.01], [5.0]])
    >>> sorted(greedy_variance(RBF(1.0), X, 2).tolist())  # never the near-duplicate pair
    [0, 2]
    """
    n = X.shape[0]
    R = np.zeros((n, m))
    resid = np.asarray(kernel.diag(X), dtype=np.float64).copy()
    chosen = np.empty(m, dtype=np.intp)
    for j in range(m):
        p = int(np.argmax(resid))
        chosen[j] = p
        dp = resid[p]
        if not dp > 0:  # every remaining row is already spanned: fill with unused rows
            rest = np.setdiff1d(np.arange(n), chosen[:j])[: m - j]
            chosen[j:] = rest
            break
        # R_:j = (k(X, x_p) - R_:,<j R_p,<j^T) / sqrt(d_p)
        col = np.asarray(kernel(X, X[p : p + 1]), dtype=np.float64)[:, 0]
        col -= R[:, :j] @ R[p, :j]
        col /= np.sqrt(dp)
        R[:, j] = col
        resid -= col * col
        resid[chosen[: j + 1]] = -np.inf
    return chosen


def select_inducing(method: str, X: np.ndarray, m: int, kernel, rng) -> np.ndarray:
    """``m`` inducing points chosen from the candidate rows ``X`` by ``method``.

    Parameters
    ----------
    method : {"kmeans", "random", "greedy"}
    X : ndarray of shape (n_candidates, d)
    m : int
        At most ``len(X)``.
    kernel : Kernel
        Used by "greedy".
    rng : numpy RandomState

    Returns
    -------
    ndarray of shape (m, d)
    """
    if m >= len(X):
        return np.array(X, dtype=np.float64, copy=True)
    if method == "random":
        return np.asarray(X[np.sort(rng.choice(len(X), size=m, replace=False))], dtype=float)
    if method == "greedy":
        return np.asarray(X[np.sort(greedy_variance(kernel, X, m))], dtype=np.float64)
    if method == "kmeans":
        from sklearn.cluster import KMeans

        km = KMeans(n_clusters=m, n_init=1, random_state=rng.randint(2**31 - 1))
        return np.asarray(km.fit(X).cluster_centers_, dtype=np.float64)
    raise ValueError(f"inducing must be 'kmeans', 'random' or 'greedy'; got {method!r}.")
