"""scipy.sparse matrices in kernelkit model files (the ``"sparse"`` tag of :mod:`kernelkit.io`).

A sparse matrix in the object tree is::

    {"$": "sparse", "format": "csr", "array": false, "shape": [n, d], "dtype": "<f8",
     "data": {"$": "array", ...}, "indices": {...}, "indptr": {...}}

(``"row"``/``"col"`` instead of ``"indices"``/``"indptr"`` for ``"coo"``). Every part is an
ordinary array member, listed and checksummed in the manifest like any other; ``"array"``
says whether it was a ``*_array`` (True) or a ``*_matrix``. CSR, CSC and COO are stored as
they are; the other formats (LIL, DOK, BSR, DIA) are stored as CSR. Loading checks that the
parts fit together (lengths, ``indptr`` starting at 0 and never decreasing, indices in
range) before scipy sees them; a ValueError naming the part that does not becomes the
reader's :class:`~kernelkit.io.FormatError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["is_sparse", "encode_sparse", "decode_sparse"]

_PARTS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"),
          "coo": ("data", "row", "col")}


def is_sparse(obj: Any) -> bool:
    return sp.issparse(obj)


def encode_sparse(writer, obj, path: str) -> dict:
    """The tree node of a sparse matrix; its parts become array members of ``writer``."""
    fmt = obj.format if obj.format in _PARTS else "csr"
    if fmt != obj.format:
        obj = obj.tocsr()
    node = {"$": "sparse", "format": fmt, "array": isinstance(obj, sp.sparray),
            "shape": [int(s) for s in obj.shape], "dtype": obj.dtype.str}
    for part in _PARTS[fmt]:
        node[part] = writer.array(np.ascontiguousarray(getattr(obj, part)), f"{path}.{part}")
    return node


def _fail(msg: str):
    # a ValueError: kernelkit.io's reader turns it into a FormatError naming the entry
    raise ValueError(f"sparse matrix in the model file: {msg}")


def _check_parts(fmt, shape, parts) -> None:
    """Lengths, index ranges and monotone ``indptr`` (see the module docstring)."""
    data = parts["data"]
    for name, a in parts.items():
        if a.ndim != 1:
            _fail(f"{name} must be 1-D; got shape {a.shape}.")
        if name != "data" and a.dtype.kind not in "iu":
            _fail(f"{name} must hold integers; got dtype {a.dtype}.")
    if fmt == "coo":
        row, col = parts["row"], parts["col"]
        if not len(row) == len(col) == len(data):
            _fail(f"row, col and data lengths differ ({len(row)}, {len(col)}, {len(data)}).")
        for name, idx, bound in (("row", row, shape[0]), ("col", col, shape[1])):
            if idx.size and (idx.min() < 0 or idx.max() >= bound):
                _fail(f"{name} indices outside [0, {bound}).")
        return
    major, minor = (shape[0], shape[1]) if fmt == "csr" else (shape[1], shape[0])
    indptr, indices = parts["indptr"], parts["indices"]
    if len(indptr) != major + 1:
        _fail(f"indptr has {len(indptr)} entries; a {fmt} matrix of shape {tuple(shape)} "
              f"needs {major + 1}.")
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0):
        _fail("indptr must start at 0 and never decrease.")
    if not indptr[-1] == len(indices) == len(data):
        _fail(f"indptr[-1] = {indptr[-1]}, {len(indices)} indices and {len(data)} values "
              "must agree.")
    if indices.size and (indices.min() < 0 or indices.max() >= minor):
        _fail(f"indices outside [0, {minor}).")


def decode_sparse(reader, node: dict):
    """The sparse matrix of a ``"sparse"`` node, its parts validated first."""
    fmt = node["format"]
    if fmt not in _PARTS:
        _fail(f"unknown format {fmt!r}.")
    shape = node["shape"]
    if not (isinstance(shape, list) and len(shape) == 2
            and all(type(s) is int and s >= 0 for s in shape)):
        _fail(f"bad shape {shape!r}.")
    parts = {name: reader.decode(node[name]) for name in _PARTS[fmt]}
    if not all(isinstance(a, np.ndarray) for a in parts.values()):
        _fail("its parts must be arrays.")
    if parts["data"].dtype.str != node["dtype"]:
        _fail(f"data has dtype {parts['data'].dtype.str}, the manifest says {node['dtype']}.")
    _check_parts(fmt, shape, parts)
    kind = {"csr": sp.csr_array, "csc": sp.csc_array, "coo": sp.coo_array} if node["array"] \
        else {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix}
    if fmt == "coo":
        return kind[fmt]((parts["data"], (parts["row"], parts["col"])), shape=tuple(shape))
    return kind[fmt]((parts["data"], parts["indices"], parts["indptr"]), shape=tuple(shape))
