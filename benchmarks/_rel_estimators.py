"""Generated inputs for every public estimator (reliability campaign, part "estimators").

Hypothesis draws a case -- X with extreme magnitudes (1e+-150, subnormals), constant and
duplicated columns and rows, n in {1, 2, 3} and small n, d = 1 and d >> n, int / bool /
float16 / float32 / float64 / object dtypes, Fortran order, read-only and strided views,
pandas frames with nullable Int64, category and datetime columns, huge / tiny / zero
``sample_weight``, labels of mixed types, one class -- and fits the estimator with its
default parameters. A case ends in exactly one of

``fitted``
    and then its outputs keep their invariants: predictions, scores, probabilities,
    transforms finite and of the right shape; probabilities in [0, 1] summing to 1; classes
    among the training labels; GP standard deviations >= 0; kernel PCA eigenvalues >= 0;
    AdaBoost's training error <= prod Z_t;
``refused``
    a ValueError / TypeError raised by kernelkit's or scikit-learn's input validation (the
    frame that raised it lies in the imported kernelkit package's folder or in scikit-learn's
    validation modules: :func:`clear_sources`);
``failure``
    anything else: another exception type, a raw error from NumPy / SciPy / numba internals,
    a LinAlgError, NaN or inf output, a broken invariant, a fit over ``MAX_S`` seconds.
"""

from __future__ import annotations

import functools
import os
import time
import traceback
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed
from hypothesis import strategies as st

from ._reliability import Table

MAX_S = 10.0
SCALES = [1.0, 1e150, 1e-150, 5e-324, 1e-310, 1e300, 1e-3, 1e8]


@dataclass
class Case:
    X: object
    y: object
    sample_weight: object
    what: str


def estimators():
    from kernelkit.utils import all_estimators

    return all_estimators()


def _kind(cls) -> str:
    from sklearn.base import is_classifier, is_outlier_detector, is_regressor

    est = _make(cls)
    if is_classifier(est):
        return "classifier"
    if is_regressor(est):
        return "regressor"
    if is_outlier_detector(est):
        return "outlier"
    return "transformer"


def _make(cls):
    if cls.__name__ == "MajorityVote":  # no default members: the contract's instance
        return cls(**cls._test_params[0])
    return cls()


# ------------------------------------------------------------------------------ strategies
@st.composite
def _matrix(draw, n: int, d: int):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(n, d))
    what = []
    scale = draw(st.sampled_from(SCALES))
    if scale != 1.0:
        if draw(st.booleans()):
            X *= scale
            what.append(f"x{scale:g}")
        else:  # one column at that scale
            X[:, draw(st.integers(0, d - 1))] *= scale
            what.append(f"col x{scale:g}")
    if d > 1 and draw(st.booleans()):
        X[:, draw(st.integers(0, d - 1))] = draw(st.sampled_from([0.0, 1.0, -3.5, 1e200]))
        what.append("const col")
    if d > 1 and draw(st.booleans()):
        X[:, 1] = X[:, 0]
        what.append("dup col")
    if n > 1 and draw(st.booleans()):
        X[1:] = X[0] if draw(st.booleans()) else X[1:]
        X[-1] = X[0]
        what.append("dup rows")
    if draw(st.integers(0, 9)) == 0:
        X = np.round(X)
        what.append("integers")
    return X, what


