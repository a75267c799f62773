"""The demo report's multi-output section (quick mode) on the diabetes serum outputs."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")


# the independent GPs of the comparison reach their bounds on a few outputs (the report
# shows it); that is the comparison's point, not this test's
@pytest.mark.filterwarnings("ignore:The optimal value found for dimension"
                            ":sklearn.exceptions.ConvergenceWarning")
def test_multi_output_section_quick_beats_independent_gps():
    from kernelkit.report import DemoContext
    from kernelkit.report.sections import multi_output

    lines = []
    sec = multi_output.run(DemoContext(quick=True, progress=lines.append))
    (row,) = sec.rows
    assert "MultiOutputGaussianProcessRegressor" in row["model"]
    # sharing the patient's other measurements predicts the hidden ones better
    assert np.isfinite(row["ours"]) and row["ours"] < row["peer"]
    assert len(sec.figures) == 2 and lines


def test_diabetes_serum_hides_the_requested_fraction():
    from kernelkit.report.sections.multi_output import diabetes_serum

    X, Y, Y_obs, hidden = diabetes_serum(n=None, missing=0.3, seed=0)
    assert X.shape == (442, 5) and Y.shape == (442, 6)
    assert np.array_equal(np.isnan(Y_obs), hidden)
    assert 0.25 < hidden.mean() < 0.35
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
