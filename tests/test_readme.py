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


@pytest.mark.parametrize("command", ["demo", "fit", "predict", "evaluate", "info", "warmup"])
def test_readme_documents_commands(command):
    assert f"kernelkit {command}" in README.read_text()


def test_readme_gp_classification_and_online_example_runs():
    text = README.read_text()
    tour = text.split("## A short tour")[1].split("```python")[1].split("```")[0]
    block = text.split("Gaussian-process classification and online updates")[1]
    block = block.split("```python")[1].split("```")[0]
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        exec(compile(tour + block, "README.md", "exec"), ns)  # noqa: S102
    assert ns["proba"].shape == (5, 2)
    assert ns["gp"].X_train_.shape == (520, 2)
    assert ns["draws"].shape == (500, 3)
def _session(heading: str = "### Example session") -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` of a README console session."""
    block = README.read_text().split(heading)[1].split("```console")[1]
    block = block.split("```")[0]
    steps: list[tuple[str, list[str]]] = []
    lines = block.strip("\n").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        assert line.startswith("$ "), line
        cmd = line[2:]
        while cmd.endswith("\\"):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        i += 1
        out = []
        while i < len(lines) and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        steps.append((cmd, out))
    return steps


def _mask(line: str) -> str:
    """Times vary from run to run: 'in 0.40 s' -> 'in <t> s'."""
    import re

    return re.sub(r"in \d+\.\d+ s", "in <t> s", line.rstrip())


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; a README line '  ...' stands for any number of lines."""
    j, skipping = 0, False
    for e in expected:
        if e.strip() == "...":
            skipping = True
            continue
        while skipping and j < len(actual) and _mask(actual[j]) != _mask(e):
            j += 1
        if j >= len(actual) or _mask(actual[j]) != _mask(e):
            return False
        j, skipping = j + 1, False
    return skipping or j == len(actual)


@pytest.mark.parametrize("heading", ["### Example session", "### Sparse data files"])
def test_readme_session_reproduces(tmp_path, heading):
    """Every command of a console session, run in a fresh folder with the installed
    `kernelkit` command on PATH, prints what the README shows (times masked)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
           f"{os.environ.get('PATH', '')}", "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    for cmd, expected in _session(heading):
        proc = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        actual = (proc.stdout + proc.stderr).strip("\n").splitlines()
        assert _matches(expected, actual), (cmd, expected, actual)


def test_readme_points_to_the_design_document_in_the_repository():
    text = README.read_text()
    assert "docs/design.md" in text and "shared folder" not in text
    assert (README.parent / "docs" / "design.md").exists()


def test_readme_says_how_to_run_the_installed_command_and_what_a_first_call_does():
    text = README.read_text()
    assert "source .venv/bin/activate" in text and ".venv/bin/kernelkit" in text
    assert "kernelkit warmup" in text and "first call" in text.lower()


def test_readme_true_comments_print_true():
    """A '# True' comment in the tour sits on a line that prints its value."""
    text = README.read_text()
    block = text.split("## A short tour")[1].split("```python")[1].split("```")[0]
    lines = [line for line in block.splitlines() if "# True" in line]
    assert lines and all(line.startswith("print(") for line in lines)


def test_readme_sparse_example_runs():
    """The sparse-input example: CSR into the linear SVM, CSC into AdaBoost, never dense."""
    import scipy.sparse as sp

    block = README.read_text().split("## Sparse input")[1].split("```python")[1]
    block = block.split("```")[0]
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        exec(compile(block, "README.md", "exec"), ns)  # noqa: S102
    assert sp.issparse(ns["X"]) and ns["X"].format == "csr"
    assert sp.issparse(ns["svm"].support_vectors_)
    assert ns["svm"].score(ns["Xte"], ns["yte"]) > 0.6
    assert ns["ada"].score(ns["Xte"], ns["yte"]) > 0.55  # stumps: weaker than the SVM here


def test_readme_counts_the_make_commands_it_opens_with():
    """The sentence after the opening block says how many commands install kernelkit, and
    each of them does (its Makefile target depends on an editable ``pip install``)."""
    text = README.read_text()
    block, after = text.split("```")[1], text.split("```")[2]
    targets = [line.split()[1] for line in block.splitlines() if line.startswith("make ")]
    first = " ".join(after.strip().split("\n\n")[0].split())
    words = {2: "Both install ", 3: "Each of the three installs "}[len(targets)]
    assert first.startswith(words), first[:60]
    makefile = (README.parent / "Makefile").read_text()
    for target in targets:
        stamp = makefile.split(f"\n{target}: ")[1].split()[0]  # e.g. $(VENV)/.demo-installed
        rule = makefile.split(f"\n{stamp}: ")[1].split("\n\n")[0]
        assert "pip install" in rule and " -e " in rule, (target, rule)
