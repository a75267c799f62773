"""The ``kernelkit`` command, run as a subprocess on small CSV and Parquet files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import kernelkit

from .report.html_structure import check_report_structure

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
       "MKL_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore::DeprecationWarning"}


def kk(*args, cwd=None, timeout=120):
    """Run ``python -m kernelkit ARGS``; returns the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "kernelkit", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=timeout, env=ENV,
    )


def assert_one_line_error(proc, *fragments):
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("kernelkit: error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    df = pd.DataFrame(X, columns=["x1", "x2", "x3"])
    df["y"] = np.sin(X[:, 0]) + X[:, 1] + 0.05 * rng.normal(size=80)
    df["label"] = np.where(X[:, 0] + 0.2 * X[:, 2] > 0, "yes", "no")
    df.iloc[:60].to_csv(d / "train.csv", index=False)
    df.iloc[60:].to_parquet(d / "test.parquet", index=False)
    df.iloc[60:].drop(columns=["x2"]).to_csv(d / "no_x2.csv", index=False)
    bad = df.iloc[:60].copy()
    bad["x2"] = bad["x2"].astype(str)
    bad.loc[bad.index[3], "x2"] = "unknown"
    bad.to_csv(d / "text.csv", index=False)
    proc = kk("fit", "KernelRidge", "--data", d / "train.csv", "--target", "y",
              "--features", "x1,x2,x3", "--param", "alpha=0.01",
              "--param", "kernel=RBF(length_scale=1.5)", "--out", d / "krr.kkm")
    assert proc.returncode == 0, proc.stderr
    assert "fitted KernelRidge on 60 rows x 3 features" in proc.stdout
    train = df.iloc[:60]
    ada = kernelkit.AdaBoost(n_estimators=5).fit(train[["x1", "x2", "x3"]].to_numpy(),
                                                 train["label"].to_numpy())
    kernelkit.save(ada, d / "ada.kkm", metadata={"features": ["x1", "x2", "x3"],
                                                 "target": "label"})
    return d


def test_fit_predict_evaluate_info(files):
    d = files
    model = kernelkit.load(d / "krr.kkm")
    assert model.alpha == 0.01 and model.kernel.length_scale == 1.5
    test = pd.read_parquet(d / "test.parquet")
    expected = model.predict(test[["x1", "x2", "x3"]].to_numpy())

    # Parquet in, Parquet out
    proc = kk("predict", "--model", d / "krr.kkm", "--data", d / "test.parquet",
              "--out", d / "pred.parquet")
    assert proc.returncode == 0, proc.stderr
    # (another process may use other BLAS threads: equal up to rounding)
    np.testing.assert_allclose(pd.read_parquet(d / "pred.parquet")["prediction"], expected,
                               rtol=1e-12, atol=1e-12)

    # CSV to stdout: full precision
    proc = kk("predict", "--model", d / "krr.kkm", "--data", d / "train.csv")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "prediction" and len(lines) == 61
    train = pd.read_csv(d / "train.csv")
    np.testing.assert_allclose(
        np.array(lines[1:], dtype=float), model.predict(train[["x1", "x2", "x3"]].to_numpy()),
        rtol=1e-12, atol=1e-12,
    )

    proc = kk("evaluate", "--model", d / "krr.kkm", "--data", d / "test.parquet", "--target", "y")
    assert proc.returncode == 0, proc.stderr
    out = dict(line.split(": ", 1) for line in proc.stdout.strip().splitlines())
    y = test["y"].to_numpy()
    r2 = 1 - np.sum((y - expected) ** 2) / np.sum((y - y.mean()) ** 2)
    assert float(out["r2"]) == pytest.approx(r2, rel=1e-5) and out["rows"] == "20"

    proc = kk("info", d / "krr.kkm")
    assert proc.returncode == 0, proc.stderr
    assert "KernelRidge" in proc.stdout and "RBF(length_scale=1.5)" in proc.stdout
    assert "checksums ok" in proc.stdout and "target 'y'" in proc.stdout
    assert "dual_coef_" in proc.stdout


def _first(names):
    for name in names:
        if name in kernelkit.__all__:
            return name
    pytest.skip(f"none of {names} is built yet")


def test_classifier_with_string_labels_via_console_script(files):
    d = files
    name = _first(["AdaBoost", "KernelPerceptron", "KernelClassifier", "MulticlassSVM"])
    script = Path(sys.executable).with_name("kernelkit")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "kernelkit"]
    proc = subprocess.run(
        cmd + ["fit", name, "--data", str(d / "train.csv"), "--target", "label",
               "--features", "x1,x2,x3", "--out", str(d / "clf.kkm")],
        capture_output=True, text=True, timeout=120, env=ENV,
    )
    assert proc.returncode == 0, proc.stderr
    proc = kk("evaluate", "--model", d / "clf.kkm", "--data", d / "test.parquet",
              "--target", "label")
    assert proc.returncode == 0, proc.stderr
    acc = float(dict(x.split(": ") for x in proc.stdout.splitlines())["accuracy"])
    model = kernelkit.load(d / "clf.kkm")
    test = pd.read_parquet(d / "test.parquet")
    pred = model.predict(test[["x1", "x2", "x3"]].to_numpy())
    assert set(pred) <= {"yes", "no"}
    assert acc == pytest.approx(np.mean(pred == test["label"].to_numpy()))


