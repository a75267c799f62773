"""The demo section of issue 17: a sparse GP on more points than the exact GP holds."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


def test_sparse_gp_section_quick():
    from kernelkit.report import DemoContext
    from kernelkit.report.sections import sparse_gp

    lines = []
    sec = sparse_gp.run(DemoContext(quick=True, progress=lines.append))
    assert isinstance(sparse_gp.ORDER, int) and sparse_gp.TITLE and lines
    rows = {r["metric"].split(" (")[0]: r for r in sec.rows}
    # the sparse GP on all rows is at least about as accurate as the exact GP on a subsample
    assert rows["test RMSE"]["ours"] < 1.1 * rows["test RMSE"]["reference"]
    assert all(r["peer"] is None for r in sec.rows)  # no library has the same method
    assert abs(rows["learned noise sd"]["ours"] - 0.3) < 0.03
    fig = sec.figures[0][1]
    assert len(fig.axes) == 2 and all(len(ax.collections) >= 1 for ax in fig.axes)  # bands
    for r in sec.rows:
        assert {"model", "data", "metric", "ours", "peer"} <= set(r)
