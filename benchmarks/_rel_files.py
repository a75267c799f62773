"""Hostile model files for ``kernelkit.load`` (reliability campaign, part "files").

Genuine model files of a few estimators (a sum kernel, a sparse matrix, a numpy Generator,
an object array of class labels) are mutated by one of the families in :data:`FAMILIES`.
Most families rewrite the manifest *and recompute every checksum and the ZIP comment*, as a
hostile writer can: those cases test the loader's real defences, not the checksums. Each case
is loaded under tracemalloc (NumPy reports its allocations there) and a timer, in a fresh
temporary folder; it must end in a :class:`kernelkit.io.FormatError` -- or, for a mutation
that leaves a loadable file, in a kernelkit estimator -- within ``MAX_MB`` of allocations and
``MAX_S`` seconds, without a file appearing outside the case's folder and without importing a
module outside kernelkit's own. Anything else is a failure.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from ._reliability import Table

MAX_MB = 100.0
MAX_S = 1.0
BOMB_BYTES = 1 << 30  # what a decompression bomb inflates to (the bounded tests use less)

# names a hostile file may try to make the loader import or call
HOSTILE_CLASSES = ["os:system", "builtins:eval", "subprocess:Popen", "kernelkit.io:load",
                   "kernelkit:save", "numpy:ndarray", "kernelkit.cli:main", "posix:system",
                   "kernelkit.io:FormatError", "kernelkit.__main__:main", "pickle:loads",
                   "sklearn.pipeline:Pipeline.__init__", "kernelkit.kernels.base:np",
                   "kernelkit..io:load", "kernelkit.io:_Reader"]
HOSTILE_TAGS = ["_init__", "class__", "_eq__", "_getattribute__", "_reduce_ex__", "decode",
                "array ", "", 7, None, "estimator\x00"]
TRAVERSAL = ["../../x.npy", "/abs/x.npy", "C:\\x.npy", "arrays/../../../x.npy", "a\x00b.npy",
             "arrays/00000.npy/", "..", "arrays\\..\\..\\x.npy"]


# ---------------------------------------------------------------------------- genuine files
def genuine_models():
    """A few small fitted models whose files cover the format's tags."""
    import scipy.sparse as sp

    from kernelkit import AdaBoost, GaussianProcessRegressor, KernelClassifier, KernelRidge
    from kernelkit.kernels import RBF, Constant, White

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=30)
    labels = np.where(X[:, 1] + 0.5 * rng.normal(size=30) > 0, "yes", "no")
    Xs = sp.random(30, 8, density=0.3, format="csr", random_state=0)
    return {
        "KernelRidge": KernelRidge(alpha=0.1, kernel="rbf").fit(X, y),
        "GPR": GaussianProcessRegressor(Constant(1.0) * RBF(1.0) + White(0.1),
                                        random_state=np.random.RandomState(1)).fit(X, y),
        "AdaBoost": AdaBoost(n_estimators=5).fit(X, labels),
        "sparse-SVM": KernelClassifier(kernel="linear").fit(Xs, labels),
    }


def genuine_bytes() -> dict[str, bytes]:
    import kernelkit

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, model in genuine_models().items():
            path = os.path.join(tmp, name + ".kkm")
            kernelkit.save(model, path)
            with open(path, "rb") as fh:
                out[name] = fh.read()
    return out


# -------------------------------------------------------------------------- file surgery
@dataclass
class Parts:
    """A model file taken apart: the manifest (parsed) and the other members, in order."""

    manifest: dict
    members: list[tuple[str, bytes]]

    @classmethod
    def of(cls, data: bytes) -> Parts:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            manifest = json.loads(zf.read("manifest.json"))
            members = [(n, zf.read(n)) for n in zf.namelist() if n != "manifest.json"]
        return cls(manifest, members)

    def build(self, *, manifest_bytes: bytes | None = None, recompute: bool = True,
              compress: int = zipfile.ZIP_DEFLATED, extra: list | None = None) -> bytes:
        """The archive again; with ``recompute`` the checksums and comment are made valid."""
        if recompute:
            for name, raw in self.members:
                entry = self.manifest.get("arrays", {}).get(name)
                if isinstance(entry, dict):
                    entry["sha256"] = hashlib.sha256(raw).hexdigest()
        raw = manifest_bytes if manifest_bytes is not None else json.dumps(
            self.manifest).encode()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compress) as zf:
            zf.writestr("manifest.json", raw)
            for name, data in self.members + list(extra or []):
                zf.writestr(zipfile.ZipInfo(name), data, compress_type=compress)
            if recompute:
                zf.comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(
                    raw).hexdigest().encode()
        return buf.getvalue()


