"""The ``kernelkit`` command's parser and subcommands (:func:`dispatch`): the commands, the
data files they read and the rule for errors are described in :mod:`kernelkit.cli`, which
holds the entry points and their signal handling."""

from __future__ import annotations

import argparse
import difflib
import inspect
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

__all__ = ["build_parser", "dispatch"]

DATA_HELP = "CSV or Parquet file, or sparse: .npz (scipy save_npz) or LibSVM (.svm)"
# names that resolve_kernel understands as strings (sklearn.metrics.pairwise spelling)
KERNEL_NAMES = {"linear", "poly", "polynomial", "rbf", "laplacian", "precomputed", "sigmoid",
                "cosine", "chi2", "additive_chi2"}


from .data import (  # noqa: E402
    CSV_SUFFIXES,
    PARQUET_SUFFIXES,
    feature_matrix,
    read_table,
)
from .data import check_missing as _check_missing  # noqa: E402
from .data import check_suffix as _suffix  # noqa: E402
from .data import column as _column  # noqa: E402
from .data import non_numeric as _non_numeric  # noqa: E402
from .data import one_line as _one_line  # noqa: E402
from .data import pandas_module as _pandas  # noqa: E402
from .info import CLIError, cmd_info, load_model  # noqa: E402
from .signals import interrupted  # noqa: E402
from .sparse import is_sparse_file, read_sparse, sparse_target  # noqa: E402
from .stream import (  # noqa: E402
    DEFAULT_CHUNK_ROWS,
    csv_chunks,
    frames_of_chunks,
    is_streamable,
    predict_frame,
    write_frames,
)


class _UsageError(CLIError):
    pass


class _Parser(argparse.ArgumentParser):
    lists_models = False  # `kernelkit fit --help` ends with the list of models

    def error(self, message):  # one line instead of usage + message
        raise _UsageError(f"{message} (see '{self.prog} --help')")

    def format_help(self) -> str:
        text = super().format_help()
        return text + "\n" + models_help() if self.lists_models else text


def model_names() -> tuple[list[str], list[str]]:
    """``(top-level estimators, weak learners and structured models)`` that ``fit`` takes."""
    import importlib

    from sklearn.base import BaseEstimator

    import kernelkit

    top = sorted(n for n in kernelkit.__all__ if n[:1].isupper())
    sub = []
    for module in SUBPACKAGE_MODELS:
        mod = importlib.import_module(module)
        sub += [n for n in getattr(mod, "__all__", []) if n[:1].isupper()
                and _subpackage_model(n) == (module, n)
                and issubclass(getattr(mod, n), BaseEstimator)]  # not protocols
    return top, sorted(set(sub) - set(top))


def models_help() -> str:
    """The models paragraph of ``kernelkit fit --help``."""
    import textwrap

    top, sub = model_names()
    return "\n".join(["models (case-insensitive):",
                      textwrap.fill(", ".join(top), 88, initial_indent="  ",
                                    subsequent_indent="  "),
                      "weak learners and structured models:",
                      textwrap.fill(", ".join(sub), 88, initial_indent="  ",
                                    subsequent_indent="  "), ""])


# ------------------------------------------------------------------------- estimators
# subpackages whose public estimators are not top-level names (weak learners, structured)
SUBPACKAGE_MODELS = ("kernelkit.ensemble", "kernelkit.structured")


def _subpackage_model(name: str) -> tuple[str, str] | None:
    """``(module, Name)`` of an estimator with ``predict`` in :data:`SUBPACKAGE_MODELS`
    (oracles and abstract bases excluded), matched case-insensitively."""
    import importlib

    for module in SUBPACKAGE_MODELS:
        try:
            mod = importlib.import_module(module)
        except ImportError:  # pragma: no cover
            continue
        names = {n.lower(): n for n in getattr(mod, "__all__", []) if n[:1].isupper()}
        match = names.get(name.lower())
        if match is None:
            continue
        cls = getattr(mod, match, None)
        if isinstance(cls, type) and hasattr(cls, "predict") and not hasattr(cls, "argmax"):
            return module, match
    return None


