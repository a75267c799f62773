"""The GP classification section of the demo report (quick mode)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


def test_gp_classification_section_quick():
    from kernelkit.report import DemoContext
    from kernelkit.report.sections import gp_classification

    lines = []
    sec = gp_classification.run(DemoContext(quick=True, progress=lines.append))
    assert isinstance(gp_classification.ORDER, int) and gp_classification.TITLE and lines
    assert len(sec.figures) == 1 and "probability" in sec.figures[0][0]
    rows = {r["metric"]: r for r in sec.rows}
    # same model as scikit-learn's from the same start: same accuracy, lml and log loss
    assert rows["test accuracy"]["ours"] == rows["test accuracy"]["peer"]
    lml = rows["Laplace log marginal likelihood"]
    assert abs(lml["ours"] - lml["peer"]) < 1e-4 * abs(lml["peer"])
    assert abs(rows["test log loss"]["ours"] - rows["test log loss"]["peer"]) < 1e-3
    for r in sec.rows:
        assert {"model", "data", "metric", "ours", "peer"} <= set(r)
