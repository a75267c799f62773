"""Synthetic text-like sparse data: tf-idf rows over a Zipf vocabulary, never densified.

Bag-of-words data have a few very frequent terms and a long tail of rare ones. Here term j
(in a random order) is drawn with probability proportional to ``1 / rank^1.1`` (Zipf), a
document draws a Poisson number of terms with Poisson counts, and the counts become tf-idf
weights ``log(1 + count) * (log((1 + n) / (1 + df_j)) + 1)`` (scikit-learn's smoothed idf),
each row scaled to unit Euclidean norm as ``TfidfVectorizer`` does. Labels follow a sparse
linear rule on the tf-idf values, with 5% of them redrawn at random: learnable, not separable.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_sparse_text"]

ZIPF_EXPONENT = 1.1


def _counts(n, d, rate, p, rng):
    """CSR of term counts: Poisson(rate) draws per row (at least 1), duplicates summed."""
    import scipy.sparse as sp

    perm = rng.permutation(d)  # the frequent terms are not the first columns
    k = rng.poisson(rate, size=n).clip(1, d)
    indptr = np.concatenate([[0], np.cumsum(k)])
    cols = perm[rng.choice(d, size=int(indptr[-1]), p=p)]
    counts = rng.poisson(1.0, size=int(indptr[-1])) + 1.0
    C = sp.csr_matrix((counts, cols, indptr), shape=(n, d))
    C.sum_duplicates()  # a term drawn twice in a document: its counts add
    return C


def make_sparse_text(n_samples: int = 2000, n_features: int = 5000, density: float = 0.005,
                     *, n_classes: int = 2, random_state=0, format: str = "csr"):
    """Sparse tf-idf-like features and class labels (a stand-in for a text corpus).

    Parameters
    ----------
    n_samples, n_features : int
        Documents and vocabulary size.
    density : float, default=0.005
        Fraction of non-zero entries (realized within a few percent: frequent terms drawn
        twice in a document merge, and the draw rate is raised to compensate).
    n_classes : int, default=2
    random_state : int, RandomState or None, default=0
    format : {"csr", "csc"}, default="csr"

    Returns
    -------
    X : scipy.sparse matrix of shape (n_samples, n_features), float64, rows of unit norm
    y : ndarray of shape (n_samples,), int labels ``0 .. n_classes - 1``

    Examples
    --------
    >>> from kernelkit.datasets import make_sparse_text
    >>> X, y = make_sparse_text(200, 1000, density=0.01)
    >>> X.format, X.shape, round(X.nnz / (200 * 1000), 3), sorted(set(y.tolist()))
    ('csr', (200, 1000), 0.01, [0, 1])
    """
    import scipy.sparse as sp

    if format not in ("csr", "csc"):
        raise ValueError(f"format must be 'csr' or 'csc'; got {format!r}.")
    if not (0.0 < density <= 1.0) or n_samples < 1 or n_features < 1 or n_classes < 2:
        raise ValueError("need n_samples >= 1, n_features >= 1, 0 < density <= 1 and "
                         f"n_classes >= 2; got {n_samples}, {n_features}, {density}, "
                         f"{n_classes}.")
    n, d = int(n_samples), int(n_features)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    p = 1.0 / np.arange(1, d + 1) ** ZIPF_EXPONENT  # Zipf term frequencies
    p /= p.sum()
    rate = density * d
    for _ in range(4):  # merged duplicates lower the density: raise the rate, redraw
        rng = np.random.default_rng(seed)
        C = _counts(n, d, rate, p, rng)
        realized = C.nnz / (n * d)
        if abs(realized - density) < 0.02 * density:
            break
        rate *= density / realized
    df = np.bincount(C.indices, minlength=d)  # document frequency of each term
    idf = np.log((1 + n) / (1 + df)) + 1.0  # smoothed idf (scikit-learn's TfidfTransformer)
    X = sp.csr_matrix(C)
    X.data = np.log1p(X.data) * idf[X.indices]  # sublinear tf times idf
    norms = np.sqrt(np.bincount(np.repeat(np.arange(n), np.diff(X.indptr)),
                                weights=X.data**2, minlength=n))
    X.data /= np.repeat(norms, np.diff(X.indptr))  # unit Euclidean rows (every row has a term)
    W = rng.standard_normal((d, n_classes)) * (rng.random((d, n_classes)) < 0.2)
    scores = np.asarray(X @ W) + 0.05 * rng.standard_normal((n, n_classes))
    if n_classes == 2:
        y = (scores[:, 0] > np.median(scores[:, 0])).astype(np.int64)  # balanced classes
    else:
        y = scores.argmax(axis=1).astype(np.int64)
    flip = rng.random(n) < 0.05  # label noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return (X.tocsc() if format == "csc" else X), y