def model_name(name: str) -> str:
    """The public estimator name matching ``name`` (case-insensitive), or a one-line error.

    Top-level names are looked up without importing anything (they are lazy exports of
    :mod:`kernelkit`); weak learners and structured models (``DecisionTree``,
    ``StructuredSVM``) are found in their subpackages.
    """
    import kernelkit

    names = [n for n in kernelkit.__all__ if n[:1].isupper()]
    match = name if name in names else {n.lower(): n for n in names}.get(name.lower())
    if match is None:
        sub = _subpackage_model(name)
        if sub is not None:
            return sub[1]
        hint = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise CLIError(f"unknown model {name!r}{extra} (models: {', '.join(sorted(names))}; "
                       "also the weak learners of kernelkit.ensemble and the models of "
                       "kernelkit.structured)")
    return match


def estimator_class(name: str) -> type:
    """The public estimator class called ``name`` (only its own module is imported)."""
    import importlib

    from sklearn.base import BaseEstimator

    import kernelkit

    found = model_name(name)
    if found in kernelkit.__all__:
        cls = getattr(kernelkit, found)
    else:
        module, found = _subpackage_model(found)
        cls = getattr(importlib.import_module(module), found)
    if not (isinstance(cls, type) and issubclass(cls, BaseEstimator)):
        raise CLIError(f"{name!r} is not an estimator")
    return cls


def _spec_namespace() -> dict[str, Any]:
    """Classes that a ``--param`` spec may construct: kernels, estimators, weak learners,
    oracles and losses, all from kernelkit."""
    import importlib

    from .. import kernels

    names = {}
    for module in ("kernelkit", "kernelkit.ensemble", "kernelkit.structured",
                   "kernelkit.losses"):
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        for n in getattr(mod, "__all__", []):
            try:
                obj = getattr(mod, n)
            except (AttributeError, ImportError):
                continue
            if isinstance(obj, type):
                names[n] = obj
    for n in kernels.__all__:
        obj = getattr(kernels, n)
        if isinstance(obj, type) and issubclass(obj, kernels.Kernel) and obj is not kernels.Kernel:
            names[n] = obj
    return names


_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}
_SPEC = re.compile(r"^\(*\s*([0-9.eE+-]+\s*\*\s*)?[A-Z]\w*\s*(\(.*\))?")


def _literal(text: str) -> Any:
    import ast

    if text.lower() in ("none", "null"):
        return None
    if text.lower() in ("inf", "+inf", "-inf", "nan", "infinity", "-infinity"):
        return float(text)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def convert_param(cls: type, name: str, text: str) -> Any:
    """Parse ``text`` for parameter ``name`` of ``cls``, checked against its default."""
    from .._spec import parse_spec

    sig = inspect.signature(cls.__init__)
    default = sig.parameters[name].default
    empty = inspect.Parameter.empty
    text = text.strip()
    kind = (
        "a kernel" if name == "kernel" or name.endswith("_kernel")
        else "true or false" if isinstance(default, bool)
        else "an integer" if isinstance(default, int)
        else "a number" if isinstance(default, float)
        else None
    )
    if kind == "true or false":
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise CLIError(f"parameter {name!r} of {cls.__name__} expects true or false; got "
                       f"{text!r}")
    if kind == "a kernel" and text.lower() in KERNEL_NAMES:
        return text.lower()
    if _SPEC.match(text) and text.lower() not in ("none", "true", "false"):
        try:
            value = parse_spec(text, _spec_namespace())
        except ValueError as exc:
            raise CLIError(f"parameter {name!r}: {exc}") from None
        if kind in ("an integer", "a number"):
            raise CLIError(f"parameter {name!r} of {cls.__name__} expects {kind}; got {text!r}")
        return value
    value = _literal(text)
    if value is text and text[:1] in "[(" and re.search(r"[A-Z]\w*\s*\(", text):
        # a list or tuple of specs, e.g. estimators=[KernelPerceptron(), AdaBoost()]
        try:
            return parse_spec(text, _spec_namespace())
        except ValueError as exc:
            raise CLIError(f"parameter {name!r}: {exc}") from None
    if name == "random_state" and not (value is None or (isinstance(value, int)
                                                          and not isinstance(value, bool))):
        raise CLIError(f"parameter 'random_state' of {cls.__name__} expects an integer or "
                       f"None; got {text!r}")
    if name.endswith("_params") and not (value is None or isinstance(value, dict)):
        raise CLIError(f"parameter {name!r} of {cls.__name__} expects a dict such as "
                       f"\"{{'gamma': 0.5}}\" or None; got {text!r}")
    if value is None or default is empty or default is None:
        return value
    if kind == "an integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise CLIError(f"parameter {name!r} of {cls.__name__} expects an integer; got {text!r}")
    if kind == "a number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise CLIError(f"parameter {name!r} of {cls.__name__} expects a number; got {text!r}")
    if isinstance(default, (tuple, list)) and not isinstance(value, (tuple, list)):
        raise CLIError(f"parameter {name!r} of {cls.__name__} expects a list such as "
                       f"{list(default)!r}; got {text!r}")
    if kind == "a kernel" and isinstance(value, str):
        from .. import kernels

        classes = [n for n in kernels.__all__ if n[:1].isupper()]
        hint = difflib.get_close_matches(text.lower(), sorted(KERNEL_NAMES), n=1, cutoff=0.6)
        if not hint:
            lower = {n.lower(): n for n in classes}
            hint = [f"{lower[h]}()" for h in difflib.get_close_matches(
                text.lower(), list(lower), n=1, cutoff=0.6)]
        guess = f"; did you mean {hint[0]!r}?" if hint else ";"
        raise CLIError(
            f"parameter {name!r}: unknown kernel {text!r}{guess} use one of "
            f"{', '.join(sorted(KERNEL_NAMES))} or a spec such as 'RBF(length_scale=2.0)'"
        )
    return value


