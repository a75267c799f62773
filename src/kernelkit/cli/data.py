"""Tables for the ``kernelkit`` command: CSV/Parquet files read and written with pandas.

One-line :class:`~kernelkit.cli.info.CLIError` messages for every problem (missing file or
column, non-numeric or missing values), as the command reports them.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from .info import CLIError

__all__ = ["CSV_SUFFIXES", "PARQUET_SUFFIXES", "read_table", "feature_matrix", "write_table",
           "check_missing", "check_suffix", "column", "non_numeric", "one_line",
           "pandas_module", "existing_data_file"]

CSV_SUFFIXES = {".csv", ".txt", ".tsv"}
PARQUET_SUFFIXES = {".parquet", ".pq"}


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def pandas_module():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the 'io' extra
        raise CLIError("reading data files needs pandas: pip install 'kernelkit[io]'") from None
    return pd


def check_suffix(path: Path, what: str) -> str:
    suffix = path.suffix.lower()
    if suffix not in CSV_SUFFIXES | PARQUET_SUFFIXES:
        raise CLIError(
            f"{what} {path}: unsupported file type {suffix or '(none)'!r}; use .csv or .parquet"
        )
    return suffix


def existing_data_file(path: str) -> tuple[Path, str]:
    """``(path, suffix)`` of a data file that exists and has a CSV/Parquet suffix."""
    p = Path(path)
    suffix = check_suffix(p, "data file")
    if not p.is_file():
        raise CLIError(f"data file not found: {path}")
    return p, suffix


def read_table(path: str):
    """A pandas DataFrame from a CSV or Parquet file, with one-line errors."""
    p, suffix = existing_data_file(path)
    pd = pandas_module()
    try:
        if suffix in PARQUET_SUFFIXES:
            df = pd.read_parquet(p)
        else:
            df = pd.read_csv(p, sep="\t" if suffix == ".tsv" else ",")
    except ImportError as exc:
        raise CLIError(f"reading {path} needs pyarrow: pip install 'kernelkit[io]' ({exc})"
                       ) from None
    except Exception as exc:  # noqa: BLE001 - any parser error becomes one line
        kind = "Parquet" if suffix in PARQUET_SUFFIXES else "CSV"
        raise CLIError(f"cannot read {path} as {kind}: {one_line(exc)}") from None
    if len(df) == 0:
        raise CLIError(f"data file {path} has no rows")
    df.columns = [str(c) for c in df.columns]
    return df


def close_name(name: str, names: list[str]) -> str | None:
    """The one of ``names`` that ``name`` is a likely misspelling of, or None: the same up
    to case and spaces, or at least 80% alike (difflib's ratio: 'lable' for 'label', not
    'age' for 'target')."""
    key = "".join(name.split()).lower()
    for other in names:
        if "".join(other.split()).lower() == key:
            return other
    hint = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    return hint[0] if hint else None


def column(df, name: str, path: str, what: str = "column"):
    """``df[name]``; else a CLIError saying that the ``what`` (e.g. "target column") is not
    in the file, listing the columns it has and a close name only if one is close."""
    if name not in df.columns:
        names = list(df.columns)
        hint = close_name(name, names)
        extra = f"; did you mean {hint!r}?" if hint else ""
        cols = ", ".join(map(repr, names[:20])) + (
            f", ... ({len(names)} columns)" if len(names) > 20 else "")
        raise CLIError(f"{what} {name!r} is not in {path}{extra} (its columns: {cols})")
    return df[name]


def check_missing(col, name: str, path: str) -> None:
    bad = col.isna().to_numpy()
    if bad.any():
        rows = ", ".join(str(i + 1) for i in bad.nonzero()[0][:5])  # data rows, from 1
        raise CLIError(
            f"column {name!r} in {path} has {int(bad.sum())} missing value(s) (row "
            f"{rows}{', ...' if bad.sum() > 5 else ''}); fill or drop them"
        )


def non_numeric(col) -> str:
    """`` (line N: 'value')`` for the first value of ``col`` that is not a number."""
    pd = pandas_module()
    bad = col[pd.to_numeric(col, errors="coerce").isna() & col.notna()]
    i = int(col.index.get_loc(bad.index[0])) + 1 if len(bad) else 0  # data rows, from 1
    return f" (row {i}: {str(bad.iloc[0])!r})" if len(bad) else ""


def feature_matrix(df, columns: list[str], path: str):
    """The float64 feature matrix of ``columns``; names the first non-numeric column."""
    import numpy as np

    pd = pandas_module()
    for name in columns:
        col = column(df, name, path, "feature column")
        if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
            raise CLIError(
                f"column {name!r} in {path} is not numeric{non_numeric(col)}; encode it as "
                "numbers or leave it out with --features"
            )
        check_missing(col, name, path)
    return np.ascontiguousarray(df[columns].to_numpy(dtype=np.float64))


def write_table(df, path: str) -> None:
    """Write ``df`` to CSV/Parquet atomically (nothing is left behind on failure)."""
    from .._core.files import atomic_write

    p = Path(path)
    suffix = check_suffix(p, "output file")
    if not p.parent.is_dir():
        raise CLIError(f"cannot write {path}: folder {p.parent} does not exist")
    if suffix in PARQUET_SUFFIXES:
        atomic_write(p, lambda fh: df.to_parquet(fh, index=False))
    else:
        sep = "\t" if suffix == ".tsv" else ","
        atomic_write(p, lambda fh: df.to_csv(fh, index=False, sep=sep, lineterminator="\n"),
                     mode="w")