def _nodes(tree, kind=dict):
    """Every node of a JSON tree of type ``kind`` (parents first)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            yield node
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _tagged(manifest, tag):
    return [n for n in _nodes(manifest.get("estimator")) if n.get("$") == tag]


def _npy(header: dict, payload: bytes = b"") -> bytes:
    text = repr(header).encode()
    pad = 64 - (10 + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + payload


# ------------------------------------------------------------------------------ families
def f_bitflip(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def f_truncate(data, rng):
    return data[:rng.randrange(len(data))]


def f_garbage_tail(data, rng):
    return data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))


def f_extra_member(data, rng):
    p = Parts.of(data)
    name = rng.choice(TRAVERSAL + ["evil.py", "arrays/99999.npy"])
    return p.build(extra=[(name, b"import os; os.system('touch /tmp/pwned')")])


def f_missing_member(data, rng):
    p = Parts.of(data)
    if p.members:
        p.members.pop(rng.randrange(len(p.members)))
    return p.build()


def f_renamed_member(data, rng):
    """An array member renamed (also to a traversal name), the manifest updated to match."""
    p = Parts.of(data)
    if not p.members:
        return p.build()
    i = rng.randrange(len(p.members))
    old, raw = p.members[i]
    new = rng.choice(TRAVERSAL)
    p.members[i] = (new, raw)
    arrays = p.manifest["arrays"]
    arrays[new] = arrays.pop(old)
    for node in _tagged(p.manifest, "array"):
        if node.get("member") == old:
            node["member"] = new
    return p.build()


def f_duplicate_member(data, rng):
    p = Parts.of(data)
    if not p.members:
        return p.build()
    name, _ = rng.choice(p.members)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Duplicate name", UserWarning)  # the point here
        return p.build(extra=[(name, _npy({"descr": "<f8", "fortran_order": False,
                                           "shape": (1,)}, b"\0" * 8))])


def f_zip_bomb(data, rng):
    """A member inflating to 1 GiB of zeros whose manifest entry declares that size and
    checksum, or a manifest of 1 GiB of spaces (each built once per genuine file)."""
    return _bomb(data, "manifest" if rng.random() < 0.3 else "member", BOMB_BYTES)


@functools.lru_cache(maxsize=16)
def _bomb(data: bytes, which: str, size: int) -> bytes:
    p = Parts.of(data)
    raw_manifest = json.dumps(p.manifest).encode()
    bomb = name = None
    if which == "manifest":
        raw_manifest += b" " * (size - len(raw_manifest))
    else:
        header = _npy({"descr": "<f8", "fortran_order": False, "shape": (size // 8,)})
        bomb = header + bytes(size)
        name = "arrays/bomb.npy"
        p.manifest["arrays"][name] = {"sha256": hashlib.sha256(bomb).hexdigest(),
                                      "dtype": "<f8", "shape": [size // 8]}
        for node in _tagged(p.manifest, "array")[:1]:
            node["member"] = name
        raw_manifest = json.dumps(p.manifest).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", raw_manifest)
        for n, d in p.members:
            zf.writestr(n, d)
        if bomb is not None:
            zf.writestr(zipfile.ZipInfo(name), bomb, compress_type=zipfile.ZIP_DEFLATED,
                        compresslevel=1)
        zf.comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(
            raw_manifest).hexdigest().encode()
    return buf.getvalue()


def f_huge_shape(data, rng):
    """An array declared (manifest and .npy header) with 10^12 elements, data a few bytes."""
    p = Parts.of(data)
    if not p.members:
        return p.build()
    i = rng.randrange(len(p.members))
    name, _ = p.members[i]
    shape = rng.choice([[10**12], [10**6, 10**6], [2**62], [-1], [10**12, 0]])
    descr = p.manifest["arrays"][name].get("dtype", "<f8")
    p.members[i] = (name, _npy({"descr": descr, "fortran_order": False,
                                "shape": tuple(shape)}, b"\0" * 64))
    p.manifest["arrays"][name]["shape"] = shape
    return p.build()


def f_bad_dtype(data, rng):
    """dtypes object, void, big-endian, bytes, ... in the manifest and the .npy header."""
    p = Parts.of(data)
    if not p.members:
        return p.build()
    i = rng.randrange(len(p.members))
    name, _ = p.members[i]
    descr = rng.choice(["|O", "|V8", ">f8", "|S8", "<U99999999999", "<M8[ns]", "<c16",
                        "|b1", "<f2", [("a", "<f8")], "<f8,<i4", "O"])
    p.members[i] = (name, _npy({"descr": descr, "fortran_order": False, "shape": (1,)},
                               b"\0" * 16))
    p.manifest["arrays"][name]["dtype"] = descr if isinstance(descr, str) else str(descr)
    p.manifest["arrays"][name]["shape"] = [1]
    return p.build()


def f_lying_header(data, rng):
    """A .npy header whose shape, order or header length disagrees with its data."""
    p = Parts.of(data)
    if not p.members:
        return p.build()
    i = rng.randrange(len(p.members))
    name, raw = p.members[i]
    kind = rng.randrange(4)
    if kind == 0:
        new = _npy({"descr": "<f8", "fortran_order": False, "shape": (10**9,)}, raw[128:])
    elif kind == 1:
        new = raw[:8] + (65535).to_bytes(2, "little") + raw[10:]
    elif kind == 2:
        new = b"\x93NUMPY\x02\x00" + (2**31).to_bytes(4, "little") + b"{" * 64
    else:
        new = _npy({"descr": "<f8", "fortran_order": False, "shape": (4,),
                    "evil": "__import__('os').system('x')"}, b"\0" * 32)
    p.members[i] = (name, new)
    return p.build()


def f_deep_nesting(data, rng):
    """A very deep list/dict in the object tree (the JSON parser and the decoder recurse)."""
    p = Parts.of(data)
    depth = rng.choice([2000, 10**5, 10**6])
    text = json.dumps(p.manifest)
    if rng.random() < 0.5:
        deep = "[" * depth + "]" * depth
    else:
        deep = '{"$": "tuple", "items": ' * depth + "[]" + "}" * depth
    text = text.replace('"metadata": {}', '"metadata": ' + deep, 1) if '"metadata": {}' in \
        text else text[:-1] + ', "metadata": ' + deep + "}"
    if rng.random() < 0.5:  # inside the object tree, where the decoder walks
        m = json.loads(json.dumps(p.manifest))
        est = m.get("estimator", {})
        if isinstance(est, dict) and isinstance(est.get("params"), dict):
            est["params"]["__deep__"] = None
            text = json.dumps(m).replace('"__deep__": null', '"__deep__": ' + deep, 1)
    return p.build(manifest_bytes=text.encode())


def f_huge_number(data, rng):
    p = Parts.of(data)
    text = json.dumps(p.manifest)
    big = rng.choice(["9" * 5000, "1e999999", "-1e400", "1" + "0" * 100000])
    text = text.replace('"format_version": 1', '"format_version": ' + big, 1) \
        if rng.random() < 0.5 else text[:-1] + ', "junk": ' + big + "}"
    return p.build(manifest_bytes=text.encode())


def f_bad_class(data, rng):
    p = Parts.of(data)
    nodes = [n for n in _nodes(p.manifest.get("estimator")) if "class" in n]
    if nodes:
        rng.choice(nodes)["class"] = rng.choice(HOSTILE_CLASSES)
    return p.build()


def f_bad_tag(data, rng):
    p = Parts.of(data)
    nodes = [n for n in _nodes(p.manifest.get("estimator")) if "$" in n]
    if nodes:
        rng.choice(nodes)["$"] = rng.choice(HOSTILE_TAGS)
    return p.build()


def f_field_swap(data, rng):
    """A random field of the object tree replaced by a value of another type."""
    p = Parts.of(data)
    nodes = [n for n in _nodes(p.manifest.get("estimator")) if n]
    if nodes:
        node = rng.choice(nodes)
        key = rng.choice(list(node))
        node[key] = rng.choice([None, -1, 10**18, "x", [], {}, [[[]]], 1.5, True,
                                {"$": "array", "member": "arrays/00000.npy"},
                                {"$": "float", "value": "nan"}, {"$": "set", "items": [[]]}])
    return p.build()


def f_not_utf8(data, rng):
    p = Parts.of(data)
    raw = json.dumps(p.manifest).encode()
    i = rng.randrange(len(raw))
    return p.build(manifest_bytes=raw[:i] + b"\xff\xfe\xc0" + raw[i:])


def f_manifest_type(data, rng):
    p = Parts.of(data)
    value = rng.choice([[], "kernelkit-model", 1, None, {"format": "kernelkit-model"},
                        {"format": "kernelkit-model", "format_version": True, "arrays": {}},
                        {"format": "kernelkit-model", "format_version": 1, "arrays": []}])
    return p.build(manifest_bytes=json.dumps(value).encode())


def f_nan_json(data, rng):
    p = Parts.of(data)
    text = json.dumps(p.manifest)
    nodes = [n for n in _nodes(p.manifest.get("estimator")) if n.get("$") == "estimator"]
    if nodes and nodes[0].get("params"):
        key = rng.choice(list(nodes[0]["params"]))
        nodes[0]["params"][key] = float(rng.choice(["nan", "inf", "-inf"]))
        text = json.dumps(p.manifest)  # NaN / Infinity literals, which json accepts
    return p.build(manifest_bytes=text.encode())


def f_sparse_parts(data, rng):
    """A sparse matrix's parts replaced by out-of-range indices, a decreasing indptr, ..."""
    p = Parts.of(data)
    nodes = _tagged(p.manifest, "sparse")
    if not nodes:
        return f_field_swap(data, rng)
    node = rng.choice(nodes)
    part = rng.choice([k for k in ("indices", "indptr", "data") if k in node])
    member = node[part].get("member") if isinstance(node[part], dict) else None
    values = rng.choice([np.array([10**9, -5], np.int64), np.array([5, 2, 0], np.int32),
                         np.array([], np.int64), np.arange(3, dtype=np.float64)])
    buf = io.BytesIO()
    np.save(buf, values, allow_pickle=False)
    for i, (name, _) in enumerate(p.members):
        if name == member:
            p.members[i] = (name, buf.getvalue())
            p.manifest["arrays"][name]["dtype"] = values.dtype.str
            p.manifest["arrays"][name]["shape"] = list(values.shape)
    if rng.random() < 0.5:
        node["shape"] = rng.choice([[2**40, 2**40], [-1, 3], [1], "x"])
    return p.build()