def parse_params(cls: type, items: list[str]) -> dict[str, Any]:
    """``name=value`` strings to constructor keyword arguments, with one-line errors."""
    sig = inspect.signature(cls.__init__)
    valid = [p for p in sig.parameters if p != "self"]
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise CLIError(f"--param expects NAME=VALUE; got {item!r}")
        name, text = (s.strip() for s in item.split("=", 1))
        if name not in valid:
            hint = difflib.get_close_matches(name, valid, n=1)
            extra = f"; did you mean {hint[0]!r}?" if hint else ""
            raise CLIError(f"unknown parameter {name!r} for {cls.__name__}{extra} "
                           f"(parameters: {', '.join(valid)})")
        if name in out:
            raise CLIError(f"parameter {name!r} is given twice")
        out[name] = convert_param(cls, name, text)
    return out


def _kind(model) -> str:
    from sklearn.base import is_classifier, is_outlier_detector, is_regressor

    if is_classifier(model):
        return "classifier"
    if is_regressor(model):
        return "regressor"
    if is_outlier_detector(model):
        return "outlier detector"
    fit_y = inspect.signature(model.fit).parameters.get("y")
    if fit_y is not None and fit_y.default is inspect.Parameter.empty and hasattr(model,
                                                                                 "predict"):
        return "structured predictor"  # e.g. StructuredSVM(oracle=MulticlassOracle())
    return "transformer"


# --------------------------------------------------------------------------- commands
def cmd_demo(args) -> int:
    from ..report.runner import run_demo

    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {args.out} is a file; give a folder for report.html")
    try:
        result = run_demo(args.out, quick=args.quick, only=only, random_state=args.seed,
                          debug=args.debug)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    if not result.ok:
        names = ", ".join(r.name for r in result.failed)
        print(f"kernelkit: error: demo section(s) failed: {names} (details in "
              f"{result.html_path})", file=sys.stderr)
        return 1
    return 0


def cmd_warmup(args) -> int:
    """Fit every estimator once on a tiny problem so that numba's cache files exist."""
    from ..warmup import warm_up

    print("kernelkit warmup: compiling the numba code of every estimator once (cached on "
          "disk; later processes load it in milliseconds)", flush=True)
    seconds = warm_up(sys.stdout)
    print(f"done in {seconds:.1f} s")
    return 0


