"""kernelkit.save / kernelkit.load: round trips, and refusal of tampered or foreign files."""

from __future__ import annotations

import hashlib
import json
import pickle
import zipfile

import joblib
import numpy as np
import pytest

import kernelkit
from kernelkit.io import (
    FORMAT_VERSION,
    FormatError,
    SerializationError,
    kernel_spec,
    load,
    parse_spec,
    read_manifest,
    save,
)
from kernelkit.kernels import (
    RBF,
    Constant,
    ExpSineSquared,
    FeatureMap,
    JointKernel,
    Laplacian,
    Linear,
    Matern,
    Pairwise,
    Polynomial,
    RationalQuadratic,
    SklearnKernel,
    White,
)


def _rich_state():
    rng = np.random.default_rng(1)
    return {
        "coef_": rng.normal(size=(5, 3)),
        "f32_": rng.normal(size=4).astype(np.float32),
        "ints_": np.arange(6, dtype=np.int32).reshape(2, 3),
        "mask_": np.array([True, False]),
        "classes_": np.array(["a", "b", "c"], dtype=object),
        "mixed_": np.array([1, "x", None], dtype=object),
        "labels_": np.array(["cat", "dog"]),
        "scalar_": np.float64(0.1) + np.float64(0.2),
        "count_": np.int64(7),
        "flag_": np.bool_(True),
        "c_": 1 + 2j,
        "nan_": float("nan"),
        "inf_": -np.inf,
        "history_": [1.0, 0.5, 0.25],
        "pair_": (1, "two", None),
        "table_": {1: "one", "two": 2.0, (3, 4): [5]},
        "set_": {1, 2},
        "dtype_": np.dtype(np.float32),
        "nptype_": np.float32,
        "rng_": np.random.default_rng(5),
        "rs_": np.random.RandomState(3),
        "kernel_": 2.0 * RBF(length_scale=np.array([1.0, 2.0])) + White(0.1),
        "n_iter_": 12,
        "_private": "kept",
    }


def _assert_same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == object:
            assert a.tolist() == b.tolist()
        else:
            np.testing.assert_array_equal(a, b)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b)
    elif isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state
    elif isinstance(a, np.random.RandomState):
        assert a.randint(1000) == b.randint(1000)
    elif isinstance(a, kernelkit.kernels.Kernel):
        assert kernel_spec(a) == kernel_spec(b)
    else:
        assert a == b


def test_round_trip_of_every_supported_value(tmp_path):
    k = Matern(length_scale=0.7, nu=2.5)
    state = _rich_state()
    vars(k).update(state)
    path = save(k, tmp_path / "m.kkm")
    k2 = load(path)
    assert type(k2) is Matern and k2.nu == 2.5 and k2.length_scale == 0.7
    for name, value in state.items():
        _assert_same(value, getattr(k2, name))
    # identical draws from the restored generator
    np.testing.assert_array_equal(
        np.random.default_rng(5).normal(size=3), k2.rng_.normal(size=3)
    )


@pytest.mark.parametrize(
    "kernel",
    [
        Linear(),
        Polynomial(degree=2, gamma=0.5, coef0=0.0),
        RBF(length_scale=[1.0, 3.0]),
        Laplacian(2.0),
        Matern(nu=0.5),
        RationalQuadratic(alpha=2.0),
        ExpSineSquared(periodicity=3.0),
        Constant(2.0) * RBF() + White(0.2, noise_level_bounds="fixed"),
        JointKernel(RBF(), Linear()),
        Pairwise("cosine"),
    ],
    ids=lambda k: type(k).__name__,
)
def test_kernels_round_trip_with_identical_values(tmp_path, kernel):
    X = np.random.default_rng(0).normal(size=(6, 2))
    k2 = load(save(kernel, tmp_path / "k.kkm"))
    assert kernel_spec(k2) == kernel_spec(kernel)
    if not isinstance(kernel, JointKernel):
        np.testing.assert_array_equal(kernel(X), k2(X))


def test_sklearn_gp_kernel_inside(tmp_path):
    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.gaussian_process.kernels import WhiteKernel

    k = SklearnKernel(SkRBF(1.5) + WhiteKernel(0.1))
    k2 = load(save(k, tmp_path / "k.kkm"))
    X = np.linspace(0, 1, 5)[:, None]
    np.testing.assert_array_equal(k(X), k2(X))