def test_gp_predict_std(files, tmp_path):
    _first(["GaussianProcessRegressor"])
    from kernelkit.io import parse_spec

    train = pd.read_csv(files / "train.csv")
    gp = kernelkit.GaussianProcessRegressor(kernel=parse_spec("1.0 * RBF(1.0) + White(0.01)"))
    gp.fit(train[["x1", "x2", "x3"]].to_numpy(), train["y"].to_numpy())
    kernelkit.save(gp, tmp_path / "gp.kkm", metadata={"features": ["x1", "x2", "x3"],
                                                      "target": "y"})
    proc = kk("predict", "--model", tmp_path / "gp.kkm", "--data", files / "test.parquet",
              "--std", "--out", tmp_path / "gp.csv")
    assert proc.returncode == 0, proc.stderr
    out = pd.read_csv(tmp_path / "gp.csv")
    assert list(out.columns) == ["prediction", "std"] and (out["std"] > 0).all()


# ----------------------------------------------------------------------- bad input
def _model_copy(src, dst, *, change=None, extra=None, edit_manifest=None):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        comment = zin.comment
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json" and edit_manifest:
                man = json.loads(data)
                edit_manifest(man)
                data = json.dumps(man).encode()
                comment = (b"kernelkit-model manifest-sha256="
                           + hashlib.sha256(data).hexdigest().encode())
            if change and info.filename in change:
                data = change[info.filename](data)
            zout.writestr(info.filename, data)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)
        zout.comment = comment
    return dst


@pytest.fixture(scope="module")
def broken_models(files):
    src = files / "krr.kkm"
    member = sorted(json.loads(zipfile.ZipFile(src).read("manifest.json"))["arrays"])[0]
    d = files / "broken"
    d.mkdir()
    truncated = d / "truncated.kkm"
    truncated.write_bytes(src.read_bytes()[:-40])
    return {
        "newer": _model_copy(src, d / "newer.kkm",
                             edit_manifest=lambda m: m.update(format_version=99)),
        "extra": _model_copy(src, d / "extra.kkm", extra={"evil.pkl": b"\x80\x04N."}),
        "altered": _model_copy(src, d / "altered.kkm",
                               change={member: lambda b: b[:-8] + b"\x00" * 8}),
        "truncated": truncated,
        "member": member,
    }


