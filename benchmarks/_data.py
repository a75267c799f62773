"""Shared benchmark data, so that issues that say "the same data" really use it."""

from __future__ import annotations

import numpy as np


def regression_data(n: int = 20_000, d: int = 8, n_test: int = 2_000, seed: int = 0):
    """Smooth nonlinear regression: the "n = 20,000, d = 8" data of the regression issues.

    y = sin(2 x1) + 0.5 cos(x2 x3) + 0.3 x4^2 - 0.2 x5 + 0.1 x6 x7 + N(0, 0.1^2).
    Returns X_train, y_train, X_test, y_test.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n + n_test, d))
    f = (np.sin(2 * X[:, 0]) + 0.5 * np.cos(X[:, 1] * X[:, 2]) + 0.3 * X[:, 3] ** 2
         - 0.2 * X[:, 4] + 0.1 * X[:, 5] * X[:, 6 % d])
    y = f + 0.1 * rng.standard_normal(n + n_test)
    return X[:n], y[:n], X[n:], y[n:]


def letters(standardize: bool = True):
    """UCI letters: first 16,000 rows train, last 4,000 test; labels are 'A'..'Z'.

    Returns X_train, y_train, X_test, y_test (features standardized on the train split).
    The bundled copy through :func:`kernelkit.datasets.load_letters` (parsed once per process).
    """
    from kernelkit.datasets import load_letters

    return load_letters(return_X_y=True, standardize=standardize)


def sparse_text(n: int, d: int, density: float, *, n_classes: int = 2, seed: int = 0,
                fmt: str = "csr"):
    """Synthetic text-like sparse data: the "tf-idf" matrices of the sparse-input issue.

    Column (term) frequencies follow a power law (Zipf, exponent 1.1), so a few columns are
    dense and most are rare; each row has ~``density * d`` distinct terms with Poisson counts
    (the realized density is within 2% of ``density``).
    Values are tf-idf weights (log-scaled counts times the smoothed inverse document frequency),
    and every row is scaled to unit Euclidean norm, as ``TfidfVectorizer`` does. Labels come from
    a sparse linear rule on the tf-idf values plus 5% label noise, so the problem is learnable
    but not separable. The dense ``n x d`` array is never formed.

    Returns ``X`` (scipy.sparse, ``fmt`` in {"csr", "csc"}, float64) and ``y`` (int labels
    ``0..n_classes-1``).
    """
    import scipy.sparse as sp

    p = 1.0 / np.arange(1, d + 1) ** 1.1  # Zipf column frequencies
    p /= p.sum()
    rate = density * d
    for _ in range(4):  # repeated draws of frequent terms merge: raise the rate to compensate
        rng = np.random.default_rng(seed)
        perm = rng.permutation(d)  # frequent terms are not the first columns
        k = rng.poisson(rate, size=n).clip(1, d)
        indptr = np.concatenate([[0], np.cumsum(k)])
        cols = perm[rng.choice(d, size=indptr[-1], p=p)]
        counts = rng.poisson(1.0, size=indptr[-1]) + 1.0
        X = sp.csr_matrix((np.log1p(counts), cols, indptr), shape=(n, d))
        X.sum_duplicates()  # a term drawn twice in a row: its counts add
        realized = X.nnz / (n * d)
        if abs(realized - density) < 0.02 * density:
            break
        rate *= density / realized
    df = np.bincount(X.indices, minlength=d)
    X = X @ sp.diags(np.log((1 + n) / (1 + df)) + 1.0)  # smoothed idf, as scikit-learn's
    X = sp.csr_matrix(X)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / np.maximum(norms, 1e-300)) @ X
    W = rng.standard_normal((d, n_classes)) * (rng.random((d, n_classes)) < 0.2)
    scores = np.asarray(X @ W) + 0.05 * rng.standard_normal((n, n_classes))
    y = scores.argmax(axis=1) if n_classes > 2 else (scores[:, 0] > np.median(scores[:, 0]))
    y = np.asarray(y, dtype=np.int64)
    flip = rng.random(n) < 0.05
    y[flip] = rng.integers(0, n_classes, size=flip.sum())
    return (sp.csc_matrix(X) if fmt == "csc" else sp.csr_matrix(X)), y
