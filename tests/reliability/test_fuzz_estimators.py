"""Generated inputs for every public estimator (issue 19, bounded profile of
``python -m benchmarks.fuzz --part estimators``).

For each estimator, hypothesis draws cases from :func:`benchmarks._rel_estimators.cases`
and each must end in a fit whose outputs keep their invariants or in a clear ValueError /
TypeError from input validation; a failure is shrunk by hypothesis to a minimal case.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from benchmarks import _rel_estimators as rel

EXAMPLES = 200  # per estimator here (about 4 s each); the long campaign runs 5,000


@pytest.mark.parametrize("name", [n for n, _ in rel.estimators()])
def test_generated_inputs_fit_or_are_refused_clearly(name):
    cls = dict(rel.estimators())[name]
    kind, strategy = rel.strategy_for(cls)

    @settings(max_examples=EXAMPLES, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate, Phase.shrink],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def body(case):
        outcome, detail = rel.run_case(cls, kind, case)
        assert outcome != "failure", detail

    body()


def test_the_classifier_of_outcomes_tells_clear_from_raw_errors():
    """A ValueError raised inside kernelkit is clear; NumPy's TypeError from sorting mixed
    labels, or a LinAlgError, is not."""
    import numpy as np

    from kernelkit._validation import check_positive

    try:
        check_positive(-1.0, "alpha")
    except ValueError as exc:
        assert rel._clear(exc)
    try:
        np.unique(np.array([1, "a"], dtype=object))
    except TypeError as exc:
        assert not rel._clear(exc)
    try:
        np.linalg.cholesky(-np.eye(2))
    except np.linalg.LinAlgError as exc:
        assert not rel._clear(exc)