def test_bad_input_of_the_issue(files, broken_models, tmp_path):
    """Each case of the issue's "Bad input": one line on stderr, exit 1, nothing written."""
    d, out, pred = files, tmp_path / "m.kkm", tmp_path / "p.csv"
    fit_cases = [
        (("--data", tmp_path / "missing.csv", "--target", "y"),
         ["data file not found", "missing.csv"]),
        (("--data", d / "train.csv", "--target", "price"),
         ["column 'price' is not in", "train.csv"]),
        (("--data", d / "text.csv", "--target", "y"), ["column 'x2'", "not numeric",
                                                       "'unknown'"]),
        (("--data", d / "train.csv", "--target", "y", "--features", "x1,x2,x3",
          "--param", "alpa=1"), ["unknown parameter 'alpa'", "did you mean 'alpha'"]),
    ]
    for args, fragments in fit_cases:
        assert_one_line_error(kk("fit", "KernelRidge", *args, "--out", out), *fragments)
    assert_one_line_error(
        kk("fit", "KernelRidgeX", "--data", d / "train.csv", "--target", "y", "--out", out),
        "unknown model 'KernelRidgeX'", "did you mean 'KernelRidge'")
    model_cases = [
        ("newer", ["format version 99", "Upgrade kernelkit"]),
        ("extra", ["unexpected member 'evil.pkl'"]),
        ("altered", [broken_models["member"], "SHA-256 mismatch"]),
    ]
    for key, fragments in model_cases:
        proc = kk("predict", "--model", broken_models[key], "--data", d / "test.parquet",
                  "--out", pred)
        assert proc.returncode == 1
        assert_one_line_error(proc, *fragments)
    assert list(tmp_path.iterdir()) == []


def run_main(capsys, *args):
    """The same command in this process (cheaper than a subprocess)."""
    from kernelkit.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


FIT = ("fit", "KernelRidge", "--data", "{d}/train.csv", "--out", "{tmp}/m.kkm")
XYZ = ("--target", "y", "--features", "x1,x2,x3")


