"""The demo section of issue 15: a linear SVM and AdaBoost stumps on sparse tf-idf data."""

from __future__ import annotations

import matplotlib
import numpy as np

matplotlib.use("Agg")


def test_sparse_text_section_quick():
    from kernelkit.report import DemoContext
    from kernelkit.report.sections import sparse_text

    lines = []
    sec = sparse_text.run(DemoContext(quick=True, progress=lines.append))
    assert isinstance(sparse_text.ORDER, int) and sparse_text.TITLE and len(lines) == 2
    svm, ada = sec.rows
    assert svm["model"].startswith("KernelClassifier") and ada["model"].startswith("AdaBoost")
    for r in sec.rows:
        assert {"model", "data", "metric", "ours", "peer", "seconds", "peer_seconds"} <= set(r)
        assert r["ours"] > 0.6  # learnable (5% label noise) and better than chance
    # the same SVM problem as SVC: accuracies within a point; AdaBoost's stumps the same
    assert abs(svm["ours"] - svm["peer"]) <= 0.01
    assert abs(ada["ours"] - ada["peer"]) <= 0.02
    ours_err, peer_err = (line.get_ydata() for line in sec.figures[0][1].axes[0].lines)
    # round 1 (same uniform weights): ours is the least-error stump, the peer's a Gini split
    assert ours_err[0] <= peer_err[0] + 1e-12
    assert np.all((0 < ours_err) & (ours_err < 0.5))