def _dtype_variant(draw, X, what):
    kind = draw(st.sampled_from(["f64", "f64", "f32", "f16", "int", "int8", "bool", "object",
                                 "fortran", "readonly", "strided", "frame", "frame-odd"]))
    what.append(kind)
    if kind == "f32":
        with np.errstate(over="ignore"):
            return X.astype(np.float32)
    if kind == "f16":
        with np.errstate(over="ignore"):
            return X.astype(np.float16)
    if kind in ("int", "int8"):
        with np.errstate(invalid="ignore", over="ignore"):
            Xi = np.nan_to_num(np.clip(X, -100, 100)).astype(np.int64)
        return Xi.astype(np.int8) if kind == "int8" else Xi
    if kind == "bool":
        return X > 0
    if kind == "object":
        return X.astype(object)
    if kind == "fortran":
        return np.asfortranarray(X)
    if kind == "readonly":
        X = X.copy()
        X.flags.writeable = False
        return X
    if kind == "strided":
        wide = np.repeat(X, 2, axis=1)
        return wide[:, ::2]
    import pandas as pd

    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    if kind == "frame-odd":
        col = draw(st.sampled_from(["Int64", "category", "datetime", "boolean", "string"]))
        what.append(col)
        j = draw(st.integers(0, X.shape[1] - 1))
        name = f"f{j}"
        if col == "Int64":
            df[name] = pd.array(np.round(np.clip(X[:, j], -1e6, 1e6)).astype(np.int64),
                                dtype="Int64")
            if draw(st.booleans()):
                df.loc[0, name] = pd.NA
                what.append("NA")
        elif col == "category":
            df[name] = pd.Categorical(np.where(X[:, j] > 0, "hi", "lo"))
        elif col == "datetime":
            df[name] = pd.to_datetime("2020-01-01") + pd.to_timedelta(
                np.arange(len(df)), unit="D")
        elif col == "boolean":
            df[name] = pd.array(X[:, j] > 0, dtype="boolean")
        else:
            df[name] = pd.array([str(v) for v in X[:, j]], dtype="string")
    return df


def _labels(draw, n, rng):
    kind = draw(st.sampled_from(["int", "int", "str", "bool", "float", "mixed", "one",
                                 "many", "negative", "object-int"]))
    base = rng.integers(0, 2, size=n)
    if n >= 2:
        base[0], base[1] = 0, 1  # both classes present unless the case says otherwise
    if kind == "str":
        y = np.where(base == 1, "spam", "ham")
    elif kind == "bool":
        y = base.astype(bool)
    elif kind == "float":
        y = base * 1.5 + 0.25
    elif kind == "mixed":
        y = np.array([1 if b else "a" for b in base], dtype=object)
    elif kind == "one":
        y = np.zeros(n, dtype=int)
    elif kind == "many":
        y = rng.integers(0, 4, size=n)
    elif kind == "negative":
        y = np.where(base == 1, 1, -1)
    elif kind == "object-int":
        y = base.astype(object)
    else:
        y = base
    return y, f"labels:{kind}"


def _targets(draw, n, rng, columns):
    scale = draw(st.sampled_from([1.0, 1e150, 1e-150, 1e-310, 1e300, 0.0]))
    y = rng.normal(size=(n, columns) if columns else n) * scale
    what = f"y x{scale:g}"
    if draw(st.integers(0, 5)) == 0:
        y = np.full_like(y, 3.0)
        what = "y constant"
    if draw(st.integers(0, 5)) == 0:
        with np.errstate(over="ignore"):
            y = y.astype(np.float32)
        what += " f32"
    return y, what


@st.composite
def cases(draw, kind: str, multi_output: bool = False, weights: bool = False):
    small = draw(st.booleans())
    n = draw(st.sampled_from([1, 2, 3])) if small else draw(st.integers(4, 30))
    d = draw(st.sampled_from([1, 2, 3, 5, 60]))
    X, what = draw(_matrix(n, d))
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    Xv = _dtype_variant(draw, X, what)
    what.insert(0, f"n={n} d={d}")
    y = None
    if kind == "classifier":
        y, w = _labels(draw, n, rng)
        what.append(w)
    elif kind == "regressor":
        y, w = _targets(draw, n, rng, 2 if multi_output else 0)
        what.append(w)
    sw = None
    if weights and draw(st.integers(0, 2)) == 0:
        sw_kind = draw(st.sampled_from(["huge", "tiny", "zeros", "some-zero", "subnormal",
                                        "negative", "ones"]))
        sw = {"huge": np.full(n, 1e300), "tiny": np.full(n, 1e-300),
              "zeros": np.zeros(n), "subnormal": np.full(n, 5e-324),
              "negative": -np.ones(n), "ones": np.ones(n),
              "some-zero": np.r_[0.0, np.ones(n - 1)]}[sw_kind]
        what.append(f"sw:{sw_kind}")
    return Case(Xv, y, sw, " ".join(what))