def test_shared_arrays_stored_once(tmp_path):
    k = RBF()
    a = np.arange(10.0)
    k.a_, k.b_ = a, a
    path = save(k, tmp_path / "k.kkm")
    assert len(read_manifest(path)["arrays"]) == 1
    k2 = load(path)
    assert k2.a_ is k2.b_


def test_fitted_estimator_round_trip(tmp_path):
    KernelRidge = pytest.importorskip("kernelkit.kernel_ridge.kernel_ridge").KernelRidge
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), rng.normal(size=30)
    model = KernelRidge(alpha=0.1, kernel=RBF(length_scale=1.5)).fit(X, y)
    path = save(model, tmp_path / "krr.kkm", metadata={"features": ["a", "b", "c"]})
    m2 = kernelkit.load(path)
    np.testing.assert_array_equal(model.predict(X), m2.predict(X))
    man = read_manifest(path)
    assert man["class"] == "KernelRidge" and man["format_version"] == FORMAT_VERSION
    assert man["kernel"].startswith("RBF(") and man["metadata"] == {"features": ["a", "b", "c"]}
    assert man["library_version"] == kernelkit.__version__
    for info in man["arrays"].values():
        assert len(info["sha256"]) == 64


# ------------------------------------------------------------------- refused at save
def test_lambda_is_refused_naming_the_attribute(tmp_path):
    k = FeatureMap(lambda X: X)
    with pytest.raises(SerializationError, match=r"FeatureMap\.func.*lambda"):
        save(k, tmp_path / "k.kkm")
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_function_and_foreign_object_refused(tmp_path):
    k = RBF()
    k.helper_ = np.sum
    with pytest.raises(SerializationError, match=r"RBF\.helper_.*function"):
        save(k, tmp_path / "k.kkm")
    k = RBF()
    k.stuff_ = {"x": zipfile.ZipInfo("a")}
    with pytest.raises(SerializationError, match=r"stuff_\['x'\].*cannot be stored"):
        save(k, tmp_path / "k.kkm")
    import argparse

    k = RBF()
    k.ns_ = [argparse.Namespace(a=1)]
    with pytest.raises(SerializationError, match=r"ns_\[0\].*not a kernelkit class"):
        save(k, tmp_path / "k.kkm")
    k = RBF()
    k.loop_ = [1]
    k.loop_.append(k.loop_)
    with pytest.raises(SerializationError, match="cycle"):
        save(k, tmp_path / "k.kkm")
    with pytest.raises(SerializationError, match="get_params"):
        save(np.zeros(3), tmp_path / "k.kkm")
    assert list(tmp_path.iterdir()) == []


def test_failed_save_keeps_existing_file(tmp_path):
    path = save(RBF(2.0), tmp_path / "k.kkm")
    before = path.read_bytes()
    with pytest.raises(SerializationError):
        save(FeatureMap(lambda X: X), path)
    assert path.read_bytes() == before and len(list(tmp_path.iterdir())) == 1


# ------------------------------------------------------------------- refused at load
@pytest.fixture
def saved(tmp_path):
    k = RBF(1.0)
    k.coef_ = np.arange(5.0)
    k.other_ = np.ones((2, 2))
    return save(k, tmp_path / "m.kkm")


