"""``kernelkit info``: what a model file holds (and the model-file loading the CLI shares).

Split from :mod:`kernelkit.cli` to keep each file short; ``cli`` re-exports every name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CLIError", "load_model", "cmd_info"]


class CLIError(Exception):
    """An error reported as one line, without a traceback."""


def load_model(path: str):
    from .. import io as kio

    p = Path(path)
    if not p.is_file():
        raise CLIError(f"model file not found: {path}")
    try:
        model = kio.load(p)
        manifest = kio.read_manifest(p, verify=False)
    except kio.FormatError as exc:
        raise CLIError(str(exc)) from exc
    return model, manifest.get("metadata") or {}


def _describe(value: Any) -> str:
    """A short readable form of a parameter or fitted attribute."""

    from .._spec import kernel_spec
    from ..kernels import Kernel

    if isinstance(value, np.ndarray):
        kind = "strings" if value.dtype == object else str(value.dtype)
        if value.size <= 6 and value.ndim <= 1:
            return f"array {value.tolist()!r}"
        return f"array {kind} {value.shape}"
    if isinstance(value, Kernel):
        return kernel_spec(value)
    if hasattr(value, "get_params"):
        text = repr(value)
        return " ".join(text.split())[:200]
    if isinstance(value, (list, tuple, dict)) and len(value) > 8:
        return f"{type(value).__name__} of {len(value)} items"
    text = " ".join(repr(value).split())
    return text if len(text) <= 200 else text[:197] + "..."


def cmd_info(args) -> int:
    from .. import io as kio

    model, _ = load_model(args.model_file)  # verifies every checksum
    p = Path(args.model_file)
    man = kio.read_manifest(p, verify=False)
    meta = man.get("metadata") or {}
    params = model.get_params(deep=False)
    state = {k: v for k, v in vars(model).items() if k not in params}
    cls = type(model)
    print(f"model file: {p} ({p.stat().st_size / 1024:.1f} KiB, {len(man['arrays'])} arrays,"
          " checksums ok)")
    print(f"class:      {cls.__module__}.{cls.__qualname__}")
    print(f"format:     {man['format']} version {man['format_version']}, written by "
          f"kernelkit {man.get('library_version', '?')}")
    if man.get("kernel"):
        print(f"kernel:     {man['kernel']}")
    print("parameters:")
    for k, v in params.items():
        print(f"  {k} = {_describe(v)}")
    print("fitted state:" if state else "fitted state: (not fitted)")
    for k, v in state.items():
        if not k.startswith("_"):  # private caches (e.g. a factor kept for partial_fit)
            print(f"  {k} = {_describe(v)}")
    if meta.get("features"):
        feats = [str(f) for f in meta["features"]]
        shown = ", ".join(feats[:10]) + (", ..." if len(feats) > 10 else "")
        target = f"; target {meta['target']!r}" if meta.get("target") else ""
        rows = f" ({meta['n_samples']} rows of {meta.get('data', '?')})" if meta.get(
            "n_samples") else ""
        print(f"trained on: {len(feats)} features [{shown}]{target}{rows}")
    return 0


# ------------------------------------------------------------------------------ main