def cmd_fit(args) -> int:
    from .. import io as kio

    model_name(args.model)
    out = Path(args.out)
    _suffix_model(out)
    if out.is_dir():
        raise CLIError(f"cannot write {args.out}: it is a folder; give a file name such as "
                       f"{out / 'model.kkm'}")
    if not out.parent.is_dir():
        raise CLIError(f"cannot write {args.out}: folder {out.parent} does not exist")
    # data first (cheap: no estimator imported yet), then the model and its parameters
    sparse = is_sparse_file(args.data)
    if sparse:  # .npz / LibSVM: X stays sparse; the target is a file or the file's labels
        X, labels, extra = read_sparse(args.data)
        features = None
    else:
        X, ycol, features = _table_data(args)
    cls = estimator_class(args.model)
    params = parse_params(cls, args.param or [])
    try:
        model = cls(**params)
    except Exception as exc:  # noqa: BLE001
        raise CLIError(f"cannot create {cls.__name__}: {_one_line(exc)}") from None
    kind = _kind(model)
    supervised = kind in ("classifier", "regressor", "structured predictor")
    if args.target is None and supervised and not (sparse and labels is not None):
        raise CLIError(f"{cls.__name__} is a {kind}: give the target "
                       f"{'file' if sparse else 'column'} with --target")
    if args.target is None and not args.features and not sparse:
        _warn_target_like(features, cls.__name__, args.data)
    y = None
    if sparse and supervised:
        y = sparse_target(args.target, labels, X.shape[0], args.data, kind, read_table)
    elif args.target is not None and kind != "transformer" and not sparse:
        y = _target(ycol, args.target, args.data, kind)
    start = time.perf_counter()
    try:
        model.fit(X) if y is None else model.fit(X, y)
    except Exception as exc:  # noqa: BLE001
        raise CLIError(f"fitting {cls.__name__} failed: {_one_line(exc)}") from exc
    seconds = time.perf_counter() - start
    meta = {"features": features, "target": args.target if y is not None else None,
            "n_samples": int(X.shape[0]), "data": Path(args.data).name, "kind": kind,
            **(extra if sparse else {})}
    kio.save(model, out, metadata=meta)
    target = f", target {args.target!r}" if args.target is not None and y is not None else ""
    print(f"fitted {cls.__name__} on {X.shape[0]} rows x {X.shape[1]} features{target} in "
          f"{seconds:.2f} s -> {out}")
    return 0


def _table_data(args):
    """(X, target column or None, feature names) of a CSV/Parquet file."""
    df = read_table(args.data)
    ycol = None
    if args.target is not None:
        ycol = _column(df, args.target, args.data, "target column")
        _check_missing(ycol, args.target, args.data)
    if args.features:
        features = [c.strip() for c in args.features.split(",") if c.strip()]
    else:
        features = [c for c in df.columns if c != args.target]
    if args.target in features:
        raise CLIError(f"column {args.target!r} cannot be both the target and a feature")
    if not features:
        raise CLIError(f"{args.data} has no feature columns besides the target")
    return feature_matrix(df, features, args.data), ycol, features


def _data_matrix(model, meta: dict, path: str):
    """(X, LibSVM labels or None, table or None) for predict/evaluate: a sparse file read
    as the model's was, or the model's feature columns of a table."""
    if is_sparse_file(path):
        X, labels, _ = read_sparse(path, n_features=getattr(model, "n_features_in_", None),
                                   zero_based=meta.get("svmlight_zero_based"))
        return X, labels, None
    df = read_table(path)
    return feature_matrix(df, _model_features(model, meta, df, path), path), None, df


# column names that usually hold a target, not a feature
TARGET_NAMES = {"target", "y", "label", "labels", "class", "classes", "outcome", "response",
                "species", "diagnosis", "price", "survived"}


def _warn_target_like(features: list[str], model: str, path: str) -> None:
    """An unsupervised fit on all columns: say so when one of them looks like a target."""
    suspects = [c for c in features if str(c).strip().lower() in TARGET_NAMES]
    if suspects:
        rest = ",".join(str(c) for c in features if c != suspects[0])
        example = f" (e.g. --features {rest})" if 0 < len(rest) <= 60 else ""
        warnings.warn(
            f"{model} is fitted on every column of {path}, including {suspects[0]!r}, which "
            f"looks like a target; pass --features to choose the feature columns{example}",
            UserWarning, stacklevel=2)


def _suffix_model(path: Path) -> None:
    if path.suffix.lower() in CSV_SUFFIXES | PARQUET_SUFFIXES:
        raise CLIError(f"--out {path} looks like a data file; a model file is written there "
                       "(use e.g. model.kkm)")


def _target(col, name: str, path: str, kind: str):
    import numpy as np

    pd = _pandas()
    if kind == "regressor":
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise CLIError(f"target column {name!r} in {path} is not numeric"
                           f"{_non_numeric(col)}; a regressor needs numbers")
        return col.to_numpy(dtype=np.float64)
    values = col.to_numpy()
    if values.dtype == object:
        values = values.astype(str)
    return values


