"""NystromKernelRidge / solve_falkon against exact KRR, the dense Nystrom solution and plain CG."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from kernelkit import NystromKernelRidge
from kernelkit.kernels import RBF, resolve_kernel
from kernelkit.linalg import KernelOperator, pcg
from kernelkit.solvers import solve_falkon
from kernelkit.solvers.nystrom import FalkonPreconditioner
from tests.reference import falkon as ref

# the tests here run capped CG (small max_iter, tol=0) on purpose, to compare two paths
# step for step; the warning that says so is asserted where it is the subject
pytestmark = pytest.mark.filterwarnings(
    "ignore:NystromKernelRidge. conjugate gradients stopped at max_iter"
    ":sklearn.exceptions.ConvergenceWarning")


def _data(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, d))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("lam", [1e-3, 1e-5])
def test_all_points_as_centers_is_exact_krr(lam):
    # with M = n, Falkon solves (K^2 + lam n K) a = K y, i.e. a = (K + lam n I)^-1 y
    X, y = _data()
    n, gamma = len(X), 0.5
    model = NystromKernelRidge(n_centers=n, alpha=lam, gamma=gamma, tol=1e-12, max_iter=50,
                               random_state=0).fit(X, y)
    exact = SkKernelRidge(alpha=lam * n, kernel="rbf", gamma=gamma).fit(X, y)
    Xt = _data(100, seed=1)[0]
    np.testing.assert_allclose(model.predict(Xt), exact.predict(Xt), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(model.predict(X), exact.predict(X), rtol=1e-6, atol=1e-6)
    assert model.n_iter_ <= 5  # the preconditioner is H^-1 itself when M = n
    if lam == 1e-3:  # well conditioned: the coefficients themselves agree
        a = np.empty(n)
        a[model.center_indices_] = model.dual_coef_
        a_ref = ref.exact_krr_dual(ref.rbf(X, X, gamma), y, lam * n)
        np.testing.assert_allclose(a, a_ref, rtol=1e-6, atol=1e-6 * np.abs(a_ref).max())


def test_cg_past_its_rounding_floor_returns_the_best_iterate():
    from kernelkit.exceptions import ConvergenceWarning

    # 1-D RBF, M = n: the preconditioned residual bottoms out near 1e-8 within a few
    # iterations; asked for tol=1e-12, CG then wandered for 100 iterations and the last
    # iterate's predictions were off by 6e-5. The best iterate agrees with exact KRR.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=500)
    Xt = rng.normal(size=(50, 1))
    lam, n = 1e-4, 500
    with pytest.warns(ConvergenceWarning, match="stalled"):
        model = NystromKernelRidge(n_centers=n, alpha=lam, gamma=2.0, tol=1e-12, max_iter=100,
                                   solver="cg",
                                   random_state=0).fit(X, y)
    # it stops after 50 iterations without a new smallest residual
    assert not model.converged_ and model.n_iter_ == 50 + int(np.argmin(model.history_))
    assert model.history_[-1] > 10 * model.history_.min()  # it did wander
    exact = SkKernelRidge(alpha=lam * n, kernel="rbf", gamma=2.0).fit(X, y).predict(Xt)
    np.testing.assert_allclose(model.predict(Xt), exact, rtol=0,
                               atol=1e-6 * np.abs(exact).max())
    # solve_falkon: the returned iterate is the argmin of the history (after iteration 0)
    k = resolve_kernel("rbf", gamma=2.0)
    res = solve_falkon(KernelOperator(k, X, X), k(X), y, lam, max_iter=100, tol=1e-12)
    assert res.info["returned_iteration"] == 1 + int(np.argmin(res.history[1:]))
    # a converged solve returns its last iterate
    res = solve_falkon(KernelOperator(k, X, X), k(X), y, 1e-2, max_iter=100, tol=1e-6)
    assert res.converged and res.info["returned_iteration"] == res.n_iter


def test_all_points_as_centers_matches_kernelkit_kernel_ridge():
    kr = pytest.importorskip("kernelkit.kernel_ridge.kernel_ridge")
    X, y = _data(200)
    n = len(X)
    model = NystromKernelRidge(n_centers=n, alpha=1e-4, gamma=0.5, tol=1e-12,
                               max_iter=50).fit(X, y)
    exact = kr.KernelRidge(alpha=1e-4 * n, kernel="rbf", gamma=0.5).fit(X, y)
    np.testing.assert_allclose(model.predict(X), exact.predict(X), rtol=1e-6, atol=1e-6)


def test_falkon_equals_dense_nystrom_solution():
    X, y = _data(600)
    lam, gamma = 1e-4, 0.5
    model = NystromKernelRidge(n_centers=60, alpha=lam, gamma=gamma, tol=1e-12, max_iter=200,
                               random_state=3, solver="cg").fit(X, y)
    C = X[model.center_indices_]
    np.testing.assert_array_equal(model.centers_, C)
    a_ref = ref.nystrom_krr_dual(ref.rbf(X, C, gamma), ref.rbf(C, C, gamma), y, lam)
    Xt = _data(50, seed=2)[0]
    np.testing.assert_allclose(model.predict(Xt), ref.rbf(Xt, C, gamma) @ a_ref, rtol=1e-6,
                               atol=1e-6)
    assert model.converged_
    assert model.history_[0] == 1.0 and model.history_[-1] <= 1e-12
    assert len(model.history_) == model.n_iter_ + 1


def test_preconditioner_formula():
    # B = n^-1/2 T^-1 A^-1 (issue's formula), applied by triangular solves. The factors are
    # T^T T = K_MM + eps M I and A^T A = T T^T / M + lam I (upper), and sqrt(n) A T B v = v.
    rng = np.random.default_rng(0)
    C = rng.normal(size=(40, 2))
    Kmm, lam, n, eps = RBF(1.5)(C), 1e-3, 500, 1e-12
    P = FalkonPreconditioner(Kmm, lam, n, epsilon=eps)
    T, A = P.L_T.T, P.L_A.T
    assert np.allclose(T, np.triu(T)) and np.allclose(A, np.triu(A))
    np.testing.assert_allclose(T.T @ T, Kmm + eps * 40 * np.eye(40), atol=1e-13)
    np.testing.assert_allclose(A.T @ A, T @ T.T / 40 + lam * np.eye(40), atol=1e-13)
    V = rng.normal(size=(40, 3))
    np.testing.assert_allclose(np.sqrt(n) * A @ (T @ P.apply(V)), V, atol=1e-8)
    np.testing.assert_allclose(np.sqrt(n) * T.T @ (A.T @ P.apply_t(V)), V, atol=1e-8)
    # and with a well-conditioned K_MM, B itself (formed with inverses) agrees
    C = rng.normal(size=(8, 2)) * 3
    Kmm = RBF(1.0)(C)
    P = FalkonPreconditioner(Kmm, lam, n, epsilon=eps)
    B = ref.falkon_B(Kmm, lam, n, eps)
    np.testing.assert_allclose(P.apply(np.eye(8)), B, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(P.apply_t(np.eye(8)), B.T, rtol=1e-8, atol=1e-12)


def test_preconditioned_cg_needs_far_fewer_iterations_than_plain_cg():
    X, y = _data(1500, d=4)
    lam, gamma, M = 1e-6, 0.5, 150
    C = X[np.sort(np.random.default_rng(0).choice(len(X), M, replace=False))]
    k = resolve_kernel("rbf", gamma=gamma)
    Knm, Kmm = k(X, C), k(C)
    n = len(X)
    H = Knm.T @ Knm + lam * n * Kmm
    b = Knm.T @ y
    a_star = ref.nystrom_krr_dual(Knm, Kmm, y, lam)
    f_star = Knm @ a_star

    def iterations_to(err_of, target=1e-4, limit=3000):
        return next((i for i, e in enumerate(err_of, 1) if e <= target), limit)

    # the same system (1); error measured identically: relative error of the fitted values
    falkon_err = []
    solve_falkon(KernelOperator(k, X, C), Kmm, y, lam, max_iter=100, tol=1e-14,
                 callback=lambda it, a, r: falkon_err.append(
                     np.linalg.norm(Knm @ a - f_star) / np.linalg.norm(f_star)))
    plain_err = []
    pcg(H, b, tol=1e-14, max_iter=3000, callback=lambda it, a, r: plain_err.append(
        np.linalg.norm(Knm @ a - f_star) / np.linalg.norm(f_star)))
    it_falkon, it_plain = iterations_to(falkon_err), iterations_to(plain_err)
    assert it_falkon <= 50  # cond(B^T H B) ~ 100 here: lambda = 1e-6 is tiny for M = 150
    assert it_plain >= 10 * it_falkon, (it_falkon, it_plain)
    # the plain-CG reference agrees with our pcg without a preconditioner
    x5 = ref.plain_cg_iterates(H, b, 5)[-1]
    np.testing.assert_allclose(pcg(H, b, tol=0, max_iter=5).coef, x5, rtol=1e-6)


def test_fast_decaying_spectrum_still_converges_with_default_preconditioner_jitter():
    # 1-D RBF centers: K_MM is numerically singular far beyond 1e-16. With T =
    # chol(K_MM + eps M I) at eps = 2.2e-16, T^-1 amplified rounding and CG stalled at a 6e-2
    # residual (max training error 0.23); the float64 default eps = 1e-13 reaches 2e-4.
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(2000, 1))
    y = np.sin(X[:, 0])
    from kernelkit.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match="stalled"):  # tol = 1e-7 is below its floor
        model = NystromKernelRidge(n_centers=100, alpha=1e-8, gamma=0.5,
                                   random_state=0, solver="cg").fit(X, y)
    assert np.min(model.history_) < 1e-3
    assert np.abs(model.predict(X) - y).max() < 1e-2
    K = RBF(1.0)(X[:100])
    assert FalkonPreconditioner(K, 1e-8, 2000).jitter[0] >= 1e-13 * 100
    eps32 = float(np.finfo(np.float32).eps)  # float32 keeps its machine epsilon
    assert FalkonPreconditioner(K.astype(np.float32), 1e-8, 2000).jitter[0] >= eps32 * 100 * 0.999


def test_float32_stays_float32_and_matches_float64():
    X, y = _data(800)
    kw = dict(n_centers=80, alpha=1e-4, gamma=0.5, random_state=0, max_iter=30)
    m64 = NystromKernelRidge(**kw).fit(X, y)
    m32 = NystromKernelRidge(**kw).fit(X.astype(np.float32), y.astype(np.float32))
    assert m32.dual_coef_.dtype == np.float32 and m32.centers_.dtype == np.float32
    p32 = m32.predict(X.astype(np.float32))
    assert p32.dtype == np.float32
    np.testing.assert_allclose(p32, m64.predict(X), atol=2e-3 * np.abs(y).max())
    forced = NystromKernelRidge(dtype="float32", **kw).fit(X, y)
    assert forced.dual_coef_.dtype == np.float32


def test_multi_output_equals_separate_fits():
    X, y = _data(400)
    Y = np.column_stack([y, np.cos(X[:, 2])])
    kw = dict(n_centers=50, alpha=1e-4, gamma=0.5, random_state=0, tol=1e-12, max_iter=100)
    both = NystromKernelRidge(**kw).fit(X, Y)
    assert both.dual_coef_.shape == (50, 2) and both.predict(X).shape == (400, 2)
    for j in range(2):
        one = NystromKernelRidge(**kw).fit(X, Y[:, j])
        np.testing.assert_allclose(both.predict(X)[:, j], one.predict(X), rtol=1e-7, atol=1e-7)


def test_constructor_signature_is_the_issues():
    # NystromKernelRidge(n_centers=1000, alpha=1e-6, kernel="rbf", gamma=None,
    #   center_selection="uniform", max_iter, tol=1e-7, dtype=None, random_state=None),
    # in that order; the extras are keyword-only. Issue 22: max_iter=None iterates to tol
    import inspect

    params = list(inspect.signature(NystromKernelRidge).parameters.values())
    expected = dict(n_centers=1000, alpha=1e-6, kernel="rbf", gamma=None,
                    center_selection="uniform", max_iter=None, tol=1e-7, dtype=None,
                    random_state=None)
    head = params[:len(expected)]
    assert [p.name for p in head] == list(expected)
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in head)
    assert {p.name: p.default for p in head} == expected
    assert all(p.kind is p.KEYWORD_ONLY for p in params[len(expected):])
    model = NystromKernelRidge(20, 1e-4, "rbf", 0.5, "uniform", 30, 1e-9, None, 0)
    assert model.get_params()["random_state"] == 0 and model.get_params()["gamma"] == 0.5


def test_float32_recomputes_the_residual_periodically(monkeypatch):
    # the issue: float32 supported "with the residual recomputed periodically"
    from kernelkit.large_scale import nystrom_krr

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs["recompute_every"])
        return solve_falkon(*args, **kwargs)

    monkeypatch.setattr(nystrom_krr, "solve_falkon", spy)
    X, y = _data(300)
    NystromKernelRidge(n_centers=30, alpha=1e-4, max_iter=25, tol=0, solver="cg").fit(
        X.astype(np.float32), y.astype(np.float32))
    NystromKernelRidge(n_centers=30, alpha=1e-4, max_iter=25, tol=0, solver="cg").fit(X, y)
    assert seen[0] == 10 and seen[1] is None
    # a recomputed residual is b - A x itself: the recomputation agrees with the recurrence
    # in float64 and the solve is unchanged
    k = resolve_kernel("rbf", gamma=0.5)
    C = X[:30]
    a = solve_falkon(KernelOperator(k, X, C), k(C), y, 1e-4, max_iter=25, tol=0)
    b = solve_falkon(KernelOperator(k, X, C), k(C), y, 1e-4, max_iter=25, tol=0,
                     recompute_every=5)
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-6, atol=1e-6 * np.abs(a.coef).max())


def test_n_centers_larger_than_n_is_clamped_with_warning():
    X, y = _data(30)
    with pytest.warns(UserWarning, match="larger than the number of samples"):
        model = NystromKernelRidge(n_centers=100, alpha=1e-3).fit(X, y)
    assert model.n_centers_ == 30 and model.centers_.shape == (30, 3)


def test_blockwise_memory_never_holds_knm():
    X, y = _data(4000, d=3)
    M = 300
    model = NystromKernelRidge(n_centers=M, alpha=1e-4, gamma=0.5, working_memory=0.25,
                               max_iter=3, random_state=0)
    tracemalloc.start()
    model.fit(X, y)
    model.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    knm_bytes = len(X) * M * 8
    assert peak < knm_bytes / 2, (peak, knm_bytes)
    # blocked and unblocked products agree
    big = NystromKernelRidge(n_centers=M, alpha=1e-4, gamma=0.5, working_memory=512,
                             max_iter=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.predict(X), big.predict(X), rtol=1e-7, atol=1e-7)


def test_verbose_reports_progress(capsys):
    X, y = _data(200)
    NystromKernelRidge(n_centers=20, alpha=1e-3, verbose=1, max_iter=5, tol=0,
                       solver="cg").fit(X, y)
    assert "Falkon" in capsys.readouterr().err


def test_deterministic_centers_and_other_kernels():
    X, y = _data(300)
    a = NystromKernelRidge(n_centers=40, kernel="laplacian", random_state=0).fit(X, y)
    b = NystromKernelRidge(n_centers=40, kernel="laplacian", random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.center_indices_, b.center_indices_)
    np.testing.assert_allclose(a.predict(X), b.predict(X))
    assert a.score(X, y) > 0.8


@pytest.mark.parametrize("params, match", [
    (dict(alpha=0.0), "alpha"),
    (dict(n_centers=0), "n_centers"),
    (dict(max_iter=1.5), "max_iter"),
    (dict(center_selection="kmeans"), "center_selection"),
    (dict(dtype="int8"), "dtype"),
    (dict(kernel="precomputed"), "precomputed"),
])
def test_bad_parameters(params, match):
    X, y = _data(50)
    with pytest.raises(ValueError, match=match):
        NystromKernelRidge(**params).fit(X, y)


def test_dask_input_without_client_says_how_to_start_one():
    da = pytest.importorskip("dask.array")
    from distributed import get_client

    try:
        get_client()
        pytest.skip("a Client is running in this process")
    except ValueError:
        pass
    X, y = _data(100)
    Xd = da.from_array(X, chunks=(30, 3))
    with pytest.raises(ValueError, match=r"Client\(\)"):
        NystromKernelRidge(n_centers=10).fit(Xd, y)
    with pytest.raises(ValueError, match=r"Client\(\)"):
        NystromKernelRidge(n_centers=10).fit(X, da.from_array(y, chunks=30))
    model = NystromKernelRidge(n_centers=10).fit(X, y)  # numpy: no Client needed
    with pytest.raises(ValueError, match=r"no Client is running.*Client\(\)"):
        model.predict(Xd)
    with pytest.raises(ValueError, match=r"Client\(\)"):
        KernelOperator("rbf", Xd, X[:5])


def test_numpy_path_does_not_import_dask():
    code = (
        "import sys, numpy as np\n"
        "from kernelkit import NystromKernelRidge\n"
        "X = np.random.default_rng(0).normal(size=(50, 2))\n"
        "NystromKernelRidge(n_centers=10).fit(X, X[:, 0]).predict(X)\n"
        "assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules), 'dask'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_threaded_block_products_equal_dense(kernel):
    # KernelOperator forms large products on one Python thread per BLAS thread, one BLAS
    # thread each, and combines blocks in order (the path every Falkon pass takes)
    from threadpoolctl import threadpool_limits

    from kernelkit.linalg import blocks as op_module

    rng = np.random.default_rng(0)
    X, C = rng.normal(size=(3000, 4)), rng.normal(size=(100, 4))
    assert X.shape[0] * C.shape[0] >= op_module.PARALLEL_MIN_ENTRIES
    k = resolve_kernel(kernel, gamma=0.3)
    K = k(X, C)
    V, U = rng.normal(size=(100, 2)), rng.normal(size=(3000, 2))
    out = {}
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            op = KernelOperator(k, X, C, working_memory=0.5)
            out[threads] = (op @ V, op.t_matmul(U), op.normal_matmul(V, U))
    for a, b, ref_ in zip(out[1], out[2], (K @ V, K.T @ U, K.T @ (K @ V + U))):
        np.testing.assert_allclose(a, ref_, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(b, ref_, rtol=1e-10, atol=1e-10)


def test_default_iterates_to_tol_and_the_cap_warns():
    """Issue 22: at small alpha the old default (20 CG steps) stopped short in silence."""
    from kernelkit.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    n = 2000
    X = rng.uniform(-3, 3, size=(n, 2))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.1 * rng.normal(size=n)
    kw = dict(n_centers=200, alpha=1e-2 / n, gamma=1.0, random_state=0, solver="cg")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = NystromKernelRidge(**kw).fit(X, y)
    assert model.converged_ and model.history_[-1] <= model.tol and model.n_iter_ > 20
    tight = NystromKernelRidge(tol=1e-12, max_iter=5000, **kw).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_iter=20"):
        short = NystromKernelRidge(max_iter=20, **kw).fit(X, y)
    assert not short.converged_
    err = np.abs(model.predict(X) - tight.predict(X)).max()
    assert err < 1e-4 < np.abs(short.predict(X) - tight.predict(X)).max()


def test_cholesky_equals_converged_cg_and_the_dense_reference():
    # issue 35, point 5: the exact path solves (K_nM^T K_nM + lambda n K_MM) a = K_nM^T y by
    # one factorization; on a well-conditioned problem it is CG converged at a tight tol,
    # and the dense NumPy solution of tests/reference, to 1e-8
    X, y = _data(900)
    lam, gamma = 1e-3, 0.5
    kw = dict(n_centers=60, alpha=lam, gamma=gamma, random_state=1, working_memory=0.05)
    exact = NystromKernelRidge(solver="cholesky", **kw).fit(X, y)  # blocks of 64 rows
    cg = NystromKernelRidge(solver="cg", tol=1e-14, max_iter=500, **kw).fit(X, y)
    assert exact.solver_ == "cholesky" and exact.n_iter_ == 1 and exact.converged_
    C = X[exact.center_indices_]
    a_ref = ref.nystrom_krr_dual(ref.rbf(X, C, gamma), ref.rbf(C, C, gamma), y, lam)
    scale = np.abs(a_ref).max()
    np.testing.assert_allclose(exact.dual_coef_, a_ref, rtol=1e-8, atol=1e-8 * scale)
    np.testing.assert_allclose(exact.dual_coef_, cg.dual_coef_, rtol=1e-8, atol=1e-8 * scale)
    # multi-output and float32 (the normal matrix in float64, the coefficients stored float32)
    both = NystromKernelRidge(solver="cholesky", **kw).fit(X, np.column_stack([y, 2 * y]))
    np.testing.assert_allclose(both.dual_coef_[:, 1], 2 * exact.dual_coef_, rtol=1e-10,
                               atol=1e-10 * scale)
    f32 = NystromKernelRidge(solver="cholesky", **kw).fit(X.astype(np.float32), y)
    assert f32.dual_coef_.dtype == np.float32
    np.testing.assert_allclose(f32.predict(X), exact.predict(X), atol=1e-3)


def test_auto_picks_cholesky_when_cheaper_as_documented():
    from kernelkit.solvers.nystrom import choose_nystrom_solver, expected_cg_iterations

    X, y = _data(900)
    kw = dict(n_centers=60, alpha=1e-3, gamma=0.5, random_state=1)
    assert NystromKernelRidge(**kw).fit(X, y).solver_ == "cholesky"
    # capped CG is cheaper than forming the 60 x 60 normal matrix: 1 pass < 60 + f entries
    assert NystromKernelRidge(max_iter=1, **kw).fit(X, y).solver_ == "cg"
    # the rule: exact = n M (f + M) + M^3 / 3 against k n M p (+ n M f once or per pass)
    n, M, d = 12_000, 2_000, 8
    assert expected_cg_iterations(1e-7, 1000) == 51
    assert choose_nystrom_solver("auto", n, M, d, keep=True, tol=1e-7,
                                 max_iter=1000) == "cholesky"
    # a loose tol expects fewer passes: 3 ln(2 / 0.01) -> 16 passes of 50 < M = 2000
    assert choose_nystrom_solver("auto", n, M, d, keep=True, tol=1e-2, max_iter=1000) == "cg"
    # the 1M-row benchmark (M = 5,000, d = 16, 20 iterations, K_nM formed per pass): CG
    assert choose_nystrom_solver("auto", 10**6, 5000, 16, keep=False, tol=1e-7,
                                 max_iter=20) == "cg"
    # the M x M matrices must fit in working memory (3 x 2000^2 x 8 bytes = 92 MiB)
    assert choose_nystrom_solver("auto", n, M, d, keep=True, tol=1e-7, max_iter=1000,
                                 working_memory=64) == "cg"
    assert choose_nystrom_solver("cholesky", 10**6, 5000, 16, keep=False, tol=1e-7,
                                 max_iter=20) == "cholesky"
    with pytest.raises(ValueError, match="solver must be one of"):
        choose_nystrom_solver("lbfgs", n, M, d, keep=True, tol=1e-7, max_iter=20)


def test_cholesky_of_a_near_singular_system_warns_its_jitter():
    # 1-D RBF centers, alpha = 1e-10: H is singular to rounding; the jitter is named
    from kernelkit.exceptions import JitterWarning

    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(2000, 1))
    y = np.sin(X[:, 0])
    with pytest.warns(JitterWarning, match="Nystrom normal matrix.*solver='cg'"):
        model = NystromKernelRidge(n_centers=100, alpha=1e-10, gamma=0.5, random_state=0,
                                   solver="cholesky").fit(X, y)
    assert np.abs(model.predict(X) - y).max() < 1e-2


def test_auto_solves_by_cg_where_the_exact_path_would_need_jitter():
    # duplicated centers make K_MM singular and, with a tiny alpha, H = K_nM^T K_nM +
    # alpha n K_MM is not numerically positive definite: 'cholesky' adds jitter and warns,
    # 'auto' solves by CG instead (no JitterWarning for a default fit)
    from kernelkit.exceptions import ConvergenceWarning, JitterWarning

    X, y = _data(300)
    X = np.vstack([X, X[:40]])
    y = np.concatenate([y, y[:40]])
    kw = dict(n_centers=340, alpha=1e-12, gamma=0.5, random_state=0)
    with pytest.warns(JitterWarning):
        NystromKernelRidge(solver="cholesky", **kw).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitterWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        auto = NystromKernelRidge(**kw).fit(X, y)
    assert auto.solver_ == "cg"
    cg = NystromKernelRidge(solver="cg", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cg.fit(X, y)
    np.testing.assert_array_equal(auto.predict(X), cg.predict(X))
