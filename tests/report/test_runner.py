"""The demo runner: discovery by ORDER, progress, failures shown (not hidden), HTML output."""

from __future__ import annotations

import base64
import io
import re
import sys
import textwrap

import pytest

from kernelkit.report import runner

pytest.importorskip("matplotlib")

GOOD = '''
from kernelkit.report import Section
ORDER = 5
TITLE = "A good section"

def run(ctx):
    import matplotlib.pyplot as plt
    import warnings
    ctx.progress("working")
    warnings.warn("something to look at")
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    return Section(title=TITLE, rows=[dict(model="M", data="d", metric="acc", ours=0.9,
                   peer=0.8, seconds=1.0, peer_seconds=2.0)], figures=[("a line", fig)],
                   text="Some <b>text</b>.", tables=[("extra", ["a", "b"], [[1, 2.5]])])
'''
FAILING = {
    "bad_import": "ORDER = 1\nTITLE = 'Broken import'\nimport kernelkit.not_a_module\n",
    "bad_run": "ORDER = 7\nTITLE = 'Broken run'\ndef run(ctx):\n    raise RuntimeError('boom')\n",
    "bad_return": "ORDER = 9\nTITLE = 'Bad return'\ndef run(ctx):\n    return {'rows': []}\n",
    "bad_row": (
        "from kernelkit.report import Section\nORDER = 3\nTITLE = 'Bad row'\n"
        "def run(ctx):\n    return Section(title=TITLE, rows=[dict(model='x')])\n"
    ),
}


