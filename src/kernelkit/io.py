"""Save and load fitted models without pickle: ``kernelkit.save`` / ``kernelkit.load``.

File format (``format_version`` 1)
----------------------------------
A model file is a ZIP archive with exactly these members:

``manifest.json``
    A UTF-8 JSON object::

        {
          "format": "kernelkit-model",
          "format_version": 1,
          "library_version": "0.1.0",        # kernelkit that wrote the file
          "class": "KernelRidge",            # class name (for people; see "estimator")
          "params": {"alpha": 0.1, ...},     # constructor parameters (for people; a copy
                                             #   of estimator.params, which load reads)
          "kernel": "RBF(length_scale=2.0)", # kernel spec of kernel_ / kernel, or null
          "estimator": {...},                # the object tree, encoded as below
          "arrays": {"arrays/00000.npy": {"sha256": "...", "dtype": "<f8", "shape": [50, 3]}},
          "metadata": {...}                  # free JSON given to save(metadata=...)
        }

``arrays/NNNNN.npy``
    One member per numpy array, written by ``numpy.save(..., allow_pickle=False)``; its
    SHA-256, dtype and shape are listed in ``arrays``.

The ZIP comment is ``kernelkit-model manifest-sha256=<hex>``, the SHA-256 of the
``manifest.json`` bytes.

The object tree is JSON in which ``null``, booleans, integers, strings, finite floats and
lists stand for themselves and everything else is an object with a ``"$"`` tag:
``float`` (nan/inf), ``tuple``, ``dict`` (``items``: key/value pairs, keys of any
supported type), ``set``, ``scalar`` (a numpy scalar with its dtype), ``dtype``,
``nptype``, ``array`` (a member; ``"object": true`` for an object array of strings, stored
as a unicode array), ``objarray`` (a small object array, element by element),
``generator`` / ``randomstate`` (numpy random state), ``sparse`` (a scipy.sparse matrix:
format, shape, dtype, its parts as members; :mod:`kernelkit._sparse_io`), ``estimator`` (a
class with ``get_params``: constructor ``params`` plus ``state``, the other entries of ``vars()``:
fitted attributes ending in ``_`` and the private attributes used to predict) and
``object`` (another kernelkit class, restored from ``state`` without calling
``__init__``). Classes are named ``"module:QualName"``.

Safety
------
:func:`load` never unpickles (``allow_pickle=False`` everywhere) and only instantiates
classes defined in kernelkit, the scikit-learn Gaussian-process kernels, and the few
scikit-learn classes listed in ``SKLEARN_ALLOWED``. It verifies every checksum and refuses,
with a :class:`FormatError`, a file that is truncated, not a ZIP, a foreign ZIP, written by
a newer format version, or that has an extra, missing or altered member. Checksums detect
corruption and edits; they are not a signature (someone who rewrites the manifest can
recompute them), but a file can never make ``load`` run code that is not in kernelkit.

:func:`save` writes to a temporary file and renames it, so a failed save leaves nothing
behind. Objects that cannot be stored without pickle (functions, lambdas, open files,
classes from outside kernelkit) raise a :class:`SerializationError` naming the attribute.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import io
import json
import math
import os
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ._core.files import atomic_write
from ._io_safety import (
    MANIFEST_MAX,
    MEMBER,
    NPY_HEADER_MAX,
    ZIP_ERRORS,
    FormatError,
    SerializationError,
    check_ratio,
    check_stored,
    describe_cut_zip,
    describe_foreign,
    npy_header,
    safe_dtype,
    safe_shape,
)
from ._sparse_io import decode_sparse, encode_sparse, is_sparse
from ._spec import kernel_spec, parse_spec

__all__ = [
    "save",
    "load",
    "read_manifest",
    "kernel_spec",
    "parse_spec",
    "FormatError",
    "SerializationError",
    "FORMAT_VERSION",
]

FORMAT = "kernelkit-model"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
_COMMENT = re.compile(rb"^kernelkit-model manifest-sha256=([0-9a-f]{64})$")

# scikit-learn classes that may appear inside a kernelkit model (plain data only).
SKLEARN_ALLOWED = frozenset(
    {
        "sklearn.preprocessing:StandardScaler",
        "sklearn.preprocessing:MinMaxScaler",
        "sklearn.preprocessing:LabelEncoder",
        "sklearn.preprocessing:LabelBinarizer",
        "sklearn.pipeline:Pipeline",
    }
)
_SKLEARN_GP_KERNELS = "sklearn.gaussian_process.kernels"
# the tags of the object tree (see the module docstring): nothing else is dispatched
_TAGS = frozenset({"complex", "float", "tuple", "set", "frozenset", "dict", "dtype", "nptype",
                   "scalar", "array", "objarray", "generator", "sparse", "randomstate",
                   "estimator", "object", "namedtuple"})
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


# ---------------------------------------------------------------------------- classes
def _class_name(cls: type, path: str) -> str:
    """``module:QualName`` of a class that :func:`load` will accept, else raise."""
    module, qual = cls.__module__, cls.__qualname__
    if "<locals>" in qual:
        raise SerializationError(
            f"Cannot save {path}: {cls.__name__} is defined inside a function; "
            "define it at module level in kernelkit."
        )
    if module == "kernelkit" or module.startswith("kernelkit."):
        return f"{module}:{qual}"
    if module.startswith(_SKLEARN_GP_KERNELS) and _sklearn_gp_kernel_class(qual) is cls:
        return f"{_SKLEARN_GP_KERNELS}:{qual}"
    for name in SKLEARN_ALLOWED:
        mod, _, attr = name.partition(":")
        if attr == qual and getattr(importlib.import_module(mod), attr, None) is cls:
            return name
    raise SerializationError(
        f"Cannot save {path}: {module}.{qual} is not a kernelkit class (only kernelkit "
        "classes and a few plain-data scikit-learn classes can be stored without pickle)."
    )


def _sklearn_gp_kernel_class(qual: str):
    mod = importlib.import_module(_SKLEARN_GP_KERNELS)
    from sklearn.gaussian_process.kernels import Kernel as SkKernel

    obj = getattr(mod, qual, None) if qual.isidentifier() else None
    return obj if isinstance(obj, type) and issubclass(obj, SkKernel) else None


def _storable_class(cls: type) -> bool:
    try:
        _class_name(cls, "")
    except SerializationError:
        return False
    return True


def _resolve_class(name: Any, what: str) -> type:
    """The class for ``module:QualName`` if it is allowed; FormatError otherwise."""
    if not isinstance(name, str) or name.count(":") != 1:
        raise FormatError(f"Invalid class name {name!r} in {what}.")
    module, qual = name.split(":")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", module) or not (
        re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", qual)
    ):
        raise FormatError(f"Invalid class name {name!r} in {what}.")
    cls = None
    if module == "kernelkit" or module.startswith("kernelkit."):
        try:
            obj: Any = importlib.import_module(module)
            for part in qual.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            raise FormatError(
                f"The model file needs {module}.{qual}, which this kernelkit does not have "
                "(was the file written by a newer kernelkit?)."
            ) from None
        # a kernelkit class, named where it is defined or where a kernelkit module names it
        # (files written before a class moved, e.g. kernels.base:Sum, now kernels.composite)
        if isinstance(obj, type) and f"{obj.__module__}.".startswith("kernelkit."):
            cls = obj
    elif module == _SKLEARN_GP_KERNELS:
        cls = _sklearn_gp_kernel_class(qual)
    elif name in SKLEARN_ALLOWED:
        cls = getattr(importlib.import_module(module), qual, None)
    if not isinstance(cls, type):
        raise FormatError(
            f"Refusing to load class {module}.{qual} ({what}): only kernelkit classes "
            "can be loaded."
        )
    return cls


# --------------------------------------------------------------------------- encoding
class _Writer:
    """Encodes an object tree to JSON-able data, collecting arrays as .npy members."""

    def __init__(self):
        self.members: dict[str, bytes] = {}
        self.arrays: dict[str, dict] = {}
        self._by_id: dict[int, str] = {}
        self._keep: list[np.ndarray] = []  # keeps ids in _by_id from being reused
        self._active: set[int] = set()

    def array(self, a: np.ndarray, path: str) -> dict:
        key = id(a)
        if key in self._by_id:  # the same array object twice: store it once
            return {"$": "array", "member": self._by_id[key]}
        out: dict[str, Any] = {"$": "array"}
        data = a
        if a.dtype == object:
            if not all(isinstance(v, str) for v in a.flat) or a.size == 0:
                return {
                    "$": "objarray",
                    "shape": list(a.shape),
                    "items": [self.encode(v, f"{path}[{i}]") for i, v in enumerate(a.flat)],
                }
            data = a.astype(str)
            out["object"] = True
        if data.dtype.hasobject:
            raise SerializationError(f"Cannot save {path}: array dtype {a.dtype} holds objects.")
        buf = io.BytesIO()
        try:
            np.save(buf, data, allow_pickle=False)
        except ValueError as exc:  # pragma: no cover - exotic dtypes
            raise SerializationError(f"Cannot save {path}: {exc}") from None
        name = f"arrays/{len(self.members):05d}.npy"
        raw = buf.getvalue()
        self.members[name] = raw
        self.arrays[name] = {
            "sha256": hashlib.sha256(raw).hexdigest(),
            "dtype": data.dtype.str,
            "shape": list(data.shape),
        }
        self._by_id[key] = name
        self._keep.append(a)
        out["member"] = name
        return out

    def encode(self, obj: Any, path: str) -> Any:
        if obj is None or type(obj) in (bool, int, str):
            return obj
        if type(obj) is float:
            return obj if math.isfinite(obj) else {"$": "float", "value": repr(obj)}
        if type(obj) is complex:
            return {"$": "complex", "value": [self.encode(obj.real, path),
                                              self.encode(obj.imag, path)]}
        if isinstance(obj, np.ndarray):
            return self.array(obj, path)
        if isinstance(obj, np.generic):
            return self.scalar(obj, path)
        if isinstance(obj, np.dtype):
            if obj.fields is not None or obj.hasobject:
                raise SerializationError(f"Cannot save {path}: structured dtype {obj}.")
            return {"$": "dtype", "value": obj.str}
        if isinstance(obj, type) and issubclass(obj, np.generic):
            return {"$": "nptype", "value": np.dtype(obj).str}
        if isinstance(obj, np.random.Generator):
            bg = obj.bit_generator
            if type(bg).__name__ not in _BIT_GENERATORS:
                raise SerializationError(f"Cannot save {path}: bit generator {type(bg)}.")
            return {"$": "generator", "bit_generator": type(bg).__name__,
                    "state": self.encode(bg.state, path + ".state")}
        if isinstance(obj, np.random.RandomState):
            return {"$": "randomstate", "state": self.encode(obj.get_state(legacy=False), path)}
        if is_sparse(obj):  # support vectors, X_fit_ ...: parts as members (_sparse_io)
            return encode_sparse(self, obj, path)
        key = id(obj)
        if key in self._active:
            raise SerializationError(f"Cannot save {path}: it refers back to itself (a cycle).")
        self._active.add(key)
        try:
            return self._container(obj, path)
        finally:
            self._active.discard(key)

    def scalar(self, obj: np.generic, path: str) -> dict:
        kind = obj.dtype.kind
        if kind == "b":
            value: Any = bool(obj)
        elif kind in "iu":
            value = int(obj)
        elif kind == "f":
            value = self.encode(float(obj), path)
        elif kind == "c":
            value = [self.encode(float(obj.real), path), self.encode(float(obj.imag), path)]
        elif kind in "US":
            return {"$": "scalar", "dtype": obj.dtype.str, "array": self.array(np.asarray(obj),
                                                                            path)}
        else:
            raise SerializationError(f"Cannot save {path}: numpy scalar of dtype {obj.dtype}.")
        return {"$": "scalar", "dtype": obj.dtype.str, "value": value}

    def _container(self, obj: Any, path: str) -> Any:
        t = type(obj)
        if t is list:
            return [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        if t is tuple:
            return {"$": "tuple", "items": [self.encode(v, f"{path}[{i}]")
                                            for i, v in enumerate(obj)]}
        if t in (set, frozenset):
            return {"$": t.__name__, "items": [self.encode(v, f"{path}{{}}") for v in obj]}
        if t is dict:
            return {"$": "dict", "items": [
                [self.encode(k, f"{path} key"), self.encode(v, f"{path}[{k!r}]")]
                for k, v in obj.items()
            ]}
        if inspect.isclass(obj) or inspect.isroutine(obj) or isinstance(obj, functools.partial) or (
            callable(obj) and not _storable_class(t)
        ):
            if inspect.isclass(obj):
                what = f"a class ({obj.__qualname__})"
            elif getattr(obj, "__name__", "") == "<lambda>":
                what = "a lambda"
            else:
                what = f"a function ({getattr(obj, '__qualname__', type(obj).__name__)})"
            raise SerializationError(
                f"Cannot save {path}: it is {what}, which cannot be stored without pickle. "
                "Use a built-in kernel/loss/weak learner or pass precomputed features."
            )
        if hasattr(obj, "get_params") and hasattr(obj, "__dict__"):
            return self.estimator(obj, path)
        if isinstance(obj, tuple) and hasattr(t, "_fields"):
            name = _class_name(t, path)
            return {"$": "namedtuple", "class": name,
                    "items": [self.encode(v, f"{path}.{f}") for v, f in zip(obj, t._fields)]}
        if hasattr(obj, "__dict__") and not isinstance(obj, (type, io.IOBase)):
            name = _class_name(t, path)
            if hasattr(t, "__slots__"):
                raise SerializationError(f"Cannot save {path}: {t.__name__} uses __slots__.")
            return {"$": "object", "class": name, "state": self._state(vars(obj), (), path)}
        raise SerializationError(
            f"Cannot save {path}: objects of type {t.__module__}.{t.__qualname__} cannot be "
            "stored without pickle."
        )

    def estimator(self, est: Any, path: str) -> dict:
        name = _class_name(type(est), path)
        params = est.get_params(deep=False)
        return {
            "$": "estimator",
            "class": name,
            "params": {k: self.encode(v, f"{path}.{k}") for k, v in params.items()},
            "state": self._state(vars(est), params, path),
        }

    def _state(self, attrs: dict, exclude, path: str) -> dict:
        out = {}
        for k, v in attrs.items():
            if k in exclude:
                continue
            if not isinstance(k, str):  # pragma: no cover
                raise SerializationError(f"Cannot save {path}: attribute name {k!r}.")
            out[k] = self.encode(v, f"{path}.{k}")
        return out


# --------------------------------------------------------------------------- decoding
class _Reader:
    def __init__(self, zf: zipfile.ZipFile, arrays: dict):
        self.zf = zf
        self.arrays = arrays
        self._loaded: dict[str, np.ndarray] = {}

    def array(self, name: Any) -> np.ndarray:
        if name in self._loaded:
            return self._loaded[name]
        if not isinstance(name, str) or name not in self.arrays:
            raise FormatError(f"The object tree refers to an unlisted array member {name!r}.")
        info = self.arrays[name]
        if not isinstance(info, dict):
            raise FormatError(f"Member {name} has no valid dtype/shape in the manifest.")
        dtype, shape = safe_dtype(info.get("dtype")), safe_shape(info.get("shape"), name)
        # the member must hold exactly its header and the declared array: a .npy header that
        # lies about the shape, a declared shape of 10^12 elements or a decompression bomb is
        # refused here, before anything of the declared size is allocated
        zinfo = self.zf.getinfo(name)
        n_bytes = math.prod(shape) * dtype.itemsize
        if zinfo.file_size > n_bytes + NPY_HEADER_MAX:
            raise FormatError(f"Member {name} is larger than its declared array (altered).")
        check_ratio(zinfo, name)
        check_stored(self.zf, zinfo, name)
        header = npy_header(self.zf, name)
        if header[1:] != (dtype, tuple(shape)) or zinfo.file_size != header[0] + n_bytes:
            raise FormatError(f"Member {name} does not hold the {dtype.str} array of shape "
                              f"{tuple(shape)} that the manifest declares (altered).")
        raw = self.zf.read(name)
        if hashlib.sha256(raw).hexdigest() != info.get("sha256"):
            raise FormatError(f"Member {name} was altered or corrupted (SHA-256 mismatch).")
        try:
            a = np.load(io.BytesIO(raw), allow_pickle=False)
        except ValueError as exc:
            raise FormatError(f"Member {name} is not a plain .npy array: {exc}") from None
        if a.dtype.str != info.get("dtype") or list(a.shape) != info.get("shape"):
            raise FormatError(f"Member {name} does not match its dtype/shape in the manifest.")
        self._loaded[name] = a
        return a

    def decode(self, node: Any) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict) or "$" not in node:
            raise FormatError(f"Unexpected JSON value in the object tree: {str(node)[:80]}")
        tag = node["$"]
        handler = getattr(self, "_" + tag, None) if isinstance(tag, str) and tag in _TAGS else None
        if handler is None:
            raise FormatError(f"Unknown tag {tag!r} in the object tree (newer format?).")
        try:
            return handler(node)
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise FormatError(f"Malformed {tag!r} entry in the object tree: {exc}") from None

    def _complex(self, node):
        return complex(self.decode(node["value"][0]), self.decode(node["value"][1]))

    def _float(self, node):
        value = node["value"]
        if value not in ("nan", "inf", "-inf"):
            raise FormatError(f"Bad float value {value!r}.")
        return float(value)

    def _tuple(self, node):
        return tuple(self.decode(v) for v in node["items"])

    def _set(self, node):
        return {self.decode(v) for v in node["items"]}

    def _frozenset(self, node):
        return frozenset(self.decode(v) for v in node["items"])

    def _dict(self, node):
        return {self.decode(k): self.decode(v) for k, v in node["items"]}

    def _dtype(self, node):
        return safe_dtype(node["value"])

    def _nptype(self, node):
        return safe_dtype(node["value"]).type

    def _scalar(self, node):
        dtype = safe_dtype(node["dtype"])
        if "array" in node:
            return self.decode(node["array"])[()]
        value = node["value"]
        if dtype.kind == "c":
            return dtype.type(complex(self.decode(value[0]), self.decode(value[1])))
        return dtype.type(self.decode(value))

    def _array(self, node):
        a = self.array(node["member"])
        if node.get("object"):
            if a.dtype.kind != "U":
                raise FormatError("An object array member must be stored as unicode.")
            a = a.astype(object)
        return a

    def _objarray(self, node):
        items = [self.decode(v) for v in node["items"]]
        out = np.empty(len(items), dtype=object)
        for i, v in enumerate(items):
            out[i] = v
        return out.reshape(tuple(node["shape"]))

    def _generator(self, node):
        name = node["bit_generator"]
        if name not in _BIT_GENERATORS:
            raise FormatError(f"Unknown bit generator {name!r}.")
        bg = getattr(np.random, name)()
        bg.state = self.decode(node["state"])
        return np.random.Generator(bg)

    def _sparse(self, node):
        return decode_sparse(self, node)

    def _randomstate(self, node):
        rs = np.random.RandomState()
        rs.set_state(self.decode(node["state"]))
        return rs

    def _estimator(self, node):
        cls = _resolve_class(node["class"], "estimator")
        if not hasattr(cls, "get_params"):
            raise FormatError(f"{cls.__name__} is not an estimator or kernel.")
        params = {str(k): self.decode(v) for k, v in node["params"].items()}
        try:
            obj = cls(**params)
        except Exception as exc:  # noqa: BLE001 - any constructor failure is a bad file
            raise FormatError(f"Cannot rebuild {cls.__name__} from its parameters: {exc}") from None
        obj.__dict__.update({str(k): self.decode(v) for k, v in node["state"].items()})
        return obj

    def _object(self, node):
        cls = _resolve_class(node["class"], "object")
        if not cls.__module__.startswith("kernelkit"):
            raise FormatError(f"Refusing to rebuild {cls.__name__} without its constructor.")
        obj = cls.__new__(cls)
        obj.__dict__.update({str(k): self.decode(v) for k, v in node["state"].items()})
        return obj

    def _namedtuple(self, node):
        cls = _resolve_class(node["class"], "namedtuple")
        if not (issubclass(cls, tuple) and hasattr(cls, "_fields")):
            raise FormatError(f"{cls.__name__} is not a named tuple.")
        return cls(*[self.decode(v) for v in node["items"]])


# ------------------------------------------------------------------------ save / load
def _kernel_of(model: Any) -> str | None:
    """Spec of the fitted kernel (``kernel_``), else of the ``kernel`` parameter."""
    for attr in ("kernel_", "kernel"):
        k = vars(model).get(attr)
        if k is not None:
            return kernel_spec(k)
    return None


def save(model: Any, path: str | os.PathLike, *, metadata: dict | None = None) -> Path:
    """Save a kernelkit estimator (fitted or not) to ``path`` without pickle.

    Parameters
    ----------
    model : kernelkit estimator
    path : str or path-like
        Destination; written atomically (a temporary file renamed on success).
    metadata : dict, optional
        Extra JSON-serializable information kept in the manifest (the ``kernelkit``
        command stores the feature and target column names there).

    Returns
    -------
    Path

    Raises
    ------
    SerializationError
        If the model holds something that cannot be stored without pickle (the message
        names the attribute). Nothing is written.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> import kernelkit
    >>> from kernelkit.kernels import RBF
    >>> path = os.path.join(tempfile.mkdtemp(), "k.kkm")
    >>> _ = kernelkit.save(RBF(length_scale=2.0), path)
    >>> kernelkit.load(path)
    RBF(length_scale=2)
    """
    path = Path(path)
    if not (hasattr(model, "get_params") and hasattr(model, "__dict__")):
        raise SerializationError(
            f"save expects a kernelkit estimator (with get_params); got {type(model).__name__}."
        )
    w = _Writer()
    tree = w.estimator(model, type(model).__name__)
    from . import __version__

    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "class": type(model).__name__,
        "params": tree["params"],  # constructor parameters, for people (load reads "estimator")
        "kernel": _kernel_of(model),
        "estimator": tree,
        "arrays": w.arrays,
        "metadata": metadata or {},
    }
    try:
        text = json.dumps(manifest, indent=1, allow_nan=False, sort_keys=False)
    except (TypeError, ValueError) as exc:
        raise SerializationError(f"Cannot save: metadata is not plain JSON ({exc}).") from None
    raw = text.encode("utf-8")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"Cannot save to {path}: folder {folder} does not exist.")
    comment = b"kernelkit-model manifest-sha256=" + hashlib.sha256(raw).hexdigest().encode()

    def write(fh):
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.comment = comment
            zf.writestr(MANIFEST, raw)
            for name, data in w.members.items():
                zf.writestr(name, data, compress_type=_compression(data))

    atomic_write(path, write)
    return path


def _compression(data: bytes) -> int:
    """Deflate a member only if a sample of it compresses well (random floats do not, and
    deflating them costs ~60 ns per byte; triangular factors and integer codes do)."""
    sample = data[:65536]
    if len(data) < 4096 or len(zlib.compress(sample, 1)) < 0.8 * len(sample):
        return zipfile.ZIP_DEFLATED
    return zipfile.ZIP_STORED


def _open(path: str | os.PathLike) -> tuple[zipfile.ZipFile, dict]:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No such model file: {path}")
    try:
        zf = zipfile.ZipFile(path)
    except ZIP_ERRORS:
        cut = describe_cut_zip(path, MANIFEST)
        if cut is not None:
            raise FormatError(f"{path} is {cut}. Save the model again (kernelkit.save or "
                              "kernelkit fit), or copy the whole file again.") from None
        raise FormatError(f"{path} is not a kernelkit model file ({describe_foreign(path)}); "
                          f"{_OURS}.") from None
    try:
        manifest = _check_manifest(zf, path)
    except BaseException:
        zf.close()
        raise
    return zf, manifest


_OURS = "kernelkit reads files written by kernelkit.save / kernelkit fit"
def _read_member(zf: zipfile.ZipFile, name: str, path) -> bytes:
    try:
        return zf.read(name)
    except (*ZIP_ERRORS, ValueError) as exc:
        raise FormatError(f"{path}: member {name} is corrupted or truncated ({exc}).") from None


def _check_manifest(zf: zipfile.ZipFile, path) -> dict:
    names = zf.namelist()
    if MANIFEST not in names:
        raise FormatError(f"{path} is a ZIP archive but not a kernelkit model file (no "
                          f"{MANIFEST}; a NumPy .npz or another program's archive?); {_OURS}.")
    if zf.getinfo(MANIFEST).file_size > MANIFEST_MAX:
        raise FormatError(f"{path}: {MANIFEST} is implausibly large (altered or not ours).")
    check_ratio(zf.getinfo(MANIFEST), path)
    check_stored(zf, zf.getinfo(MANIFEST), path)
    raw = _read_member(zf, MANIFEST, path)
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise FormatError(f"{path}: {MANIFEST} is not valid JSON (altered or corrupted).") from None
    except RecursionError:
        raise FormatError(f"{path}: {MANIFEST} is nested too deeply (altered).") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise FormatError(f"{path}: {MANIFEST} holds an invalid value ({exc}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise FormatError(f"{path} is a ZIP archive but not a kernelkit model file; {_OURS}.")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise FormatError(f"{path} is damaged: its manifest does not say which version of "
                          "the kernelkit model format it uses (altered after saving, or not "
                          f"written by kernelkit.save); {_OURS}.")
    if version > FORMAT_VERSION:
        raise FormatError(
            f"{path} uses model format version {version}, written by kernelkit "
            f"{manifest.get('library_version', '?')}; this kernelkit reads format versions up "
            f"to {FORMAT_VERSION}. Upgrade kernelkit to load it."
        )
    arrays = manifest.get("arrays")
    if not isinstance(arrays, dict):
        raise FormatError(f"{path} is damaged: its manifest lacks the table of arrays "
                          "(altered after saving).")
    if len(names) != len(set(names)):
        raise FormatError(f"{path} has duplicate members (altered after saving).")
    odd = [n for n in arrays if not (isinstance(n, str) and MEMBER.fullmatch(n))]
    if odd:  # kernelkit names its members arrays/NNNNN.npy: nothing else, no paths
        raise FormatError(f"{path} has a member named {str(odd[0])[:80]!r}, not one kernelkit "
                          "writes (altered after saving); refusing to load.")
    extra = sorted(set(names) - {MANIFEST} - set(arrays))
    if extra:
        raise FormatError(
            f"{path} has unexpected member {extra[0]!r} (altered after saving); refusing to load."
        )
    missing = sorted(set(arrays) - set(names))
    if missing:
        raise FormatError(f"{path} lacks member {missing[0]!r} (truncated or altered).")
    # the member table above is only a guide until the manifest's own checksum holds
    m = _COMMENT.match(zf.comment or b"")
    if m is None:
        raise FormatError(f"{path} is truncated or was altered (its end does not carry the "
                          "manifest checksum). Save the model again (kernelkit.save or "
                          "kernelkit fit), or copy the whole file again.")
    if m.group(1).decode() != hashlib.sha256(raw).hexdigest():
        raise FormatError(f"{path}: {MANIFEST} was altered or corrupted (SHA-256 mismatch).")
    return manifest


def _named(exc: FormatError, path) -> FormatError:
    """``exc`` with the file name in front, unless its message names the file already."""
    text = str(exc)
    return exc if str(path) in text else FormatError(f"{path}: {text}")


def read_manifest(path: str | os.PathLike, *, verify: bool = True) -> dict:
    """The manifest of a model file, after checking the file (and, by default, every array).

    Examples
    --------
    >>> import os, tempfile, kernelkit
    >>> from kernelkit.kernels import RBF
    >>> path = os.path.join(tempfile.mkdtemp(), "k.kkm")
    >>> _ = kernelkit.save(RBF(), path)
    >>> kernelkit.io.read_manifest(path)["class"]
    'RBF'
    """
    zf, manifest = _open(path)
    with zf:
        if verify:
            reader = _Reader(zf, manifest["arrays"])
            for name in manifest["arrays"]:
                try:
                    reader.array(name)
                except ZIP_ERRORS as exc:
                    raise FormatError(f"{path}: member {name} is corrupted ({exc}).") from None
                except FormatError as exc:
                    raise _named(exc, path) from None
    return manifest


def load(path: str | os.PathLike) -> Any:
    """Load a model written by :func:`save` (no pickle; kernelkit classes only).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    FormatError
        If the file is not a kernelkit model, is truncated, was altered (checksum
        mismatch, extra or missing member), or uses a newer format version.

    Examples
    --------
    >>> import os, tempfile, kernelkit
    >>> from kernelkit.kernels import Matern
    >>> path = os.path.join(tempfile.mkdtemp(), "k.kkm")
    >>> _ = kernelkit.save(Matern(nu=2.5), path)
    >>> kernelkit.load(path)
    Matern(length_scale=1, nu=2.5)
    """
    zf, manifest = _open(path)
    with zf:
        reader = _Reader(zf, manifest["arrays"])
        try:
            for name in manifest["arrays"]:  # verify every checksum, even unused members
                reader.array(name)
            model = reader.decode(manifest.get("estimator"))
        except ZIP_ERRORS as exc:
            raise FormatError(f"{path}: a member is corrupted or truncated ({exc}).") from None
        except RecursionError:
            raise FormatError(f"{path}: the object tree is nested too deeply.") from None
        except FormatError as exc:
            raise _named(exc, path) from None
    if not hasattr(model, "get_params"):
        raise FormatError(f"{path} does not contain an estimator.")
    return model

