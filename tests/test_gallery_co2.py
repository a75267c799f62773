"""The CO2 gallery example does what its text says in the quick documentation build too
(issue 35): its hyperparameters maximize the log marginal likelihood."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = (Path(__file__).resolve().parents[1] / "docs" / "examples"
           / "plot_co2_gaussian_process.py")


def _fit_part(source: str) -> str:
    """The example up to its fit (the prediction and the figure are not needed here)."""
    tree = ast.parse(source)
    end = next(node.end_lineno for node in tree.body
               if isinstance(node, ast.Expr) and "gp.fit" in ast.unparse(node))
    return "\n".join(source.splitlines()[:end])


def test_the_quick_build_maximizes_the_marginal_likelihood(monkeypatch):
    pytest.importorskip("matplotlib")
    source = EXAMPLE.read_text()
    assert "maximize the log marginal likelihood" in ast.get_docstring(ast.parse(source))
    monkeypatch.setenv("KERNELKIT_DOCS_QUICK", "1")
    ns: dict = {"__name__": "co2_example"}
    exec(compile(_fit_part(source), str(EXAMPLE), "exec"), ns)  # noqa: S102
    gp = ns["gp"]
    assert ns["QUICK"] and len(ns["ym"]) < 200  # the quick build's data
    # a maximum: the log marginal likelihood is flat there (in the free log-hyperparameters)
    # and above the starting point's
    lml, grad = gp.log_marginal_likelihood(gp.kernel_.theta, eval_gradient=True)
    assert np.max(np.abs(grad)) < 1e-2, grad
    assert lml > gp.log_marginal_likelihood(gp.kernel.theta) + 1.0
