"""Load and long use (issue 19, bounded profile of ``python -m benchmarks.fuzz --part load``)."""

from __future__ import annotations

import pytest

from benchmarks import _rel_load as rel


@pytest.mark.parametrize("name", [n for n, _ in rel._estimators()])
def test_threads_predict_what_one_thread_predicts(name):
    """8 threads at once on one fitted model (models are served from threaded servers)."""
    r = rel.concurrent_predict(name, threads=8, rounds=3)
    assert r["mismatches"] == 0, r


@pytest.mark.parametrize("name", ["KernelRidge", "GaussianProcessRegressor", "AdaBoost"])
def test_repeated_fit_predict_does_not_grow_memory(name):
    """100 cycles after a warm-up (the long campaign runs 1,000 of every estimator)."""
    r = rel.cycles_rss(name, 100)
    assert not r["error"], r["error"]
    assert r["growth_mb"] < 20, r


def test_predicting_a_csv_streams_in_bounded_memory(tmp_path):
    """A file 3-5x larger, read 5,000 rows at a time: the same peak memory (within 30 MB),
    and every checked row equal to the in-process prediction."""
    small = rel.csv_predict(3, 5000, str(tmp_path))
    large = rel.csv_predict(15, 5000, str(tmp_path))
    assert small["ok"] and large["ok"], (small, large)
    assert large["rows"] >= 3 * small["rows"]
    assert large["peak_mb"] - small["peak_mb"] < 30, (small, large)
