"""DualProblem carries one typed kernel-rows object; each method asks it for its form."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.linalg import KernelRows, as_kernel_rows
from kernelkit.losses import CrammerSinger, Hinge, Logistic
from kernelkit.solvers.dual import DualProblem, solve_dual
from kernelkit.solvers.multiclass_cd import multiclass_dual_objective


def _data(n=60):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 2))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


def test_a_matrix_becomes_kernel_rows():
    X, y = _data()
    K = RBF(1.0)(X)
    problem = DualProblem(K, y, Hinge(), 1.0)
    assert isinstance(problem.rows, KernelRows) and problem.rows.mode == "dense"
    with pytest.raises(ValueError, match="square"):
        DualProblem(K[:, :5], y, Hinge(), 1.0)


@pytest.mark.parametrize("loss, kw", [(Hinge(), dict(fit_intercept=True)),
                                      (Hinge(), {}),
                                      (Logistic(), dict(fit_intercept=True))])
def test_rows_from_a_kernel_solve_as_the_matrix(loss, kw):
    # the same problem given as K or as rows formed from (kernel, X): the same optimum,
    # whichever form its method reads (the view for SMO / dual CD, the operator for Newton)
    X, y = _data()
    K = RBF(1.0)(X)
    a = solve_dual(DualProblem(K, y, loss, 0.5, **kw), tol=1e-10, random_state=0)
    b = solve_dual(DualProblem(as_kernel_rows(RBF(1.0), X, dtype=np.float64), y, loss, 0.5,
                               **kw), tol=1e-10, random_state=0)
    assert a.info["method"] == b.info["method"]
    np.testing.assert_allclose(a.coef, b.coef, atol=1e-6)
    assert a.info["intercept"] == pytest.approx(b.info["intercept"], abs=1e-6)


def test_multiclass_reads_the_whole_matrix_of_the_rows():
    X, y = _data()
    labels = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0)
    K = RBF(1.0)(X)
    a = solve_dual(DualProblem(K, labels, CrammerSinger(), 1.0, n_classes=3), tol=1e-8)
    rows = KernelRows(RBF(1.0), X, dense=True, dtype=np.float64)
    b = solve_dual(DualProblem(rows, labels, CrammerSinger(), 1.0, n_classes=3), tol=1e-8)
    # the dual's maximiser need not be unique: its value is (K equal to rounding)
    Da, Db = (multiclass_dual_objective(K, labels, r.coef) for r in (a, b))
    assert a.converged and b.converged
    assert Db == pytest.approx(Da, rel=1e-6)
