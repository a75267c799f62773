"""DecisionStump, AdaBoost and MajorityVote on scipy.sparse X: the dense path's rounds exactly."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from kernelkit import AdaBoost, MajorityVote
from kernelkit.ensemble import DecisionStump, DecisionTree
from kernelkit.ensemble._sparse_stump import (
    SparseColumns,
    balanced_columns,
    best_sparse_stump_classes,
    best_sparse_stump_gini2,
    cut_threshold,
)


def _sparse(n=200, d=12, density=0.3, seed=0, decimals=None, fmt="csc"):
    """Sparse X with negative and positive values (rounded: ties and repeated values)."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format=fmt,
                  data_rvs=lambda k: rng.normal(size=k))
    if decimals is not None:
        X.data = np.round(X.data, decimals)  # some stored values become explicit zeros
    y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _rounds(model):
    return [(e.feature_, e.threshold_, tuple(e.value_)) for e in model.estimators_]


@pytest.mark.parametrize("fmt", ["csc", "csr", "coo"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("decimals", [None, 1])
def test_adaboost_sparse_same_rounds_as_dense(fmt, dtype, decimals):
    X, y = _sparse(decimals=decimals)
    Xs = getattr(X, "to" + fmt)().astype(dtype)
    a = AdaBoost(n_estimators=25).fit(Xs, y)
    b = AdaBoost(n_estimators=25).fit(Xs.toarray(), y)
    assert _rounds(a) == _rounds(b)  # same feature, threshold and leaves every round
    np.testing.assert_allclose(a.estimator_errors_, b.estimator_errors_, rtol=1e-10,
                               atol=1e-15)
    np.testing.assert_allclose(a.estimator_weights_, b.estimator_weights_, rtol=1e-10)
    np.testing.assert_array_equal(a.predict(Xs), b.predict(Xs.toarray()))
    np.testing.assert_allclose(a.decision_function(Xs.tocsr()), b.decision_function(
        Xs.toarray()), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
def test_multiclass_stump_sparse_equals_dense(criterion):
    X, _ = _sparse(n=150, d=10, decimals=1, seed=2)
    y = np.random.default_rng(1).integers(0, 3, size=150)
    w = np.random.default_rng(2).uniform(0.0, 1.0, size=150)
    w[:20] = 0.0  # weight 0 acts as a removed row (thresholds from the others only)
    a = DecisionStump(criterion=criterion).fit(X, y, sample_weight=w)
    b = DecisionStump(criterion=criterion).fit(X.toarray(), y, sample_weight=w)
    assert (a.feature_, a.threshold_, tuple(a.value_)) == (b.feature_, b.threshold_,
                                                           tuple(b.value_))
    assert a.error_ == pytest.approx(b.error_, rel=1e-10, abs=1e-15)
    boosted = [AdaBoost(DecisionStump(criterion=criterion), n_estimators=15).fit(M, y)
               for M in (X, X.toarray())]
    assert _rounds(boosted[0]) == _rounds(boosted[1])


def test_zero_group_cuts_and_all_positive_columns():
    """Thresholds around the implicit zeros: between a negative value and 0, and between 0
    and the smallest positive value; a column without zeros has no zero group."""
    X = sp.csc_matrix(np.array([[-2.0, 1.0, 3.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0],
                                [1.0, 0.0, 4.0], [3.0, 5.0, 5.0]]))
    cols = SparseColumns(X)
    assert list(cols.zpos) == [1, 0, 0] and list(cols.zero) == [True, True, False]
    vals0 = cols.column_values(0)  # [-2, 1, 3]
    assert cut_threshold(vals0, 1, True, -1) == -1.0  # between -2 and the zeros
    assert cut_threshold(vals0, 1, True, 2) == 0.5  # between the zeros and 1
    assert cut_threshold(vals0, 1, True, 3) == 2.0
    for y in ([0, 1, 1, 0, 0], [1, 0, 0, 1, 1], [0, 0, 1, 1, 1], [1, 1, 0, 0, 1]):
        a, b = DecisionStump().fit(X, y), DecisionStump().fit(X.toarray(), y)
        assert (a.feature_, a.threshold_, a.error_) == (b.feature_, b.threshold_, b.error_)


@pytest.mark.parametrize("decimals", [None, 1])
def test_two_class_gini_kernel_is_the_k_class_kernel(decimals):
    """The division-free prefilter of the two-class Gini scan changes nothing: the same
    feature, cut and criterion value, bit for bit, as the K-class scan (serial and
    parallel twins), over many random weightings."""
    X, y = _sparse(n=300, d=15, density=0.2, decimals=decimals, seed=3)
    cols = SparseColumns(X)
    args = (cols.ptr, cols.order, cols.zpos, cols.zero, cols.cols, cols.bounds,
            cols.X.indptr, cols.X.indices)
    y = np.ascontiguousarray(y, dtype=np.int64)
    rng = np.random.default_rng(4)
    for _ in range(30):
        w = rng.exponential(size=300) ** 3  # skewed weights, as late boosting rounds have
        w /= w.sum()
        ref = best_sparse_stump_classes.seq(*args, y, w, 2, 0)
        sw = np.where(y == 1, w, -w)  # the signed weights the two-class kernel reads
        for kernel in (best_sparse_stump_gini2.seq, best_sparse_stump_gini2.par):
            assert kernel(*args, sw) == ref


def test_presorted_columns_share_X_and_balance_threads():
    """No copy of X's arrays (int32 indices read as they are), one int32 per non-zero
    for the value order, and a column order that gives each thread's chunk about the same
    number of non-zeros on power-law columns."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n, d = 4000, 60
    counts = (n * 0.5 / np.arange(1, d + 1)).astype(int) + 1  # Zipf column sizes
    rows = np.concatenate([rng.choice(n, c, replace=False) for c in counts])
    cols_ = np.repeat(np.arange(d), counts)
    X = sp.csc_matrix((rng.uniform(0.1, 1.0, rows.size), (rows, cols_)), shape=(n, d))
    X.indices = X.indices.astype(np.int32)
    csr_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    SparseColumns(X)  # compiled
    tracemalloc.start()
    cols = SparseColumns(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert cols.order.dtype == np.int32 and cols.order.size == X.nnz
    assert np.shares_memory(cols.X.indices, X.indices) and np.shares_memory(cols.X.data,
                                                                              X.data)
    # the order (4 bytes a non-zero), one column's sort buffers, O(d) bookkeeping: far
    # below the CSR input (the former int64 index copy and sorted values were 16 more)
    assert peak <= 4 * X.nnz + 24 * counts.max() + 64 * d + 4096, (peak, csr_bytes)
    for chunks in (2, 4):
        perm, bounds = balanced_columns(X.indptr, chunks)
        assert sorted(perm) == list(range(d)) and bounds[-1] == d
        per_chunk = [counts[perm[a:b]].sum() for a, b in zip(bounds[:-1], bounds[1:])]
        assert max(per_chunk) <= 1.1 * X.nnz / chunks, per_chunk
        assert counts[: d // chunks].sum() > 1.5 * X.nnz / chunks  # the natural order is not


def test_stump_sparse_predict_and_explicit_zeros_duplicates():
    X, y = _sparse(seed=4, fmt="csr")
    s = DecisionStump().fit(X, y)
    np.testing.assert_array_equal(s.predict(X), s.predict(X.toarray()))
    # explicit zeros and duplicate entries (summed, as scipy reads them)
    coo = X.tocoo()
    dup = sp.coo_matrix((np.r_[coo.data / 2, coo.data / 2, np.zeros(5)],
                         (np.r_[coo.row, coo.row, np.arange(5)],
                          np.r_[coo.col, coo.col, np.zeros(5, int)])), shape=X.shape)
    t = DecisionStump().fit(dup, y)
    assert (t.feature_, t.threshold_) == (s.feature_, s.threshold_)
    np.testing.assert_array_equal(t.predict(dup.tocsr()), s.predict(X))


def test_adaboost_sparse_matches_sklearn_gini_stumps():
    """Binary Gini stumps are scikit-learn's depth-1 trees: the same ε_t every round."""
    X, y = _sparse(n=300, d=15, seed=5)
    kw = {"algorithm": "SAMME"} if "algorithm" in inspect.signature(
        AdaBoostClassifier).parameters else {}
    sk = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=15,
                            random_state=0, **kw).fit(X.tocsc(), y)
    ours = AdaBoost(DecisionStump(criterion="gini"), n_estimators=15).fit(X, y)
    np.testing.assert_allclose(ours.estimator_errors_, sk.estimator_errors_, rtol=1e-8)
    assert [e.feature_ for e in ours.estimators_] == [int(t.tree_.feature[0])
                                                      for t in sk.estimators_]


def test_early_stopping_and_majority_vote_pass_sparse_through():
    X, y = _sparse(n=300, seed=6, fmt="csr")
    a = AdaBoost(n_estimators=30, early_stopping=True, random_state=0).fit(X, y)
    b = AdaBoost(n_estimators=30, early_stopping=True, random_state=0).fit(X.toarray(), y)
    assert _rounds(a) == _rounds(b)
    vote = MajorityVote([DecisionStump(), AdaBoost(n_estimators=5)]).fit(X, y)
    dense = MajorityVote([DecisionStump(), AdaBoost(n_estimators=5)]).fit(X.toarray(), y)
    np.testing.assert_array_equal(vote.predict(X), dense.predict(X.toarray()))


def test_dense_only_weak_learner_says_so():
    X, y = _sparse()
    with pytest.raises(TypeError, match="[Ss]parse"):
        AdaBoost(DecisionTree(max_depth=2), n_estimators=3).fit(X, y)
    assert not AdaBoost(DecisionTree()).__sklearn_tags__().input_tags.sparse
    assert AdaBoost().__sklearn_tags__().input_tags.sparse


def test_sparse_bad_input():
    X, y = _sparse()
    bad = X.copy()
    bad.data[0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        AdaBoost(n_estimators=3).fit(bad, y)
