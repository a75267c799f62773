"""``kernelkit predict`` in chunks: a CSV of any size in bounded memory.

A CSV (or TSV) input is read ``chunk_rows`` rows at a time; each chunk is predicted and its
rows written before the next is read, so memory holds one chunk of the input and of the
output whatever the file's size. A CSV output is written to a temporary file beside the
target and renamed at the end (:func:`kernelkit._core.files.atomic_write`): an error or an interrupt
leaves no partial file. Parquet and sparse inputs are read whole (their readers are not
row-streaming); a Parquet output gathers the predictions (a few columns) before writing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .data import (
    CSV_SUFFIXES,
    PARQUET_SUFFIXES,
    check_suffix,
    existing_data_file,
    feature_matrix,
    one_line,
    pandas_module,
    write_table,
)
from .info import CLIError

__all__ = ["csv_chunks", "is_streamable", "predict_frame", "frames_of_chunks", "write_frames",
           "DEFAULT_CHUNK_ROWS"]

DEFAULT_CHUNK_ROWS = 100_000


def csv_chunks(path: str, chunk_rows: int):
    """DataFrames of at most ``chunk_rows`` rows of a CSV/TSV file (one-line errors)."""
    p, suffix = existing_data_file(path)
    pd = pandas_module()
    try:
        reader = pd.read_csv(p, sep="\t" if suffix == ".tsv" else ",", chunksize=chunk_rows)
        seen = False
        for chunk in reader:
            chunk.columns = [str(c) for c in chunk.columns]
            seen = True
            yield chunk
    except CLIError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser error becomes one line
        raise CLIError(f"cannot read {path} as CSV: {one_line(exc)}") from None
    if not seen:
        raise CLIError(f"data file {path} has no rows")


def is_streamable(path: str) -> bool:
    return Path(path).suffix.lower() in CSV_SUFFIXES


def predict_frame(model, X, *, std: bool, digits: int | None):
    """The output table of one block of rows: predictions (and std), or components."""
    import numpy as np

    pd = pandas_module()
    name = type(model).__name__
    try:
        if hasattr(model, "predict"):
            if std:
                mean, sd = model.predict(X, return_std=True)
                out = pd.DataFrame({"prediction": np.asarray(mean), "std": np.asarray(sd)})
            else:
                pred = np.asarray(model.predict(X))
                out = pd.DataFrame(
                    {"prediction": pred} if pred.ndim == 1 else
                    {f"prediction_{j + 1}": pred[:, j] for j in range(pred.shape[1])})
        elif hasattr(model, "transform"):
            Z = np.asarray(model.transform(X))
            out = pd.DataFrame({f"component_{j + 1}": Z[:, j] for j in range(Z.shape[1])})
        else:
            raise CLIError(f"{name} has neither predict nor transform")
    except CLIError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise CLIError(f"predicting with {name} failed: {one_line(exc)}") from exc
    if digits is not None:  # e.g. for reading: the same digits on every machine
        out = out.map(lambda v: float(f"{v:.{digits}g}") if isinstance(v, float) else v)
    return out


def frames_of_chunks(model, chunks, features_of, path, *, std, digits):
    """Output tables, one per input chunk (the feature columns checked on the first)."""
    features = None
    for chunk in chunks:
        if features is None:
            features = features_of(chunk)
        yield predict_frame(model, feature_matrix(chunk, features, path), std=std,
                            digits=digits)


def write_frames(frames, out: str | None) -> int:
    """Write the tables one after the other (one header) to ``out`` or stdout; the rows."""
    from .._core.files import atomic_write

    count = 0

    def write(fh, sep=","):
        nonlocal count
        for i, frame in enumerate(frames):
            frame.to_csv(fh, index=False, header=i == 0, sep=sep, lineterminator="\n")
            count += len(frame)

    if out is None:  # full precision unless --digits
        write(sys.stdout)
        return count
    p = Path(out)
    suffix = check_suffix(p, "output file")
    if suffix in PARQUET_SUFFIXES:
        pd = pandas_module()
        table = pd.concat(list(frames), ignore_index=True)
        write_table(table, out)
        return len(table)
    atomic_write(p, lambda fh: write(fh, "\t" if suffix == ".tsv" else ","), mode="w")
    return count
