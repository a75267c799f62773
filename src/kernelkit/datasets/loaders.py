"""Loaders for the real data sets bundled with kernelkit, and scikit-learn's small sets.

Bundled files live in ``kernelkit/datasets/data`` (source and licence in the README there):

- :func:`load_letters` — UCI letter recognition, 20,000 letters, 16 integer features, with
  the standard split (first 16,000 rows train, last 4,000 test).
- :func:`load_co2` — weekly mean atmospheric CO2 at Mauna Loa, 1958–2001, with the 59
  missing weeks dropped (default) or linearly interpolated.

:func:`load_diabetes`, :func:`load_breast_cancer` and :func:`load_digits` return
scikit-learn's bundled sets unchanged (same arguments, same Bunch), so that every demo and
example imports its data from one place.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

__all__ = ["load_letters", "load_co2", "load_diabetes", "load_breast_cancer", "load_digits"]

N_LETTERS_TRAIN = 16_000

_LETTERS_DESCR = """\
UCI Letter Recognition (Frey & Slate, 1991)
------------------------------------------
20,000 black-and-white rectangular images of the 26 capital letters in 20 fonts, randomly
distorted, each summarized by 16 integer attributes in 0..15 (box position and size, pixel
counts, moments and edge counts). Label: the letter 'A'..'Z'.
Standard split: the first 16,000 rows for training, the last 4,000 for testing.
Source: UCI Machine Learning Repository, https://archive.ics.uci.edu/dataset/59 (CC BY 4.0).
"""

_CO2_DESCR = """\
Mauna Loa weekly CO2 (Keeling & Whorf, 2004)
-------------------------------------------
Weekly mean atmospheric CO2 concentration (ppmv) at Mauna Loa Observatory, Hawaii, from
29 March 1958 to 29 December 2001 (2,284 weeks, 59 without a value). The input is the date
as a decimal year (year + (day of year - 1) / days in year); the target is CO2 in ppmv.
The classic Gaussian-process example (Rasmussen & Williams, 2006, section 5.4.3).
Source: SIO flask/continuous record via CDIAC; public domain.
"""


def _data_file(name: str):
    return resources.files("kernelkit.datasets").joinpath("data", name)


@functools.lru_cache(maxsize=1)
def _read_letters() -> tuple[list[str], np.ndarray, np.ndarray]:
    with _data_file("letter-recognition.csv").open("r", encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        raw = np.loadtxt(fh, delimiter=",", dtype=str)
    if header[0] != "letter" or raw.shape[1] != len(header):
        raise RuntimeError("The bundled letter-recognition.csv is corrupted; reinstall kernelkit.")
    y = raw[:, 0].astype("<U1")
    X = raw[:, 1:].astype(np.int64)
    X.setflags(write=False)
    y.setflags(write=False)
    return header[1:], X, y


def load_letters(*, return_X_y: bool = False, standardize: bool = False, dtype=np.float64):
    """UCI letter recognition with its standard 16,000 / 4,000 train/test split.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a Bunch.
    standardize : bool, default=False
        Centre and scale every feature with the mean and standard deviation of the
        *training* split (the test split uses the same transform).
    dtype : numpy dtype, default=float64
        dtype of the feature arrays (``float32`` is kept).

    Returns
    -------
    data : Bunch
        ``X_train`` (16000, 16), ``y_train`` (16000,), ``X_test`` (4000, 16), ``y_test``
        (4000,); ``data`` / ``target`` (all 20,000 rows, train first); ``feature_names``;
        ``target_names`` (the 26 letters); ``DESCR``. Labels are one-character strings.
    (X_train, y_train, X_test, y_test) : tuple, if ``return_X_y``

    Examples
    --------
    >>> from kernelkit.datasets import load_letters
    >>> X_train, y_train, X_test, y_test = load_letters(return_X_y=True)
    >>> X_train.shape, X_test.shape
    ((16000, 16), (4000, 16))
    >>> y_train[:3].tolist()
    ['T', 'I', 'D']
    """
    names, X_int, y = _read_letters()
    X = X_int.astype(dtype)  # a fresh, writable copy
    y = y.copy()
    Xtr, Xte = X[:N_LETTERS_TRAIN], X[N_LETTERS_TRAIN:]
    if standardize:
        # z = (x - mean_train) / std_train, same transform on the test split
        train = X_int[:N_LETTERS_TRAIN].astype(np.float64)
        mu, sd = train.mean(axis=0), train.std(axis=0)
        X[...] = (X_int - mu) / np.where(sd > 0, sd, 1.0)
    ytr, yte = y[:N_LETTERS_TRAIN], y[N_LETTERS_TRAIN:]
    if return_X_y:
        return Xtr, ytr, Xte, yte
    return Bunch(
        X_train=Xtr,
        y_train=ytr,
        X_test=Xte,
        y_test=yte,
        data=X,
        target=y,
        feature_names=list(names),
        target_names=np.array([chr(c) for c in range(ord("A"), ord("Z") + 1)]),
        DESCR=_LETTERS_DESCR,
    )


@functools.lru_cache(maxsize=1)
def _read_co2() -> tuple[np.ndarray, np.ndarray]:
    with _data_file("mauna-loa-co2-weekly.csv").open("r", encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        raw = np.loadtxt(fh, delimiter=",", dtype=str)
    if header != ["date", "co2"] or raw.ndim != 2 or raw.shape[1] != 2:
        raise RuntimeError("The bundled mauna-loa-co2-weekly.csv is corrupted; reinstall.")
    ymd = raw[:, 0].astype(np.int64)  # YYYYMMDD
    months = (ymd // 10000 - 1970) * 12 + (ymd // 100 % 100 - 1)
    dates = months.astype("datetime64[M]").astype("datetime64[D]") + (ymd % 100 - 1)
    co2 = np.array([float(v) if v.strip() else np.nan for v in raw[:, 1]])
    dates.setflags(write=False)
    co2.setflags(write=False)
    return dates, co2


def _decimal_year(dates: np.ndarray) -> np.ndarray:
    # year + (day of year - 1) / (days in that year)
    years = dates.astype("datetime64[Y]")
    start = years.astype("datetime64[D]")
    length = (years + 1).astype("datetime64[D]") - start
    year = years.astype(np.int64) + 1970
    return year + (dates - start).astype(np.float64) / length.astype(np.float64)


def load_co2(*, missing: str = "drop", return_X_y: bool = False, as_frame: bool = False):
    """Weekly Mauna Loa CO2 (ppmv), 1958–2001, input as decimal year.

    Parameters
    ----------
    missing : {"drop", "interpolate"}, default="drop"
        59 weeks have no measurement. ``"drop"`` leaves them out (2,225 weeks);
        ``"interpolate"`` keeps all 2,284 weeks and fills each gap by linear interpolation
        in time between its neighbours (``imputed`` marks the filled weeks).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    as_frame : bool, default=False
        Also return a pandas DataFrame (columns ``date``, ``year``, ``co2``, ``imputed``) in
        ``frame`` (needs pandas, the ``io`` extra).

    Returns
    -------
    data : Bunch
        ``data`` (n, 1) decimal year, ``target`` (n,) CO2 in ppmv, ``dates`` (n,)
        ``datetime64[D]``, ``imputed`` (n,) bool, ``feature_names`` (``["year"]``),
        ``target_names`` (``["co2"]``), ``frame`` (DataFrame or None), ``DESCR``.
    (data, target) : tuple, if ``return_X_y``

    Examples
    --------
    >>> from kernelkit.datasets import load_co2
    >>> X, y = load_co2(return_X_y=True)
    >>> X.shape, y.shape
    ((2225, 1), (2225,))
    >>> round(float(X[0, 0]), 3), float(y[0])
    (1958.238, 316.1)
    >>> load_co2(missing="interpolate").data.shape
    (2284, 1)
    """
    if missing not in ("drop", "interpolate"):
        raise ValueError(f"missing must be 'drop' or 'interpolate'; got {missing!r}.")
    dates, co2 = _read_co2()
    year = _decimal_year(dates)
    gap = np.isnan(co2)
    if missing == "drop":
        keep = ~gap
        dates, year, co2 = dates[keep], year[keep], co2[keep]
        imputed = np.zeros(len(co2), dtype=bool)
    else:
        # linear interpolation in time between the nearest measured weeks
        co2 = co2.copy()
        co2[gap] = np.interp(year[gap], year[~gap], co2[~gap])
        imputed = gap.copy()
        dates = dates.copy()
    X = year.reshape(-1, 1)
    y = np.array(co2, dtype=np.float64)
    if return_X_y:
        return X, y
    frame = None
    if as_frame:
        import pandas as pd

        frame = pd.DataFrame({"date": dates, "year": year, "co2": y, "imputed": imputed})
    return Bunch(
        data=X,
        target=y,
        dates=dates,
        imputed=imputed,
        feature_names=["year"],
        target_names=["co2"],
        frame=frame,
        DESCR=_CO2_DESCR,
    )


def load_diabetes(**kwargs):
    """scikit-learn's diabetes regression set (442 patients, 10 features).

    Same arguments and return value as :func:`sklearn.datasets.load_diabetes`.

    Examples
    --------
    >>> from kernelkit.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> X.shape
    (442, 10)
    """
    from sklearn import datasets

    return datasets.load_diabetes(**kwargs)


def load_breast_cancer(**kwargs):
    """scikit-learn's Wisconsin breast-cancer classification set (569 samples, 30 features).

    Same arguments and return value as :func:`sklearn.datasets.load_breast_cancer`.

    Examples
    --------
    >>> from kernelkit.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X.shape
    (569, 30)
    """
    from sklearn import datasets

    return datasets.load_breast_cancer(**kwargs)


def load_digits(**kwargs):
    """scikit-learn's 8x8 handwritten digits (1,797 images, 64 features, 10 classes).

    Same arguments and return value as :func:`sklearn.datasets.load_digits`.

    Examples
    --------
    >>> from kernelkit.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> X.shape
    (1797, 64)
    """
    from sklearn import datasets

    return datasets.load_digits(**kwargs)