def _model_features(model, meta: dict, df, path: str) -> list[str]:
    features = meta.get("features")
    if features is None and hasattr(model, "feature_names_in_"):
        features = [str(c) for c in model.feature_names_in_]
    if features is None:
        n = getattr(model, "n_features_in_", None)
        features = [c for c in df.columns if c != meta.get("target")]
        if n is not None and len(features) != n:
            raise CLIError(f"the model expects {n} feature columns; {path} has {len(features)}"
                           " (the model file does not name its columns)")
    return [str(f) for f in features]


def cmd_predict(args) -> int:
    if args.out is not None:
        out = Path(args.out)
        if out.is_dir():
            raise CLIError(f"cannot write {args.out}: it is a folder")
        _suffix(out, "output file")
        if not out.parent.is_dir():
            raise CLIError(f"cannot write {args.out}: folder {out.parent} does not exist")
    if args.digits is not None and args.digits < 1:
        raise CLIError(f"--digits expects a positive integer; got {args.digits}")
    if args.chunk_rows < 1:
        raise CLIError(f"--chunk-rows expects a positive integer; got {args.chunk_rows}")
    model, meta = load_model(args.model)
    name = type(model).__name__
    if args.std:
        predict = getattr(model, "predict", None)
        if predict is None or "return_std" not in inspect.signature(predict).parameters:
            raise CLIError(f"{name} cannot give a standard deviation (--std): its predict has "
                           "no return_std")
    if not is_sparse_file(args.data) and is_streamable(args.data):
        # a CSV of any size: a chunk of rows at a time, in bounded memory
        frames = frames_of_chunks(
            model, csv_chunks(args.data, args.chunk_rows),
            lambda df: _model_features(model, meta, df, args.data), args.data,
            std=args.std, digits=args.digits)
    else:
        X = _data_matrix(model, meta, args.data)[0]
        frames = iter([predict_frame(model, X, std=args.std, digits=args.digits)])
    count = write_frames(frames, args.out)
    if args.out is not None:
        print(f"wrote {count} predictions to {args.out}", file=sys.stderr)
    return 0


def cmd_evaluate(args) -> int:
    import numpy as np
    from sklearn import metrics

    model, meta = load_model(args.model)
    name = type(model).__name__
    kind = meta.get("kind") or _kind(model)
    X, labels, df = _data_matrix(model, meta, args.data)
    if kind == "transformer":
        raise CLIError(f"{name} is a transformer: there is nothing to evaluate against a target")
    if df is None:  # a sparse file: --target FILE or its LibSVM labels
        y = sparse_target(args.target, labels, X.shape[0], args.data, kind, read_table)
    else:
        if args.target is None:
            raise CLIError(f"give the target column of {args.data} with --target")
        ycol = _column(df, args.target, args.data, "target column")
        _check_missing(ycol, args.target, args.data)
        y = _target(ycol, args.target, args.data, kind)
    _check_labels(model, kind, y, args.target, args.data)
    try:
        pred = np.asarray(model.predict(X))
    except Exception as exc:  # noqa: BLE001
        raise CLIError(f"predicting with {name} failed: {_one_line(exc)}") from exc
    lines = [("model", name), ("rows", len(y))]
    if kind == "regressor":
        lines += [("r2", metrics.r2_score(y, pred)),
                  ("rmse", float(np.sqrt(metrics.mean_squared_error(y, pred)))),
                  ("mae", metrics.mean_absolute_error(y, pred))]
    else:
        if pred.dtype.kind in "iufb" and y.dtype.kind in "iufb":
            acc = float(np.mean(pred == y))
        else:  # labels read from a file are strings; compare as such
            acc = float(np.mean(pred.astype(str) == y.astype(str)))
        lines += [("accuracy", float(acc)), ("error_rate", 1.0 - float(acc))]
    for key, value in lines:
        print(f"{key}: {value:.6g}" if isinstance(value, float) else f"{key}: {value}")
    return 0


