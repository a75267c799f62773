"""The bundled data loaders: shapes, the standard letters split, CO2 missing weeks."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.datasets import (
    load_breast_cancer,
    load_co2,
    load_diabetes,
    load_digits,
    load_letters,
)


def test_letters_standard_split():
    b = load_letters()
    assert b.X_train.shape == (16000, 16) and b.X_test.shape == (4000, 16)
    assert b.y_train.shape == (16000,) and b.y_test.shape == (4000,)
    assert b.data.shape == (20000, 16)
    np.testing.assert_array_equal(b.data[:16000], b.X_train)
    np.testing.assert_array_equal(b.target[16000:], b.y_test)
    assert sorted(set(b.target)) == list(b.target_names) and len(b.target_names) == 26
    assert b.feature_names[0] == "x-box" and len(b.feature_names) == 16
    # first and last rows of the CSV
    assert b.y_train[0] == "T" and b.X_train[0].tolist() == [2, 8, 3, 5, 1, 8, 13, 0, 6, 6,
                                                               10, 8, 0, 8, 0, 8]
    assert b.y_test[-1] == "A" and b.X_test[-1, -1] == 8
    assert b.X_train.min() >= 0 and b.X_train.max() <= 15
    assert "16,000" in b.DESCR


def test_letters_return_X_y_standardize_dtype():
    Xtr, ytr, Xte, yte = load_letters(return_X_y=True, standardize=True, dtype=np.float32)
    assert Xtr.dtype == np.float32 and Xte.dtype == np.float32
    np.testing.assert_allclose(Xtr.mean(0), 0, atol=1e-4)
    np.testing.assert_allclose(Xtr.std(0), 1, atol=1e-4)
    raw = load_letters()
    mu, sd = raw.X_train.mean(0), raw.X_train.std(0)
    np.testing.assert_allclose(Xte, (raw.X_test - mu) / sd, rtol=1e-5, atol=1e-5)


def test_letters_copies_are_independent():
    a = load_letters(return_X_y=True)[0]
    a[:] = -1
    assert load_letters(return_X_y=True)[0].min() >= 0


def test_co2_drop_and_interpolate():
    b = load_co2()
    assert b.data.shape == (2225, 1) and b.target.shape == (2225,)
    assert np.all(np.isfinite(b.target)) and not b.imputed.any()
    assert np.all(np.diff(b.data[:, 0]) > 0)
    assert str(b.dates[0]) == "1958-03-29" and str(b.dates[-1]) == "2001-12-29"
    # decimal year: 1958-03-29 is day 88 of a 365-day year
    assert b.data[0, 0] == pytest.approx(1958 + 87 / 365)
    full = load_co2(missing="interpolate")
    assert full.data.shape == (2284, 1) and full.imputed.sum() == 59
    assert np.all(np.isfinite(full.target))
    # measured weeks are unchanged, filled weeks lie between their neighbours
    np.testing.assert_array_equal(full.target[~full.imputed], b.target)
    i = int(np.flatnonzero(full.imputed)[0])
    lo, hi = sorted(full.target[[i - 1, i + 1]])
    assert lo <= full.target[i] <= hi
    X, y = load_co2(return_X_y=True)
    np.testing.assert_array_equal(X, b.data)


def test_co2_bad_option_and_frame():
    with pytest.raises(ValueError, match="missing"):
        load_co2(missing="zero")
    pytest.importorskip("pandas")
    frame = load_co2(as_frame=True).frame
    assert list(frame.columns) == ["date", "year", "co2", "imputed"] and len(frame) == 2225


def test_sklearn_sets():
    assert load_diabetes(return_X_y=True)[0].shape == (442, 10)
    assert load_breast_cancer(return_X_y=True)[0].shape == (569, 30)
    assert load_digits().data.shape == (1797, 64)


def test_data_files_ship_with_licence():
    from importlib import resources

    folder = resources.files("kernelkit.datasets").joinpath("data")
    readme = folder.joinpath("README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in readme and "public domain" in readme