FAMILIES = {f.__name__[2:]: f for f in (
    f_bitflip, f_truncate, f_garbage_tail, f_extra_member, f_missing_member, f_renamed_member,
    f_duplicate_member, f_zip_bomb, f_huge_shape, f_bad_dtype, f_lying_header, f_deep_nesting,
    f_huge_number, f_bad_class, f_bad_tag, f_field_swap, f_not_utf8, f_manifest_type,
    f_nan_json, f_sparse_parts)}


# ----------------------------------------------------------------------------- one case
@dataclass
class Outcome:
    family: str
    outcome: str  # "refused", "loaded" or "failure"
    peak_mb: float
    seconds: float
    detail: str = ""


def _kernelkit_or_stdlib(name: str) -> bool:
    return name.split(".")[0] in {"kernelkit"}


def try_load(data: bytes, family: str = "") -> Outcome:
    """Load ``data`` as a model file; classify the result (see the module docstring)."""
    import kernelkit
    from kernelkit.io import FormatError

    with tempfile.TemporaryDirectory() as top:
        work = os.path.join(top, "case")
        os.mkdir(work)
        path = os.path.join(work, "model.kkm")
        with open(path, "wb") as fh:
            fh.write(data)
        before = set(sys.modules)
        listing = sorted(os.listdir(top))
        tracemalloc.start()
        t0 = time.perf_counter()
        detail, outcome = "", "refused"
        try:
            model = kernelkit.load(path)
            outcome = "loaded"
            if not (type(model).__module__.startswith("kernelkit") and
                    hasattr(model, "get_params")):
                outcome, detail = "failure", f"loaded a {type(model).__name__}"
        except FormatError:
            pass
        except BaseException as exc:  # noqa: BLE001 - anything else is the finding
            outcome = "failure"
            detail = f"{type(exc).__name__}: {str(exc)[:200]}"
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        new_modules = [m for m in set(sys.modules) - before if not _kernelkit_or_stdlib(m)]
        if sorted(os.listdir(top)) != listing or sorted(os.listdir(work)) != ["model.kkm"]:
            outcome, detail = "failure", "a file appeared beside the model file"
        if new_modules and outcome != "failure":
            outcome, detail = "failure", f"imported {sorted(new_modules)[:3]}"
        if outcome != "failure" and (peak > MAX_MB or seconds > MAX_S):
            outcome = "failure"
            detail = f"{peak:.0f} MB, {seconds:.2f} s"
    return Outcome(family, outcome, peak, seconds, detail)