# --------------------------------------------------------------------------- one case
class Failure(Exception):
    """A case that ended outside {fitted, refused}."""


def _clear(exc: BaseException) -> bool:
    """A ValueError/TypeError raised by kernelkit's or scikit-learn's validation code."""
    if not isinstance(exc, (ValueError, TypeError)):
        return False
    if type(exc).__module__.startswith(("numba", "numpy.linalg", "scipy.linalg")):
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and _from_clear_source(frames[-1].filename)


@functools.cache
def clear_sources() -> tuple[str, ...]:
    """Where a clear refusal may come from, as real paths: the folder of the imported
    kernelkit package and scikit-learn's validation (``sklearn/utils/``, ``sklearn/base.py``).

    Decided by where the modules are, never by a folder's name: a checkout cloned into a
    folder named ``kernelkit`` holds NumPy's files too (``kernelkit/.venv/...``).
    """
    import sklearn.base
    import sklearn.utils

    import kernelkit

    def folder(module) -> str:
        return os.path.join(os.path.realpath(os.path.dirname(module.__file__)), "")

    return (folder(kernelkit), folder(sklearn.utils), os.path.realpath(sklearn.base.__file__))


def _from_clear_source(filename: str, sources: tuple[str, ...] | None = None) -> bool:
    """Whether ``filename`` (a traceback frame's) is one of ``sources`` or lies in one of
    its folders (those end in the path separator)."""
    path = os.path.realpath(filename)
    return any(path.startswith(s) if s.endswith(os.sep) else path == s
               for s in (clear_sources() if sources is None else sources))


def _finite(name, a):
    a = np.asarray(a)
    if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
        raise Failure(f"{name} has non-finite values")
    return a


def check_fitted(est, case: Case, kind: str) -> None:
    """The invariants of a fitted estimator on its own training input."""
    X = case.X
    n = X.shape[0]
    if hasattr(est, "predict") and kind != "transformer":
        out = np.asarray(est.predict(X))
        if out.shape[0] != n:
            raise Failure(f"predict returned {out.shape[0]} rows for {n}")
        if kind == "classifier":
            if not np.all(np.isin(out, est.classes_)):
                raise Failure("predict returned a label that is not in classes_")
        elif kind != "outlier":
            _finite("predict", out)
    if kind == "classifier" and hasattr(est, "predict_proba"):
        try:
            P = _finite("predict_proba", est.predict_proba(X))
        except ValueError as exc:  # e.g. one-vs-one GPC says it cannot
            if not _clear(exc):
                raise
        else:
            if np.any(P < -1e-12) or np.any(P > 1 + 1e-12) or not np.allclose(P.sum(1), 1):
                raise Failure("predict_proba rows are not probabilities")
    if hasattr(est, "decision_function") and kind in ("classifier", "outlier"):
        _finite("decision_function", est.decision_function(X))
    if kind == "transformer":
        Z = _finite("transform", est.transform(X))
        if Z.shape[0] != n:
            raise Failure("transform changed the number of rows")
        lam = getattr(est, "eigenvalues_", None)
        if lam is not None and np.any(np.asarray(lam) < 0):
            raise Failure("negative kernel PCA eigenvalue")
    if type(est).__name__.startswith(("GaussianProcessRegressor", "SparseGaussian",
                                      "MultiOutputGaussian")):
        _, std = est.predict(X, return_std=True)
        std = _finite("predict std", std)
        if np.any(std < 0):
            raise Failure("negative predictive std")
    bound = getattr(est, "training_error_bound_", None)
    if type(est).__name__ == "AdaBoost" and bound is not None:
        err = np.average(est.predict(X) != np.asarray(case.y),
                         weights=case.sample_weight if case.sample_weight is not None and
                         np.sum(case.sample_weight) > 0 else None)
        bound = float(np.ravel(bound)[-1])  # after the last round
        if err > bound + 1e-9:
            raise Failure(f"training error {err} > prod Z_t {bound}")


