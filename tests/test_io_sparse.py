"""scipy.sparse state in model files: round trips, the manifest entries, validated loading."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit import Ridge, load, save
from kernelkit.io import FormatError


def _model_with(matrix):
    """A fitted model whose state holds a sparse matrix (as support vectors / X_fit_ do)."""
    X = sp.random(30, 6, density=0.4, random_state=0, format="csr")
    model = Ridge().fit(X, np.arange(30.0))
    model.X_fit_ = matrix
    return model, X


@pytest.mark.parametrize("kind", [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array,
                                  sp.csc_array, sp.lil_matrix])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_round_trip(tmp_path, kind, dtype):
    M = kind(sp.random(12, 9, density=0.3, random_state=1, dtype=dtype))
    model, X = _model_with(M)
    back = load(save(model, tmp_path / "m.kkm"))
    got = back.X_fit_
    assert sp.issparse(got) and got.dtype == dtype and got.shape == M.shape
    # CSR/CSC/COO keep their format and matrix/array kind; LIL is stored as CSR
    assert got.format == (M.format if M.format in ("csr", "csc", "coo") else "csr")
    assert isinstance(got, sp.sparray) == isinstance(M, sp.sparray)
    assert (got != M).nnz == 0
    np.testing.assert_array_equal(back.predict(X), model.predict(X))


def test_manifest_lists_every_part_with_its_checksum(tmp_path):
    M = sp.csr_matrix(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0]]))
    path = save(_model_with(M)[0], tmp_path / "m.kkm")
    with zipfile.ZipFile(path) as zf:
        man = json.loads(zf.read("manifest.json"))
        node = man["estimator"]["state"]["X_fit_"]
        assert node["$"] == "sparse" and node["format"] == "csr"
        assert node["shape"] == [2, 3] and node["dtype"] == "<f8"
        for part in ("data", "indices", "indptr"):
            member = node[part]["member"]
            raw = zf.read(member)
            assert man["arrays"][member]["sha256"] == hashlib.sha256(raw).hexdigest()
            np.testing.assert_array_equal(np.load(io.BytesIO(raw)), getattr(M, part))


def _resave_part(path, dst, part, new):
    """Replace one part of X_fit_ by ``new`` with consistent checksums (a crafted file)."""
    with zipfile.ZipFile(path) as zf:
        man = json.loads(zf.read("manifest.json"))
        members = {n: zf.read(n) for n in zf.namelist()}
    member = man["estimator"]["state"]["X_fit_"][part]["member"]
    buf = io.BytesIO()
    np.save(buf, new, allow_pickle=False)
    members[member] = buf.getvalue()
    man["arrays"][member] = {"sha256": hashlib.sha256(buf.getvalue()).hexdigest(),
                             "dtype": new.dtype.str, "shape": list(new.shape)}
    raw = json.dumps(man).encode()
    members["manifest.json"] = raw
    with zipfile.ZipFile(dst, "w") as zf:
        zf.comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(raw).hexdigest().encode()
        for name, data in members.items():
            zf.writestr(name, data)
    return dst


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_corrupted_parts_are_refused(tmp_path, fmt):
    M = sp.random(8, 5, density=0.4, random_state=2, format=fmt)
    path = save(_model_with(M)[0], tmp_path / "m.kkm")
    bad_indices = M.indices.copy()
    bad_indices[0] = 99  # out of range
    bad_indptr = M.indptr.copy()
    bad_indptr[2], bad_indptr[3] = bad_indptr[3] + 1, bad_indptr[2]  # decreasing
    for part, new, msg in [("indices", bad_indices, "indices outside"),
                           ("indptr", bad_indptr, "never decrease"),
                           ("indptr", M.indptr[:-1], "indptr has"),
                           ("data", M.data[:-1], "must agree"),
                           ("indices", M.indices.astype(float), "integers")]:
        bad = _resave_part(path, tmp_path / "bad.kkm", part, new)
        with pytest.raises(FormatError, match=msg):
            load(bad)
    # a flipped byte is caught by the member's checksum, as for any array
    with zipfile.ZipFile(path) as zf:
        man = json.loads(zf.read("manifest.json"))
    member = man["estimator"]["state"]["X_fit_"]["indices"]["member"]
    src = zipfile.ZipFile(path)
    with zipfile.ZipFile(tmp_path / "flip.kkm", "w") as zf:
        zf.comment = src.comment
        for info in src.infolist():
            data = bytearray(src.read(info.filename))
            if info.filename == member:
                data[-1] ^= 0xFF
            zf.writestr(info.filename, bytes(data))
    src.close()
    with pytest.raises(FormatError, match="SHA-256"):
        load(tmp_path / "flip.kkm")
