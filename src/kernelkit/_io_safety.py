"""The model-file checks of :mod:`kernelkit.io` that run before anything is allocated.

What a hostile or damaged file cannot get past: a manifest over ``MANIFEST_MAX`` bytes, a
member inflating more than ``MAX_RATIO`` times its stored size (a decompression bomb), a
dtype that is not a plain native numeric / string / datetime type, a shape that is not a
short list of non-negative integers, a ``.npy`` header that is not version 1 or 2 or longer
than 10,000 bytes. The errors are :mod:`kernelkit.io`'s (defined here, shown there).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from typing import Any

import numpy as np

__all__ = ["FormatError", "SerializationError", "NPY_HEADER_MAX", "MANIFEST_MAX", "MEMBER",
           "ZIP_ERRORS", "safe_dtype", "safe_shape", "check_stored", "check_ratio",
           "npy_header", "describe_foreign", "describe_cut_zip"]

NPY_HEADER_MAX = 1 << 16  # bytes of .npy header allowed beyond the array data
# a manifest is JSON of a few KB (arrays are members of their own); its parse costs about 10x
# its size in Python objects, so a cap of 8 MiB keeps a hostile one under ~100 MB
MANIFEST_MAX = 1 << 23
# deflate compresses at most ~1030:1; a large member inflating more than this many times
# its stored size is a decompression bomb, not data (a real model's arrays: 1-20:1)
MAX_RATIO, RATIO_FROM = 200, 1 << 26
DTYPE = re.compile(r"[<>|=]?[biufcUSMm][0-9]{0,6}(\[[a-zA-Z0-9]+\])?")
MEMBER = re.compile(r"arrays/[0-9]{5,9}\.npy")
# what reading a damaged member raises (a flipped bit in a version field: NotImplementedError)
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, EOFError)


class FormatError(ValueError):
    """A file that is not a valid kernelkit model file (or one this version cannot read)."""

    __module__ = "kernelkit.io"


class SerializationError(ValueError):
    """An object that cannot be stored without pickle; the message names the attribute."""

    __module__ = "kernelkit.io"



def safe_dtype(text: Any) -> np.dtype:
    """A plain numeric / string / datetime dtype in this machine's byte order, else refuse
    (object and void dtypes, records, the other byte order, absurd string lengths)."""
    if not isinstance(text, str) or not DTYPE.fullmatch(text):
        raise FormatError(f"Unsupported dtype {str(text)[:40]!r} in the manifest.")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError):
        raise FormatError(f"Unsupported dtype {text!r} in the manifest.") from None
    if not dtype.isnative:
        raise FormatError(f"Unsupported dtype {text!r} in the manifest: not this machine's "
                          "byte order (kernelkit writes native arrays).")
    return dtype


def safe_shape(shape: Any, name: str) -> list[int]:
    if not (isinstance(shape, list) and len(shape) <= 32 and all(
            type(s) is int and 0 <= s < 2**48 for s in shape)):
        raise FormatError(f"Member {name} has an invalid shape {str(shape)[:60]} in the "
                          "manifest.")
    return shape


def check_stored(zf: zipfile.ZipFile, zinfo: zipfile.ZipInfo, name: str) -> None:
    """A member's stored bytes must lie inside the archive, before its central directory:
    zipfile reads a member's claimed stored size in one call, so that one flipped bit of
    that size made a 4 kB file allocate 128 MB before the read came back short."""
    end = getattr(zf, "start_dir", None)
    if end is not None and zinfo.header_offset + zinfo.compress_size > end:
        raise FormatError(f"{name} claims {zinfo.compress_size} stored bytes, more than the "
                          "file holds (altered or truncated); refusing to load.")


def check_ratio(zinfo: zipfile.ZipInfo, name: str) -> None:
    if zinfo.file_size > RATIO_FROM and zinfo.file_size > MAX_RATIO * max(
            zinfo.compress_size, 1):
        raise FormatError(f"{name} would inflate {zinfo.compress_size} stored bytes to "
                          f"{zinfo.file_size} (a decompression bomb); refusing to load.")


def npy_header(zf: zipfile.ZipFile, name: str) -> tuple[int, np.dtype, tuple]:
    """(header length, dtype, shape) of a .npy member, reading its header only."""
    from numpy.lib import format as npy

    with zf.open(name) as fh:
        try:
            version = npy.read_magic(fh)
            read = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
            if version not in read:
                raise ValueError(f"unsupported .npy version {version}")
            shape, _, dtype = read[version](fh, max_header_size=10_000)
        except (ValueError, SyntaxError, TypeError, OverflowError, *ZIP_ERRORS) as exc:
            raise FormatError(f"Member {name} is not a plain .npy array ({exc}).") from None
        return fh.tell(), dtype, tuple(shape)


# leading bytes of files people mistake for model files (pickle protocol 2+ starts with
# 0x80 and the protocol number; joblib writes a pickle, raw or compressed)
_MAGIC = ((b"\x80", "looks like a pickle/joblib file"),
          (b"\x1f\x8b", "looks like a gzip file, e.g. a compressed pickle/joblib file"),
          (b"BZh", "looks like a bz2 file, e.g. a compressed pickle/joblib file"),
          (b"\xfd7zXZ", "looks like an xz file, e.g. a compressed pickle/joblib file"),
          (b"ZF", "looks like a zlib-compressed pickle/joblib file"),
          (b"\x93NUMPY", "looks like a NumPy .npy file"),
          (b"PAR1", "looks like a Parquet data file"))


_LOCAL, _CENTRAL, _END = b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06"


def describe_cut_zip(path, manifest: str) -> str | None:
    """Words for a file that starts as a ZIP archive but cannot be opened as one, else None.

    Such a file was cut short (an interrupted copy, download or disk): the archive's table of
    contents is at its end. The members' local headers are walked from the start (each names
    and sizes its member) to find where the file should go on: "at least N bytes" is the end
    of the member, or of the table of contents (46 bytes and the name per member, then a
    22-byte end record), that the file ends in. A file whose first member is ``manifest``
    is called a kernelkit model file.
    """
    try:
        with open(path, "rb") as fh:
            got = fh.seek(0, 2)
            pos, first, names, need, whole_name = 0, None, [], 0, True
            while True:
                fh.seek(pos)
                head = fh.read(30)
                if not head.startswith(_LOCAL):
                    break
                if len(head) < 30:  # the local header itself is cut
                    need, first = pos + 30, "" if first is None else first
                    break
                name_len, extra_len = (int.from_bytes(head[k:k + 2], "little") for k in (26, 28))
                size = int.from_bytes(head[18:22], "little")
                raw = fh.read(name_len)
                name = raw.decode("utf-8", "replace")
                if first is None:
                    first, whole_name = name, len(raw) == name_len
                names.append(name)
                need = pos + 30 + name_len + extra_len + size
                # cut inside this member, or its sizes are elsewhere (a data descriptor, or
                # ZIP64): no way to walk on
                if need > got or int.from_bytes(head[6:8], "little") & 8 or size == 0xFFFFFFFF:
                    break
                pos = need
    except OSError:
        return None
    if first is None:
        return None
    ours = first == manifest or not whole_name and first and manifest.startswith(first)
    what = "kernelkit model file" if ours else "ZIP archive"
    if pos == need:  # every member whole: the rest must be the table of contents
        if not (pos == got or _CENTRAL.startswith(head[:4]) or _END.startswith(head[:4])):
            return f"a damaged {what} (its members are not where their headers say)"
        need = pos + sum(46 + len(n.encode()) for n in names) + 22
        if need <= got:
            return f"a damaged {what} (its table of contents at the end cannot be read)"
    return (f"an incomplete {what}: it has {got} bytes where at least {need} were expected "
            "(cut short, e.g. by an interrupted copy, download or save)")


def describe_foreign(path) -> str:
    """What a file that is not a ZIP archive looks like, in words."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return "unreadable"
    if not head:
        return "the file is empty"
    for magic, words in _MAGIC:
        if head.startswith(magic):
            return words
    if head[:1] == b"x" and len(head) > 1 and (head[0] * 256 + head[1]) % 31 == 0:
        return "looks like a zlib-compressed pickle/joblib file"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "not a ZIP archive, or a truncated one"
    return "looks like a text file, e.g. CSV"
