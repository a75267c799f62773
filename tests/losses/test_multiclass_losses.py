"""Multiclass losses: values, subgradients, conjugates, Fenchel-Young, exact block steps."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.losses import CrammerSinger, WestonWatkins, resolve_loss
from kernelkit.losses.multiclass import project_sum_zero
from tests.reference.multiclass import block_qp, conjugate_lp, loss_value

LOSSES = [CrammerSinger(), WestonWatkins()]
IDS = ["crammer_singer", "weston_watkins"]


def _feasible_s(rng, y, k, loss):
    """A random point of the conjugate domain (box intersected with sum s = 0)."""
    if loss.name == "crammer_singer":
        mu = rng.dirichlet(np.ones(k) * rng.uniform(0.2, 2))  # s + e_y in the simplex
        s = mu.copy()
        s[y] -= 1.0
        return s
    s = rng.uniform(0, 1, size=k) * (rng.uniform(size=k) < 0.7)  # some exact zeros
    s[y] = 0.0
    s[y] = -s.sum()
    return s


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_value_matches_loop_definition(loss):
    rng = np.random.default_rng(0)
    F = rng.normal(size=(50, 5)) * 2
    y = rng.integers(5, size=50)
    expect = [loss_value(y[i], F[i], loss.name) for i in range(50)]
    np.testing.assert_allclose(loss.value(y, F), expect, atol=1e-14)
    assert resolve_loss(loss.name) == loss and loss.is_multiclass


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_subgradient_inequality(loss):
    # l(G) >= l(F) + <dl(F), G - F> for every G
    rng = np.random.default_rng(1)
    for _ in range(30):
        k = rng.integers(2, 6)
        y = rng.integers(k)
        F, G = rng.normal(size=(2, k)) * 2
        g = loss.derivative(y, F)[0]
        assert loss.value(y, G)[0] >= loss.value(y, F)[0] + g @ (G - F) - 1e-12


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_fenchel_young(loss):
    # l(F) + l*(s) >= <s, F>, with equality at s = dl(F) (the subgradient is in the domain)
    rng = np.random.default_rng(2)
    for _ in range(50):
        k = rng.integers(2, 7)
        y = rng.integers(k)
        F = rng.normal(size=k) * 2
        s = _feasible_s(rng, y, k, loss)
        assert np.isfinite(loss.conjugate(y, s)[0])
        assert loss.value(y, F)[0] + loss.conjugate(y, s)[0] >= s @ F - 1e-12
        g = loss.derivative(y, F)[0]
        np.testing.assert_allclose(loss.value(y, F)[0] + loss.conjugate(y, g)[0], g @ F,
                                   atol=1e-12)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_conjugate_matches_numerical_maximisation(loss):
    rng = np.random.default_rng(3)
    for _ in range(15):
        k = rng.integers(2, 6)
        y = rng.integers(k)
        s = _feasible_s(rng, y, k, loss)
        np.testing.assert_allclose(loss.conjugate(y, s)[0], conjugate_lp(y, s, loss.name),
                                   atol=1e-8)
    # outside the domain the supremum is +inf (the LP is unbounded)
    for s, y in [(np.array([0.3, -0.1, 0.0]), 0),  # sum != 0
                 (np.array([0.5, -1.0, 0.5]), 2),  # s_r < 0 for a rival r
                 (np.array([-2.0, 1.5, 0.5]), 0)]:  # CS: s_y < -1; WW: s_1 > 1
        assert np.isinf(loss.conjugate(y, s)[0])
        assert np.isinf(conjugate_lp(y, s, loss.name))


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_dual_step_is_the_exact_block_qp(loss):
    # the closed-form block step equals a generic QP solve on random blocks
    rng = np.random.default_rng(4)
    for _ in range(60):
        k = rng.integers(2, 8)
        y = rng.integers(k)
        C = rng.uniform(0.1, 3.0)
        q = rng.uniform(0.2, 2.0)
        a = -C * _feasible_s(rng, y, k, loss)  # a feasible current block
        g = rng.normal(size=k) * rng.uniform(0.1, 3)
        b = loss.dual_step(y, a, g, q, C)
        lo, hi = loss.dual_box(y, C, n_classes=k)
        v = a + (np.eye(k)[y] - g) / q  # the step is the projection of v onto the block set
        np.testing.assert_allclose(b, block_qp(v, lo[0], hi[0]), atol=1e-7)
        assert abs(b.sum()) < 1e-12 and np.all(b >= lo[0] - 1e-12) and np.all(b <= hi[0] + 1e-12)
        # and it maximises the block objective b_y - <b - a, g> - q/2 ||b - a||^2
        gain = b[y] - a[y] - (b - a) @ g - 0.5 * q * np.sum((b - a) ** 2)
        assert gain >= -1e-12


def test_generic_projection_with_mixed_bounds():
    rng = np.random.default_rng(5)
    for _ in range(60):
        k = rng.integers(2, 8)
        lo = np.where(rng.uniform(size=k) < 0.3, -np.inf, -rng.uniform(0, 2, size=k))
        hi = np.where(rng.uniform(size=k) < 0.3, np.inf, rng.uniform(0, 2, size=k))
        v = rng.normal(size=k) * 2
        out = np.empty(k)
        project_sum_zero(v, lo, hi, out)
        np.testing.assert_allclose(out, block_qp(v, lo, hi), atol=1e-7)


def test_shapes_and_rows():
    F = np.array([[1.0, 0.5, -2.0], [0.0, 0.0, 0.0]])
    assert CrammerSinger().value([0, 1], F).tolist() == [0.5, 1.0]
    assert WestonWatkins().value([0, 1], F).tolist() == [0.5, 2.0]
    assert CrammerSinger().value(0, F[0]).shape == (1,)
    assert WestonWatkins().derivative([0, 1], F).shape == (2, 3)


def test_weston_watkins_step_from_any_start_equals_the_sorted_projection():
    # the root search starts at the theta that keeps the block's a_y (the solver passes the
    # current alpha_{i y}); wherever that lies, inside or outside the bracket of the root,
    # the step is the projection
    from kernelkit.losses.multiclass import weston_watkins_block

    rng = np.random.default_rng(12)
    for trial in range(3000):
        k = int(rng.integers(2, 30))
        y = int(rng.integers(k))
        c = float(rng.choice([0.0, 1e-3, 1.0, 10.0]) * rng.uniform(0.5, 1.5))
        v = rng.normal(size=k) * rng.choice([1e-3, 1.0, 100.0])
        if trial % 7 == 0:
            v = np.round(v)
        lo = np.where(np.arange(k) == y, -np.inf, -c)
        hi = np.where(np.arange(k) == y, np.inf, 0.0)
        ref = np.empty(k)
        project_sum_zero(v, lo, hi, ref)
        scale = max(1.0, np.abs(v).max(), c)
        for ay in (ref[y], ref[y] * rng.uniform(0.5, 1.5), -3.0 * c, 1e300, 0.0):
            out = np.empty(k)
            weston_watkins_block(v, y, c, out, ay)
            np.testing.assert_allclose(out, ref, rtol=0, atol=1e-10 * scale)
            assert abs(out.sum()) <= 1e-12 * scale * k


def test_newton_block_steps_equal_the_sorted_projection():
    # the Crammer-Singer and Weston-Watkins steps (Newton on the piecewise-linear root)
    # against the generic sort of every kink, with ties, C = 0 and every rival at a bound
    from kernelkit.losses.multiclass import crammer_singer_block, weston_watkins_block

    rng = np.random.default_rng(11)
    for trial in range(3000):
        k = int(rng.integers(2, 30))
        y = int(rng.integers(k))
        c = float(rng.choice([0.0, 1e-3, 1.0, 10.0, 1e4]) * rng.uniform(0.5, 1.5))
        v = rng.normal(size=k) * rng.choice([1e-3, 1.0, 100.0])
        if trial % 7 == 0:
            v = np.round(v)  # ties between kinks
        if trial % 11 == 0:
            v[:] = v[y] - 2 * c
            v[y] += rng.normal()
        boxes = {crammer_singer_block: (np.full(k, -np.inf), np.where(np.arange(k) == y, c, 0.0)),
                 weston_watkins_block: (np.where(np.arange(k) == y, -np.inf, -c),
                                        np.where(np.arange(k) == y, np.inf, 0.0))}
        for step, (lo, hi) in boxes.items():
            ref = np.empty(k)
            project_sum_zero(v, lo, hi, ref)
            out = np.empty(k)
            step(v, y, c, out)
            scale = max(1.0, np.abs(v).max(), c)  # the size of the numbers summed
            np.testing.assert_allclose(out, ref, rtol=0, atol=1e-10 * scale)
            assert abs(out.sum()) <= 1e-12 * scale * k
            assert np.all(out >= lo - 1e-12 * scale) and np.all(out <= hi + 1e-12 * scale)