def _rewrite(src, dst, *, change=None, extra=None, drop=None, comment=None):
    """Copy a model zip member by member, editing on the way."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        zout.comment = zin.comment if comment is None else comment
        for info in zin.infolist():
            if info.filename == drop:
                continue
            data = zin.read(info.filename)
            if change and info.filename in change:
                data = change[info.filename](data)
            zout.writestr(info.filename, data)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)
    return dst


def _manifest(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("manifest.json"))


def _with_manifest(saved, dst, edit):
    """A file whose manifest was edited and whose manifest checksum was recomputed."""
    man = _manifest(saved)
    edit(man)
    raw = json.dumps(man).encode()
    comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(raw).hexdigest().encode()
    return _rewrite(saved, dst, change={"manifest.json": lambda _: raw}, comment=comment)


def test_altered_array_member(saved, tmp_path):
    member = sorted(_manifest(saved)["arrays"])[0]

    def flip(data):
        b = bytearray(data)
        b[-1] ^= 0xFF
        return bytes(b)

    bad = _rewrite(saved, tmp_path / "bad.kkm", change={member: flip})
    with pytest.raises(FormatError, match="SHA-256 mismatch") as info:
        load(bad)
    assert str(bad) in str(info.value) and member in str(info.value)  # names file and member
    with pytest.raises(FormatError, match="SHA-256 mismatch") as info:
        kernelkit.io.read_manifest(bad)
    assert str(bad) in str(info.value)


def test_manifest_lists_what_the_issue_names(tmp_path):
    """format version, class, constructor parameters, kernel spec, library version and the
    SHA-256 of each .npy member, all in manifest.json."""
    from kernelkit.kernel_ridge import KernelRidge

    X = np.random.default_rng(0).normal(size=(20, 3))
    model = KernelRidge(alpha=0.5, kernel=RBF(length_scale=2.0)).fit(X, X[:, 0])
    path = save(model, tmp_path / "krr.kkm")
    man = _manifest(path)
    assert man["format"] == "kernelkit-model" and man["format_version"] == FORMAT_VERSION
    assert man["class"] == "KernelRidge" and man["library_version"] == kernelkit.__version__
    assert man["params"]["alpha"] == 0.5 and man["params"] == man["estimator"]["params"]
    assert man["kernel"] == "RBF(length_scale=2.0)"
    with zipfile.ZipFile(path) as zf:
        members = [n for n in zf.namelist() if n != "manifest.json"]
        assert members and all(n.endswith(".npy") for n in members)
        for name in members:
            raw = zf.read(name)
            assert man["arrays"][name]["sha256"] == hashlib.sha256(raw).hexdigest()


def test_altered_manifest(saved, tmp_path):
    bad = _rewrite(saved, tmp_path / "bad.kkm",
                   change={"manifest.json": lambda d: d.replace(b"1.0", b"9.0")})
    with pytest.raises(FormatError, match="manifest.json was altered"):
        load(bad)


def test_extra_member(saved, tmp_path):
    bad = _rewrite(saved, tmp_path / "bad.kkm", extra={"payload.pkl": b"\x80\x04."})
    with pytest.raises(FormatError, match="unexpected member 'payload.pkl'"):
        load(bad)
    # the same when the copy lost the ZIP comment, or the member was appended in place
    bad = _rewrite(saved, tmp_path / "bad2.kkm", extra={"payload.pkl": b"x"}, comment=b"")
    with pytest.raises(FormatError, match="unexpected member 'payload.pkl'"):
        load(bad)
    appended = tmp_path / "appended.kkm"
    appended.write_bytes(saved.read_bytes())
    with zipfile.ZipFile(appended, "a") as zf:
        zf.writestr("arrays/99999.npy", b"\x93NUMPY")
    with pytest.raises(FormatError, match="unexpected member 'arrays/99999.npy'"):
        load(appended)


def test_missing_member(saved, tmp_path):
    member = sorted(_manifest(saved)["arrays"])[0]
    bad = _rewrite(saved, tmp_path / "bad.kkm", drop=member)
    with pytest.raises(FormatError, match="lacks member"):
        load(bad)


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.99])
def test_truncated(saved, tmp_path, keep):
    data = saved.read_bytes()
    bad = tmp_path / "bad.kkm"
    bad.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(FormatError):
        load(bad)


def test_a_cut_model_file_is_called_incomplete_with_its_sizes(tmp_path):
    """Cut anywhere before its last bytes, a model file is named an incomplete kernelkit
    model file with the bytes it has and a true lower bound of the bytes it needs (never
    "looks like a text file"), and the message says to save it again."""
    import re
    import zipfile

    from kernelkit import KernelRidge

    X = np.random.default_rng(0).normal(size=(60, 3))
    full = save(KernelRidge().fit(X, X[:, 0]), tmp_path / "m.kkm").read_bytes()
    with zipfile.ZipFile(tmp_path / "m.kkm") as zf:
        toc = zf.start_dir  # where the table of contents begins
    cuts = sorted({4, 29, 31, 45, 200, len(full) // 2, toc - 1, toc, toc + 10,
                   len(full) - 120})
    for cut in cuts:
        bad = tmp_path / "cut.kkm"
        bad.write_bytes(full[:cut])
        with pytest.raises(FormatError) as info:
            load(bad)
        text = str(info.value)
        assert "text file" not in text and "Save the model again" in text, (cut, text)
        m = re.search(r"incomplete (kernelkit model file|ZIP archive): it has (\d+) bytes "
                      r"where at least (\d+) were expected", text)
        assert m, (cut, text)
        # past the first member's 30-byte header its name, manifest.json, says whose it is
        assert m.group(1) == ("kernelkit model file" if cut > 30 else "ZIP archive"), cut
        assert int(m.group(2)) == cut < int(m.group(3)) <= len(full), (cut, text)


def _npy_bytes() -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.arange(3))
    return buf.getvalue()


@pytest.mark.parametrize("write, words", [
    (lambda p: p.write_bytes(pickle.dumps({"a": 1})), "looks like a pickle/joblib file"),
    (lambda p: joblib.dump({"a": 1}, p), "looks like a pickle/joblib file"),
    (lambda p: joblib.dump({"a": 1}, p, compress=3), "compressed pickle/joblib file"),
    (lambda p: p.write_bytes(_npy_bytes()), "looks like a NumPy .npy file"),
    (lambda p: p.write_bytes(b""), "the file is empty"),
])
def test_foreign_file_named(tmp_path, write, words):
    """A pickle or joblib file (the usual way to save scikit-learn models) is named as such."""
    path = tmp_path / "model.kkm"
    write(path)
    with pytest.raises(FormatError) as info:
        load(path)
    msg = str(info.value)
    assert words in msg and "kernelkit reads files written by kernelkit.save / kernelkit fit" \
        in msg


def test_missing_format_version_in_plain_words(saved, tmp_path):
    bad = _with_manifest(saved, tmp_path / "nov.kkm", lambda m: m.pop("format_version"))
    with pytest.raises(FormatError) as info:
        load(bad)
    msg = str(info.value).replace(str(bad), "FILE")
    assert "does not say which version of the kernelkit model format" in msg
    assert "None" not in msg and "format_version" not in msg


def test_newer_format_version(saved, tmp_path):
    bad = _with_manifest(saved, tmp_path / "new.kkm",
                         lambda m: m.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(FormatError, match="newer|Upgrade kernelkit"):
        load(bad)


def test_foreign_files(tmp_path):
    z = tmp_path / "foreign.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("data.txt", "hello")
    with pytest.raises(FormatError, match="not a kernelkit model"):
        load(z)
    z2 = tmp_path / "other.zip"
    with zipfile.ZipFile(z2, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "something-else"}))
    with pytest.raises(FormatError, match="not a kernelkit model"):
        load(z2)
    txt = tmp_path / "model.kkm"
    txt.write_text("not a zip")
    with pytest.raises(FormatError, match="not a kernelkit model file .looks like a text file"):
        load(txt)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.kkm")


def test_foreign_class_refused_even_with_valid_checksums(saved, tmp_path):
    def to_os(man):
        man["estimator"]["class"] = "os:system"

    with pytest.raises(FormatError, match="only kernelkit classes"):
        load(_with_manifest(saved, tmp_path / "a.kkm", to_os))

    def reexport(man):  # a non-kernelkit class reached through a kernelkit module
        man["estimator"]["class"] = "kernelkit.gaussian_process.gpr:BaseEstimator"

    with pytest.raises(FormatError, match="only kernelkit classes"):
        load(_with_manifest(saved, tmp_path / "b.kkm", reexport))

    def unknown_tag(man):
        man["estimator"]["state"]["x_"] = {"$": "pickle", "data": "gASVAAAA"}

    with pytest.raises(FormatError, match="Unknown tag"):
        load(_with_manifest(saved, tmp_path / "c.kkm", unknown_tag))


def test_object_array_member_never_unpickled(saved, tmp_path):
    """An .npy holding a pickled object array is refused even with matching checksums."""
    import io

    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    raw = buf.getvalue()
    man = _manifest(saved)
    member = sorted(man["arrays"])[0]
    man["arrays"][member] = {"sha256": hashlib.sha256(raw).hexdigest(), "dtype": "<f8",
                             "shape": [1]}
    text = json.dumps(man).encode()
    comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(text).hexdigest().encode()
    bad = _rewrite(saved, tmp_path / "bad.kkm",
                   change={"manifest.json": lambda _: text, member: lambda _: raw},
                   comment=comment)
    with pytest.raises(FormatError, match="does not hold the <f8 array"):
        load(bad)


# --------------------------------------------------------------------------- specs
@pytest.mark.parametrize(
    "text",
    [
        "RBF(length_scale=2.0)",
        "RBF(2.0)",
        "RBF",
        "2.0 * RBF(length_scale=0.5) + White(noise_level=0.1)",
        "(RBF() + Linear()) * Constant(value=3.0)",
        "Matern(nu=2.5, length_scale=[1.0, 2.0])",
        "Polynomial(degree=2, coef0=-1.0)",
        "RBF(length_scale_bounds='fixed')",
    ],
)
def test_parse_spec_round_trips(text):
    k = parse_spec(text)
    assert isinstance(k, kernelkit.kernels.Kernel)
    assert kernel_spec(parse_spec(kernel_spec(k))) == kernel_spec(k)
    X = np.random.default_rng(0).normal(size=(4, 2))
    np.testing.assert_allclose(parse_spec(kernel_spec(k))(X), k(X))


@pytest.mark.parametrize(
    "text, match",
    [
        ("__import__('os').system('true')", "unknown class|unsupported"),
        ("RBF(length_scale=open('x'))", "unknown class"),
        ("Foo()", "unknown class 'Foo'"),
        ("RBF(**{'a': 1})", r"\*"),
        ("RBF().__class__", "unsupported"),
        ("RBF(", "cannot parse"),
        ("RBF(nonsense=1)", "bad arguments"),
        ("lambda: 1", "unsupported"),
        ("'a' * 1000", "kernels and numbers"),
    ],
)
def test_parse_spec_rejects_code(text, match):
    with pytest.raises(ValueError, match=match):
        parse_spec(text)


def test_member_larger_than_declared_is_refused(saved, tmp_path):
    man = _manifest(saved)
    member = sorted(man["arrays"])[0]
    big = b"\x00" * (1 << 20)  # e.g. a decompression bomb behind a small declared array

    bad = _rewrite(saved, tmp_path / "bad.kkm", change={member: lambda _: big})
    with pytest.raises(FormatError, match="larger than its declared array"):
        load(bad)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", ["StructuredSVM", "StructuredPerceptron"])
def test_structured_estimators_round_trip(tmp_path, name):
    """The structured estimators live outside kernelkit.__all__; they round-trip too."""
    structured = pytest.importorskip("kernelkit.structured")
    try:
        cls, oracle = getattr(structured, name), structured.ChainOracle(2)
    except (ImportError, AttributeError):
        pytest.skip(f"{name} is not built yet")
    rng = np.random.default_rng(0)
    Y = [rng.integers(0, 2, size=5) for _ in range(15)]
    X = [np.c_[y + 0.3 * rng.normal(size=5)] for y in Y]
    limit = {"max_iter": 5} if name == "StructuredSVM" else {"max_epochs": 3}
    model = cls(oracle, kernel="rbf", random_state=0, **limit).fit(X, Y)
    model2 = load(save(model, tmp_path / "s.kkm"))
    for a, b in zip(model.predict(X), model2.predict(X)):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------ found by the hostile-file campaign (#19)
def _with_manifest_text(saved, dst, text: bytes, members=None):
    """A file with this manifest text (its checksum recomputed) and optional new members."""
    comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(text).hexdigest().encode()
    change = {"manifest.json": lambda _: text}
    for name, raw in (members or {}).items():
        change[name] = lambda _, raw=raw: raw
    return _rewrite(saved, dst, change=change, comment=comment)


def _npy_member(header: dict, payload: bytes) -> bytes:
    text = repr(header).encode()
    text += b" " * (64 - (10 + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + payload


@pytest.mark.parametrize("value", ["[" * 100_000 + "]" * 100_000, "9" * 5000])
def test_manifest_too_deep_or_with_a_huge_integer_is_a_format_error(saved, tmp_path, value):
    """json.loads raised RecursionError (deep nesting) or ValueError (an integer of more
    digits than Python converts) through load."""
    text = json.dumps(_manifest(saved))[:-1] + ', "junk": ' + value + "}"
    bad = _with_manifest_text(saved, tmp_path / "bad.kkm", text.encode())
    with pytest.raises(FormatError, match="nested too deeply|invalid value"):
        load(bad)


def test_declared_huge_array_is_refused_before_allocating(saved, tmp_path):
    """A member whose manifest entry and .npy header both declare 10^12 elements, holding a
    few bytes: np.load allocated 7 TiB (MemoryError); now the sizes are compared first."""
    import tracemalloc

    man = _manifest(saved)
    member = sorted(man["arrays"])[0]
    raw = _npy_member({"descr": "<f8", "fortran_order": False, "shape": (10**12,)}, bytes(64))
    man["arrays"][member].update(sha256=hashlib.sha256(raw).hexdigest(), shape=[10**12])
    bad = _with_manifest_text(saved, tmp_path / "bad.kkm", json.dumps(man).encode(),
                              {member: raw})
    tracemalloc.start()
    with pytest.raises(FormatError, match="does not hold the <f8 array"):
        load(bad)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10 * 2**20


def test_npy_header_that_lies_about_its_shape_is_refused(saved, tmp_path):
    man = _manifest(saved)
    member = sorted(man["arrays"])[0]
    raw = _npy_member({"descr": "<f8", "fortran_order": False, "shape": (10**9,)}, bytes(40))
    man["arrays"][member]["sha256"] = hashlib.sha256(raw).hexdigest()
    bad = _with_manifest_text(saved, tmp_path / "bad.kkm", json.dumps(man).encode(),
                              {member: raw})
    with pytest.raises(FormatError, match="does not hold"):
        load(bad)


def test_decompression_bomb_with_valid_checksums_is_refused(saved, tmp_path):
    """A member inflating to 128 MiB of zeros, declared consistently (checksum included):
    refused from the ZIP directory's sizes, before inflating it."""
    import tracemalloc

    man = _manifest(saved)
    member = sorted(man["arrays"])[0]
    n = 1 << 27
    raw = _npy_member({"descr": "<f8", "fortran_order": False, "shape": (n // 8,)}, bytes(n))
    man["arrays"][member].update(sha256=hashlib.sha256(raw).hexdigest(), shape=[n // 8])
    text = json.dumps(man).encode()
    bad = tmp_path / "bomb.kkm"
    with zipfile.ZipFile(saved) as zin, zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as zo:
        zo.comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(text).hexdigest(
        ).encode()
        for info in zin.infolist():
            data = {"manifest.json": text, member: raw}.get(info.filename)
            zo.writestr(info.filename, zin.read(info.filename) if data is None else data)
    del raw
    tracemalloc.start()
    with pytest.raises(FormatError, match="decompression bomb"):
        load(bad)
    assert tracemalloc.get_traced_memory()[1] < 10 * 2**20
    tracemalloc.stop()


def test_corrupted_deflate_stream_is_a_format_error(tmp_path):
    """A flipped bit inside a deflated member raised zlib.error through load."""
    k = RBF(1.0)
    k.coef_ = np.zeros(4000)  # compresses: the member is deflated
    path = save(k, tmp_path / "m.kkm")
    with zipfile.ZipFile(path) as zf:
        info = next(i for i in zf.infolist() if i.filename.startswith("arrays/"))
        assert info.compress_type == zipfile.ZIP_DEFLATED
        start = info.header_offset + 30 + len(info.filename)
    data = bytearray(path.read_bytes())
    for i in range(start + 2, start + 12):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError):
        load(path)


@pytest.mark.parametrize("name", ["../../x.npy", "/abs/x.npy", "arrays/../../x.npy", "a\x00.npy"])
def test_member_names_other_than_kernelkits_are_refused(saved, tmp_path, name):
    """A member renamed to a path (the manifest and checksums made consistent) loaded before;
    kernelkit only writes arrays/NNNNN.npy."""
    man = _manifest(saved)
    old = sorted(man["arrays"])[0]
    man["arrays"][name] = man["arrays"].pop(old)
    text = json.dumps(man).replace(json.dumps(old), json.dumps(name)).encode()
    comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(text).hexdigest().encode()
    bad = tmp_path / "bad.kkm"
    with zipfile.ZipFile(saved) as zin, zipfile.ZipFile(bad, "w") as zout:
        zout.comment = comment
        for info in zin.infolist():
            data = text if info.filename == "manifest.json" else zin.read(info.filename)
            zout.writestr(name if info.filename == old else info.filename, data)
    with pytest.raises(FormatError, match="not one kernelkit writes"):
        load(bad)


@pytest.mark.parametrize("dtype", [">f8", "|O", "|V8", "<U99999999999"])
def test_foreign_byte_order_and_object_dtypes_are_refused(saved, tmp_path, dtype):
    bad = _with_manifest(saved, tmp_path / "bad.kkm", lambda m: m["arrays"][sorted(
        m["arrays"])[0]].update(dtype=dtype))
    with pytest.raises(FormatError, match="Unsupported dtype"):
        load(bad)


@pytest.mark.parametrize("tag", ["_init__", "class__", "_eq__", "_getattribute__"])
def test_only_the_formats_tags_are_dispatched(saved, tmp_path, tag):
    """A tag naming a dunder method of the reader (``"_" + tag``) was looked up and called;
    ``_eq__`` even returned NotImplemented into the object tree."""
    bad = _with_manifest(saved, tmp_path / "bad.kkm",
                         lambda m: m["estimator"].update({"$": tag}))
    with pytest.raises(FormatError, match="Unknown tag"):
        load(bad)


@pytest.mark.parametrize("tag", [["array"], {"$": "array"}])
def test_unhashable_tags_are_a_format_error(saved, tmp_path, tag):
    """A list or dict as a tag raised TypeError (unhashable) from the tag lookup."""
    bad = _with_manifest(saved, tmp_path / "bad.kkm",
                         lambda m: m["estimator"].update({"$": tag}))
    with pytest.raises(FormatError, match="Unknown tag"):
        load(bad)


def test_unsupported_zip_version_is_a_format_error(saved, tmp_path):
    """A flipped bit in a member's 'version needed to extract' made zipfile raise
    NotImplementedError ("zip file version 14.8") through load."""
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf:
        info = zf.infolist()[1]
    data[info.header_offset + 4] = 148  # local header: version needed to extract = 14.8
    for off in range(len(data) - 46):  # the central directory entry of that member too
        if data[off:off + 4] == b"PK\x01\x02" and int.from_bytes(
                data[off + 42:off + 46], "little") == info.header_offset:
            data[off + 6] = 148
    bad = tmp_path / "bad.kkm"
    bad.write_bytes(bytes(data))
    with pytest.raises(FormatError):
        load(bad)


@pytest.mark.parametrize("when", ["at creation", "while writing"])
def test_atomic_write_interrupted_leaves_no_file(tmp_path, monkeypatch, when):
    """An interrupt right after the temporary file was created (a Ctrl-C / SIGTERM landing
    before mkstemp's result was stored, found by the reliability test that signals as soon
    as the file appears) left it behind; none is left now, and the target is untouched."""
    import os

    from kernelkit.io import atomic_write

    target = tmp_path / "out.csv"
    target.write_text("old\n")
    real_open = os.open

    def open_then_interrupt(*args, **kwargs):
        real_open(*args, **kwargs)  # the file now exists; its descriptor is never returned
        raise KeyboardInterrupt

    def write(fh):
        fh.write("partial")
        raise KeyboardInterrupt

    if when == "at creation":
        monkeypatch.setattr("kernelkit.io.os.open", open_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, write, mode="w")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    assert target.read_text() == "old\n"


def test_atomic_write_file_mode_follows_the_umask(tmp_path):
    import os

    from kernelkit.io import atomic_write

    old = os.umask(0o027)
    try:
        path = atomic_write(tmp_path / "m.txt", lambda fh: fh.write("x"), mode="w")
    finally:
        os.umask(old)
    assert path.read_text() == "x" and (path.stat().st_mode & 0o777) == 0o640
