"""Leading eigenpairs of symmetric matrices: dense subset, randomized, LOBPCG."""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import lobpcg
from sklearn.utils import check_random_state

__all__ = ["top_eigh"]


def top_eigh(
    A,
    n_components: int,
    method: str = "auto",
    *,
    overwrite_a: bool = False,
    random_state=None,
    n_oversamples: int = 10,
    n_iter: int = 4,
    tol: float = 1e-10,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_components`` largest eigenvalues (descending) and their eigenvectors.

    Parameters
    ----------
    A : ndarray of shape (n, n) or operator with ``@`` (randomized/lobpcg only)
    n_components : int
    method : {"auto", "dense", "randomized", "lobpcg"}
        "dense" computes only the requested subset (LAPACK ``syevr``); "randomized" is a
        subspace iteration with ``n_iter`` power steps; "lobpcg" is scipy's block solver
        started from a randomized guess. "auto" uses "dense" unless
        ``n_components < n / 10`` and ``n > 2000``, then "randomized".
    overwrite_a : bool
        Let the dense solver destroy ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import top_eigh
    >>> w, V = top_eigh(np.diag([1.0, 3.0, 2.0]), 2)
    >>> w.tolist()
    [3.0, 2.0]
    """
    n = A.shape[0]
    if not 1 <= n_components <= n:
        raise ValueError(f"n_components must be in [1, {n}]; got {n_components}.")
    if method == "auto":
        method = "randomized" if (n > 2000 and n_components < n / 10) else "dense"
    if method == "dense":
        w, V = scipy.linalg.eigh(
            A, subset_by_index=[n - n_components, n - 1], overwrite_a=overwrite_a,
            check_finite=False, driver="evr",
        )
    elif method == "randomized":
        w, V = _randomized(A, n_components, n_oversamples, n_iter, random_state)
    elif method == "lobpcg":
        rng = check_random_state(random_state)
        X0 = rng.standard_normal((n, n_components))
        w, V = lobpcg(lambda v: A @ v, X0, largest=True, tol=tol, maxiter=200)
    else:
        raise ValueError(
            f"Unknown eigen_solver {method!r}; use 'auto', 'dense', 'randomized' or 'lobpcg'."
        )
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]


def _randomized(A, k, n_oversamples, n_iter, random_state):
    # Halko-Martinsson-Tropp subspace iteration: Q spans range(A^q Omega), then
    # eigendecompose the small projected matrix Q^T A Q.
    rng = check_random_state(random_state)
    n = A.shape[0]
    p = min(n, k + n_oversamples)
    Q = rng.standard_normal((n, p)).astype(getattr(A, "dtype", np.float64), copy=False)
    Q, _ = np.linalg.qr(A @ Q)
    for _ in range(n_iter):
        Q, _ = np.linalg.qr(A @ Q)
    AQ = A @ Q
    B = Q.T @ AQ
    w, U = scipy.linalg.eigh((B + B.T) / 2)
    idx = np.argsort(w)[::-1][:k]
    return w[idx], Q @ U[:, idx]
