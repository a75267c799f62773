"""The README's tour runs as written and its claims hold."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_opens_with_the_two_commands():
    text = README.read_text()
    first_block = text.split("```")[1]
    assert "make demo" in first_block and "make test" in first_block


def test_readme_tour_runs():
    text = README.read_text()
    block = text.split("## A short tour")[1].split("```python")[1].split("```")[0]
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the tour must run cleanly
        exec(compile(block, "README.md", "exec"), ns)  # noqa: S102
    X = ns["X"]
    np.testing.assert_allclose(ns["krr"].predict(X), ns["gp"].predict(X), rtol=1e-8, atol=1e-10)
    assert ns["ada"].training_error_bound_[-1] >= ns["ada"].training_errors_[-1]
    assert ns["Z"].shape == (500, 2)
    assert ns["mean"].shape == ns["std"].shape == (500,)
    assert ns["K"].shape == (500, 500)
    # the sparse GP's bound lies below the exact log marginal likelihood at its optimum
    assert ns["sgp"].elbo_ <= ns["exact"].log_marginal_likelihood_value_
    assert abs(np.sqrt(ns["sgp"].noise_variance_) - 0.1) < 0.02
    assert ns["f_std"].shape == (500,)


@pytest.mark.parametrize("command", ["demo", "fit", "predict", "evaluate", "info"])
def test_readme_documents_commands(command):
    assert f"kernelkit {command}" in README.read_text()