@pytest.mark.parametrize(
    "args, fragments",
    [
        (FIT + XYZ + ("--param", "alpha=big"), ["parameter 'alpha'", "expects a number"]),
        (FIT + XYZ + ("--param", "kernel=__import__('os').system('touch {out}')"),
         ["parameter 'kernel'"]),
        (FIT + XYZ + ("--param", "kernel=RBF(length_scale=open('x'))"),
         ["unknown class 'open'"]),
        (FIT + XYZ + ("--param", "fit_intercept=maybe"), ["expects true or false"]),
        (FIT + XYZ + ("--param", "alpha=-1"), ["fitting KernelRidge failed", "alpha"]),
        (FIT + XYZ + ("--param", "alpha"), ["--param expects NAME=VALUE"]),
        (FIT + ("--target", "label", "--features", "x1,x2,x3"),
         ["target column 'label'", "not numeric"]),
        (FIT + ("--target", "y"), ["column 'label'", "not numeric", "--features"]),
        (("fit", "KernelRidge", "--data", "{d}/train.xlsx", "--target", "y", "--out",
          "{tmp}/m.kkm"), ["unsupported file type '.xlsx'"]),
        (("fit", "KernelRidge", "--data", "{d}/train.csv", "--target", "y", "--out",
          "{tmp}/nodir/m.kkm"), ["folder", "does not exist"]),
        (("predict", "--model", "{d}/krr.kkm", "--data", "{d}/no_x2.csv"),
         ["column 'x2' is not in", "no_x2.csv"]),
        (("predict", "--model", "{d}/krr.kkm", "--data", "{d}/test.parquet", "--std"),
         ["cannot give a standard deviation"]),
        (("predict", "--model", "{d}/broken/truncated.kkm", "--data", "{d}/test.parquet"),
         ["truncated"]),
        (("predict", "--model", "{d}/absent.kkm", "--data", "{d}/test.parquet"),
         ["model file not found"]),
        (("info", "{d}/broken/extra.kkm"), ["unexpected member"]),
        (("info", "{d}/train.csv"), ["not a kernelkit model file"]),
        (("evaluate", "--model", "{d}/krr.kkm", "--data", "{d}/test.parquet", "--target",
          "z"), ["column 'z' is not in"]),
        (("demo", "--only", "nosuch", "--out", "{out}"), ["unknown demo section 'nosuch'"]),
        (("demo", "--only", "kernels", "--out", "{d}/train.csv"), ["train.csv is a file"]),
        (("fit", "KernelRidge", "--data", "{d}/train.csv", "--target", "y", "--features",
          "x1,x2,x3", "--out", "{tmp}"), ["it is a folder"]),
        (("predict", "--model", "{d}/krr.kkm", "--data", "{d}/test.parquet", "--out",
          "{d}"), ["it is a folder"]),
        (("evaluate", "--model", "{d}/ada.kkm", "--data", "{d}/test.parquet", "--target",
          "y"), ["target column 'y'", "none of the labels", "no, yes"]),
    ],
    ids=lambda v: "-".join(map(str, v))[:60] if isinstance(v, tuple) else None,
)
def test_more_bad_input_in_process(files, broken_models, tmp_path, capsys, args, fragments):
    out = tmp_path / "out"
    args = [a.format(d=files, out=out, tmp=tmp_path) for a in args]
    code, stdout, err = run_main(capsys, *args)
    assert code == 1, (stdout, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelkit: error: "), err
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_usage_error_and_debug(files, capsys):
    code, _, err = run_main(capsys, "fit", "KernelRidge", "--data", files / "train.csv")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--out" in err
    code, _, err = run_main(capsys, "info", files / "train.csv", "--debug")
    assert code == 1 and "Traceback" in err and "FormatError" in err


def test_demo_quick_writes_report(tmp_path):
    """The whole quick tour (every section that exists) must run without a failure."""
    proc = kk("demo", "--quick", "--out", tmp_path / "report", timeout=600)
    html = tmp_path / "report" / "report.html"
    assert html.exists(), proc.stdout + proc.stderr
    text = html.read_text(encoding="utf-8")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "all sections ok" in proc.stdout and "FAILED" not in text
    assert "data:image/png;base64," in text and "<script" not in text
    assert "Summary" in proc.stdout and "top eigenvalue" in proc.stdout
    # the rendered quick report: tables well formed, a number in every number cell, every
    # figure embedded, the summary grouped by section; the terminal summary fits 100 columns
    parsed = check_report_structure(text)
    assert len(parsed.images) >= 9
    summary = proc.stdout.split("\nSummary")[1].split("\nreport:")[0]
    assert max(len(line) for line in summary.splitlines()) <= 100
    assert "(1 figures)" not in proc.stdout
    assert "ABNORMAL: )" not in text and "no message; raised at" not in text


def test_parameter_parsing_against_defaults():
    from kernelkit.cli import CLIError, parse_params
    from kernelkit.kernels import RBF, Sum

    KernelRidge = kernelkit.KernelRidge
    p = parse_params(KernelRidge, ["alpha=1", "degree=2", "fit_intercept=yes", "gamma=0.5",
                                   "max_iter=None", "kernel=laplacian"])
    assert p == {"alpha": 1.0, "degree": 2, "fit_intercept": True, "gamma": 0.5,
                 "max_iter": None, "kernel": "laplacian"}
    assert type(p["alpha"]) is float
    k = parse_params(KernelRidge, ["kernel=2.0 * RBF(length_scale=[1.0, 2.0]) + White(0.1)"])
    assert isinstance(k["kernel"], Sum) and isinstance(k["kernel"].k1.kernel, RBF)
    for bad, msg in [("degree=2.5", "expects an integer"), ("alpha=true", "expects a number"),
                     ("fit_intercept=2", "true or false"), ("kernel=rbff", "unknown kernel"),
                     ("degree=RBF()", "expects an integer"), ("kernel=RBF(foo=1)", "bad arg")]:
        with pytest.raises(CLIError, match=msg):
            parse_params(KernelRidge, [bad])
    with pytest.raises(CLIError, match="given twice"):
        parse_params(KernelRidge, ["alpha=1", "alpha=2"])
    with pytest.raises(CLIError, match="'random_state' of KernelRidge expects an integer"):
        parse_params(KernelRidge, ["random_state=abc"])
    assert parse_params(KernelRidge, ["random_state=3"]) == {"random_state": 3}
    with pytest.raises(CLIError, match="'kernel_params' of KernelRidge expects a dict"):
        parse_params(KernelRidge, ["kernel_params=3"])
    assert parse_params(KernelRidge, ["kernel_params={'gamma': 0.5}"]) == {
        "kernel_params": {"gamma": 0.5}}
    assert parse_params(KernelRidge, ["alpha=inf"]) == {"alpha": float("inf")}


def test_list_of_estimator_specs():
    """MajorityVote(estimators=[...]) can be given on the command line."""
    from kernelkit.cli import CLIError, parse_params

    if "MajorityVote" not in kernelkit.__all__:
        pytest.skip("MajorityVote is not built")
    MV = kernelkit.MajorityVote
    p = parse_params(MV, ["estimators=[KernelPerceptron(), AdaBoost(n_estimators=10)]"])
    assert [type(e).__name__ for e in p["estimators"]] == ["KernelPerceptron", "AdaBoost"]
    assert p["estimators"][1].n_estimators == 10
    p = parse_params(MV, ["estimators=[('p', KernelPerceptron()), ('a', AdaBoost())]"])
    assert p["estimators"][0][0] == "p" and type(p["estimators"][1][1]).__name__ == "AdaBoost"
    with pytest.raises(CLIError, match="unknown class 'Foo'"):
        parse_params(MV, ["estimators=[Foo()]"])


def test_subpackage_models_in_process(files, tmp_path, capsys):
    """Weak learners (kernelkit.ensemble) and structured models are public estimators too."""
    pytest.importorskip("kernelkit.structured")
    d = files
    code, out, err = run_main(capsys, "fit", "decisiontree", "--data", d / "train.csv",
                              "--target", "label", "--features", "x1,x2,x3",
                              "--param", "max_depth=2", "--out", tmp_path / "dt.kkm")
    assert code == 0 and "fitted DecisionTree" in out, err
    assert kernelkit.load(tmp_path / "dt.kkm").max_depth == 2
    code, out, err = run_main(capsys, "fit", "StructuredSVM", "--data", d / "train.csv",
                              "--target", "label", "--features", "x1,x2,x3",
                              "--param", "oracle=MulticlassOracle()", "--param", "kernel=linear",
                              "--out", tmp_path / "s.kkm")
    assert code == 0, err
    code, out, err = run_main(capsys, "evaluate", "--model", tmp_path / "s.kkm", "--data",
                              d / "test.parquet", "--target", "label")
    assert code == 0 and "accuracy: " in out, err
    code, out, err = run_main(capsys, "fit", "StructuredSVM", "--data", d / "train.csv",
                              "--features", "x1,x2,x3", "--param", "oracle=MulticlassOracle()",
                              "--out", tmp_path / "s2.kkm")
    assert code == 1 and "give the target column with --target" in err
    code, out, err = run_main(capsys, "fit", "MulticlassOracle", "--data", d / "train.csv",
                              "--target", "label", "--out", tmp_path / "o.kkm")
    assert code == 1 and "unknown model 'MulticlassOracle'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dt.kkm", "s.kkm"]


