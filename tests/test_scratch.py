"""kernelkit._core.scratch: an objective's evaluations reuse their scratch matrices."""

import threading

import numpy as np

from kernelkit._core.scratch import Arena, scratch_empty


def test_the_ith_request_gets_the_previous_evaluations_ith_buffer():
    arena = Arena()
    with arena.evaluation():
        first = [scratch_empty((3, 3)), scratch_empty((2,), np.float32)]
    with arena.evaluation():
        again = [scratch_empty((3, 3)), scratch_empty((2,), np.float32)]
    assert all(a is b for a, b in zip(first, again))
    with arena.evaluation():  # another shape in a slot: a new buffer there
        other = scratch_empty((4, 4))
    assert other.shape == (4, 4) and other is not first[0]


def test_outside_an_evaluation_and_on_other_threads_arrays_are_new():
    arena = Arena()
    with arena.evaluation():
        mine = scratch_empty((2, 2))
        seen = []
        t = threading.Thread(target=lambda: seen.append(scratch_empty((2, 2))))
        t.start()
        t.join()
    assert seen[0] is not mine
    assert scratch_empty((2, 2)) is not mine


def test_gp_optimum_is_the_same_with_reused_scratch_matrices():
    """The GP optimizer's evaluations run in an arena: the result equals a fit whose
    evaluations each allocate afresh (the arena swapped for one that never reuses)."""
    from kernelkit import GaussianProcessRegressor
    from kernelkit.gaussian_process import gpr
    from kernelkit.kernels import RBF, Constant, ExpSineSquared, White

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 5, (60, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(60)
    kernel = Constant(1.0) * RBF(1.0) * ExpSineSquared(1.0, 3.0) + White(0.1)
    reused = GaussianProcessRegressor(kernel).fit(X, y)

    class Fresh(Arena):
        def take(self, shape, dtype):
            return np.full(shape, np.nan, dtype)  # never reused; NaN if read unwritten

    original = gpr.Arena
    gpr.Arena = Fresh
    try:
        fresh = GaussianProcessRegressor(kernel).fit(X, y)
    finally:
        gpr.Arena = original
    np.testing.assert_array_equal(reused.kernel_.theta, fresh.kernel_.theta)
    assert reused.log_marginal_likelihood_value_ == fresh.log_marginal_likelihood_value_
