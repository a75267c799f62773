"""scipy.sparse input: the contract every estimator whose tags say ``input_tags.sparse`` meets.

Discovers the public estimators as tests/test_common.py does (so every future estimator that
sets the tag is checked too) and checks, over CSR/CSC/COO x float32/float64, that fitting
and predicting (decision_function, transform, score_samples, ...) on sparse X equals the
dense path on the same data; that sparse fitted state stays sparse; that scikit-learn's
peers agree on the same sparse data; and the bad sparse inputs of the issue.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.utils import get_tags

from kernelkit.utils import all_estimators


def _instances():
    out = []
    for _, cls in all_estimators():
        for params in getattr(cls, "_test_params", [{}]):
            est = cls(**params)
            if get_tags(est).input_tags.sparse:
                out.append(est)
    return out


SPARSE = _instances()
OUTPUTS = ("predict", "predict_proba", "decision_function", "transform", "score_samples")
# iterative solvers stop at their default tolerance: the sparse and dense paths agree to
# that tolerance, not to the last bit (the brief's 1e-6); the others to 1e-10 relative
ITERATIVE = {"NystromKernelRidge"}
pytestmark = pytest.mark.filterwarnings(
    "ignore:n_centers=.* is larger than the number of samples:UserWarning")


def _data(est, fmt, dtype, n=48, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.35, format="csr", random_state=seed, dtype=np.float64)
    X = X.tolil()
    X[4, :] = 0.0  # an empty row
    Xd = X.toarray()
    score = Xd @ rng.normal(size=d) + 0.05 * rng.normal(size=n)
    if is_classifier(est):
        y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3])) if _multiclass(est) \
            else (score > np.median(score)).astype(int)
    elif is_regressor(est):
        y = score
    else:
        y = None
    return X.asformat(fmt).astype(dtype), Xd.astype(dtype), y


def _multiclass(est):
    return type(est).__name__ == "MulticlassSVM"


def _fit(est, X, y):
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X) if y is None else est.fit(X, y)


def _outputs(est, X):
    return {m: np.asarray(getattr(est, m)(X)) for m in OUTPUTS if hasattr(est, m)}


def _ids(instances):
    return [type(e).__name__ for e in instances]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("estimator", SPARSE, ids=_ids(SPARSE))
def test_sparse_equals_dense(estimator, fmt, dtype):
    X, Xd, y = _data(estimator, fmt, dtype)
    sparse_fit = _fit(clone(estimator), X, y)
    dense_fit = _fit(clone(estimator), Xd, y)
    name = type(estimator).__name__
    rtol = _rtol(name, dtype)
    got, want = _outputs(sparse_fit, X), _outputs(dense_fit, Xd)
    assert got
    for method, ref in want.items():
        if ref.dtype.kind == "f":
            scale = max(float(np.abs(ref).max()), 1e-12)
            np.testing.assert_allclose(got[method], ref, rtol=rtol, atol=rtol * scale,
                                       err_msg=f"{name}.{method}")
        else:
            _same_labels(got[method], ref, want, rtol, f"{name}.{method}")
    # predicting dense rows with the sparse fit (and sparse rows with the dense one)
    mixed = _outputs(sparse_fit, Xd)
    for method, ref in mixed.items():
        if ref.dtype.kind != "f":
            _same_labels(ref, got[method], got, rtol, f"{name}.{method} on dense rows")
            continue
        np.testing.assert_allclose(ref, got[method], rtol=10 * rtol,
                                   atol=10 * rtol * max(1.0, float(np.abs(ref).max())))


def _rtol(name, dtype):
    if dtype == np.float32:
        # float32 CG stopped at its tolerance amplifies the rounding differences of the
        # two paths (sparse products vs GEMM) through the system's conditioning
        return 2e-2 if name in ITERATIVE else 1e-4
    return 1e-6 if name in ITERATIVE else 1e-10


def _same_labels(got, ref, outputs, rtol, msg):
    """Equal labels, except points whose (dense) decision is a tie within rounding: a
    margin support vector has decision 0 up to rounding, and either sign is right."""
    differ = np.flatnonzero(got != ref)
    if differ.size:
        dec = outputs.get("decision_function")
        assert dec is not None, msg
        scale = max(float(np.abs(dec).max()), 1e-12)
        assert np.all(np.abs(dec.reshape(len(dec), -1)[differ]) <= 10 * rtol * scale), msg


# fitted attributes that hold training rows, and must stay sparse for sparse X
_ROW_STATE = ("X_fit_", "support_vectors_", "components_", "centers_")


@pytest.mark.parametrize("estimator", SPARSE, ids=_ids(SPARSE))
def test_fitted_training_rows_stay_sparse(estimator):
    X, _, y = _data(estimator, "coo", np.float64)
    est = _fit(clone(estimator), X, y)
    held = [a for a in _ROW_STATE if isinstance(getattr(est, a, None), np.ndarray)
            or sp.issparse(getattr(est, a, None))]
    for attr in held:
        value = getattr(est, attr)
        if value.shape[1] == 0:  # precomputed: no rows kept
            continue
        assert sp.issparse(value) and value.format == "csr", f"{type(est).__name__}.{attr}"


def _forbid_densify(monkeypatch, shape):
    """Densifying a sparse matrix of the input's shape (X or a copy, transpose aside) fails;
    small derived matrices (a d x d Gram of a linear model) may be densified."""
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        for name in ("toarray", "todense"):
            original = getattr(cls, name)

            def guarded(self, *args, _original=original, **kwargs):
                if tuple(sorted(self.shape)) == tuple(sorted(shape)):
                    raise AssertionError("the sparse input was densified")
                return _original(self, *args, **kwargs)

            monkeypatch.setattr(cls, name, guarded)


@pytest.mark.parametrize("estimator", SPARSE, ids=_ids(SPARSE))
def test_sparse_input_is_never_densified(estimator, monkeypatch):
    X, _, y = _data(estimator, "csr", np.float64)
    _forbid_densify(monkeypatch, X.shape)
    est = _fit(clone(estimator), X, y)
    for out in _outputs(est, X).values():
        assert np.all(np.isfinite(out))


# ---------------------------------------------------------------- scikit-learn peers


def _peers():
    from sklearn.decomposition import KernelPCA as SkKPCA
    from sklearn.kernel_approximation import Nystroem as SkNystroem
    from sklearn.kernel_ridge import KernelRidge as SkKRR
    from sklearn.svm import SVC
    from sklearn.svm import OneClassSVM as SkOCSVM

    import kernelkit as kk

    return {
        "KernelRidge": (kk.KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5),
                        SkKRR(alpha=0.1, kernel="rbf", gamma=0.5), "predict", 1e-10),
        "KernelRidge-laplacian": (kk.KernelRidge(alpha=0.1, kernel="laplacian", gamma=0.3),
                                  SkKRR(alpha=0.1, kernel="laplacian", gamma=0.3),
                                  "predict", 1e-10),
        "KernelPCA": (kk.KernelPCA(n_components=3, kernel="rbf", gamma=0.5),
                      SkKPCA(n_components=3, kernel="rbf", gamma=0.5), "transform", 1e-8),
        "OneClassSVM": (kk.OneClassSVM(nu=0.3, gamma=0.5, tol=1e-8),
                        SkOCSVM(nu=0.3, gamma=0.5, tol=1e-8), "decision_function", 1e-5),
        "KernelClassifier": (kk.KernelClassifier(gamma=0.5, tol=1e-8),
                             SVC(gamma=0.5, tol=1e-8), "decision_function", 1e-5),
        "KernelClassifier-linear": (kk.KernelClassifier(kernel="linear", tol=1e-8),
                                    SVC(kernel="linear", tol=1e-8), "decision_function",
                                    1e-5),
        "Nystroem": (kk.Nystroem(gamma=0.5, n_components=20, random_state=0),
                     SkNystroem(gamma=0.5, n_components=20, random_state=0), "transform",
                     1e-8),
    }


@pytest.mark.parametrize("case", sorted(_peers()))
def test_agrees_with_the_scikit_learn_peer_on_the_same_sparse_data(case):
    ours, peer, method, rtol = _peers()[case]
    X, _, y = _data(ours, "csr", np.float64, n=60)
    Xt, _, _ = _data(ours, "csr", np.float64, n=20, seed=1)
    a = getattr(_fit(ours, X, y), method)(Xt)
    b = getattr(_fit(peer, X, y), method)(Xt)
    if method == "transform" and case == "KernelPCA":  # eigenvectors up to sign
        a, b = a * np.sign(a[0]), b * np.sign(b[0])
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * float(np.abs(b).max()))


# ------------------------------------------------------------------------- bad input


def _any_supervised():
    import kernelkit as kk

    return [kk.KernelRidge(), kk.KernelClassifier(), kk.OneClassSVM(), kk.KernelPCA(),
            kk.Nystroem(n_components=5), kk.NystromKernelRidge(n_centers=5)]


@pytest.mark.parametrize("estimator", _any_supervised(), ids=_ids(_any_supervised()))
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_values_in_data_are_refused_as_dense(estimator, bad):
    X, Xd, y = _data(estimator, "csr", np.float64)
    X = X.copy()
    X.data[3] = bad
    Xd = Xd.copy()
    Xd[X.nonzero()[0][3], X.nonzero()[1][3]] = bad
    with pytest.raises(ValueError) as sparse_err:
        _fit(clone(estimator), X, y)
    with pytest.raises(ValueError) as dense_err:
        _fit(clone(estimator), Xd, y)
    assert str(sparse_err.value).split(".")[0] == str(dense_err.value).split(".")[0]


def _messy(n=30, d=6, seed=0):
    """CSR with unsorted and duplicate indices (int64), explicit zeros and empty rows."""
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 5, size=n)
    k[[2, 7]] = 0  # empty rows
    indptr = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
    indices = rng.integers(0, d, size=indptr[-1]).astype(np.int64)  # unsorted, duplicates
    data = rng.normal(size=indptr[-1])
    data[::7] = 0.0  # explicit zeros
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    X.indices, X.indptr = indices, indptr  # scipy would narrow them to int32
    return X


@pytest.mark.parametrize("estimator", SPARSE, ids=_ids(SPARSE))
def test_messy_sparse_structure_reads_as_scipy_reads_it(estimator):
    X = _messy()
    Xd = X.toarray()  # scipy's reading: duplicates summed, explicit zeros are zeros
    assert X.indices.dtype == np.int64 and not X.has_canonical_format
    _, _, y = _data(estimator, "csr", np.float64, n=30, d=6)
    a = _outputs(_fit(clone(estimator), X, y), X)
    b = _outputs(_fit(clone(estimator), Xd, y), Xd)
    rtol = 1e-6 if type(estimator).__name__ in ITERATIVE else 1e-9
    for m in b:
        if b[m].dtype.kind != "f":
            _same_labels(a[m], b[m], b, rtol, m)
            continue
        np.testing.assert_allclose(a[m], b[m], rtol=rtol,
                                   atol=rtol * max(1.0, float(np.abs(b[m]).max())))


@pytest.mark.parametrize("estimator", SPARSE, ids=_ids(SPARSE))
def test_zero_rows_and_sparse_y(estimator):
    X, _, y = _data(estimator, "csr", np.float64)
    with pytest.raises(ValueError, match="0 sample"):
        _fit(clone(estimator), X[:0], None if y is None else y[:0])
    if y is not None:
        with pytest.raises((TypeError, ValueError), match="[Ss]parse"):
            _fit(clone(estimator), X, sp.csr_matrix(np.asarray(y, dtype=float)[:, None]))