def run_case(cls, kind: str, case: Case) -> tuple[str, str]:
    """(outcome, detail) of one case; never raises."""
    est = _make(cls)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            kw = {} if case.sample_weight is None else {"sample_weight": case.sample_weight}
            if kind in ("classifier", "regressor"):
                est.fit(case.X, case.y, **kw)
            else:
                est.fit(case.X, **kw)
            outcome = "fitted"
            check_fitted(est, case, kind)
    except Failure as exc:
        return "failure", f"{case.what}: {exc}"
    except Exception as exc:  # noqa: BLE001 - classify
        if _clear(exc):
            outcome = "refused"
        else:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return "failure", (f"{case.what}: {type(exc).__name__}: {str(exc)[:160]} "
                               f"[{os.path.basename(where.filename)}:{where.lineno}]")
    took = time.perf_counter() - t0
    if took > MAX_S:
        return "failure", f"{case.what}: took {took:.1f} s"
    return outcome, ""


def _accepts_weights(cls) -> bool:
    import inspect

    return "sample_weight" in inspect.signature(cls.fit).parameters


def strategy_for(cls):
    kind = _kind(cls)
    return kind, cases(kind, multi_output=cls.__name__.startswith("MultiOutput"),
                       weights=_accepts_weights(cls))


def fuzz_one(name: str, examples: int, seed: int) -> dict:
    """Run ``examples`` cases on estimator ``name``; counts, slowest case, failures."""
    cls = dict(estimators())[name]
    kind, strategy = strategy_for(cls)
    counts = {"fitted": 0, "refused": 0, "failure": 0}
    details: list[str] = []
    slowest = [0.0]

    @hseed(seed)
    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def body(case):
        t0 = time.perf_counter()
        outcome, detail = run_case(cls, kind, case)
        slowest[0] = max(slowest[0], time.perf_counter() - t0)
        counts[outcome] += 1
        if detail and len(details) < 20:
            details.append(f"{name}: {detail}")

    body()
    return {"name": name, **counts, "slowest": slowest[0], "details": details,
            "cases": sum(counts.values())}


def campaign(size: int, jobs: int, seed: int) -> Table:
    names = [n for n, _ in estimators()]
    with ProcessPoolExecutor(max(1, jobs)) as ex:
        results = list(ex.map(fuzz_one, names, [size] * len(names),
                              [seed + i for i in range(len(names))]))
    rows, details = [], []
    for r in results:
        rows.append([r["name"], r["cases"], r["fitted"], r["refused"], r["failure"],
                     f"{r['slowest']:.2f}"])
        details += r["details"]
    total = [sum(r[k] for r in results) for k in ("cases", "fitted", "refused", "failure")]
    rows.append(["all", *total, f"{max(r['slowest'] for r in results):.2f}"])
    return Table(
        "Generated inputs for every public estimator",
        ["estimator", "cases", "fitted (invariants hold)", "refused (clear error)",
         "failures", "slowest case s"], rows, total[3],
        notes=("Each case: hypothesis draws X (magnitudes 1e±150 to subnormal, constant and "
               "duplicated columns/rows, n ∈ {1, 2, 3} or 4-30, d ∈ {1, 2, 3, 5, 60}, 13 dtype "
               "/ layout / pandas variants), labels or targets, and sometimes sample_weight; "
               "default parameters."),
        details=details)
