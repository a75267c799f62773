"""make_sparse_text: tf-idf-like CSR/CSC rows, seeded, never dense."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit.datasets import make_sparse_text


def test_shape_density_unit_rows_and_labels():
    X, y = make_sparse_text(400, 2000, density=0.01, random_state=3)
    assert sp.issparse(X) and X.format == "csr" and X.shape == (400, 2000)
    assert abs(X.nnz / (400 * 2000) - 0.01) < 0.02 * 0.01  # realized density within 2%
    assert X.has_canonical_format and np.all(X.data > 0)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms, 1.0, rtol=1e-12)  # unit rows, as TfidfVectorizer
    assert set(np.unique(y)) == {0, 1} and 0.4 < y.mean() < 0.6  # balanced up to noise


def test_zipf_columns_seeded_and_csc():
    X, y = make_sparse_text(500, 3000, density=0.005, random_state=0)
    df = np.sort(np.bincount(X.indices, minlength=3000))[::-1]
    assert df[0] > 20 * max(np.median(df), 1)  # a few frequent terms, a long rare tail
    X2, y2 = make_sparse_text(500, 3000, density=0.005, random_state=0, format="csc")
    assert X2.format == "csc" and (X2 != X).nnz == 0 and np.array_equal(y, y2)
    X3, _ = make_sparse_text(500, 3000, density=0.005, random_state=1)
    assert (X3 != X).nnz > 0


def test_multiclass_and_bad_arguments():
    _, y = make_sparse_text(300, 500, density=0.02, n_classes=3)
    assert set(np.unique(y)) == {0, 1, 2}
    with pytest.raises(ValueError, match="format"):
        make_sparse_text(10, 10, format="dense")
    with pytest.raises(ValueError, match="density"):
        make_sparse_text(10, 10, density=0.0)
