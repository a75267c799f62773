"""The solver contract: every method of ``solve_dual`` (discovered from its method table)
and Falkon, on a small problem, against a naive reference solution in tests/reference,
returning a ``Result`` and calling its callback as ``callback(n_iter, coef, measure)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit._core.result import Result
from kernelkit.kernels import RBF
from kernelkit.linalg import KernelOperator, KernelRows
from kernelkit.losses import CrammerSinger, Hinge, Logistic, Squared
from kernelkit.solvers import solve_falkon
from kernelkit.solvers.dual import METHODS, DualProblem, solve_dual
from tests.reference.dual_solvers import (
    dual_box_reference,
    dual_objective,
    libsvm_reference,
    primal_reference,
)
from tests.reference.falkon import exact_krr_dual
from tests.reference.multiclass import multiclass_dual


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, RBF(1.0)(X), y


def _primal(loss, K, y, a, b, C):
    f = K @ a + b
    return 0.5 * a @ K @ a + C * np.sum(loss.value(y, f))


def _smo_case():
    X, K, y = _data()
    C = 0.5
    problem = DualProblem(KernelRows(RBF(1.0), X), y, Hinge(), C, fit_intercept=True)

    def check(res):
        # libsvm's QP of the hinge loss, solved by SLSQP: the same optimal objective
        form = Hinge().libsvm_form(y, C)
        ref = libsvm_reference(K, form["p"], form["ys"], form["lower"], form["upper"],
                               form["idx"])
        idx, ys = form["idx"], form["ys"]
        Q = ys[:, None] * ys[None, :] * K[np.ix_(idx, idx)]
        ref_obj = 0.5 * ref @ Q @ ref + form["p"] @ ref
        assert res.info["objective"] == pytest.approx(ref_obj, rel=1e-5, abs=1e-7)
        assert abs(np.sum(res.coef)) < 1e-8  # sum_i a_i = 0 (the intercept's constraint)

    return problem, dict(tol=1e-6), check


def _dual_cd_case():
    X, K, y = _data()
    C = 0.5
    problem = DualProblem(K, y, Hinge(), C)

    def check(res):
        ref = dual_box_reference(Hinge(), K, y, C)
        ours, theirs = dual_objective(Hinge(), K, y, res.coef, C), \
            dual_objective(Hinge(), K, y, ref, C)
        assert ours == pytest.approx(theirs, abs=1e-6 * max(1.0, abs(theirs)))

    return problem, dict(tol=1e-10), check


def _newton_case():
    X, K, y = _data()
    C = 0.5
    problem = DualProblem(K, y, Logistic(), C, fit_intercept=True)

    def check(res):
        _, b_ref, P_ref = primal_reference(Logistic(), K, y, C, fit_intercept=True)
        P = _primal(Logistic(), K, y, res.coef, res.info["intercept"], C)
        assert P == pytest.approx(P_ref, rel=1e-7)
        assert res.info["intercept"] == pytest.approx(b_ref, abs=1e-4)

    return problem, dict(), check


def _multiclass_case():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0)
    K = RBF(1.0)(X)
    C = 1.0
    problem = DualProblem(K, y, CrammerSinger(), C, n_classes=3)

    def check(res):
        A_ref, D_ref = multiclass_dual(K, y, 3, C, "crammer_singer")
        D = float(np.sum(res.coef[np.arange(len(y)), y])
                  - 0.5 * np.sum(res.coef * (K @ res.coef)))
        assert D == pytest.approx(D_ref, rel=1e-4, abs=1e-6)

    return problem, dict(tol=1e-8), check


CASES = {"smo": _smo_case, "dual_cd": _dual_cd_case, "newton": _newton_case,
         "multiclass_cd": _multiclass_case}


def test_every_method_has_a_case():
    assert set(METHODS) - {"auto"} == set(CASES)


@pytest.mark.parametrize("method", sorted(set(METHODS) - {"auto"}))
def test_solve_dual_against_reference_with_callback(method):
    problem, options, check = CASES[method]()
    calls = []
    res = solve_dual(problem, method=method,
                     callback=lambda it, coef, measure: calls.append((it, measure)), **options)
    assert isinstance(res, Result) and res.converged and res.info["method"] == method
    assert calls and all(np.isfinite(m) for _, m in calls)
    check(res)
    # "auto" chooses this method for this problem
    assert solve_dual(problem, **options).info["method"] == method


def test_falkon_with_all_centers_is_exact_krr_with_callback():
    X, K, _ = _data(n=60)
    yr = np.sin(X[:, 0])
    lam = 1e-3
    calls = []
    res = solve_falkon(KernelOperator(RBF(1.0), X, X), K, yr, lam, max_iter=100, tol=1e-12,
                       callback=lambda it, coef, measure: calls.append(measure))
    assert isinstance(res, Result) and calls
    # the fitted values of exact KRR, (K + lambda n I)^-1 y mapped by K
    np.testing.assert_allclose(K @ res.coef, K @ exact_krr_dual(K, yr, lam * len(yr)),
                               atol=1e-6)


def test_squared_loss_dual_is_ridge():
    _, K, y = _data()
    res = solve_dual(DualProblem(K, y, Squared(), 0.8), tol=1e-13, max_iter=100_000)
    np.testing.assert_allclose(res.coef, np.linalg.solve(K + np.eye(len(y)) / 1.6, y),
                               atol=1e-6)
