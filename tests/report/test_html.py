"""The report's tables: like with like, grouped summary, numbers right-aligned, terminal width."""

from __future__ import annotations

import io

import pytest

from kernelkit.report import Section, runner
from kernelkit.report.html import render_html
from kernelkit.report.tables import NO_PEER, row_cells, summary_text

from .html_structure import check_report_structure

pytest.importorskip("matplotlib")

ROWS_A = [dict(model="KernelClassifier(hinge)", data="letters", metric="test accuracy",
               ours=0.93, peer=0.931, peer_name="sklearn SVC", seconds=0.5, peer_seconds=1.5),
          dict(model="KernelClassifier(logistic)", data="letters", metric="test accuracy",
               ours=0.91, peer=None, seconds=0.8, reference=0.72,
               reference_name="linear LogisticRegression", reference_seconds=0.01)]
ROWS_B = [dict(model="StructuredSVM chain (linear, C=0.1)", data="words",
               metric="test letter accuracy", ours=0.81, peer=None, seconds=3.0,
               reference=0.75, reference_name="per letter: kernelkit MulticlassSVM",
               reference_seconds=1.0),
          dict(model="MajorityVote(KernelClassifier, KernelPerceptron, AdaBoost) with a long "
                     "name", data="breast cancer (400 train / 169 test)",
               metric="max |mean - GP(FeatureMap) mean|, |std - GP std|", ours=1.5e-12,
               peer=None)]


def _result():
    secs = [runner.SectionResult(name="a", order=1, title="Section A",
                                 section=Section("Section A", rows=ROWS_A)),
            runner.SectionResult(name="b", order=2, title="Section B",
                                 section=Section("Section B", rows=ROWS_B, tables=[
                                     ("words", ["word", "chain", "per-letter"],
                                      [["cat", "cat", "cot"], ["dog", "dog", "dog"]])]))]
    return runner.DemoResult(sections=secs, html_path=None, seconds=2.0, quick=True)


def test_peer_column_says_which_method_or_no_peer():
    cells = row_cells(ROWS_A[0])
    assert cells[3] == "sklearn SVC" and cells[-1] == "3x"
    cells = row_cells(ROWS_A[1])
    assert cells[3] == NO_PEER and cells[5] == "—" and cells[-1] == "—"


def test_rendered_tables_are_grouped_and_aligned():
    html = render_html(_result())
    p = check_report_structure(html)
    summary = [t for t in p.tables if "results" in t["class"]][0]
    titles = [summary["rows"][i][0]["text"] for i in summary["groups"]]
    assert titles == ["Section A", "Section B"]  # one header row per section
    assert "section" not in [c["text"] for c in summary["rows"][0]]
    # references sit in their own table, never in the peer column
    refs = [t for t in p.tables if "reference (not the same method)" in
            [c["text"] for c in t["rows"][0]]]
    assert len(refs) == 2 and "linear LogisticRegression" in html
    peer_col = [r[2]["text"] for i, r in enumerate(summary["rows"][1:], 1)
                if i not in summary["groups"]]
    assert peer_col == ["sklearn SVC", NO_PEER, NO_PEER, NO_PEER]
    # words left-aligned: the example table's word cells are not numeric
    words = [t for t in p.tables if [c["text"] for c in t["rows"][0]][0] == "word"][0]
    assert not any(c["num"] for r in words["rows"] for c in r)
    assert "white-space:nowrap" in html  # numbers are never broken inside a cell


def test_terminal_summary_fits_100_columns():
    text = summary_text([("Section A", ROWS_A), ("Section B " + "x" * 120, ROWS_B)])
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    assert sum(line.startswith("Section") for line in lines) == 2  # one title per section
    assert "no peer" in text and "0.93" in text and "3x" in text


def test_one_figure_is_singular(capsys):
    res = runner.SectionResult(name="a", order=1, title="A", section=Section("A"),
                               figures_png=[("c", b"png")])
    out = io.StringIO()
    runner._print_section(res, out, quick=True)
    assert "(1 figure)" in out.getvalue()


def test_long_sections_print_a_heartbeat(monkeypatch):
    import time

    out = io.StringIO()
    with runner._Heartbeat(out, time.perf_counter(), "slow", every=0.3) as beat:
        time.sleep(1.2)
        beat.say("half way")
        time.sleep(0.1)
    text = out.getvalue()
    assert "... still running slow" in text and "half way" in text


def test_warning_without_a_message_names_its_origin():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("", UserWarning, stacklevel=1)
    key = runner._warning_key(caught[0])
    assert key.startswith("UserWarning: (no message; raised at test_html.py:")
