"""The demo section of issue 5: kernel PCA spectrum and 2-D digits, perceptron mistakes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


def test_kpca_perceptron_section_quick():
    from kernelkit.report import DemoContext
    from kernelkit.report.sections import kpca_perceptron

    lines = []
    sec = kpca_perceptron.run(DemoContext(quick=True, progress=lines.append))
    assert isinstance(kpca_perceptron.ORDER, int) and kpca_perceptron.TITLE
    assert lines
    captions = " ".join(c for c, _ in sec.figures).lower()
    # the eigenvalue spectrum, the 2-D projection of the digits, the mistakes per epoch
    assert "spectrum" in captions and "digits" in captions and "mistakes" in captions
    projection = sec.figures[1][1]
    assert len(projection.axes[0].collections[0].get_offsets()) == 600  # quick: 600 digits
    rows = {r["metric"]: r for r in sec.rows}
    assert rows["max |projection diff| up to sign"]["ours"] < 1e-8
    assert abs(rows["eigenvalue mu_1"]["ours"] - rows["eigenvalue mu_1"]["peer"]) < 1e-8
    for r in sec.rows:
        assert {"model", "data", "metric", "ours", "peer"} <= set(r)
