"""The ``kernelkit`` command on sparse data files: .npz (save_npz) + target file, LibSVM text."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import kernelkit
from kernelkit import Ridge

pd = pytest.importorskip("pandas")


def run_main(capsys, *args):
    from kernelkit.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def sparse_files(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(80, 12, density=0.3, random_state=0, format="csr")
    y = np.asarray(X @ rng.normal(size=12)).ravel() + 1.0
    sp.save_npz(tmp_path / "X.npz", X)
    np.save(tmp_path / "y.npy", y)
    pd.DataFrame({"y": y}).to_csv(tmp_path / "y.csv", index=False)
    labels = (y > np.median(y)).astype(int)
    dump_svmlight_file(X, labels, str(tmp_path / "train.svm"), zero_based=False)
    return tmp_path, X, y, labels


@pytest.mark.parametrize("target", ["y.npy", "y.csv"])
def test_npz_with_target_file(sparse_files, capsys, target):
    d, X, y, _ = sparse_files
    code, out, _ = run_main(capsys, "fit", "Ridge", "--data", d / "X.npz", "--target",
                            d / target, "--out", d / "m.kkm")
    assert code == 0 and "80 rows x 12 features" in out
    model = kernelkit.load(d / "m.kkm")
    ref = Ridge().fit(X, y)  # the sparse fit itself, on the same matrix
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-12)
    code, out, _ = run_main(capsys, "predict", "--model", d / "m.kkm", "--data", d / "X.npz")
    pred = pd.read_csv(__import__("io").StringIO(out))["prediction"].to_numpy()
    np.testing.assert_allclose(pred, ref.predict(X), rtol=1e-12)
    code, out, _ = run_main(capsys, "evaluate", "--model", d / "m.kkm", "--data", d / "X.npz",
                            "--target", d / target)
    assert code == 0 and "r2:" in out


def test_libsvm_file_labels_inside(sparse_files, capsys):
    d, X, _, labels = sparse_files
    code, out, _ = run_main(capsys, "fit", "AdaBoost", "--data", d / "train.svm",
                            "--param", "n_estimators=5", "--out", d / "a.kkm")
    assert code == 0
    model = kernelkit.load(d / "a.kkm")
    ref = kernelkit.AdaBoost(n_estimators=5).fit(X, labels)
    assert [e.feature_ for e in model.estimators_] == [e.feature_ for e in ref.estimators_]
    meta = kernelkit.io.read_manifest(d / "a.kkm")["metadata"]
    assert meta["data_format"] == "svmlight" and meta["svmlight_zero_based"] is False
    # a test file whose last column is empty still has the model's 12 features
    dump_svmlight_file(X[:10, :11], labels[:10], str(d / "test.svm"), zero_based=False)
    code, out, _ = run_main(capsys, "evaluate", "--model", d / "a.kkm", "--data",
                            d / "test.svm")
    assert code == 0
    acc = float(out.split("accuracy: ")[1].split()[0])
    assert acc == pytest.approx(np.mean(ref.predict(X[:10]) == labels[:10]))


@pytest.mark.parametrize("case, fragments", [
    ("no_target", ["give the target file with --target"]),
    ("wrong_length", ["the target has 5 values", "80 rows"]),
    ("not_npz", ["cannot read", "save_npz"]),
    ("two_columns", ["exactly one column"]),
])
def test_sparse_bad_input(sparse_files, capsys, case, fragments):
    d, *_ = sparse_files
    args = ["fit", "Ridge", "--data", d / "X.npz", "--out", d / "m.kkm"]
    if case == "wrong_length":
        np.save(d / "short.npy", np.ones(5))
        args += ["--target", d / "short.npy"]
    elif case == "not_npz":
        (d / "bad.npz").write_bytes(b"not a zip")
        args[3] = d / "bad.npz"
        args += ["--target", d / "y.npy"]
    elif case == "two_columns":
        pd.DataFrame({"a": np.ones(80), "b": np.ones(80)}).to_csv(d / "two.csv", index=False)
        args += ["--target", d / "two.csv"]
    code, _, err = run_main(capsys, *args)
    assert code == 1 and len(err.strip().splitlines()) == 1
    for f in fragments:
        assert f in err
    assert not (d / "m.kkm").exists()