def test_fit_help_lists_the_models(capsys):
    from kernelkit.cli import main

    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = capsys.readouterr().out
    assert "models (case-insensitive):" in out
    for name in ("KernelRidge", "GaussianProcessRegressor", "AdaBoost", "OneClassSVM",
                 "DecisionTree", "StructuredSVM"):
        assert name in out
    assert "MulticlassOracle" not in out  # an oracle is a parameter, not a model
    assert "WeakLearner" not in out  # a protocol, not a model


def test_unsupervised_fit_warns_about_a_target_like_column(files, tmp_path, capsys):
    d = files
    code, out, err = run_main(capsys, "fit", "KernelPCA", "--data", d / "test.parquet",
                              "--param", "n_components=2", "--out", tmp_path / "a.kkm")
    assert code == 1  # the 'label' column is text: it cannot be a feature anyway
    frame = pd.read_parquet(d / "test.parquet").drop(columns=["label"])
    frame.to_csv(tmp_path / "num.csv", index=False)
    code, out, err = run_main(capsys, "fit", "KernelPCA", "--data", tmp_path / "num.csv",
                              "--param", "n_components=2", "--out", tmp_path / "b.kkm")
    assert code == 0, err
    assert "kernelkit: warning:" in err and "'y', which looks like a target" in err
    assert "--features x1,x2,x3" in err
    code, out, err = run_main(capsys, "fit", "KernelPCA", "--data", tmp_path / "num.csv",
                              "--features", "x1,x2", "--param", "n_components=2",
                              "--out", tmp_path / "c.kkm")
    assert code == 0 and "warning" not in err


