"""The demo's terminal output fits the terminal: every line at most 100 columns (or the
terminal's width, from 80 up), the per-section tables included (issue 35, point 4)."""

from __future__ import annotations

import io
import re
import sys
import textwrap

import pytest

from kernelkit.report import Section, runner
from kernelkit.report.tables import TABLE_COLUMNS, fit_table, terminal_width

pytest.importorskip("matplotlib")

# rows as long as the tour's longest (multi-output GP, sparse text, committees)
ROWS = [
    dict(model="MultiOutputGaussianProcessRegressor (ICM, rank 2) vs independent GPs",
         data="diabetes serum s1..s6, n=442, 30% hidden",
         metric="RMSE on hidden entries (standardized)", ours=0.51234, peer=0.61234,
         peer_name="independent kernelkit GaussianProcessRegressor per output",
         seconds=3.21, peer_seconds=1.05),
    dict(model="AdaBoost (stumps, T=200)", data="20 newsgroups, 2 topics (CSC)",
         metric="test accuracy", ours=0.9123, peer=0.9051,
         peer_name="sklearn AdaBoostClassifier (SAMME, depth-1 trees)", seconds=0.81,
         peer_seconds=12.3, reference=0.72, reference_name="linear LogisticRegression (C=1)",
         reference_seconds=0.01),
    dict(model="MajorityVote(KernelClassifier, KernelPerceptron, AdaBoost)",
         data="breast cancer (400 train / 169 test)",
         metric="max |mean - GP(FeatureMap) mean|, |std - GP std|", ours=1.5e-12, peer=None,
         seconds=0.02),
]
WIDE_TABLE = ("Leading eigenvalues of K (letters, n=2000), ours and scikit-learn's, with the "
              "relative difference of each", [f"lambda_{i}" for i in range(1, 15)],
              [[1234.5678 / i for i in range(1, 15)], [1234.5679 / i for i in range(1, 15)]])
WORDS_TABLE = ("The first test words and their predictions by the best chain model",
               ["word", "chain (linear kernel, C=0.1)", "per letter (MulticlassSVM)",
                "per letter (sklearn SVC)"],
               [["commandingly", "commandingly", "cowmandinglv", "commandinqly"],
                ["extraordinary", "extraordinary", "extraordlnary", "extraordinary"]])


def _sections():
    good = Section("Committees, multi-output GPs and sparse text: a long section title " * 2,
                   rows=ROWS, tables=[WIDE_TABLE, WORDS_TABLE])
    ok = runner.SectionResult(name="long", order=1, title=good.title, section=good,
                              seconds=12.5, figures_png=[("f", b"png")],
                              warnings=["ConvergenceWarning: " + "lbfgs failed to converge " * 9,
                                        "UserWarning: short"])
    failed = runner.SectionResult(name="broken", order=2, title="Broken",
                                  error="RuntimeError: " + "something went wrong " * 12)
    return [ok, failed]


def _too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


@pytest.mark.parametrize("width", [100, 80, 132])
def test_sections_and_summary_fit_the_width(width):
    out = io.StringIO()
    results = _sections()
    for res in results:
        runner._print_section(res, out, quick=True, width=width)
    runner._summarize(runner.DemoResult(results, None, 1.0, True), out, width)
    text = out.getvalue()
    assert not _too_wide(text, width), _too_wide(text, width)
    # nothing is lost: every word of every cell is still there
    flat = " ".join(text.split())
    for row in ROWS:
        for key in ("model", "data", "metric", "peer_name"):
            for word in str(row.get(key) or "").split():
                assert word in flat, (key, word)
    assert "lambda_14" in flat and "extraordlnary" in flat and "failed to converge" in flat


def test_a_table_that_fits_is_left_as_it_is():
    header, rows = ["a", "b", "ours"], [["x", "y", "1.5"]]
    assert fit_table(header, rows, 100, right_from=2) == "a  b  ours\n-  -  ----\nx  y   1.5"


def test_two_lines_a_row_keep_the_numbers_aligned():
    cells = [[r["model"], r["data"], r["metric"], "peer", "0.5", "0.6", "1", "2", "2x"]
             for r in ROWS]
    text = fit_table(list(TABLE_COLUMNS), cells, 100, indent="  ", right_from=4, lead=2)
    lines = text.splitlines()
    assert not _too_wide(text, 100)
    assert lines[0] == "  model · data"
    titles = [line for line in lines if line.startswith("  ") and line[2] != " "]
    for r in ROWS:  # the row's model (and data) start a line of their own
        assert any(t.startswith(f"  {r['model'][:40]}") for t in titles)
    ends = {len(line) for line in lines if line.endswith("2x")}
    assert len(ends) == 1 and len(lines) > 2 * len(ROWS)  # numbers right-aligned across rows


GOOD = '''
from kernelkit.report import Section
ORDER = 1
TITLE = "A section with long rows"

def run(ctx):
    ctx.progress("a progress message that goes on " * 6)
    return Section(title=TITLE, rows=ROWS, tables=[WIDE_TABLE, WORDS_TABLE])
'''


@pytest.fixture
def long_section(tmp_path, monkeypatch):
    pkg = tmp_path / "kk_wide_sections"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    src = textwrap.dedent(GOOD).replace(
        "def run", f"ROWS = {ROWS!r}\nWIDE_TABLE = {WIDE_TABLE!r}\n"
                   f"WORDS_TABLE = {WORDS_TABLE!r}\n\ndef run")
    (pkg / "wide.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(runner, "SECTIONS_PACKAGE", "kk_wide_sections")
    yield pkg
    for name in list(sys.modules):
        if name.startswith("kk_wide_sections"):
            del sys.modules[name]


@pytest.mark.parametrize("columns", ["100", "80"])
def test_run_demo_fits_a_terminal_of_that_width(long_section, tmp_path, monkeypatch,
                                                columns):
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.chdir(tmp_path)  # (a file path is never broken: keep it short here)
    out = io.StringIO()
    res = runner.run_demo("report-folder", quick=True, stream=out, warm_up=False)
    assert res.ok
    text = out.getvalue()
    assert not _too_wide(text, int(columns)), _too_wide(text, int(columns))
    assert re.search(r"report: .*report\.html", text)


def test_the_width_is_the_terminals_from_80_up(monkeypatch):
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal_width() == 132
    monkeypatch.setenv("COLUMNS", "60")
    assert terminal_width() == 80
    monkeypatch.delenv("COLUMNS")
    monkeypatch.setattr(sys, "__stdout__", io.StringIO())  # not a terminal
    assert terminal_width() == 100