def cases(n: int, seed: int = 0):
    """``n`` (family, bytes) cases, every family in turn, from the genuine files."""
    rng = random.Random(seed)
    originals = genuine_bytes()
    names = sorted(originals)
    families = sorted(FAMILIES)
    for i in range(n):
        family = families[i % len(families)]
        base = originals[names[(i // len(families)) % len(names)]]
        yield family, FAMILIES[family](base, rng)


def _chunk(args):
    n, seed = args
    import kernelkit  # noqa: F401 - imported before the first case's module check
    import kernelkit.io  # noqa: F401

    kernelkit.load  # noqa: B018
    _warm()
    return [try_load(data, family) for family, data in cases(n, seed)]


def _warm():
    """Import what a genuine load imports, so a case's new modules are its own doing."""
    originals = genuine_bytes()
    for data in originals.values():
        try_load(data, "genuine")


def campaign(size: int, jobs: int, seed: int) -> Table:
    jobs = max(1, jobs)
    per = [size // jobs + (1 if k < size % jobs else 0) for k in range(jobs)]
    args = [(m, seed * 1000 + k) for k, m in enumerate(per) if m]
    if jobs == 1:
        results = [r for a in args for r in _chunk(a)]
    else:
        with ProcessPoolExecutor(jobs) as ex:
            results = [r for part in ex.map(_chunk, args) for r in part]
    rows, failures, details = [], 0, []
    for family in sorted(FAMILIES) + ["all"]:
        sel = [r for r in results if family in ("all", r.family)]
        if not sel:
            continue
        bad = [r for r in sel if r.outcome == "failure"]
        if family != "all":
            failures += len(bad)
            details += [f"{r.family}: {r.detail}" for r in bad[:5]]
        rows.append([family, len(sel), sum(r.outcome == "refused" for r in sel),
                     sum(r.outcome == "loaded" for r in sel), len(bad),
                     f"{max(r.peak_mb for r in sel):.1f}", f"{max(r.seconds for r in sel):.3f}"])
    return Table(
        "Hostile model files (kernelkit.load)",
        ["mutation family", "cases", "refused (FormatError)", "loaded (still valid)",
         "failures", "worst peak MB", "worst time s"], rows, failures,
        notes=(f"Limits: {MAX_MB:.0f} MB of traced allocations and {MAX_S:.0f} s per file; "
               "most families recompute every checksum and the ZIP comment, as a hostile "
               "writer can. \"Loaded\" cases are mutations that left a valid model (e.g. a "
               "flipped bit in a number with recomputed checksums)."),
        details=details)