def _check_labels(model, kind: str, y, name: str, path: str) -> None:
    """Refuse a target column that shares no label with the model (accuracy would be 0
    for a reason that is not the model's)."""
    import numpy as np

    if kind == "outlier detector":
        labels = np.array([-1, 1])
    elif kind == "classifier" and getattr(model, "classes_", None) is not None:
        labels = np.asarray(model.classes_)
    else:
        return
    if y.dtype.kind == "f" and labels.dtype.kind in "iub" and np.all(y == np.round(y)):
        y = y.astype(np.int64)  # numbers read as floats (1.0) match integer labels (1)
    seen = np.unique(y.astype(str))
    known = np.unique(labels.astype(str))
    if not np.isin(seen, known).any():
        shown = ", ".join(map(str, known[:10])) + (", ..." if len(known) > 10 else "")
        raise CLIError(
            f"target column {name!r} in {path} has none of the labels the model predicts "
            f"({shown}); choose the column the model was trained on"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kernelkit",
        description="Kernel methods, Gaussian processes and boosting: demo report, and "
                    "fit/predict/evaluate models on CSV or Parquet files.",
        epilog="Add --debug to any command to see the full traceback of an error.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"kernelkit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND")

    p = sub.add_parser("demo", help="tour of every model on bundled data; writes report.html")
    p.add_argument("--out", default="kernelkit-report", metavar="DIR",
                   help="folder for report.html (default: kernelkit-report)")
    p.add_argument("--quick", action="store_true", help="small data: under a minute")
    p.add_argument("--only", metavar="SECTIONS", help="comma-separated section names")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("fit", help="fit a model on a data file and save it")
    p.add_argument("model", metavar="MODEL", help="estimator name, e.g. KernelRidge")
    p.add_argument("--data", required=True, metavar="FILE", help=DATA_HELP)
    p.add_argument("--target", metavar="COLUMN",
                   help="target column (required for classifiers and regressors); for .npz "
                        "data a target file (.npy or one-column CSV); LibSVM files hold it")
    p.add_argument("--features", metavar="COLUMNS",
                   help="comma-separated feature columns (default: all but the target)")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="constructor parameter, e.g. alpha=0.1 or kernel='RBF(length_scale=2)'"
                        " (repeatable)")
    p.add_argument("--out", required=True, metavar="MODEL_FILE", help="model file to write")
    p.lists_models = True
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("--model", required=True, metavar="MODEL_FILE")
    p.add_argument("--data", required=True, metavar="FILE", help=DATA_HELP)
    p.add_argument("--out", metavar="FILE", help="CSV or Parquet output (default: stdout CSV)")
    p.add_argument("--std", action="store_true",
                   help="also the predictive standard deviation (Gaussian processes)")
    p.add_argument("--digits", type=int, metavar="N",
                   help="round to N significant digits (default: full precision)")
    p.add_argument("--chunk-rows", type=int, default=DEFAULT_CHUNK_ROWS, metavar="N",
                   help="rows of a CSV read, predicted and written at a time: any file size "
                        f"in bounded memory (default: {DEFAULT_CHUNK_ROWS:,})")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("evaluate", help="score a saved model on labelled data")
    p.add_argument("--model", required=True, metavar="MODEL_FILE")
    p.add_argument("--data", required=True, metavar="FILE", help=DATA_HELP)
    p.add_argument("--target", metavar="COLUMN",
                   help="target column (a target file for .npz; not needed for LibSVM)")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("warmup", help="compile kernelkit's numba code once (make demo and "
                                      "make test run this after installing)")
    p.set_defaults(func=cmd_warmup)

    p = sub.add_parser("info", help="describe a saved model (and verify its checksums)")
    p.add_argument("model_file", metavar="MODEL_FILE")
    p.set_defaults(func=cmd_info)
    return parser


def dispatch(argv: list[str] | None) -> int:
    """Parse ``argv`` and run its command; returns the exit status (an interrupt: 130, or 143
    for SIGTERM raised as :class:`~kernelkit.cli.signals.Terminated`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    parser = build_parser()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args = parser.parse_args(argv)
            args.debug = debug
            return int(args.func(args) or 0)
        except _UsageError as exc:
            print(f"kernelkit: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as exc:
            return interrupted(exc)
        except BrokenPipeError:  # e.g. `kernelkit predict ... | head`: stop quietly
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        except Exception as exc:  # noqa: BLE001 - one line unless --debug
            if debug:
                import traceback

                traceback.print_exc()
            msg = str(exc) if isinstance(exc, CLIError) else (
                f"{type(exc).__name__}: {_one_line(exc)}" if not isinstance(
                    exc, (ValueError, OSError)) else _one_line(exc))
            print(f"kernelkit: error: {' '.join(msg.split())}", file=sys.stderr)
            return 1


def _show_warning(message, category, filename, lineno, file=None, line=None):
    text = " ".join(str(message).split())
    print(f"kernelkit: warning: {category.__name__}: {text}", file=sys.stderr)