@pytest.mark.parametrize("kind", ["pickle", "joblib"])
def test_foreign_model_file_is_named(tmp_path, capsys, kind):
    import pickle

    import joblib

    path = tmp_path / "model.pkl"
    if kind == "pickle":
        path.write_bytes(pickle.dumps({"model": 1}))
    else:
        joblib.dump({"model": 1}, path)
    code, _, err = run_main(capsys, "info", path)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "looks like a pickle/joblib file" in err
    assert "kernelkit reads files written by kernelkit.save / kernelkit fit" in err


@pytest.mark.parametrize("value, guess", [("rbff", "'rbf'"), ("lapalcian", "'laplacian'"),
                                          ("Matern52", "'Matern()'"),
                                          ("RFB(length_scale=1.0)", "'RBF'")])
def test_unknown_kernel_gets_did_you_mean(value, guess):
    from kernelkit.cli import CLIError, parse_params

    with pytest.raises(CLIError, match=f"did you mean {guess}"):
        parse_params(kernelkit.KernelRidge, [f"kernel={value}"])


def test_unknown_kernel_name_in_python_gets_did_you_mean():
    with pytest.raises(ValueError, match="did you mean 'rbf'"):
        kernelkit.KernelRidge(kernel="rfb").fit(np.eye(3), np.ones(3))


def test_evaluate_without_the_target_column_says_the_target_is_missing(files, tmp_path,
                                                                        capsys):
    """The issue's case: a CSV of features and 'age' but no target column 'target'. The
    error names the target as missing and lists the columns; a far name is not offered."""
    test = pd.read_parquet(files / "test.parquet")[["x1", "x2", "x3"]]
    test["age"] = 40
    test.to_csv(tmp_path / "no_target.csv", index=False)
    code, _, err = run_main(capsys, "evaluate", "--model", files / "krr.kkm", "--data",
                            tmp_path / "no_target.csv", "--target", "target")
    line = err.strip()
    assert code == 1 and len(line.splitlines()) == 1, err
    assert "target column 'target' is not in" in line and "no_target.csv" in line
    assert "'x1', 'x2', 'x3', 'age'" in line and "did you mean" not in line
    # a close misspelling is still offered
    code, _, err = run_main(capsys, "evaluate", "--model", files / "krr.kkm", "--data",
                            files / "test.parquet", "--target", "Y ")
    assert code == 1 and "target column 'Y ' is not in" in err and "did you mean 'y'" in err


@pytest.mark.parametrize("name, names, close", [
    ("target", ["x1", "age"], None), ("lable", ["x", "label"], "label"),
    ("Price", ["price", "x"], "price"), ("sepal length", ["sepallength"], "sepallength"),
    ("y", ["x1", "x2"], None)])
def test_a_close_name_only_when_one_is_close(name, names, close):
    from kernelkit.cli.data import close_name

    assert close_name(name, names) == close
