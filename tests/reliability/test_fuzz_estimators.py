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

    from kernelkit._core.validation import check_positive

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


def _raised_in(filename: str) -> TypeError:
    """A TypeError whose traceback's last frame is the file ``filename``."""
    try:
        exec(compile("raise TypeError('raised here')", filename, "exec"), {})
    except TypeError as exc:
        return exc
    raise AssertionError("not raised")


def test_ours_is_decided_by_the_package_location_not_a_folder_name():
    """A clone into a folder named ``kernelkit`` keeps NumPy in ``kernelkit/.venv``: NumPy's
    TypeError raised there is still raw, and only the imported package's files are ours."""
    import os

    import numpy as np

    import kernelkit

    numpy_rel = os.path.relpath(np.lib.__file__, os.path.dirname(os.path.dirname(np.__file__)))
    checkout = os.path.join(os.sep, "somewhere", "kernelkit")
    in_venv = os.path.join(checkout, ".venv", "lib", "python3.11", "site-packages", numpy_rel)
    assert not rel._clear(_raised_in(in_venv))
    assert not rel._clear(_raised_in(os.path.join(checkout, "src", "kernelkit", "io.py")))
    ours = os.path.join(os.path.dirname(kernelkit.__file__), "_validation.py")
    assert rel._clear(_raised_in(ours))
    # the same decision when the package itself lives under a folder named kernelkit
    package = os.path.join(checkout, "src", "kernelkit", "")
    assert rel._from_clear_source(os.path.join(package, "io.py"), (package,))
    assert not rel._from_clear_source(in_venv, (package,))