@pytest.fixture
def fake_sections(tmp_path, monkeypatch):
    pkg = tmp_path / "kk_fake_sections"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text(textwrap.dedent(GOOD))
    for name, src in FAILING.items():
        (pkg / f"{name}.py").write_text(src)
    (pkg / "_private.py").write_text("raise SystemExit('never imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(runner, "SECTIONS_PACKAGE", "kk_fake_sections")
    yield pkg
    for name in list(sys.modules):
        if name.startswith("kk_fake_sections"):
            del sys.modules[name]


def test_discovery_sorted_by_order_without_import(fake_sections):
    found = runner.discover_sections()
    assert [name for _, name, _ in found] == ["bad_import", "bad_row", "good", "bad_run",
                                              "bad_return"]
    assert found[0][2] == "Broken import"
    with pytest.raises(ValueError, match="unknown demo section 'nope'"):
        runner.discover_sections(["nope"])


def test_failures_are_reported_in_terminal_and_html(fake_sections, tmp_path):
    out = io.StringIO()
    res = runner.run_demo(tmp_path / "rep", quick=True, stream=out, warm_up=False)
    assert not res.ok and len(res.failed) == 4
    text = out.getvalue()
    assert "[3/5] A good section (good)" in text and "working" in text
    assert "FAILED after" in text and "RuntimeError: boom" in text
    assert "ModuleNotFoundError" in text and "not a Section" in text
    assert "lacks key(s) data, metric, ours, peer" in text
    assert "warning: UserWarning: something to look at" in text
    assert "4 section(s) FAILED" in text
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert html.count('class="failed"') == 4 and "Traceback" in html
    assert "RuntimeError: boom" in html and "Some &lt;b&gt;text&lt;/b&gt;." in html
    assert "<script" not in html
    png = re.search(r'src="data:image/png;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n"
    # the summary table holds the good section's row with ours and the peer
    summary = html.split("<h2>Summary</h2>")[1].split("<section")[0]
    assert re.search(r'<tr class="group"><th colspan="8">A good section</th></tr><tr><td>M</td>'
                     r'<td>acc</td><td>scikit-learn</td><td class="num">0\.9</td>'
                     r'<td class="num">0\.8</td>', summary)


def test_cli_demo_exits_nonzero_when_a_section_fails(fake_sections, tmp_path, capsys):
    from kernelkit.cli import main

    code = main(["demo", "--quick", "--out", str(tmp_path / "r"), "--only", "good,bad_run"])
    captured = capsys.readouterr()
    assert code == 1
    assert "demo section(s) failed: bad_run" in captured.err
    assert (tmp_path / "r" / "report.html").exists()
    code = main(["demo", "--quick", "--out", str(tmp_path / "r2"), "--only", "good"])
    assert code == 0


def test_kernels_section_quick():
    from kernelkit.report import DemoContext
    from kernelkit.report.sections import kernels

    lines = []
    sec = kernels.run(DemoContext(quick=True, progress=lines.append))
    assert len(sec.rows) == 5 and len(sec.figures) == 2 and lines
    for row in sec.rows:
        assert row["ours"] == pytest.approx(row["peer"], rel=1e-8)
    caption, header, rows = sec.tables[0]
    assert header[0] == "kernel" and len(rows) == 5
    for r in rows:  # eigenvalues are sorted, the top-10 share is a fraction
        assert r[1] >= r[2] >= r[3] >= r[4] >= r[5] > 0 and 0 < r[6] <= 1
    import matplotlib.pyplot as plt

    for _, fig in sec.figures:
        plt.close(fig)


def test_accuracy_summary_figure(tmp_path):
    """Every accuracy row of the tour (multiclass, structured, ...) in one dot plot, ours and
    the same method's peer on one line; rows without an accuracy in [0, 1] are left out, a
    row without a peer shows one dot (no gap), the axis is zoomed on the values, the labels
    are at least 10 pt; the chart is shown under Summary."""
    from kernelkit.report import Section
    from kernelkit.report.html import render_html

    rows = [dict(model="MulticlassSVM", data="letters", metric="test accuracy", ours=0.86,
                 peer=0.85),
            dict(model="StructuredSVM chain", data="words", metric="test letter accuracy",
                 ours=0.73, peer=None),
            dict(model="KernelPCA", data="digits", metric="top eigenvalue", ours=27.4, peer=27.4),
            dict(model="Odd", data="x", metric="accuracy (%)", ours=86.0, peer=85.0)]
    results = [runner.SectionResult(name="s", order=1, title="S",
                                    section=Section(title="S", rows=rows))]
    fig = runner.accuracy_figure(results)
    ax = fig.axes[0]
    ours, peer = ax.collections[0].get_offsets(), ax.collections[1].get_offsets()
    assert sorted(ours[:, 0].tolist()) == [0.73, 0.86] and peer[:, 0].tolist() == [0.85]
    assert sorted(ours[:, 1].tolist()) == [0.0, 1.0]  # two lines, no empty line between
    lo, hi = ax.get_xlim()
    assert 0.6 <= lo < 0.73 and 0.86 < hi <= 1.0  # an axis that shows a 1-point difference
    labels = ax.get_yticklabels()
    assert all(t.get_fontsize() >= 10 for t in labels)
    texts = [t.get_text() for t in labels]
    assert any("MulticlassSVM" in t for t in texts) and any("Structured" in t for t in texts)
    assert not any("KernelPCA" in t or "Odd" in t for t in texts)
    import matplotlib.pyplot as plt

    plt.close(fig)
    assert runner.accuracy_figure([runner.SectionResult(name="e", order=1, title="E",
                                                        section=Section(title="E"))]) is None

    res = runner.DemoResult(sections=results, html_path=None, seconds=1.0, quick=True,
                            summary_figures=[("accuracies", b"\x89PNG fake")])
    html = render_html(res)
    summary = html.split("<h2>Summary</h2>")[1].split("<section")[0]
    assert "<figcaption>accuracies</figcaption>" in summary


def test_run_demo_adds_the_accuracy_figure(fake_sections, tmp_path):
    (fake_sections / "acc.py").write_text(textwrap.dedent('''
        from kernelkit.report import Section
        ORDER = 2
        TITLE = "Accuracies"
        def run(ctx):
            return Section(title=TITLE, rows=[dict(model="C", data="d",
                           metric="test accuracy", ours=0.9, peer=0.8)])
    '''))
    res = runner.run_demo(tmp_path / "rep", quick=True, only=["acc"], stream=io.StringIO(),
                          warm_up=False)
    assert res.ok and len(res.summary_figures) == 1
    assert res.summary_figures[0][1][:8] == b"\x89PNG\r\n\x1a\n"
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 1 and "Test accuracy of every" in html
